#pragma once
/// @file
/// The device memory tally keeps between calls, and how to give it back.
///
/// Every device algorithm runs in one launch with a little scratch memory (a counter, an
/// accumulator slot, one partial per block, or copy_if's tile status words). tally keeps
/// one such block per (device, stream), allocated with cudaMallocAsync on first use and
/// reused by every later call on that stream, so that a call costs no allocation. The
/// blocks are small (kilobytes for the reductions; n / 4096 x 8 bytes for a stable
/// copy_if of n items) and live until the process ends.
///
/// A program that creates and destroys many streams gives a stream's block back before
/// destroying it:
///
///     tally::release_scratch(stream);   // stream-ordered: after the work queued there
///     cudaStreamDestroy(stream);
///
/// and `tally::release_scratch()` frees them all (at the end of a program that checks for
/// leaks, or before cudaDeviceReset).

#include <tally/detail/runtime/scratch.cuh>

TALLY_NAMESPACE_BEGIN

/// Frees the scratch block tally keeps for `stream` (on the stream's device), with
/// cudaFreeAsync on `stream` (after the work already queued there). Nothing happens when
/// tally has none for it. The next tally call on the stream allocates a new block.
/// Throws tally::cuda_error for an invalid stream.
inline void release_scratch(cudaStream_t stream) { detail::release_stream_scratch(stream); }

/// Frees every scratch block tally keeps, on every device, with cudaFree, which waits for
/// the work on the device first (so: not on a hot path). For the end of a program that
/// checks for leaks (compute-sanitizer --leak-check full), or before cudaDeviceReset.
/// Later calls allocate new blocks. Throws tally::cuda_error when CUDA fails.
inline void release_scratch() { detail::release_all_scratch(); }

TALLY_NAMESPACE_END
