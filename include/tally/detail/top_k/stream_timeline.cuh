#pragma once
// Marks at the phases of top_k_stream_kernel (pieces_kernel.cuh) and of top_k_select_kernel
// (select_kernel.cuh; the slots it marks are named below), for the timeline tool
// (benchmarks/timeline/, scripts/timeline.sh). Built with TALLY_STREAM_TIMELINE defined,
// thread 0 of each block writes %globaltimer and clock64 at each mark, and a few counts,
// to device arrays that the tool reads after a call. In every other build the marks are
// empty macros: no instruction, no register, nothing evaluated.
//
// Why in the tree: the stream kernel has no register to spare (64, launch_bounds(512, 2)),
// and a change's effect on its phases was guessed wrong three times in one session
// (docs/performance.md#stream-tries-lost); the marks follow the code as it changes.

#include <tally/detail/config.cuh>

TALLY_NAMESPACE_BEGIN
namespace detail {

/// The marks (slots of a block's record) and the counts kept beside them.
enum stream_timeline_slot : int {
  stream_mark_start = 0,      // the block takes its chunk
  stream_mark_threshold = 1,  // chunk_threshold done
  stream_mark_filtered = 2,   // the chunk's candidates in the buffer (after every pass)
  stream_mark_slot = 3,       // split rows: the row's room taken (atomicAdd)
  stream_mark_words_out = 4,  // split rows: the candidates written to the row's words
  stream_mark_arrived = 5,    // split rows: the arrival counted (the last block known)
  stream_mark_words_in = 6,   // the block that chooses: its words in shared memory
  stream_mark_cut = 7,        // stream_choose: the cut done (more than 256 words)
  stream_mark_chosen = 8,     // stream_choose done
  stream_mark_written = 9,    // the k best written
  stream_value_count = 10,    // the chunk's candidates
  stream_value_total = 11,    // the row's candidates (the block that chooses)
  stream_value_kept = 12,     // words kept by the cut
  stream_value_sm = 13,       // the SM that ran the block
  stream_mark_reads = 14,     // chunk_threshold's reads done (before warps_threshold)
  stream_value_select = 15,   // 1: the select kernel's marks, which read as follows
  // The select kernel: start; block 0: slot = the state zeroed, words_out = the samples
  // read, cut = the first histogram's bucket found, reads = the threshold found;
  // threshold = past the first grid barrier; with every block's own threshold, arrived =
  // the threshold pass done and chosen = past its barrier; filtered = past the threshold
  // pass's barrier and the count read (value_count: its candidates); words_in = the
  // candidates' keys in shared memory (rank_and_write); written = the block's ranks
  // counted and written.
  stream_timeline_slots = 16,
  // The select kernel's grid-drawn samples (grid_threshold_words) reuse slots it leaves
  // free: arrived = the samples read and their bits published; chosen = past the bits'
  // barrier; these two = past each histogram level's barrier.
  stream_mark_grid_first = stream_value_total,
  stream_mark_grid_second = stream_value_kept,
};

#if defined(TALLY_STREAM_TIMELINE)
/// Blocks recorded: block b's marks at [b * stream_timeline_slots, ...).
inline constexpr int stream_timeline_blocks = 8192;
__device__ unsigned long long stream_timeline_time[stream_timeline_blocks * stream_timeline_slots];
__device__ long long stream_timeline_clock[stream_timeline_blocks * stream_timeline_slots];

__device__ __forceinline__ void stream_timeline_mark(int slot) {
  if (threadIdx.x == 0 && blockIdx.x < stream_timeline_blocks) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    stream_timeline_time[blockIdx.x * stream_timeline_slots + slot] = t;
    stream_timeline_clock[blockIdx.x * stream_timeline_slots + slot] = clock64();
    if (slot == stream_mark_start) {
      unsigned int sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      stream_timeline_time[blockIdx.x * stream_timeline_slots + stream_value_sm] = sm;
    }
  }
}
__device__ __forceinline__ void stream_timeline_value(int slot, unsigned long long v) {
  if (threadIdx.x == 0 && blockIdx.x < stream_timeline_blocks) stream_timeline_time[blockIdx.x * stream_timeline_slots + slot] = v;
}
#define TALLY_STREAM_MARK(slot) ::tally::detail::stream_timeline_mark(::tally::detail::slot)
#define TALLY_STREAM_VALUE(slot, v) \
  ::tally::detail::stream_timeline_value(::tally::detail::slot, static_cast<unsigned long long>(v))
#else
#define TALLY_STREAM_MARK(slot) ((void)0)
#define TALLY_STREAM_VALUE(slot, v) ((void)0)
#endif

}  // namespace detail
TALLY_NAMESPACE_END
