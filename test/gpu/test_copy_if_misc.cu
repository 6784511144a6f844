// tally::copy_if beyond the per-type suites:
//  - a 24-byte struct rec{double a; long long b; int c;} selected by a < t, tally::par and
//    par.unordered(), every copy_if size up to 2^24 + 1, against CUB DeviceSelect::If
//    (items compared field by field: the padding is not part of the value);
//  - int32 under tune<512, 16> (one staging buffer), tune<1024, 16> (no staging: items
//    scattered from registers), stable and unordered, sizes up to 2^22 + 1, against CUB;
//  - the host backend (tally::host) against std::copy_if on int32, float with NaN and
//    rec, the stencil form against a host loop, copy_if_into writing the count to a host
//    int64, nothing written past the count;
//  - an extended __host__ __device__ lambda as the predicate, thrust::device_ptr input,
//    stencil and output, the overloads without a policy, copy_if_into's count as int,
//    unsigned long long and thrust::device_ptr<int64>;
//  - streams: the sync form on a created stream, back-to-back copy_if_into calls queued
//    on one stream (stable and unordered: each call's scratch is ready for the next);
//    the status words' epochs: calls of growing and shrinking sizes, multi-block
//    reductions (with and without partials) and unordered calls between them, and more
//    calls than there are epochs (not under TALLY_SANITIZE=1, which also caps every size
//    list at 33 tiles + 1: see common.cuh);
//  - errors: a reversed range, null input, stencil, output and count pointers, a
//    pageable host pointer, 2^46 items in one stable call; tally::error naming the
//    algorithm, nothing written.
#include "copy_if_common.cuh"

#include <tally/reduce.cuh>

#include <thrust/device_ptr.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>

namespace {

template <class T>
std::vector<T> host_items(long long n, std::uint64_t seed = tt::default_seed) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) v[std::size_t(i)] = tt::item_traits<T>::make(i, seed);
  return v;
}

/// Items [0, count) against `want`, the rest of `out` still `sentinel`.
template <class T>
void check_host_output(const std::vector<T>& out, long long count, const std::vector<T>& want, const T& sentinel,
                       const std::string& what) {
  if (!tt::report(count == static_cast<long long>(want.size()),
                  what + ": count " + std::to_string(count) + ", expected " + std::to_string(want.size())))
    return;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const bool ok = tt::item_traits<T>::same(out[i], i < want.size() ? want[i] : sentinel);
    if (!ok)
      return void(tt::report(false, what + ": item " + std::to_string(i) + " is " + tt::describe(out[i]) +
                                        (i < want.size() ? ", expected " + tt::describe(want[i])
                                                         : std::string(", past the count: expected untouched"))));
  }
  tt::report(true, what);
}

template <class T>
void check_host_backend() {
  INFO("type=", tt::type_name<T>());
  T sentinel;
  std::memset(static_cast<void*>(&sentinel), 0xA5, sizeof(T));
  for (long long n : {0LL, 1LL, 2LL, 33LL, 1000LL, 65537LL}) {
    INFO("n=", n);
    const std::vector<T> in = host_items<T>(n);
    const std::vector<std::uint8_t> stencil = host_items<std::uint8_t>(n, 0x5e1ec7ull);
    for (const tt::selection<T>& sel : tt::selections<T>()) {
      std::vector<T> want;
      std::copy_if(in.begin(), in.end(), std::back_inserter(want), sel.pred);
      std::vector<T> out(std::size_t(n) + 8, sentinel);
      const auto end = tally::copy_if(tally::host, in.begin(), in.end(), out.begin(), sel.pred);
      check_host_output(out, static_cast<long long>(end - out.begin()), want, sentinel,
                        "tally::host copy_if select " + sel.name);

      std::fill(out.begin(), out.end(), sentinel);
      std::int64_t count = -1;
      tally::copy_if_into(tally::host, in.data(), in.data() + n, out.data(), &count, sel.pred);
      check_host_output(out, static_cast<long long>(count), want, sentinel,
                        "tally::host copy_if_into select " + sel.name);
    }
    for (const tt::selection<std::uint8_t>& sel : tt::selections<std::uint8_t>()) {
      std::vector<T> want;
      for (std::size_t i = 0; i < in.size(); ++i)
        if (sel.pred(stencil[i])) want.push_back(in[i]);
      std::vector<T> out(std::size_t(n) + 8, sentinel);
      const auto end = tally::copy_if(tally::host, in.begin(), in.end(), stencil.begin(), out.begin(), sel.pred);
      check_host_output(out, static_cast<long long>(end - out.begin()), want, sentinel,
                        "tally::host copy_if (stencil) select stencil " + sel.name);
      std::fill(out.begin(), out.end(), sentinel);
      std::int64_t count = -1;
      tally::copy_if_into(tally::host, in.begin(), in.end(), stencil.begin(), out.begin(), &count, sel.pred);
      check_host_output(out, static_cast<long long>(count), want, sentinel,
                        "tally::host copy_if_into (stencil) select stencil " + sel.name);
    }
  }
}

