#pragma once
/// @file
/// Tuning tables written by `tally tune` (src/tune.cu); the format is tuning/rules.cuh.
/// Do not edit by hand: run `tally tune --out <this file>` on the GPU instead.
///
/// GPU: NVIDIA H100 80GB HBM3, 132 SMs, sm_90, L2 50 MB, 79 GB, CUDA runtime 13.0, driver 13.0
/// date: 2026-11-24 08:53 UTC; commit: 231a10c with tally tune --max-configs (committed as d649ddc); tally 0.1.0
/// method: GPU time per call, the median over 5 loops of up to 100 calls queued behind a spin kernel
/// between CUDA events, inputs rotating over copies that fill 512 MiB; every candidate's result
/// checked against CUB first.
/// sizes: 2^10, 2^12, 2^14, 2^16, 2^18, 2^20, 2^22, 2^24, 2^26, 2^28; a choice is kept while within 2% of the fastest; at most 3 configurations per class.
/// searched: int32 sum, float sum, int64 sum, double sum, float max, double max,
///   float max_element, double max_element, float top_k<2>, float top_k<8>, float top_k<32>, int32 copy_if (stable),
///   double copy_if (stable), int32 copy_if unordered(), double copy_if unordered().
/// Rows without a measurement comment were kept from the tables compiled into the tool.

