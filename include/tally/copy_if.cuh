#pragma once
/// @file
/// `tally::copy_if` (stream compaction) and the asynchronous `tally::copy_if_into`.
///
/// @code
/// OutIt copy_if(policy, first, last, OutIt result, Pred pred);                      // waits, returns the end
/// OutIt copy_if(policy, first, last, StencilIt stencil, OutIt result, Pred pred);   // pred(stencil[i])
/// void  copy_if_into(policy, first, last, OutIt result, CountOut count, Pred pred); // async
/// void  copy_if_into(policy, first, last, StencilIt stencil, OutIt result, CountOut count, Pred pred);
/// @endcode
/// Every overload also exists without the policy, meaning `tally::par`.
///
/// Semantics:
/// - Copies each item `first[i]` for which `pred(first[i])` (stencil form:
///   `pred(stencil[i])`) is true to `result`, and nothing else. By default the copy is
///   **stable** (Thrust's semantics) on every backend: the selected items keep their input
///   order. Under `tally::par.unordered()` the output holds exactly the selected items in
///   some order (which may change from run to run). `unordered()` together with
///   `deterministic()` does not compile.
/// - `copy_if` waits for the policy's stream and returns `result + count`. `copy_if_into`
///   writes the count (64-bit, converted to CountOut's value type; use `std::int64_t`)
///   to `*count` in stream order and returns at once.
/// - An empty range writes nothing to `result` (`copy_if_into` writes a count of 0).
/// - `result` must not overlap the input or the stencil. Counts are 64-bit; `pred` is
///   called once per item, on the device, in an unspecified order.
/// - Errors as for reduce (tally::error / tally::cuda_error, naming the algorithm).
///
/// How (see docs/backends.md): one launch of resident blocks that loop over tiles. Per
/// tile: a thread's items in groups of 4 consecutive ones, the groups striped over the
/// block (16-byte loads from a raw pointer), each thread's counts by group packed into
/// one word and one block scan of those words (by shuffles on `warp_shuffle`, through
/// shared memory on `shared_memory`, `automatic` as its tuning table says),
/// the selected items staged in shared memory in tile order and written out coalesced.
/// Stable: blocks take tiles by an atomic ticket; a block publishes a fresh tile's count
/// at once, looks back over the tiles before the tile it counted one round earlier for
/// their prefix (decoupled look-back, Merrill and Garland 2016), publishes that tile's
/// inclusive prefix and writes it while the next tile's loads are in flight. Unordered:
/// each tile reserves its output range with one atomicAdd on a global counter.

#include <tally/functional.cuh>
#include <tally/policy.cuh>

#include <cstdint>

TALLY_NAMESPACE_BEGIN

/// Copies the items of [first, last) that satisfy pred to result (in order unless the
/// policy is unordered()); waits; returns the end of the output.
template <class Policy, class It, class OutIt, class Pred, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt copy_if(const Policy& policy, It first, It last, OutIt result, Pred pred);

/// The same, selecting first[i] when pred(stencil[i]).
template <class Policy, class It, class StencilIt, class OutIt, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
OutIt copy_if(const Policy& policy, It first, It last, StencilIt stencil, OutIt result, Pred pred);

/// Asynchronous copy_if: writes the selected items to result and their number to *count.
template <class Policy, class It, class OutIt, class CountOut, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void copy_if_into(const Policy& policy, It first, It last, OutIt result, CountOut count, Pred pred);

/// Asynchronous copy_if with a stencil.
template <class Policy, class It, class StencilIt, class OutIt, class CountOut, class Pred,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void copy_if_into(const Policy& policy, It first, It last, StencilIt stencil, OutIt result, CountOut count,
                  Pred pred);

// The same without a policy: tally::par.

template <class It, class OutIt, class Pred, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
OutIt copy_if(It first, It last, OutIt result, Pred pred) {
  return tally::copy_if(par, first, last, result, pred);
}
template <class It, class StencilIt, class OutIt, class Pred, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
OutIt copy_if(It first, It last, StencilIt stencil, OutIt result, Pred pred) {
  return tally::copy_if(par, first, last, stencil, result, pred);
}
template <class It, class OutIt, class CountOut, class Pred, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void copy_if_into(It first, It last, OutIt result, CountOut count, Pred pred) {
  tally::copy_if_into(par, first, last, result, count, pred);
}
template <class It, class StencilIt, class OutIt, class CountOut, class Pred,
          std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void copy_if_into(It first, It last, StencilIt stencil, OutIt result, CountOut count, Pred pred) {
  tally::copy_if_into(par, first, last, stencil, result, count, pred);
}

TALLY_NAMESPACE_END

#include <tally/detail/copy_if/copy_if.inl>
