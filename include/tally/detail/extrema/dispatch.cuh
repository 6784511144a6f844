#pragma once
// From an extremum call to its launch: packed keys where the values fit (over partitions
// of at most max_packed_partition items, each a launch of the same kernel), (value,
// index) pairs with the user's comparator otherwise.

#include <tally/detail/extrema/plan.cuh>
#include <tally/detail/reduce/dispatch.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// Device memory for the carry between the partitions of one call (from the caller's
/// memory resource if the policy has one), freed in stream order.
template <class Carry>
class carry_buffer {
 public:
  carry_buffer(const char* algorithm, const call_stream& where, bool needed) : where_(where) {
    if (!needed) return;
    carry_ = static_cast<Carry*>(allocate_on(algorithm, where, sizeof(Carry)));
  }
  ~carry_buffer() { free_on(where_, carry_, sizeof(Carry)); }
  carry_buffer(const carry_buffer&) = delete;
  carry_buffer& operator=(const carry_buffer&) = delete;
  Carry* get() const { return carry_; }

 private:
  call_stream where_;
  Carry* carry_ = nullptr;
};

/// Calls run(offset, length) for the partitions of [0, n) (at least one, of at most
/// `partition` items each), in order.
template <class Run>
void for_each_partition(std::int64_t n, std::int64_t partition, Run&& run) {
  std::int64_t offset = 0;
  do {
    const std::int64_t length = n - offset < partition ? n - offset : partition;
    run(offset, length);
    offset += length;
  } while (offset < n);
}

/// Writes the index of the best item of [first, first + n) (n when empty) to *out.
/// Max: the largest under comp; else the smallest. Ties: the lowest index.
template <bool Max, class Policy, class It, class Out, class Compare>
void dispatch_extremum(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                       std::int64_t n, Out out, Compare comp) {
  using V = iter_value_t<It>;
  constexpr auto kind = tuning::kernel_class::extremum;
  if constexpr (packs_arg_v<V, Compare>) {
    // The largest wins for a max under less and for a min under greater.
    using plan_t = arg_packed_plan<V, Max == is_default_less_v<Compare, V>>;
    const carry_buffer<packed_carry<V>> carry(algorithm, call_stream_of(policy), n > max_packed_partition);
    for_each_partition(n, max_packed_partition, [&](std::int64_t offset, std::int64_t length) {
      dispatch_plan<kind>(algorithm, policy, ctx, first + offset, length, out,
                          plan_t{{}, {}, {offset, n, carry.get()}});
    });
  } else {
    dispatch_plan<kind>(algorithm, policy, ctx, first, n, out, arg_pair_plan<V, Compare, Max>{{}, {comp}, {n}});
  }
}

/// Writes the indices of the smallest and the largest item to out[0] and out[1].
template <class Policy, class It, class Out, class Compare>
void dispatch_min_max(const char* algorithm, const Policy& policy, const device_context& ctx, It first,
                      std::int64_t n, Out out, Compare comp) {
  using V = iter_value_t<It>;
  dispatch_plan<tuning::kernel_class::other>(algorithm, policy, ctx, first, n, out,
                                             arg_min_max_plan<V, Compare>{{}, {comp}, {n}});
}

}  // namespace detail
TALLY_NAMESPACE_END