/// Device items [0, count) of p against `want`.
template <class T>
void check_device_output(const T* p, long long count, const std::vector<T>& want, const std::string& what) {
  if (!tt::report(count == static_cast<long long>(want.size()),
                  what + ": count " + std::to_string(count) + ", expected " + std::to_string(want.size())))
    return;
  const std::vector<T> got = tt::device_buffer<T>::download(p, std::size_t(count));
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!tt::item_traits<T>::same(got[i], want[i]))
      return void(tt::report(false, what + ": item " + std::to_string(i) + " is " + tt::describe(got[i]) +
                                        ", expected " + tt::describe(want[i])));
  tt::report(true, what);
}

}  // namespace

TEST_CASE("copy_if on a 24-byte struct matches CUB DeviceSelect::If: tally::par and par.unordered()") {
  tt::copy_if_suite<tt::rec>(tt::two_policies{}, (1LL << 24) + 1);
}

TEST_CASE("copy_if with tiles too big for two staging buffers matches CUB DeviceSelect::If") {
  tt::copy_if_suite<int>(tt::big_tile_policies{}, (1LL << 22) + 1);
}

TEST_CASE("copy_if: the host backend matches std::copy_if") {
  tt::failure_budget budget;
  check_host_backend<std::int32_t>();
  check_host_backend<float>();
  check_host_backend<tt::rec>();
}

