#pragma once
/// @file
/// Tuning tables for sm_90 (H100, H200). Until the first `tally tune` run these are the
/// hand-chosen rules of the earlier sweeps (benchmarks/bench_reduce_shapes, bench_top_k,
/// bench_copy_if on an H100, 2026-11-23); `tally tune --out include/tally/tuning/sm90.cuh`
/// on an sm_90 GPU rewrites this file.

#include <tally/tuning/rules.cuh>

TALLY_NAMESPACE_BEGIN
namespace tuning {

// clang-format off
inline constexpr reduce_rule reduce_sm90[] = {
  {reduce_op_class::integer_sum,  4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::integer_sum,  4, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::integer_sum,  4, any_n, {backend_id::atomic, 512, 16}},
  {reduce_op_class::floating_sum, 4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::floating_sum, 4, 19,    {backend_id::atomic, 256, 16}},
  {reduce_op_class::floating_sum, 4, any_n, {backend_id::atomic, 512, 16}},
  {reduce_op_class::min_max,      4, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::min_max,      4, 20,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      4, any_n, {backend_id::atomic, 1024, 8}},
  {reduce_op_class::integer_sum,  8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::floating_sum, 8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::min_max,      8, 10,    {backend_id::atomic, 256, 4}},
  {reduce_op_class::integer_sum,  8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::floating_sum, 8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      8, 19,    {backend_id::atomic, 512, 8}},
  {reduce_op_class::integer_sum,  8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::floating_sum, 8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::min_max,      8, 20,    {backend_id::atomic, 512, 16}},
  {reduce_op_class::integer_sum,  8, any_n, {backend_id::atomic, 512, 8}},
  {reduce_op_class::floating_sum, 8, any_n, {backend_id::atomic, 512, 8}},
  {reduce_op_class::min_max,      8, any_n, {backend_id::atomic, 512, 8}},
  {reduce_op_class::other,        any_size, 19,    {backend_id::warp_shuffle, 256, 16}},
  {reduce_op_class::other,        any_size, any_n, {backend_id::warp_shuffle, 512, 16}},
};

inline constexpr top_k_rule top_k_sm90[] = {
  {2,  20,    {backend_id::warp_shuffle, 512, 8}},
  {2,  any_n, {backend_id::warp_shuffle, 1024, 8}},
  {32, any_n, {backend_id::warp_shuffle, 256, 8}},
};

inline constexpr copy_if_rule copy_if_sm90[] = {
  {false, 4,  any_n, {backend_id::warp_shuffle, 256, 16}},
  {false, 8,  any_n, {backend_id::warp_shuffle, 256, 8}},
  {true,  4,  any_n, {backend_id::warp_shuffle, 256, 16}},
  {true,  8,  any_n, {backend_id::warp_shuffle, 256, 8}},
};
// clang-format on

}  // namespace tuning
TALLY_NAMESPACE_END