#include <tally/tuning/rules.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
inline constexpr reduce_rule reduce_sm90[] = {
  // int32 sum (27 candidates)
  {reduce_op_class::integer_sum, 4, 11, {backend_id::warp_shuffle, 1024, 16}},  // 2^10 1.61 us
  {reduce_op_class::integer_sum, 4, 13, {backend_id::warp_shuffle, 256, 16}},  // 2^12 1.52 us
  {reduce_op_class::integer_sum, 4, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 1.92 us
  {reduce_op_class::integer_sum, 4, any_n, {backend_id::atomic, 512, 16}},  // 2^16 2.75 us, 2^18 2.89 us, 2^20 3.89 us, 2^22 8.10 us, 2^24 24.02 us, 2^26 87.43 us, 2^28 340.05 us
  // int64 sum (27 candidates)
  {reduce_op_class::integer_sum, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^10 1.72 us, 2^12 1.57 us
  {reduce_op_class::integer_sum, 8, 19, {backend_id::atomic, 256, 8}},  // 2^14 2.68 us, 2^16 2.84 us, 2^18 3.29 us
  {reduce_op_class::integer_sum, 8, any_n, {backend_id::atomic, 512, 16}},  // 2^20 5.26 us, 2^22 13.46 us, 2^24 45.49 us, 2^26 173.21 us (fastest warp_shuffle 512x8 172.46), 2^28 681.14 us (fastest warp_shuffle 512x8 680.88)
  // float sum (27 candidates)
  {reduce_op_class::floating_sum, 4, 11, {backend_id::warp_shuffle, 1024, 16}},  // 2^10 1.59 us
  {reduce_op_class::floating_sum, 4, 13, {backend_id::warp_shuffle, 256, 16}},  // 2^12 1.51 us
  {reduce_op_class::floating_sum, 4, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 1.89 us
  {reduce_op_class::floating_sum, 4, any_n, {backend_id::atomic, 512, 16}},  // 2^16 2.64 us, 2^18 2.85 us, 2^20 3.91 us, 2^22 8.10 us, 2^24 23.99 us, 2^26 87.44 us, 2^28 340.05 us
  // double sum (27 candidates)
  {reduce_op_class::floating_sum, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^10 1.74 us, 2^12 1.60 us
  {reduce_op_class::floating_sum, 8, 19, {backend_id::atomic, 256, 8}},  // 2^14 2.79 us, 2^16 2.84 us, 2^18 3.30 us
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic, 1024, 4}},  // 2^20 5.54 us, 2^22 13.21 us, 2^24 45.02 us, 2^26 171.62 us, 2^28 683.45 us (fastest warp_shuffle 512x8 680.53)
  // float max (27 candidates)
  {reduce_op_class::min_max, 4, 11, {backend_id::atomic, 1024, 8}},  // 2^10 1.70 us
  {reduce_op_class::min_max, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 1.73 us
  {reduce_op_class::min_max, 4, 19, {backend_id::atomic, 512, 4}},  // 2^14 2.68 us, 2^16 2.80 us, 2^18 2.99 us
  {reduce_op_class::min_max, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^20 4.13 us, 2^22 8.35 us, 2^24 24.65 us, 2^26 87.64 us, 2^28 342.23 us
  // double max (27 candidates)
  {reduce_op_class::min_max, 8, 11, {backend_id::atomic, 256, 4}},  // 2^10 1.84 us
  {reduce_op_class::min_max, 8, 13, {backend_id::atomic, 512, 8}},  // 2^12 2.24 us
  {reduce_op_class::min_max, 8, 17, {backend_id::atomic, 256, 4}},  // 2^14 3.02 us, 2^16 3.04 us
  {reduce_op_class::min_max, 8, 19, {backend_id::atomic, 512, 4}},  // 2^18 3.57 us
  {reduce_op_class::min_max, 8, any_n, {backend_id::atomic, 512, 8}},  // 2^20 5.83 us, 2^22 14.16 us, 2^24 46.41 us, 2^26 172.56 us, 2^28 680.83 us
  // float max_element (27 candidates)
  {reduce_op_class::extremum, 4, 11, {backend_id::atomic, 256, 4}},  // 2^10 1.79 us
  {reduce_op_class::extremum, 4, 13, {backend_id::atomic, 256, 16}},  // 2^12 2.12 us
  {reduce_op_class::extremum, 4, 19, {backend_id::atomic, 512, 4}},  // 2^14 2.72 us, 2^16 2.86 us (fastest atomic 256x4 2.83), 2^18 3.02 us
  {reduce_op_class::extremum, 4, 21, {backend_id::atomic, 256, 16}},  // 2^20 4.60 us
  {reduce_op_class::extremum, 4, any_n, {backend_id::atomic, 512, 4}},  // 2^22 8.98 us, 2^24 25.58 us, 2^26 90.56 us (fastest atomic 256x4 90.55), 2^28 351.20 us
  // double max_element (18 candidates)
  {reduce_op_class::extremum, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.83 us
  {reduce_op_class::extremum, 8, 13, {backend_id::shared_memory, 512, 8}},  // 2^12 3.39 us
  {reduce_op_class::extremum, 8, 19, {backend_id::shared_memory, 256, 4}},  // 2^14 5.22 us, 2^16 5.57 us, 2^18 6.39 us
  {reduce_op_class::extremum, 8, any_n, {backend_id::shared_memory, 1024, 8}},  // 2^20 9.37 us, 2^22 17.77 us, 2^24 50.06 us (fastest shared_memory 512x8 49.64), 2^26 177.83 us (fastest shared_memory 512x8 176.81), 2^28 692.67 us (fastest shared_memory 512x8 686.97)
  // float top_k<2> (27 candidates)
  {reduce_op_class::top2, 4, 11, {backend_id::atomic, 256, 4}},  // 2^10 2.30 us
  {reduce_op_class::top2, 4, 13, {backend_id::atomic, 512, 16}},  // 2^12 2.98 us
  {reduce_op_class::top2, 4, 19, {backend_id::atomic, 256, 4}},  // 2^14 3.72 us, 2^16 3.77 us, 2^18 4.30 us
  {reduce_op_class::top2, 4, 21, {backend_id::atomic, 512, 16}},  // 2^20 6.15 us
  {reduce_op_class::top2, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^22 10.49 us, 2^24 27.90 us, 2^26 92.86 us (fastest atomic 512x16 91.87), 2^28 353.58 us (fastest atomic 512x16 350.08)
  {reduce_op_class::other, any_size, 19, {backend_id::warp_shuffle, 256, 16}},
  {reduce_op_class::other, any_size, any_n, {backend_id::warp_shuffle, 512, 16}},
};

inline constexpr top_k_rule top_k_sm90[] = {
  {2, 20, {backend_id::warp_shuffle, 512, 8}},
  {2, any_n, {backend_id::warp_shuffle, 1024, 8}},
  // float top_k<8> (18 candidates)
  {8, 11, {backend_id::warp_shuffle, 128, 16}},  // 2^10 3.91 us
  {8, 17, {backend_id::warp_shuffle, 128, 4}},  // 2^12 6.90 us, 2^14 7.83 us, 2^16 7.98 us
  {8, 21, {backend_id::warp_shuffle, 128, 16}},  // 2^18 9.69 us, 2^20 16.79 us
  {8, any_n, {backend_id::warp_shuffle, 512, 16}},  // 2^22 34.95 us, 2^24 83.67 us, 2^26 193.44 us, 2^28 479.98 us
  // float top_k<32> (18 candidates)
  {32, 11, {backend_id::shared_memory, 128, 8}},  // 2^10 17.19 us
  {32, 13, {backend_id::shared_memory, 256, 16}},  // 2^12 26.89 us
  {32, 19, {backend_id::shared_memory, 128, 8}},  // 2^14 40.33 us, 2^16 41.35 us, 2^18 46.30 us
  {32, 23, {backend_id::shared_memory, 256, 16}},  // 2^20 65.94 us, 2^22 123.20 us
  {32, any_n, {backend_id::shared_memory, 512, 4}},  // 2^24 363.30 us, 2^26 1003.35 us, 2^28 2123.02 us
};

inline constexpr copy_if_rule copy_if_sm90[] = {
  // int32 copy_if (stable) (12 candidates)
  {false, 4, 11, {backend_id::shared_memory, 256, 8}},  // 2^10 2.51 us
  {false, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 3.04 us
  {false, 4, 17, {backend_id::shared_memory, 256, 8}},  // 2^14 4.67 us, 2^16 4.98 us
  {false, 4, 21, {backend_id::warp_shuffle, 512, 8}},  // 2^18 5.95 us, 2^20 8.66 us
  {false, 4, any_n, {backend_id::shared_memory, 256, 16}},  // 2^22 16.74 us, 2^24 47.65 us, 2^26 164.74 us, 2^28 635.94 us
  // double copy_if (stable) (12 candidates)
  {false, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.21 us
  {false, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.62 us
  {false, 8, 17, {backend_id::shared_memory, 256, 4}},  // 2^14 4.51 us, 2^16 5.02 us (fastest shared_memory 256x8 4.93)
  {false, 8, 21, {backend_id::warp_shuffle, 512, 8}},  // 2^18 5.89 us, 2^20 9.53 us
  {false, 8, any_n, {backend_id::shared_memory, 256, 8}},  // 2^22 23.74 us, 2^24 80.09 us, 2^26 317.41 us, 2^28 1271.55 us
  // int32 copy_if unordered() (12 candidates)
  {true, 4, 11, {backend_id::shared_memory, 128, 8}},  // 2^10 2.41 us
  {true, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.87 us
  {true, 4, 19, {backend_id::shared_memory, 128, 8}},  // 2^14 3.58 us, 2^16 3.71 us, 2^18 4.22 us
  {true, 4, 21, {backend_id::warp_shuffle, 512, 8}},  // 2^20 6.05 us
  {true, 4, any_n, {backend_id::shared_memory, 128, 16}},  // 2^22 13.08 us, 2^24 42.43 us, 2^26 148.40 us, 2^28 574.75 us
  // double copy_if unordered() (12 candidates)
  {true, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.08 us
  {true, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.64 us
  {true, 8, 19, {backend_id::shared_memory, 128, 4}},  // 2^14 3.24 us, 2^16 3.36 us, 2^18 4.11 us
  {true, 8, any_n, {backend_id::warp_shuffle, 512, 8}},  // 2^20 6.81 us, 2^22 20.13 us (fastest warp_shuffle 256x8 19.99), 2^24 72.10 us (fastest shared_memory 128x8 72.03), 2^26 275.21 us (fastest shared_memory 512x8 273.87), 2^28 1086.93 us (fastest shared_memory 512x8 1085.87)
};

// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