TEST_CASE("copy_if: lambdas, device_ptr, the overloads without a policy, count types") {
  tt::failure_budget budget;
  auto odd_low = [] __host__ __device__(int x) { return (x & 3) == 1; };  // ~25%
  for (long long n : tt::listed_sizes({0, 1, 33, 2049, 65537, (1LL << 20) + 3})) {
    INFO("n=", n);
    const auto d = tt::make_items<int>(n);
    const auto st = tt::make_items<std::uint8_t>(n, 0, 0x5e1ec7ull);
    const std::vector<int> in = d.host();
    const std::vector<std::uint8_t> hs = st.host();
    std::vector<int> want, want_stencil;
    std::copy_if(in.begin(), in.end(), std::back_inserter(want), odd_low);
    const auto by_stencil = [] __host__ __device__(std::uint8_t s) { return s < 100; };
    for (std::size_t i = 0; i < in.size(); ++i)
      if (by_stencil(hs[i])) want_stencil.push_back(in[i]);
    tt::device_buffer<int> out{std::size_t(n)};
    tt::device_buffer<std::int64_t> count64(1);
    tt::device_buffer<int> count32(1);
    tt::device_buffer<unsigned long long> count_u64(1);

    // tally::par with a lambda, and through device_ptr.
    int* end = tally::copy_if(tally::par, d.ptr, d.ptr + n, out.data(), odd_low);
    check_device_output(out.data(), end - out.data(), want, "copy_if(par) lambda");
    const thrust::device_ptr<int> din(d.ptr), dout(out.data());
    const thrust::device_ptr<std::uint8_t> dst(st.ptr);
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    const thrust::device_ptr<int> dend = tally::copy_if(tally::par.unordered(), din, din + n, dout, odd_low);
    if (tt::report(dend - dout == static_cast<long long>(want.size()),
                   "copy_if(par.unordered()) device_ptr lambda: count " + std::to_string(dend - dout) +
                       ", expected " + std::to_string(want.size()))) {  // unordered: compare sorted
      std::vector<int> got = tt::device_buffer<int>::download(out.data(), want.size());
      std::vector<int> w = want;
      std::sort(got.begin(), got.end());
      std::sort(w.begin(), w.end());
      tt::report(got == w, "copy_if(par.unordered()) device_ptr lambda: not the same multiset");
    }
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    const thrust::device_ptr<int> send = tally::copy_if(tally::par, din, din + n, dst, dout, by_stencil);
    check_device_output(out.data(), send - dout, want_stencil, "copy_if(par) device_ptr stencil lambda");

    // Without a policy (tally::par).
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    end = tally::copy_if(d.ptr, d.ptr + n, out.data(), odd_low);
    check_device_output(out.data(), end - out.data(), want, "copy_if without a policy");
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    end = tally::copy_if(d.ptr, d.ptr + n, st.ptr, out.data(), by_stencil);
    check_device_output(out.data(), end - out.data(), want_stencil, "copy_if (stencil) without a policy");
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    TT_CUDA(cudaMemset(count64.data(), 0xff, sizeof(std::int64_t)));
    tally::copy_if_into(d.ptr, d.ptr + n, out.data(), count64.data(), odd_low);
    TT_CUDA(cudaDeviceSynchronize());
    check_device_output(out.data(), static_cast<long long>(count64.download()[0]), want,
                        "copy_if_into without a policy");
    TT_CUDA(cudaMemset(out.data(), 0, std::size_t(n) * sizeof(int)));
    TT_CUDA(cudaMemset(count64.data(), 0xff, sizeof(std::int64_t)));
    tally::copy_if_into(d.ptr, d.ptr + n, st.ptr, out.data(), count64.data(), by_stencil);
    TT_CUDA(cudaDeviceSynchronize());
    check_device_output(out.data(), static_cast<long long>(count64.download()[0]), want_stencil,
                        "copy_if_into (stencil) without a policy");

    // Count outputs of other types, on a created stream.
    const cudaStream_t s = tt::test_stream();
    TT_CUDA(cudaMemset(count32.data(), 0xff, sizeof(int)));
    TT_CUDA(cudaMemset(count_u64.data(), 0xff, sizeof(unsigned long long)));
    TT_CUDA(cudaMemset(count64.data(), 0xff, sizeof(std::int64_t)));
    TT_CUDA(cudaDeviceSynchronize());
    tally::copy_if_into(tally::par.on(s), d.ptr, d.ptr + n, out.data(), count32.data(), odd_low);
    tally::copy_if_into(tally::par.on(s).with(tally::backend::shared_memory), d.ptr, d.ptr + n, out.data(),
                        count_u64.data(), odd_low);
    tally::copy_if_into(tally::par.on(s), din, din + n, dout, thrust::device_ptr<std::int64_t>(count64.data()),
                        odd_low);
    TT_CUDA(cudaStreamSynchronize(s));
    const long long expected = static_cast<long long>(want.size());
    tt::check_exact(static_cast<long long>(count32.download()[0]), expected, "copy_if_into count as int");
    tt::check_exact(static_cast<long long>(count_u64.download()[0]), expected,
                    "copy_if_into count as unsigned long long");
    tt::check_exact(static_cast<long long>(count64.download()[0]), expected,
                    "copy_if_into count through device_ptr<int64>");
    check_device_output(out.data(), expected, want, "copy_if_into on a stream (the last of three)");
  }
}

