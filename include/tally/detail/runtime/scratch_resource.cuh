#pragma once
// A caller's stream-ordered memory resource, as the policy carries it (policy.memory(r)):
// a non-owning, type-erased reference, two pointers and two functions, so that the
// policy stays a small value of the same type whatever the resource.
//
// A resource is anything with CCCL's stream-ordered allocation interface, in either of its
// spellings:
// - CCCL 3.1 and later (`cuda::mr::resource`): allocate(cuda::stream_ref, bytes, alignment)
//   and deallocate(cuda::stream_ref, ptr, bytes, alignment);
// - CCCL 3.0 (`cuda::mr::async_resource`, also RMM's device_memory_resource):
//   allocate_async(bytes, alignment, cuda::stream_ref) and
//   deallocate_async(ptr, bytes, alignment, cuda::stream_ref).
// The memory must be device memory the kernels can read and write; tally asks for it on
// the call's stream and gives it back on the same stream, after the work that uses it.

#include <tally/detail/config.cuh>

#include <cuda/stream_ref>

#include <cstddef>
#include <type_traits>
#include <utility>

TALLY_NAMESPACE_BEGIN
namespace detail {

template <class R, class = void>
struct has_stream_first_allocate : std::false_type {};
template <class R>
struct has_stream_first_allocate<
    R, std::void_t<decltype(static_cast<void*>(std::declval<R&>().allocate(std::declval<cuda::stream_ref>(),
                                                                            std::size_t{}, std::size_t{}))),
                   decltype(std::declval<R&>().deallocate(std::declval<cuda::stream_ref>(), std::declval<void*>(),
                                                          std::size_t{}, std::size_t{}))>> : std::true_type {};

template <class R, class = void>
struct has_allocate_async : std::false_type {};
template <class R>
struct has_allocate_async<
    R, std::void_t<decltype(static_cast<void*>(std::declval<R&>().allocate_async(std::size_t{}, std::size_t{},
                                                                                  std::declval<cuda::stream_ref>()))),
                   decltype(std::declval<R&>().deallocate_async(std::declval<void*>(), std::size_t{}, std::size_t{},
                                                                std::declval<cuda::stream_ref>()))>>
    : std::true_type {};

template <class R>
inline constexpr bool is_stream_ordered_resource_v = has_stream_first_allocate<R>::value || has_allocate_async<R>::value;

/// A caller's memory resource, or none (`object == nullptr`: tally's own per-stream cache).
struct scratch_resource {
  void* object = nullptr;
  void* (*allocate)(void* object, std::size_t bytes, std::size_t alignment, cudaStream_t stream) = nullptr;
  void (*deallocate)(void* object, void* memory, std::size_t bytes, std::size_t alignment,
                     cudaStream_t stream) = nullptr;

  explicit operator bool() const { return object != nullptr; }
};

/// The reference to `resource` (which must outlive every call that uses it).
template <class R>
scratch_resource make_scratch_resource(R& resource) {
  static_assert(is_stream_ordered_resource_v<R>,
                "tally: memory() takes a stream-ordered memory resource: allocate(cuda::stream_ref, bytes, "
                "alignment) and deallocate(cuda::stream_ref, ptr, bytes, alignment) (CCCL 3.1+), or "
                "allocate_async(bytes, alignment, cuda::stream_ref) and deallocate_async(ptr, bytes, alignment, "
                "cuda::stream_ref) (CCCL 3.0)");
  scratch_resource r;
  r.object = const_cast<void*>(static_cast<const volatile void*>(&resource));
  r.allocate = [](void* object, std::size_t bytes, std::size_t alignment, cudaStream_t stream) -> void* {
    R& self = *static_cast<R*>(object);
    if constexpr (has_stream_first_allocate<R>::value) return self.allocate(cuda::stream_ref(stream), bytes, alignment);
    else return self.allocate_async(bytes, alignment, cuda::stream_ref(stream));
  };
  r.deallocate = [](void* object, void* memory, std::size_t bytes, std::size_t alignment, cudaStream_t stream) {
    R& self = *static_cast<R*>(object);
    if constexpr (has_stream_first_allocate<R>::value) self.deallocate(cuda::stream_ref(stream), memory, bytes, alignment);
    else self.deallocate_async(memory, bytes, alignment, cuda::stream_ref(stream));
  };
  return r;
}

}  // namespace detail
TALLY_NAMESPACE_END
