#pragma once
/// @file
/// sm_90 (H100, H200, GH200): the format is tuning/policy.cuh; classes not listed take
/// tuning/generic.cuh. `tally tune --out <this file>` rewrites it from measurements.
///
/// GPU: NVIDIA H100 80GB HBM3, 132 SMs, sm_90, CUDA 13.0.
/// Provenance: the size-bucketed table that `tally tune` wrote on 2026-11-24 at 231a10c
/// (one kernel per size bucket). With one kernel per call site a class has one policy:
/// each class keeps the choice of its largest bucket (the sizes where bandwidth, not
/// launch latency, sets the time); below that the grid shrinks to the input at run time.
/// The small-input rules (top_k_small, top2_small, copy_if_small) come from a sweep of
/// shapes at 2^10..2^20 on 2026-11-25: a second kernel with smaller tiles runs up to the
/// rule's size, where the class's large tiles would leave most SMs idle. copy_if_small's
/// shape comes from an A/B of the GPU's time per call against dd57f55 on 2026-11-26
/// (docs/performance.md#ab-split), copy_if_unordered_small's from the same A/B back to
/// back on 2026-11-27 (docs/performance.md#unordered-one-block). The reductions' small-input
/// rules (integer_sum_small .. extremum_small: one tile of 4096, read in one round) come
/// from the same A/B on 2026-11-27 (docs/performance.md#small-reductions). top_k_small's
/// rule for K = 8 and extremum's for 4-byte values come from the A/B of every size
/// 2^10..2^28 on 2026-11-28 (docs/performance.md#top8-extremum-rules).
/// The µs behind each row are those of that run (docs/performance.md).