TEST_CASE("copy_if: the sync form on a created stream; back-to-back copy_if_into calls on one stream") {
  tt::failure_budget budget;
  cudaStream_t s = nullptr;
  TT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::vector<long long> sizes =
      tt::capped_sizes({1, 2049, 65537, 300001, (1LL << 22) + 1, 5, (1LL << 20) + 7, 0, 4096});
  std::vector<tt::dataset<int>> data;
  std::vector<tt::reference<int>> expected;
  const tt::select_pred<int> pred{(std::uint64_t(50) << 32) / 100};
  for (long long n : sizes) {
    data.push_back(tt::make_items<int>(n, 0, tt::default_seed + std::uint64_t(n)));
    expected.push_back(tt::cub_select(data.back().ptr, n, pred));
  }
  auto run = [&](const auto& policy, bool stable, const std::string& label) {
    // Sync, on the created stream.
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      tt::guarded_output<int> out(sizes[k], 4);
      out.reset();
      int* end = tally::copy_if(policy.on(s), data[k].ptr, data[k].ptr + sizes[k], out.data(), pred);
      const std::string what = "copy_if(" + label + ".on(stream)) n=" + std::to_string(sizes[k]);
      tt::check_selected(out.data(), static_cast<long long>(end - out.data()), expected[k], stable, what);
      tt::report(out.changed_outside(static_cast<long long>(end - out.data())).first == 0,
                 what + ": wrote past the count");
    }
    // Every call queued first, then one wait.
    std::vector<tt::device_buffer<int>> outs;
    tt::device_buffer<std::int64_t> counts(sizes.size());
    TT_CUDA(cudaMemset(counts.data(), 0xff, sizes.size() * sizeof(std::int64_t)));
    TT_CUDA(cudaDeviceSynchronize());
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      outs.emplace_back(std::size_t(sizes[k]));
      tally::copy_if_into(policy.on(s), data[k].ptr, data[k].ptr + sizes[k], outs[k].data(), counts.data() + k, pred);
    }
    TT_CUDA(cudaStreamSynchronize(s));
    const std::vector<std::int64_t> c = counts.download();
    for (std::size_t k = 0; k < sizes.size(); ++k)
      tt::check_selected(outs[k].data(), static_cast<long long>(c[k]), expected[k], stable,
                         "copy_if_into(" + label + ") queued back to back, call " + std::to_string(k) +
                             " n=" + std::to_string(sizes[k]));
  };
  run(tally::par, true, "tally::par");
  run(tally::par.with(tally::backend::shared_memory), true, "par.with(shared_memory)");
  run(tally::par.unordered(), false, "par.unordered()");
  TT_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("copy_if: tile status words reused across calls (epochs), between reductions, past the epoch's wrap") {
  // The stable path leaves its status words in the stream's scratch and tells calls
  // apart by an epoch (grid/look_back.cuh, scratch.cuh): a later call must never read an
  // earlier call's word (larger calls after smaller ones, and the other way round), nor
  // a reduction's partials left in the same memory, nor a word from before the epoch
  // wrapped (max_status_epoch calls later).
  tt::failure_budget budget;
  cudaStream_t s = nullptr;
  TT_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // Large, small, medium, small-medium; under compute-sanitizer the same shape within
  // 33 tiles (the look-back window is still crossed).
  const std::vector<long long> sizes =
      tt::sanitizing() ? std::vector<long long>{33 * 4096 + 1, 3 * 4096 + 5, 20 * 4096 + 7, 9 * 4096 + 1}
                       : std::vector<long long>{(1LL << 22) + 1, 3 * 4096 + 5, (1LL << 20) + 7, 4096 * 40 + 1};
  const tt::select_pred<int> pred{(std::uint64_t(50) << 32) / 100};
  std::vector<tt::dataset<int>> data;
  std::vector<tt::reference<int>> expected;
  for (long long n : sizes) {
    data.push_back(tt::make_items<int>(n, 0, tt::default_seed + 7 * std::uint64_t(n)));
    expected.push_back(tt::cub_select(data.back().ptr, n, pred));
  }
  tt::device_buffer<long long> sum(1);
  tt::device_buffer<std::int64_t> count(1);
  std::vector<tt::device_buffer<int>> outs;
  for (long long n : sizes) outs.emplace_back(std::size_t(n));
  tt::device_buffer<int> spare{static_cast<std::size_t>(sizes[0])};
  auto check_call = [&](std::size_t k, const std::string& what) {
    TT_CUDA(cudaStreamSynchronize(s));
    tt::check_selected(outs[k].data(), static_cast<long long>(count.download()[0]), expected[k], true, what);
  };
  // Sizes up and down, with and without a multi-block reduction (partials) in between.
  for (int round = 0; round < 3; ++round) {
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (round == 1) {
        // warp_shuffle's reduce writes one partial per block into the same scratch.
        const auto reduce_policy = tally::par.with(tally::backend::warp_shuffle).on(s);
        tally::reduce_into(reduce_policy, data[0].ptr, data[0].ptr + sizes[0], sum.data(), 0LL);
      }
      if (round == 2) {
        // Launches that write no partials leave the status words' epoch in place: the
        // atomic backend's reduce and an unordered copy_if (into another output).
        tally::reduce_into(tally::par.with(tally::backend::atomic).on(s), data[0].ptr, data[0].ptr + sizes[0],
                           sum.data(), 0LL);
        tally::copy_if_into(tally::par.unordered().on(s), data[k].ptr, data[k].ptr + sizes[k],
                            spare.data(), count.data(), pred);
      }
      tally::copy_if_into(tally::par.on(s), data[k].ptr, data[k].ptr + sizes[k], outs[k].data(), count.data(), pred);
      check_call(k, "round " + std::to_string(round) + " call " + std::to_string(k) + " n=" + std::to_string(sizes[k]));
    }
  }
  // Past the wrap: more calls than there are epochs, the last few checked. Not under
  // compute-sanitizer: 65543 launches at its speed take hours, and the wrap is logic that
  // the suite checks at full speed; the tools check the memory accesses of the rounds above.
  if (tt::sanitizing()) {
    MESSAGE("TALLY_SANITIZE: the run past the epoch's wrap is left out");
    TT_CUDA(cudaStreamDestroy(s));
    return;
  }
  const long long calls = tally::detail::max_status_epoch + 8;
  for (long long c = 0; c < calls; ++c) {
    const std::size_t k = (c % 2 == 0) ? 1 : 3;
    tally::copy_if_into(tally::par.on(s), data[k].ptr, data[k].ptr + sizes[k], outs[k].data(), count.data(), pred);
    if (c >= calls - 12 || c % 16384 == 0) check_call(k, "call " + std::to_string(c) + " of a long run");
  }
  TT_CUDA(cudaStreamDestroy(s));
}

