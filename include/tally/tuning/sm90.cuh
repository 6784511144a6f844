#pragma once
/// @file
/// Tuning tables written by `tally tune` (src/tune.cu); the format is tuning/rules.cuh.
/// Do not edit by hand: run `tally tune --out <this file>` on the GPU instead.
///
/// GPU: NVIDIA H100 80GB HBM3, 132 SMs, sm_90, L2 50 MB, 79 GB, CUDA runtime 13.0, driver 13.0
/// date: 2026-11-24 08:03 UTC; commit: 8ae3607+tune-fix; tally 0.1.0
/// method: GPU time per call, the median over 5 loops of up to 100 calls queued behind a spin kernel
/// between CUDA events, inputs rotating over copies that fill 512 MiB; every candidate's result
/// checked against CUB first.
/// sizes: 2^10, 2^12, 2^14, 2^16, 2^18, 2^20, 2^22, 2^24, 2^26, 2^28; a choice is kept while within 2% of the fastest.
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
  {reduce_op_class::integer_sum, 4, 11, {backend_id::warp_shuffle, 256, 4}},  // 2^10 1.54 us
  {reduce_op_class::integer_sum, 4, 13, {backend_id::warp_shuffle, 256, 16}},  // 2^12 1.51 us
  {reduce_op_class::integer_sum, 4, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 1.92 us
  {reduce_op_class::integer_sum, 4, 19, {backend_id::atomic, 256, 16}},  // 2^16 2.70 us, 2^18 2.88 us (fastest atomic 512x16 2.88)
  {reduce_op_class::integer_sum, 4, 21, {backend_id::atomic, 512, 16}},  // 2^20 3.95 us
  {reduce_op_class::integer_sum, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^22 7.87 us, 2^24 23.78 us, 2^26 87.76 us (fastest atomic 512x16 87.19), 2^28 345.73 us (fastest atomic 512x16 344.99)
  // int64 sum (27 candidates)
  {reduce_op_class::integer_sum, 8, 11, {backend_id::warp_shuffle, 256, 4}},  // 2^10 1.57 us
  {reduce_op_class::integer_sum, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 1.61 us
  {reduce_op_class::integer_sum, 8, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 2.56 us
  {reduce_op_class::integer_sum, 8, 19, {backend_id::atomic, 256, 8}},  // 2^16 2.87 us, 2^18 3.28 us
  {reduce_op_class::integer_sum, 8, any_n, {backend_id::atomic, 512, 16}},  // 2^20 5.28 us, 2^22 13.46 us (fastest atomic 1024x8 13.27), 2^24 45.36 us (fastest atomic 1024x4 45.07), 2^26 172.85 us, 2^28 690.52 us (fastest atomic 512x8 689.36)
  // float sum (27 candidates)
  {reduce_op_class::floating_sum, 4, 11, {backend_id::warp_shuffle, 256, 4}},  // 2^10 1.52 us
  {reduce_op_class::floating_sum, 4, 13, {backend_id::warp_shuffle, 256, 16}},  // 2^12 1.50 us
  {reduce_op_class::floating_sum, 4, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 1.89 us
  {reduce_op_class::floating_sum, 4, 19, {backend_id::atomic, 256, 16}},  // 2^16 2.74 us, 2^18 2.90 us
  {reduce_op_class::floating_sum, 4, 21, {backend_id::atomic, 512, 16}},  // 2^20 3.88 us
  {reduce_op_class::floating_sum, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^22 7.87 us, 2^24 23.76 us, 2^26 87.70 us (fastest atomic 512x16 87.18), 2^28 345.66 us (fastest atomic 512x16 344.94)
  // double sum (27 candidates)
  {reduce_op_class::floating_sum, 8, 11, {backend_id::warp_shuffle, 256, 4}},  // 2^10 1.61 us
  {reduce_op_class::floating_sum, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 1.63 us
  {reduce_op_class::floating_sum, 8, 15, {backend_id::warp_shuffle, 1024, 16}},  // 2^14 2.67 us
  {reduce_op_class::floating_sum, 8, 19, {backend_id::atomic, 256, 8}},  // 2^16 2.84 us, 2^18 3.32 us (fastest atomic 512x8 3.32)
  {reduce_op_class::floating_sum, 8, 21, {backend_id::atomic, 512, 16}},  // 2^20 5.32 us
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic, 1024, 8}},  // 2^22 13.30 us, 2^24 45.26 us (fastest atomic 1024x4 45.06), 2^26 173.68 us (fastest atomic 512x8 173.34), 2^28 690.89 us (fastest atomic 512x8 689.44)
  // float max (27 candidates)
  {reduce_op_class::min_max, 4, 11, {backend_id::warp_shuffle, 256, 4}},  // 2^10 1.62 us
  {reduce_op_class::min_max, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 1.72 us
  {reduce_op_class::min_max, 4, 15, {backend_id::atomic, 1024, 16}},  // 2^14 2.58 us
  {reduce_op_class::min_max, 4, 19, {backend_id::atomic, 512, 4}},  // 2^16 2.79 us, 2^18 3.00 us (fastest atomic 256x8 2.98)
  {reduce_op_class::min_max, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^20 4.18 us, 2^22 8.40 us, 2^24 24.96 us (fastest atomic 512x4 24.80), 2^26 88.56 us (fastest atomic 512x16 88.55), 2^28 346.83 us (fastest atomic 512x16 346.46)
  // double max (27 candidates)
  {reduce_op_class::min_max, 8, 11, {backend_id::atomic, 256, 4}},  // 2^10 1.87 us
  {reduce_op_class::min_max, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.17 us
  {reduce_op_class::min_max, 8, 17, {backend_id::atomic, 256, 4}},  // 2^14 2.99 us, 2^16 3.04 us
  {reduce_op_class::min_max, 8, 19, {backend_id::atomic, 512, 4}},  // 2^18 3.60 us
  {reduce_op_class::min_max, 8, any_n, {backend_id::atomic, 512, 8}},  // 2^20 5.90 us, 2^22 14.26 us (fastest atomic 1024x4 14.19), 2^24 46.86 us (fastest atomic 1024x4 46.17), 2^26 174.68 us (fastest atomic 1024x4 174.24), 2^28 690.29 us
  // float max_element (27 candidates)
  {reduce_op_class::extremum, 4, 11, {backend_id::atomic, 256, 4}},  // 2^10 1.75 us
  {reduce_op_class::extremum, 4, 13, {backend_id::atomic, 1024, 4}},  // 2^12 2.09 us
  {reduce_op_class::extremum, 4, 19, {backend_id::atomic, 512, 4}},  // 2^14 2.65 us, 2^16 2.86 us (fastest atomic 256x4 2.83), 2^18 3.06 us
  {reduce_op_class::extremum, 4, 21, {backend_id::atomic, 256, 16}},  // 2^20 4.65 us
  {reduce_op_class::extremum, 4, any_n, {backend_id::atomic, 1024, 4}},  // 2^22 8.90 us, 2^24 25.96 us (fastest atomic 256x8 25.51), 2^26 90.89 us (fastest atomic 512x16 90.76), 2^28 352.35 us (fastest atomic 512x16 349.91)
  // double max_element (18 candidates)
  {reduce_op_class::extremum, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.83 us
  {reduce_op_class::extremum, 8, 13, {backend_id::shared_memory, 512, 8}},  // 2^12 3.38 us
  {reduce_op_class::extremum, 8, 19, {backend_id::shared_memory, 256, 4}},  // 2^14 5.20 us, 2^16 5.54 us, 2^18 6.36 us (fastest warp_shuffle 256x8 6.30)
  {reduce_op_class::extremum, 8, 21, {backend_id::warp_shuffle, 256, 16}},  // 2^20 9.27 us
  {reduce_op_class::extremum, 8, 23, {backend_id::shared_memory, 1024, 8}},  // 2^22 17.87 us
  {reduce_op_class::extremum, 8, any_n, {backend_id::shared_memory, 512, 8}},  // 2^24 49.45 us, 2^26 177.74 us, 2^28 694.44 us
  // float top_k<2> (27 candidates)
  {reduce_op_class::top2, 4, 11, {backend_id::warp_shuffle, 256, 8}},  // 2^10 2.29 us
  {reduce_op_class::top2, 4, 13, {backend_id::atomic, 512, 16}},  // 2^12 2.98 us
  {reduce_op_class::top2, 4, 19, {backend_id::atomic, 256, 4}},  // 2^14 3.77 us, 2^16 3.77 us, 2^18 4.33 us (fastest atomic 256x8 4.25)
  {reduce_op_class::top2, 4, 21, {backend_id::atomic, 256, 16}},  // 2^20 6.23 us
  {reduce_op_class::top2, 4, any_n, {backend_id::atomic, 1024, 8}},  // 2^22 10.56 us, 2^24 27.95 us (fastest atomic 512x4 27.87), 2^26 92.92 us, 2^28 353.79 us
  {reduce_op_class::other, any_size, 19, {backend_id::warp_shuffle, 256, 16}},
  {reduce_op_class::other, any_size, any_n, {backend_id::warp_shuffle, 512, 16}},
};

inline constexpr top_k_rule top_k_sm90[] = {
  {2, 20, {backend_id::warp_shuffle, 512, 8}},
  {2, any_n, {backend_id::warp_shuffle, 1024, 8}},
  // float top_k<8> (18 candidates)
  {8, 11, {backend_id::warp_shuffle, 128, 16}},  // 2^10 3.90 us
  {8, 13, {backend_id::warp_shuffle, 256, 16}},  // 2^12 6.86 us
  {8, 15, {backend_id::shared_memory, 128, 4}},  // 2^14 7.80 us
  {8, 17, {backend_id::warp_shuffle, 128, 4}},  // 2^16 7.92 us
  {8, 21, {backend_id::shared_memory, 128, 16}},  // 2^18 9.62 us, 2^20 16.71 us (fastest warp_shuffle 256x16 16.40)
  {8, 25, {backend_id::warp_shuffle, 512, 8}},  // 2^22 34.90 us, 2^24 83.05 us
  {8, any_n, {backend_id::warp_shuffle, 512, 16}},  // 2^26 193.63 us, 2^28 480.10 us
  // float top_k<32> (18 candidates)
  {32, 11, {backend_id::shared_memory, 128, 8}},  // 2^10 16.58 us
  {32, 13, {backend_id::shared_memory, 256, 16}},  // 2^12 27.52 us
  {32, 17, {backend_id::shared_memory, 128, 4}},  // 2^14 36.38 us, 2^16 38.63 us
  {32, 21, {backend_id::shared_memory, 256, 8}},  // 2^18 45.96 us, 2^20 66.80 us (fastest shared_memory 256x16 65.95)
  {32, 23, {backend_id::shared_memory, 256, 16}},  // 2^22 123.50 us
  {32, any_n, {backend_id::shared_memory, 512, 4}},  // 2^24 364.62 us, 2^26 1006.21 us, 2^28 2125.76 us
};

inline constexpr copy_if_rule copy_if_sm90[] = {
  // int32 copy_if (stable) (12 candidates)
  {false, 4, 11, {backend_id::shared_memory, 256, 8}},  // 2^10 2.55 us
  {false, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 3.05 us
  {false, 4, 15, {backend_id::shared_memory, 128, 8}},  // 2^14 4.57 us
  {false, 4, 17, {backend_id::shared_memory, 256, 8}},  // 2^16 4.98 us
  {false, 4, 19, {backend_id::warp_shuffle, 512, 8}},  // 2^18 5.97 us
  {false, 4, 21, {backend_id::warp_shuffle, 512, 16}},  // 2^20 8.32 us
  {false, 4, any_n, {backend_id::shared_memory, 256, 16}},  // 2^22 16.88 us, 2^24 47.82 us, 2^26 164.87 us (fastest warp_shuffle 256x16 164.66), 2^28 635.95 us (fastest warp_shuffle 256x16 634.79)
  // double copy_if (stable) (12 candidates)
  {false, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.24 us
  {false, 8, 13, {backend_id::shared_memory, 512, 8}},  // 2^12 2.68 us
  {false, 8, 15, {backend_id::shared_memory, 128, 4}},  // 2^14 4.28 us
  {false, 8, 17, {backend_id::warp_shuffle, 512, 4}},  // 2^16 4.80 us
  {false, 8, 21, {backend_id::warp_shuffle, 512, 8}},  // 2^18 5.90 us, 2^20 9.60 us
  {false, 8, any_n, {backend_id::shared_memory, 256, 8}},  // 2^22 23.62 us, 2^24 80.12 us (fastest warp_shuffle 256x8 79.89), 2^26 318.16 us (fastest warp_shuffle 256x8 316.61), 2^28 1266.88 us
  // int32 copy_if unordered() (12 candidates)
  {true, 4, 11, {backend_id::shared_memory, 256, 8}},  // 2^10 2.40 us
  {true, 4, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.87 us
  {true, 4, 19, {backend_id::shared_memory, 128, 8}},  // 2^14 3.55 us, 2^16 3.71 us, 2^18 4.19 us
  {true, 4, 21, {backend_id::warp_shuffle, 512, 8}},  // 2^20 6.08 us
  {true, 4, 23, {backend_id::shared_memory, 256, 16}},  // 2^22 12.99 us
  {true, 4, any_n, {backend_id::shared_memory, 128, 16}},  // 2^24 42.47 us, 2^26 148.61 us, 2^28 573.83 us
  // double copy_if unordered() (12 candidates)
  {true, 8, 11, {backend_id::shared_memory, 256, 4}},  // 2^10 2.08 us
  {true, 8, 13, {backend_id::warp_shuffle, 512, 8}},  // 2^12 2.72 us
  {true, 8, 19, {backend_id::shared_memory, 128, 4}},  // 2^14 3.21 us, 2^16 3.37 us, 2^18 4.10 us
  {true, 8, any_n, {backend_id::warp_shuffle, 512, 8}},  // 2^20 6.84 us, 2^22 20.15 us (fastest warp_shuffle 256x8 19.98), 2^24 72.08 us (fastest shared_memory 256x8 71.95), 2^26 274.06 us (fastest shared_memory 512x8 273.97), 2^28 1086.52 us
};

// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
