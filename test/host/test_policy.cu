// Policy composition (no GPU needed): modifiers compose in any order into the same type,
// the stream is data, tuning and flags are part of the type.
#include <tally/policy.cuh>
#include <tally/detail/runtime/scratch.cuh>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace {

// A stream handle is only stored and compared here, never used: any bit pattern will do.
cudaStream_t fake_stream(std::uintptr_t bits) { return reinterpret_cast<cudaStream_t>(bits); }

template <class A, class B>
inline constexpr bool same_v = std::is_same_v<std::remove_cv_t<A>, std::remove_cv_t<B>>;

using par_t = std::remove_cv_t<decltype(tally::par)>;

}  // namespace

TEST_CASE("policy: tally::par is the automatic backend on the default stream, untuned, no flags") {
  static_assert(tally::is_device_policy_v<decltype(tally::par)>);
  static_assert(same_v<par_t::backend_type, tally::backend::automatic_t>);
  static_assert(par_t::threads == 0 && par_t::items_per_thread == 0);
  static_assert(!par_t::is_deterministic);
  static_assert(!par_t::is_unordered);
  CHECK(tally::par.stream() == cudaStream_t{});
}

TEST_CASE("policy: with() selects the backend tag type") {
  using atomic_p = decltype(tally::par.with(tally::backend::atomic));
  using shared_p = decltype(tally::par.with(tally::backend::shared_memory));
  using warp_p = decltype(tally::par.with(tally::backend::warp_shuffle));
  using auto_p = decltype(tally::par.with(tally::backend::automatic));
  static_assert(same_v<atomic_p::backend_type, tally::backend::atomic_t>);
  static_assert(same_v<shared_p::backend_type, tally::backend::shared_memory_t>);
  static_assert(same_v<warp_p::backend_type, tally::backend::warp_shuffle_t>);
  static_assert(same_v<auto_p::backend_type, tally::backend::automatic_t>);
  static_assert(same_v<decltype(tally::backend::atomic), const tally::backend::atomic_t>);
  static_assert(same_v<decltype(tally::backend::shared_memory), const tally::backend::shared_memory_t>);
  static_assert(same_v<decltype(tally::backend::warp_shuffle), const tally::backend::warp_shuffle_t>);
  static_assert(same_v<decltype(tally::backend::automatic), const tally::backend::automatic_t>);
  // The backend is part of the type: different backends are different policy types.
  static_assert(!same_v<atomic_p, shared_p> && !same_v<shared_p, warp_p> && !same_v<warp_p, atomic_p>);
  // Forcing the automatic backend is the default policy.
  static_assert(same_v<auto_p, par_t>);
  // Nothing else changes.
  static_assert(atomic_p::threads == 0 && atomic_p::items_per_thread == 0);
  static_assert(!atomic_p::is_deterministic && !atomic_p::is_unordered);
}

TEST_CASE("policy: backend ids and names") {
  static_assert(tally::backend::automatic_t::id == tally::backend_id::automatic);
  static_assert(tally::backend::atomic_t::id == tally::backend_id::atomic);
  static_assert(tally::backend::shared_memory_t::id == tally::backend_id::shared_memory);
  static_assert(tally::backend::warp_shuffle_t::id == tally::backend_id::warp_shuffle);
  CHECK(std::string(tally::backend_name(tally::backend_id::automatic)) == "automatic");
  CHECK(std::string(tally::backend_name(tally::backend_id::atomic)) == "atomic");
  CHECK(std::string(tally::backend_name(tally::backend_id::shared_memory)) == "shared_memory");
  CHECK(std::string(tally::backend_name(tally::backend_id::warp_shuffle)) == "warp_shuffle");
  CHECK(std::string(tally::backend_name(tally::backend_id::host)) == "host");
  CHECK(std::string(tally::backend_name(decltype(tally::par)::backend_type::id)) == "automatic");
}

TEST_CASE("policy: tune<> values are visible as P::threads and P::items_per_thread") {
  using p256 = decltype(tally::par.tune<256, 16>());
  static_assert(p256::threads == 256 && p256::items_per_thread == 16);
  using p128 = decltype(tally::par.with(tally::backend::warp_shuffle).tune<128, 8>());
  static_assert(p128::threads == 128 && p128::items_per_thread == 8);
  static_assert(same_v<p128::backend_type, tally::backend::warp_shuffle_t>);
  using p1024 = decltype(tally::par.tune<1024, 1>());
  static_assert(p1024::threads == 1024 && p1024::items_per_thread == 1);
  using p32 = decltype(tally::par.tune<32, 64>());
  static_assert(p32::threads == 32 && p32::items_per_thread == 64);
  // Tuning is part of the type.
  static_assert(!same_v<p256, par_t>);
  static_assert(!same_v<decltype(tally::par.tune<256, 16>()), decltype(tally::par.tune<256, 8>())>);
  // tune() keeps the backend as automatic and the flags unset.
  static_assert(same_v<p256::backend_type, tally::backend::automatic_t>);
  static_assert(!p256::is_deterministic && !p256::is_unordered);
  // Policies are constexpr values.
  constexpr auto p = tally::par.tune<512, 4>();
  static_assert(decltype(p)::threads == 512 && decltype(p)::items_per_thread == 4);
  CHECK(p.stream() == cudaStream_t{});
}

