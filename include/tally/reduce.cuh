#pragma once
/// @file
/// `tally::reduce` and `tally::reduce_into`: fold a range with an associative operator.
///
/// @code
/// T    reduce(policy, first, last, T init, BinaryOp op);  // waits for the policy's stream, returns on the host
/// T    reduce(policy, first, last, T init);               // op = tally::plus<T>
/// auto reduce(policy, first, last);                       // init = value_type{}, op = tally::plus<value_type>
/// void reduce_into(policy, first, last, OutIt out, T init, BinaryOp op);  // asynchronous: *out = result
/// void reduce_into(policy, first, last, OutIt out, T init);               // op = tally::plus<T>
/// void reduce_into(policy, first, pieces, OutIt out, T init, BinaryOp op); // out[s] per piece
/// void reduce_into(policy, first, pieces, OutIt out, T init);              // (tally/pieces.cuh)
/// @endcode
/// Every overload also exists without the policy, meaning `tally::par`.
///
/// Semantics (every backend):
/// - The accumulator and result type is T, the type of `init` (Thrust's rule); items are
///   converted to T before they are combined: `reduce(halfs, halfs + n, 0.0f)` adds floats.
/// - The result is `op(init, x0 op x1 op ... op xn-1)` with the items combined in an
///   unspecified order: `op` must be associative and is assumed commutative (as in CUB).
/// - An empty range gives `init` (`reduce_into` writes it to `*out`).
/// - Iterators: any random-access iterator the device can dereference (raw device
///   pointers, `thrust::device_ptr`, Thrust's counting, constant and transform
///   iterators, ...). Counts are 64-bit: ranges longer than 2^31 items work. Raw
///   pointers are read with 16-byte loads (after an unaligned head of < 16 bytes).
/// - One kernel launch, no device-wide synchronisation. `reduce` waits for the policy's
///   stream only; `reduce_into` returns at once and writes `*out` in stream order.
/// - `deterministic()`: bitwise identical results for the same input, policy and GPU
///   model. The shared_memory and warp_shuffle backends always are; the atomic backend is
///   for integer sums and for min/max, and refuses (at compile time) floating sums.
/// - Errors (tally::error / tally::cuda_error, the message names the algorithm): last
///   before first, a null pointer with a non-empty range, a pointer to pageable host
///   memory (on devices that can't read it), no CUDA device, a failed launch.
///
/// Backends (`policy.with(...)`): `atomic` folds one value per block into the result
/// with a native atomic where one exists (plus, minimum, maximum on arithmetic types)
/// and a compare-and-swap loop for any other operator (no `identity_element` needed);
/// `shared_memory` and `warp_shuffle` write one partial per block and the last block to
/// finish combines them. `automatic` takes the backend and shape of the tuning table of
/// the architecture being compiled, per operator class and value size
/// (`tally/tuning/select.cuh`): one kernel per call site. `tally::host` runs the
/// sequential reference.
///
/// Scratch memory (a counter and one partial per block, a few KiB) is taken once per
/// (device, stream) from the stream-ordered allocator and reused by later calls.
///
/// Over pieces (`tally::rows(...)`, `tally::segments(...)`, <tally/pieces.cuh>) in place of
/// `last`: out[s] = op(init, the items of piece s) for every piece s, in one launch; an
/// empty piece gives init. The same semantics as the flat form, determinism included: the
/// blocks of a piece combine in a fixed order, except under the atomic backend without
/// deterministic(), where the blocks of a long piece fold a sum, max or min into one
/// atomic word (a floating-point sum may then differ in the last bits from run to run):
/// docs/api/reduce.md.

#include <tally/detail/reduce/dispatch.cuh>
#include <tally/backend/host/reduce.hpp>
#include <tally/pieces.cuh>

TALLY_NAMESPACE_BEGIN

/// Reduces [first, last) with `op`, starting from `init`; waits for the result.
template <class Policy, class It, class T, class BinaryOp,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
T reduce(const Policy& policy, It first, It last, T init, BinaryOp op);

/// Sums [first, last) into `init` with `tally::plus<T>`.
template <class Policy, class It, class T, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
T reduce(const Policy& policy, It first, It last, T init) {
  return tally::reduce(policy, first, last, init, plus<T>{});
}

/// Sums [first, last), starting from a value-initialised `value_type`.
template <class Policy, class It, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
auto reduce(const Policy& policy, It first, It last) {
  using value_type = detail::iter_value_t<It>;
  return tally::reduce(policy, first, last, value_type{}, plus<value_type>{});
}

/// Reduces [first, last) with `op` from `init` and writes the result to `*out` in stream
/// order; returns without waiting.
template <class Policy, class It, class OutIt, class T, class BinaryOp,
          std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void reduce_into(const Policy& policy, It first, It last, OutIt out, T init, BinaryOp op);

/// Sums [first, last) into `init` and writes the result to `*out`; returns without waiting.
template <class Policy, class It, class OutIt, class T, std::enable_if_t<is_execution_policy_v<Policy>, int> = 0>
void reduce_into(const Policy& policy, It first, It last, OutIt out, T init) {
  tally::reduce_into(policy, first, last, out, init, plus<T>{});
}

/// Reduces each piece s of `pieces` (tally::rows, tally::segments) with `op` from `init`
/// into out[s], in one launch; returns without waiting.
template <class Policy, class It, class Pieces, class OutIt, class T, class BinaryOp,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int> = 0>
void reduce_into(const Policy& policy, It first, const Pieces& pieces, OutIt out, T init, BinaryOp op);

/// Sums each piece into out[s] from `init`; returns without waiting.
template <class Policy, class It, class Pieces, class OutIt, class T,
          std::enable_if_t<is_execution_policy_v<Policy> && is_pieces_v<Pieces>, int> = 0>
void reduce_into(const Policy& policy, It first, const Pieces& pieces, OutIt out, T init) {
  tally::reduce_into(policy, first, pieces, out, init, plus<T>{});
}

// The same without a policy: tally::par.

template <class It, class T, class BinaryOp, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
T reduce(It first, It last, T init, BinaryOp op) {
  return tally::reduce(par, first, last, init, op);
}
template <class It, class T, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
T reduce(It first, It last, T init) {
  return tally::reduce(par, first, last, init);
}
template <class It, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
auto reduce(It first, It last) {
  return tally::reduce(par, first, last);
}
template <class It, class OutIt, class T, class BinaryOp, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void reduce_into(It first, It last, OutIt out, T init, BinaryOp op) {
  tally::reduce_into(par, first, last, out, init, op);
}
template <class It, class OutIt, class T, std::enable_if_t<!is_execution_policy_v<It>, int> = 0>
void reduce_into(It first, It last, OutIt out, T init) {
  tally::reduce_into(par, first, last, out, init);
}
template <class It, class Pieces, class OutIt, class T, class BinaryOp,
          std::enable_if_t<!is_execution_policy_v<It> && is_pieces_v<Pieces>, int> = 0>
void reduce_into(It first, const Pieces& pieces, OutIt out, T init, BinaryOp op) {
  tally::reduce_into(par, first, pieces, out, init, op);
}
template <class It, class Pieces, class OutIt, class T,
          std::enable_if_t<!is_execution_policy_v<It> && is_pieces_v<Pieces>, int> = 0>
void reduce_into(It first, const Pieces& pieces, OutIt out, T init) {
  tally::reduce_into(par, first, pieces, out, init);
}

TALLY_NAMESPACE_END

#include <tally/detail/reduce/reduce.inl>
#include <tally/detail/pieces/reduce_pieces.inl>
