#pragma once
/// @file
/// The calls of the A/B, written once and compiled against each version of tally:
/// ab_old.cu includes it with the baseline's headers first on the include path and
/// `-Dtally=tally_old` (so both versions link into one program), ab_new.cu with the
/// working tree's. Only the public API is used, so any version with DESIGN.md's names
/// compiles it. AB_VERSION names the version ("old" or "new"); AB_AUTOMATIC adds the calls
/// under the automatic policy, AB_VARIANTS (a file of entries) calls with forced shapes
/// (tune<>), the candidates for a tuning table's rule. Several translation units share the
/// variants, so that a parallel build compiles them at once.

#include "ab.hpp"

#include <tally/tally.cuh>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace {

struct at_least_int {
  int bar;
  __host__ __device__ bool operator()(int x) const { return x >= bar; }
};
struct at_least_float {
  float bar;
  __host__ __device__ bool operator()(float x) const { return x >= bar; }
};

template <class T>
const T* items(const void* in) {
  return static_cast<const T*>(in);
}
template <class T>
T* out_of(const tally_ab::buffers& b) {
  return static_cast<T*>(b.out);
}

template <class T, class Policy>
void sum(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::reduce_into(p, items<T>(in), items<T>(in) + n, out_of<T>(b), T(0), tally::plus<T>{});
}
template <class Policy>
void float_max(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::reduce_into(p, items<float>(in), items<float>(in) + n, out_of<float>(b),
                     -std::numeric_limits<float>::infinity(), tally::maximum<float>{});
}
template <class T, class Policy>
void argmax(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::max_element_into(p, items<T>(in), items<T>(in) + n, b.index);
}
template <class T, class Policy>
void argmin(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::min_element_into(p, items<T>(in), items<T>(in) + n, b.index);
}
template <int K, class T, class Policy>
void top(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::top_k_into<K>(p, items<T>(in), items<T>(in) + n, out_of<T>(b), b.index);
}
template <class T, class Policy>
void pick(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  if constexpr (std::is_same_v<T, int>)
    tally::copy_if_into(p, items<T>(in), items<T>(in) + n, out_of<T>(b), b.count, at_least_int{2});
  else
    tally::copy_if_into(p, items<T>(in), items<T>(in) + n, out_of<T>(b), b.count, at_least_float{0.5f});
}

// A byte stencil (Python's select): the input's own first n bytes are the mask, and an
// item is selected where its mask byte is odd (about 45% of them by the bit patterns of
// uniform 24-bit floats, wherever they are).
struct odd_byte {
  __host__ __device__ bool operator()(unsigned char m) const { return (m & 1) != 0; }
};
template <class Policy>
void pick_by_mask(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::copy_if_into(p, items<float>(in), items<float>(in) + n, static_cast<const unsigned char*>(in),
                      out_of<float>(b), b.count, odd_byte{});
}

// Rows (tally/pieces.cuh): n items as n / L rows of L, one call over all of them. Only
// versions that have rows compile these (a baseline before them has no such calls, and
// tally_ab skips those cases).
#if __has_include(<tally/pieces.cuh>)
#define AB_HAS_ROWS 1
template <std::int64_t L, class Policy>
void row_sum(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::reduce_into(p, items<float>(in), tally::rows(n / L, L), out_of<float>(b), 0.0f, tally::plus<float>{});
}
template <std::int64_t L, class Policy>
void row_argmax(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::max_element_into(p, items<float>(in), tally::rows(n / L, L), b.index);
}
// top_k with k known at run time, flat (it came before the rows).
template <int K, class Policy>
void top_run(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::top_k_into(p, items<float>(in), items<float>(in) + n, K, out_of<float>(b), b.index);
}
// The same, the smallest first (tally::greater<>).
template <int K, class Policy>
void bottom_run(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::top_k_into(p, items<float>(in), items<float>(in) + n, K, out_of<float>(b), b.index, tally::greater<>{});
}
template <std::int64_t L, int K, class Policy>
void row_top(const Policy& p, const void* in, std::int64_t n, const tally_ab::buffers& b) {
  tally::top_k_into(p, items<float>(in), tally::rows(n / L, L), K, out_of<float>(b), b.index);
}
#endif

// One entry: the case, the implementation's name, and a call of `fn` under a policy.
#define AB_CALL(case_name, impl, policy, ...)                                                    \
  tally_ab::entry {                                                                              \
    AB_VERSION, case_name, impl, [](const void* in, std::int64_t n, const tally_ab::buffers& b, cudaStream_t s) { \
      __VA_ARGS__(policy, in, n, b);                                                             \
    }                                                                                            \
  }