#include <tally/tuning/policy.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
TALLY_HOST_DEVICE constexpr rule_table sm90_table() {
  constexpr rule rules[] = {
  {kernel_class::integer_sum,       4, any_size, {backend_id::atomic,        512, 16}},  // int32: 2^16..2^28, 2^28 340.05 us
  {kernel_class::integer_sum,       8, any_size, {backend_id::atomic,        512, 16}},  // int64: 2^20..2^28, 2^28 681.14 us
  {kernel_class::floating_sum,      4, any_size, {backend_id::atomic,        512, 16}},  // float: 2^16..2^28, 2^28 340.05 us
  {kernel_class::floating_sum,      8, any_size, {backend_id::atomic,        1024, 4}},  // double: 2^20..2^28, 2^28 683.45 us
  {kernel_class::min_max,           4, any_size, {backend_id::atomic,        1024, 8}},  // float max: 2^20..2^28, 2^28 342.23 us
  {kernel_class::min_max,           8, any_size, {backend_id::atomic,        512, 8}},   // double max: 2^20..2^28, 2^28 680.83 us
  {kernel_class::other,      any_size, any_size, {backend_id::warp_shuffle,  512, 16}},  // kept from the tables before tuning
  {kernel_class::extremum,          4, any_size, {backend_id::atomic,        512, 8}},   // int32 max_element, GPU time / dd57f55's (2026-11-28): 2^20 0.99, 2^22 0.99-1.00, 2^28 1.01 (tuned 512 x 4: 1.08, 1.01, 1.00)
  {kernel_class::extremum,          8, any_size, {backend_id::shared_memory, 1024, 8}},  // double max_element: 2^20..2^28, 2^28 692.67 us
  {kernel_class::top2,              4, any_size, {backend_id::atomic,        1024, 8}},  // float top_k<2>: 2^22..2^28, 2^28 353.58 us
  {kernel_class::top_k,      any_size, 2,        {backend_id::warp_shuffle,  1024, 8}},  // kept from the tables before tuning
  {kernel_class::top_k,      any_size, 8,        {backend_id::warp_shuffle,  512, 16}},  // float top_k<8>: 2^22..2^28, 2^28 479.98 us
  {kernel_class::top_k,      any_size, 32,       {backend_id::shared_memory, 512, 4}},   // float top_k<32>: 2^24..2^28, 2^28 2123.02 us
  {kernel_class::copy_if,           4, any_size, {backend_id::shared_memory, 256, 16}},  // int32 stable: 2^22..2^28, 2^28 635.94 us
  {kernel_class::copy_if,           8, any_size, {backend_id::shared_memory, 256, 8}},   // double stable: 2^22..2^28, 2^28 1271.55 us
  {kernel_class::copy_if_unordered, 4, any_size, {backend_id::shared_memory, 128, 16}},  // int32 unordered: 2^22..2^28, 2^28 574.75 us
  {kernel_class::copy_if_unordered, 8, any_size, {backend_id::warp_shuffle,  512, 8}},   // double unordered: 2^20..2^28, 2^28 1086.93 us
  // Small inputs (n <= 2^last field): the 2026-11-25 sweep of shapes at 2^10..2^20 (docs/performance.md#small-inputs)
  {kernel_class::top_k_small, any_size, 8,        {backend_id::warp_shuffle,  128, 16}, 20},  // float top_k<8>, GPU time / dd57f55's (2026-11-28): 2^12 0.95, 2^16 0.95, 2^19 0.93, 2^20 0.96 (128 x 8 up to 2^18, then 512 x 16: 0.83, 0.95, 1.38, 1.00)
  {kernel_class::top_k_small, any_size, 32,       {backend_id::shared_memory, 128, 8}, 18},   // float top_k<32>: 2^10 19.32, 2^16 42.53, 2^18 48.54 us (512 x 4: 26.75, 55.52, 57.44)
  {kernel_class::top2_small,        4, any_size, {backend_id::atomic,        256, 8}, 21},   // float / int32 top_k<2>, GPU time / the rule up to 2^20 (H200, 2026-11-29, tally_ab, 4 runs): 2^21 0.82-0.84 / 0.96 (9.25-9.45 / 7.68-7.74 us with the class's 1024 x 8: 256 blocks). Up to 2^20 against 128 x 8 up to 2^19 (2026-11-29, runs 1/2): 2^12 0.99-0.96 / 1.02-0.99, 2^14 0.93-0.91 / 0.92, 2^16 1.02-0.94 / 0.99-1.01, 2^18 0.96-1.00 / 1.00, 2^19 0.96-0.98 / 1.00-1.01, 2^20 0.86-0.76 / 0.78-0.76
  {kernel_class::copy_if_small,     4, any_size, {backend_id::warp_shuffle,  512, 8}, 18},   // int32 stable, GPU time (tally_ab --timing=queued) / dd57f55's: 2^10 1.04, 2^12 1.00, 2^16 1.04, 2^18 1.00 (shared_memory 128 x 8: 0.95, 1.41, 1.03, 1.12)
  {kernel_class::copy_if_unordered_small, 4, any_size, {backend_id::warp_shuffle,  512, 8}, 20},  // float unordered, back to back (tally_ab calls) / dd57f55's, 2026-11-27: 2^10 1.00, 2^12 0.99-1.03, 2^14 1.00, 2^16 1.01; GPU time 1.15, 0.99, 0.85, 0.93 (shared_memory 128 x 8: calls 2^12 1.05-1.07, a scratch lease's host time for 4 blocks; GPU 0.97, 0.91, 0.75, 0.77)
  {kernel_class::integer_sum_small,  4, any_size, {backend_id::atomic,        256, 16}, 12},  // int32, GPU time / dd57f55's: 2^10 1.01, 2^11 0.90, 2^12 1.08 (integer_sum's 512 x 16: 1.05, 1.12, 1.75)
  {kernel_class::floating_sum_small, 4, any_size, {backend_id::atomic,        256, 16}, 12},  // float: 2^10 1.02, 2^11 0.91, 2^12 1.08 (512 x 16: 1.05, 1.12, 1.76)
  {kernel_class::min_max_small,      4, any_size, {backend_id::atomic,        256, 16}, 12},  // float max: 2^10 1.05, 2^11 0.97, 2^12 1.16 (1024 x 8: 1.00, 1.00, 1.39)
  {kernel_class::extremum_small,     4, any_size, {backend_id::atomic,        256, 16}, 12},  // float max_element: 2^10 1.07, 2^11 0.84, 2^12 1.04 (512 x 4: 1.22, 0.80, 1.06)
  };
  return make_table(rules);
}
// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