TEST_CASE("policy: deterministic() and unordered() flags") {
  using det = decltype(tally::par.deterministic());
  using uno = decltype(tally::par.unordered());
  using both = decltype(tally::par.deterministic().unordered());
  static_assert(det::is_deterministic && !det::is_unordered);
  static_assert(!uno::is_deterministic && uno::is_unordered);
  static_assert(both::is_deterministic && both::is_unordered);
  static_assert(same_v<both, decltype(tally::par.unordered().deterministic())>);
  // Setting a flag twice is the same as setting it once.
  static_assert(same_v<det, decltype(tally::par.deterministic().deterministic())>);
  static_assert(same_v<uno, decltype(tally::par.unordered().unordered())>);
  // The flags are part of the type and leave the backend and tuning alone.
  static_assert(!same_v<det, par_t> && !same_v<uno, par_t> && !same_v<det, uno>);
  static_assert(same_v<det::backend_type, tally::backend::automatic_t>);
  static_assert(det::threads == 0 && det::items_per_thread == 0);
  using det_warp = decltype(tally::par.with(tally::backend::warp_shuffle).tune<64, 2>().deterministic());
  static_assert(det_warp::is_deterministic && !det_warp::is_unordered);
  static_assert(same_v<det_warp::backend_type, tally::backend::warp_shuffle_t>);
  static_assert(det_warp::threads == 64 && det_warp::items_per_thread == 2);
}

TEST_CASE("policy: modifiers in any order give the same type") {
  const cudaStream_t s = fake_stream(0x1234);
  const auto ws = tally::backend::warp_shuffle;

  // All 24 orders of with / tune / deterministic / unordered.
  using expected = decltype(tally::par.with(ws).tune<128, 8>().deterministic().unordered());
  static_assert(same_v<expected, decltype(tally::par.with(ws).tune<128, 8>().unordered().deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.with(ws).deterministic().tune<128, 8>().unordered())>);
  static_assert(same_v<expected, decltype(tally::par.with(ws).deterministic().unordered().tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.with(ws).unordered().tune<128, 8>().deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.with(ws).unordered().deterministic().tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().with(ws).deterministic().unordered())>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().with(ws).unordered().deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().deterministic().with(ws).unordered())>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().deterministic().unordered().with(ws))>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().unordered().with(ws).deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.tune<128, 8>().unordered().deterministic().with(ws))>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().with(ws).tune<128, 8>().unordered())>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().with(ws).unordered().tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().tune<128, 8>().with(ws).unordered())>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().tune<128, 8>().unordered().with(ws))>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().unordered().with(ws).tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.deterministic().unordered().tune<128, 8>().with(ws))>);
  static_assert(same_v<expected, decltype(tally::par.unordered().with(ws).tune<128, 8>().deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.unordered().with(ws).deterministic().tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.unordered().tune<128, 8>().with(ws).deterministic())>);
  static_assert(same_v<expected, decltype(tally::par.unordered().tune<128, 8>().deterministic().with(ws))>);
  static_assert(same_v<expected, decltype(tally::par.unordered().deterministic().with(ws).tune<128, 8>())>);
  static_assert(same_v<expected, decltype(tally::par.unordered().deterministic().tune<128, 8>().with(ws))>);
  static_assert(expected::threads == 128 && expected::items_per_thread == 8);
  static_assert(expected::is_deterministic && expected::is_unordered);
  static_assert(same_v<expected::backend_type, tally::backend::warp_shuffle_t>);

  // on() anywhere in the chain: the same type, and the stream survives every later modifier.
  const auto a = tally::par.on(s).with(ws).tune<128, 8>().deterministic().unordered();
  const auto b = tally::par.with(ws).on(s).tune<128, 8>().unordered().deterministic();
  const auto c = tally::par.tune<128, 8>().deterministic().on(s).unordered().with(ws);
  const auto d = tally::par.unordered().deterministic().tune<128, 8>().with(ws).on(s);
  static_assert(same_v<decltype(a), expected> && same_v<decltype(b), expected>);
  static_assert(same_v<decltype(c), expected> && same_v<decltype(d), expected>);
  CHECK(a.stream() == s);
  CHECK(b.stream() == s);
  CHECK(c.stream() == s);
  CHECK(d.stream() == s);

  // The example of DESIGN.md.
  const auto e = tally::par.on(s).with(tally::backend::warp_shuffle).tune<128, 8>();
  using e_t = std::remove_cv_t<decltype(e)>;
  static_assert(same_v<e_t::backend_type, tally::backend::warp_shuffle_t>);
  static_assert(e_t::threads == 128 && e_t::items_per_thread == 8);
  static_assert(!e_t::is_deterministic && !e_t::is_unordered);
  CHECK(e.stream() == s);
}