TEST_CASE("copy_if: invalid arguments with a GPU present") {
  const auto d = tt::make_items<int>(1000);
  const std::vector<int> before = d.host();
  const tt::select_pred<int> pred{std::uint64_t(1) << 31};
  const tt::select_pred<std::uint8_t> spred{std::uint64_t(1) << 31};
  tt::guarded_output<int> out(1000, 4);
  out.reset();
  tt::device_buffer<std::int64_t> count(1);
  TT_CUDA(cudaMemset(count.data(), 0x5a, sizeof(std::int64_t)));
  std::int64_t count_before;
  std::memset(&count_before, 0x5a, sizeof count_before);
  TT_CUDA(cudaDeviceSynchronize());
  int* null = nullptr;
  std::uint8_t* null_stencil = nullptr;
  std::int64_t* null_count = nullptr;
  auto expect_error = [](auto&& call, const char* algorithm, const std::string& what) {
    try {
      call();
      FAIL_CHECK(what, ": no exception");
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK(what, ": a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK_MESSAGE(std::string(e.what()).find(algorithm) != std::string::npos, what, ": ", e.what());
    }
  };
  auto run = [&](const auto& p, const std::string& label) {
    INFO("policy=", label);
    expect_error([&] { (void)tally::copy_if(p, d.ptr + 10, d.ptr, out.data(), pred); }, "tally::copy_if",
                 "reversed range");
    expect_error([&] { tally::copy_if_into(p, d.ptr + 10, d.ptr, out.data(), count.data(), pred); },
                 "tally::copy_if_into", "reversed range (into)");
    expect_error([&] { (void)tally::copy_if(p, null, null + 5, out.data(), pred); }, "tally::copy_if", "null input");
    expect_error([&] { tally::copy_if_into(p, null, null + 5, out.data(), count.data(), pred); },
                 "tally::copy_if_into", "null input (into)");
    expect_error([&] { (void)tally::copy_if(p, d.ptr, d.ptr + 5, null, pred); }, "tally::copy_if", "null output");
    expect_error([&] { (void)tally::copy_if(p, d.ptr, d.ptr + 5, null_stencil, out.data(), spred); },
                 "tally::copy_if", "null stencil");
    expect_error([&] { tally::copy_if_into(p, d.ptr, d.ptr + 5, out.data(), null_count, pred); },
                 "tally::copy_if_into", "null count");
  };
  run(tally::par, "tally::par");
  run(tally::par.with(tally::backend::shared_memory), "par.with(shared_memory)");
  run(tally::par.unordered(), "par.unordered()");
  {
    // A stable call takes at most 2^46 - 1 items (46-bit counts in the tile status words).
    const auto first = thrust::make_counting_iterator<long long>(0);
    const auto any = [] __host__ __device__(long long) { return true; };
    const long long too_many = 1LL << 46;
    const auto discard = thrust::make_discard_iterator();
    expect_error([&] { tally::copy_if_into(tally::par, first, first + too_many, discard, count.data(), any); },
                 "tally::copy_if_into", "2^46 items, stable");
  }
  TT_CUDA(cudaDeviceSynchronize());
  CHECK(out.changed_outside(0).first == 0);  // failed calls wrote nothing
  std::int64_t count_after = 0;
  TT_CUDA(cudaMemcpy(&count_after, count.data(), sizeof count_after, cudaMemcpyDeviceToHost));
  CHECK(count_after == count_before);
  CHECK(d.host() == before);
  // The library still works after the errors.
  const tt::reference<int> expected = tt::cub_select(d.ptr, 1000, pred);
  int* end = tally::copy_if(tally::par, d.ptr, d.ptr + 1000, out.data(), pred);
  CHECK(end - out.data() == expected.count);
}

TEST_CASE("copy_if: a pointer to pageable host memory is rejected (or read, where the device can)") {
  int device = 0, pageable = 0;
  TT_CUDA(cudaGetDevice(&device));
  TT_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  std::vector<int> host(5000);
  std::iota(host.begin(), host.end(), 1);
  const std::vector<int> before = host;
  const auto even = [] __host__ __device__(int x) { return x % 2 == 0; };
  tt::device_buffer<int> out(5000);
  for (int variant = 0; variant < 2; ++variant) {
    INFO("pageableMemoryAccess=", pageable, variant == 0 ? " tally::par" : " par.unordered()");
    try {
      const int* first = host.data();
      const int* last = host.data() + host.size();
      const int* end = variant == 0 ? tally::copy_if(tally::par, first, last, out.data(), even)
                                    : tally::copy_if(tally::par.unordered(), first, last, out.data(), even);
      const long long count = end - out.data();
      if (!pageable) FAIL_CHECK("no exception for a pageable host pointer");
      else CHECK(count == 2500);
    } catch (const tally::cuda_error& e) {
      FAIL_CHECK("a cuda_error instead of an argument error: ", e.what());
    } catch (const tally::error& e) {
      CHECK_MESSAGE(!pageable, "an exception although the device can read pageable memory: ", e.what());
      CHECK(std::string(e.what()).find("tally::copy_if") != std::string::npos);
    }
  }
  CHECK(host == before);
}