#define AB_AUTO(case_name, ...) AB_CALL(case_name, "auto", tally::par.on(s), __VA_ARGS__)
// A forced shape: backend (ws, sm, at), threads, items per thread.
// (The policy is parenthesised: the comma of tune<t, i> would split the macro's arguments.)
#define AB_WS(case_name, t, i, ...) \
  AB_CALL(case_name, "ws " #t "x" #i, (tally::par.on(s).with(tally::backend::warp_shuffle).tune<t, i>()), __VA_ARGS__)
#define AB_SM(case_name, t, i, ...) \
  AB_CALL(case_name, "sm " #t "x" #i, (tally::par.on(s).with(tally::backend::shared_memory).tune<t, i>()), __VA_ARGS__)
#define AB_AT(case_name, t, i, ...) \
  AB_CALL(case_name, "at " #t "x" #i, (tally::par.on(s).with(tally::backend::atomic).tune<t, i>()), __VA_ARGS__)

const tally_ab::entry ab_table[] = {
#ifdef AB_AUTOMATIC
    AB_AUTO("int32_sum", sum<int>),
    AB_AUTO("float_sum", sum<float>),
    AB_AUTO("double_sum", sum<double>),
    AB_AUTO("float_max", float_max),
    AB_AUTO("float_argmax", argmax<float>),
    AB_AUTO("float_argmin", argmin<float>),
    AB_AUTO("int32_argmax", argmax<int>),
    AB_AUTO("float_argmax_ascending", argmax<float>),
    AB_AUTO("float_argmax_constant", argmax<float>),
    AB_AUTO("float_top2", top<2, float>),
    AB_AUTO("float_top2_ascending", top<2, float>),
    AB_AUTO("float_top2_constant", top<2, float>),
    AB_AUTO("float_top8", top<8, float>),
    AB_AUTO("float_top32", top<32, float>),
    AB_AUTO("int32_top2", top<2, int>),
    AB_AUTO("int32_top8", top<8, int>),
    AB_AUTO("int32_top32", top<32, int>),
    AB_AUTO("int32_copy_if", pick<int>),
    AB_AUTO("float_copy_if", pick<float>),
    AB_CALL("int32_unordered", "auto", (tally::par.on(s).unordered()), pick<int>),
    AB_CALL("float_unordered", "auto", (tally::par.on(s).unordered()), pick<float>),
    AB_AUTO("float_select", pick_by_mask),
    AB_CALL("float_select_unordered", "auto", (tally::par.on(s).unordered()), pick_by_mask),
#ifdef AB_HAS_ROWS
    AB_AUTO("float_rowsum_16", row_sum<16>),
    AB_AUTO("float_rowsum_256", row_sum<256>),
    AB_AUTO("float_rowsum_2048", row_sum<2048>),
    AB_AUTO("float_rowsum_65536", row_sum<65536>),
    AB_AUTO("float_rowsum_131072", row_sum<131072>),
    AB_AUTO("float_rowsum_2^24", row_sum<(1 << 24)>),
    AB_AUTO("float_rowargmax_16", row_argmax<16>),
    AB_AUTO("float_rowargmax_65536", row_argmax<65536>),
    AB_AUTO("float_rowargmax_131072", row_argmax<131072>),
    AB_AUTO("float_rowargmax_2^24", row_argmax<(1 << 24)>),
    AB_AUTO("float_rowargmax_131072_ascending", row_argmax<131072>),
    AB_AUTO("float_rowtop32_65536", row_top<65536, 32>),
    AB_AUTO("float_rowtop50_131072", row_top<131072, 50>),
    AB_AUTO("float_rowtop256_131072", row_top<131072, 256>),
    AB_AUTO("float_rowtop50_512", row_top<512, 50>),
    AB_AUTO("float_rowtop256_1024", row_top<1024, 256>),
    AB_AUTO("float_rowtop50_4096", row_top<4096, 50>),
    AB_AUTO("float_rowtop256_4096", row_top<4096, 256>),
    AB_AUTO("float_topk8", top_run<8>),
    AB_AUTO("float_topk64", top_run<64>),
    AB_AUTO("float_topk256", top_run<256>),
    AB_AUTO("float_topk1024", top_run<1024>),
    AB_AUTO("float_bottomk256", bottom_run<256>),
    AB_AUTO("float_topk8_ascending", top_run<8>),
    AB_AUTO("float_topk8_constant", top_run<8>),
    AB_AUTO("float_topk64_ascending", top_run<64>),
    AB_AUTO("float_topk64_constant", top_run<64>),
    AB_AUTO("float_topk256_ascending", top_run<256>),
    AB_AUTO("float_topk1024_ascending", top_run<1024>),
    AB_AUTO("float_topk1024_constant", top_run<1024>),
    AB_AUTO("float_rowtop50_131072_ascending", row_top<131072, 50>),
    AB_AUTO("float_rowtop50_131072_constant", row_top<131072, 50>),
    AB_AUTO("float_rowtop50_512_ascending", row_top<512, 50>),
    AB_AUTO("float_rowtop256_1024_ascending", row_top<1024, 256>),
#endif
#endif
#ifdef AB_VARIANTS
#include AB_VARIANTS
#endif
};

const tally_ab::registrar ab_registered(ab_table, int(sizeof(ab_table) / sizeof(ab_table[0])));

}  // namespace