TEST_CASE("policy: on(s) keeps the type and stores the stream") {
  const cudaStream_t s1 = fake_stream(0x1000);
  const cudaStream_t s2 = fake_stream(0x2000);

  static_assert(same_v<decltype(tally::par.on(s1)), par_t>);
  const auto p1 = tally::par.on(s1);
  CHECK(p1.stream() == s1);
  CHECK(tally::par.stream() == cudaStream_t{});  // par itself is unchanged

  // on() again replaces the stream, type unchanged.
  const auto p2 = p1.on(s2);
  static_assert(same_v<decltype(p2), decltype(p1)>);
  CHECK(p2.stream() == s2);
  CHECK(p1.stream() == s1);
  CHECK(p2.on(cudaStream_t{}).stream() == cudaStream_t{});

  // For every kind of policy.
  const auto atomic_s = tally::par.with(tally::backend::atomic).on(s1);
  static_assert(same_v<decltype(atomic_s), decltype(tally::par.with(tally::backend::atomic))>);
  CHECK(atomic_s.stream() == s1);
  const auto tuned_s = tally::par.tune<256, 16>().on(s2);
  static_assert(same_v<decltype(tuned_s), decltype(tally::par.tune<256, 16>())>);
  CHECK(tuned_s.stream() == s2);
  const auto det_s = tally::par.deterministic().on(s1);
  static_assert(same_v<decltype(det_s), decltype(tally::par.deterministic())>);
  CHECK(det_s.stream() == s1);
  const auto uno_s = tally::par.unordered().on(s2);
  static_assert(same_v<decltype(uno_s), decltype(tally::par.unordered())>);
  CHECK(uno_s.stream() == s2);

  // Modifiers after on() keep the stream.
  CHECK(tally::par.on(s1).with(tally::backend::atomic).stream() == s1);
  CHECK(tally::par.on(s1).with(tally::backend::shared_memory).stream() == s1);
  CHECK(tally::par.on(s1).tune<64, 4>().stream() == s1);
  CHECK(tally::par.on(s1).deterministic().stream() == s1);
  CHECK(tally::par.on(s1).unordered().stream() == s1);

  // A policy is a small value: copies carry the stream.
  auto copy = det_s;
  CHECK(copy.stream() == s1);
  std::vector<par_t> many(3, tally::par);
  CHECK(many[2].stream() == cudaStream_t{});
}

TEST_CASE("policy: is_execution_policy_v and friends") {
  using host_t = decltype(tally::host);
  static_assert(tally::is_execution_policy_v<decltype(tally::par)>);
  static_assert(tally::is_execution_policy_v<par_t>);
  static_assert(tally::is_execution_policy_v<const par_t&>);
  static_assert(tally::is_execution_policy_v<par_t&&>);
  static_assert(tally::is_execution_policy_v<decltype(tally::par.on(cudaStream_t{}))>);
  static_assert(tally::is_execution_policy_v<decltype(tally::par.with(tally::backend::atomic))>);
  static_assert(tally::is_execution_policy_v<decltype(tally::par.tune<128, 4>().deterministic().unordered())>);
  static_assert(tally::is_execution_policy_v<host_t>);
  static_assert(tally::is_execution_policy_v<const host_t&>);

  static_assert(tally::is_device_policy_v<decltype(tally::par)>);
  static_assert(tally::is_device_policy_v<decltype(tally::par.with(tally::backend::warp_shuffle).tune<32, 1>())>);
  static_assert(!tally::is_device_policy_v<host_t>);
  static_assert(tally::is_host_policy_v<host_t>);
  static_assert(tally::is_host_policy_v<const host_t&>);
  static_assert(!tally::is_host_policy_v<decltype(tally::par)>);

  static_assert(!tally::is_execution_policy_v<int>);
  static_assert(!tally::is_execution_policy_v<int*>);
  static_assert(!tally::is_execution_policy_v<cudaStream_t>);
  static_assert(!tally::is_execution_policy_v<tally::backend::atomic_t>);
  static_assert(!tally::is_execution_policy_v<tally::backend::automatic_t>);
  static_assert(!tally::is_execution_policy_v<std::vector<int>>);
  static_assert(!tally::is_execution_policy_v<tally::backend_id>);
  static_assert(!tally::is_device_policy_v<int>);
  static_assert(!tally::is_host_policy_v<int>);
  CHECK(tally::is_execution_policy_v<host_t>);  // at least one runtime assertion per case
}

namespace {

// Resources that only record what they are asked (no CUDA call): one in CCCL 3.1+'s
// spelling, one in CCCL 3.0's (and RMM's).
struct recording_resource {
  int allocations = 0, deallocations = 0;
  std::size_t last_bytes = 0, last_alignment = 0;
  cudaStream_t last_stream{};
  alignas(256) unsigned char memory[1024];
  void* allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t alignment) {
    ++allocations;
    last_bytes = bytes;
    last_alignment = alignment;
    last_stream = stream.get();
    return memory;
  }
  void deallocate(cuda::stream_ref stream, void* p, std::size_t bytes, std::size_t) {
    ++deallocations;
    CHECK(p == memory);
    CHECK(bytes == last_bytes);
    CHECK(stream.get() == last_stream);
  }
};

struct recording_async_resource {
  int allocations = 0, deallocations = 0;
  cudaStream_t last_stream{};
  alignas(256) unsigned char memory[1024];
  void* allocate_async(std::size_t, std::size_t, cuda::stream_ref stream) {
    ++allocations;
    last_stream = stream.get();
    return memory;
  }
  void deallocate_async(void*, std::size_t, std::size_t, cuda::stream_ref stream) {
    ++deallocations;
    CHECK(stream.get() == last_stream);
  }
};

}  // namespace

TEST_CASE("policy: on(cuda::stream_ref) is on(its stream)") {
  const cudaStream_t s = fake_stream(0x3000);
  const auto p = tally::par.on(cuda::stream_ref(s));
  static_assert(same_v<decltype(p), par_t>);
  CHECK(p.stream() == s);
  CHECK(tally::par.tune<128, 8>().on(cuda::stream_ref(s)).stream() == s);
}

TEST_CASE("policy: memory(resource) is data, survives every modifier, and reaches the resource") {
  recording_resource r;
  const cudaStream_t s = fake_stream(0x4000);
  CHECK(!tally::par.resource());

  // The type does not change, and every later (and earlier) modifier keeps the resource.
  const auto p = tally::par.memory(r);
  static_assert(same_v<decltype(p), par_t>);
  CHECK(p.resource().object == &r);
  const auto q = tally::par.on(s).memory(r).with(tally::backend::atomic).tune<128, 8>().deterministic().on(s);
  CHECK(q.resource().object == &r);
  CHECK(q.stream() == s);
  CHECK(tally::par.memory(r).unordered().resource().object == &r);
  CHECK(tally::par.memory(r).on(cuda::stream_ref(s)).resource().object == &r);

  // What tally's scratch code calls goes to the resource, on the policy's stream.
  const tally::detail::call_stream where = tally::detail::call_stream_of(q);
  void* m = tally::detail::allocate_on("test", where, 300);
  CHECK(m == static_cast<void*>(r.memory));
  CHECK(r.allocations == 1);
  CHECK(r.last_bytes == 300);
  CHECK(r.last_alignment == tally::detail::scratch_alignment);
  CHECK(r.last_stream == s);
  tally::detail::free_on(where, m, 300);
  CHECK(r.deallocations == 1);

  // CCCL 3.0's spelling works the same way.
  recording_async_resource a;
  const auto pa = tally::par.on(s).memory(a);
  void* ma = tally::detail::allocate_on("test", tally::detail::call_stream_of(pa), 64);
  CHECK(ma == static_cast<void*>(a.memory));
  tally::detail::free_on(tally::detail::call_stream_of(pa), ma, 64);
  CHECK(a.allocations == 1);
  CHECK(a.deallocations == 1);
  CHECK(a.last_stream == s);
}

TEST_CASE("policy: a resource that fails is a tally::cuda_error naming the algorithm") {
  struct failing_resource {
    void* allocate(cuda::stream_ref, std::size_t, std::size_t) { throw std::bad_alloc(); }
    void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  } failing;
  struct null_resource {
    void* allocate(cuda::stream_ref, std::size_t, std::size_t) { return nullptr; }
    void deallocate(cuda::stream_ref, void*, std::size_t, std::size_t) {}
  } null;
  for (const auto& where : {tally::detail::call_stream_of(tally::par.memory(failing)),
                            tally::detail::call_stream_of(tally::par.memory(null))}) {
    try {
      (void)tally::detail::allocate_on("tally::reduce", where, 512);
      FAIL("no exception");
    } catch (const tally::cuda_error& e) {
      CHECK(std::string(e.what()).rfind("tally::reduce: ", 0) == 0);
      CHECK(e.code() == cudaErrorMemoryAllocation);
    }
  }
}
