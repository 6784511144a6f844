#pragma once
/// @file
/// The one format of tally's tuning tables, and the one selection over them.
///
/// A kernel's launch policy is a backend and a shape (threads per block, items per
/// thread). Every automatic call site compiles ONE kernel per architecture: the kernel
/// reads its policy at compile time from the table of the architecture being compiled
/// (`select(__CUDA_ARCH__ / 10, ...)` in device code), and the host reads the same
/// entry at run time for the architecture the kernel was compiled for, to launch it.
/// What depends on the input size (the grid) is decided at run time; the policy does
/// not depend on n.
///
/// A table is an array of rules searched in order; the first rule whose class matches
/// and whose size limits admit the call wins. Tables: tuning/sm90.cuh (written by
/// `tally tune`), tuning/sm80.cuh, and tuning/generic.cuh, which has a rule for every
/// class and is searched when an architecture's table has none that applies. A call
/// that no table covers gets `no_policy` (threads 0), which the kernels reject with a
/// static_assert: nothing silently falls back to some other entry.


#include <tally/policy.cuh>

#include <cstddef>

TALLY_NAMESPACE_BEGIN
namespace tuning {

/// The kinds of kernel that tune differently.
enum class kernel_class {
  integer_sum,        ///< reduce: tally::plus on an integer type
  floating_sum,       ///< reduce: tally::plus on float, double, __half, __nv_bfloat16
  min_max,            ///< reduce: tally::minimum / tally::maximum on an arithmetic type
  other,              ///< reduce (or minmax_element): any other operator or type
  extremum,           ///< max_element / min_element
  top2,               ///< top_k<1> and top_k<2> on packed keys (a reduction of a pair)
  top_k,              ///< top_k<K>, K >= 3 (a list per thread)
  copy_if,            ///< stable copy_if
  copy_if_unordered,  ///< copy_if under unordered()
  // Small-input kernels: a second kernel of the call site with smaller tiles, for inputs of
  // at most 2^max_items_log2 items (its rule's limit), where the large tiles of the class's
  // own policy would leave most SMs idle or read a partial tile item by item. Only these
  // classes have one (measured to pay: docs/performance.md#small-inputs,
  // #small-reductions); an architecture without such a rule runs its class's kernel at
  // every size. A reduction's small-input kernel whose limit is at most its tile reads its
  // input in one round of loads (read_one_tile, block/for_each_item.cuh).
  top_k_small,              ///< top_k<K>, K >= 3
  top2_small,               ///< top_k<1>, top_k<2>
  copy_if_small,            ///< stable copy_if
  copy_if_unordered_small,  ///< copy_if under unordered()
  integer_sum_small,        ///< reduce: tally::plus on an integer type
  floating_sum_small,       ///< reduce: tally::plus on a floating-point type
  min_max_small,            ///< reduce: tally::minimum / tally::maximum
  extremum_small,           ///< max_element / min_element
};

/// The small-input class of a class (itself for a class without one).
TALLY_HOST_DEVICE constexpr kernel_class small_class_of(kernel_class kind) {
  switch (kind) {
    case kernel_class::top_k: return kernel_class::top_k_small;
    case kernel_class::top2: return kernel_class::top2_small;
    case kernel_class::copy_if: return kernel_class::copy_if_small;
    case kernel_class::copy_if_unordered: return kernel_class::copy_if_unordered_small;
    case kernel_class::integer_sum: return kernel_class::integer_sum_small;
    case kernel_class::floating_sum: return kernel_class::floating_sum_small;
    case kernel_class::min_max: return kernel_class::min_max_small;
    case kernel_class::extremum: return kernel_class::extremum_small;
    default: return kind;
  }
}

/// The class whose kernel a small-input class stands in for (itself for the others).
TALLY_HOST_DEVICE constexpr kernel_class large_class_of(kernel_class kind) {
  switch (kind) {
    case kernel_class::top_k_small: return kernel_class::top_k;
    case kernel_class::top2_small: return kernel_class::top2;
    case kernel_class::copy_if_small: return kernel_class::copy_if;
    case kernel_class::copy_if_unordered_small: return kernel_class::copy_if_unordered;
    case kernel_class::integer_sum_small: return kernel_class::integer_sum;
    case kernel_class::floating_sum_small: return kernel_class::floating_sum;
    case kernel_class::min_max_small: return kernel_class::min_max;
    case kernel_class::extremum_small: return kernel_class::extremum;
    default: return kind;
  }
}

TALLY_HOST_DEVICE constexpr bool is_small_class(kernel_class kind) { return large_class_of(kind) != kind; }

inline constexpr int any_size = 1 << 20;  ///< a limit that admits every value or list size

/// What a kernel runs with. backend: how threads and blocks combine (see
/// docs/backends.md); threads: per block, a multiple of 32; items_per_thread: per tile.
struct launch_policy {
  backend_id backend;
  int threads;
  int items_per_thread;
};

TALLY_HOST_DEVICE constexpr bool operator==(const launch_policy& a, const launch_policy& b) {
  return a.backend == b.backend && a.threads == b.threads && a.items_per_thread == b.items_per_thread;
}

/// What a selection returns when no table covers the call (never for the shipped tables).
TALLY_HOST_DEVICE constexpr launch_policy no_policy() { return launch_policy{backend_id::automatic, 0, 0}; }

/// Whether a kernel can run with p: a whole number of warps, at most 1024 threads, and
/// at least one item per thread (the kernels static_assert it).
TALLY_HOST_DEVICE constexpr bool is_valid(const launch_policy& p) {
  return p.threads > 0 && p.threads % 32 == 0 && p.threads <= 1024 && p.items_per_thread >= 1;
}

struct rule {
  kernel_class kind;
  int max_value_bytes;  ///< applies to values of at most this many bytes
  int max_list_size;    ///< top_k: applies to lists of at most this many entries (K rounded
                        ///< up to a power of two); any_size for the other classes
  launch_policy policy;
  int max_items_log2 = 63;  ///< small-input classes: the kernel runs for n <= 2^max_items_log2
                            ///< items (the class's own kernel above); 63 for the others
};

/// A table: its rules in search order. Tables are returned by constexpr functions
/// (`sm90_table()`, ...) rather than kept in namespace-scope arrays because device code may
/// evaluate a function in a constant expression but may not read a host array.
struct rule_table {
  static constexpr int capacity = 64;
  rule rules[capacity];
  int size;
};

template <std::size_t N>
TALLY_HOST_DEVICE constexpr rule_table make_table(const rule (&rules)[N]) {
  static_assert(N <= std::size_t(rule_table::capacity), "tally: a tuning table holds at most 64 rules");
  rule_table table{};
  for (std::size_t i = 0; i < N; ++i) table.rules[i] = rules[i];
  table.size = int(N);
  return table;
}

/// The index of the first rule of `table` that applies, or -1.
TALLY_HOST_DEVICE constexpr int find_rule(const rule_table& table, kernel_class kind, int value_bytes,
                                          int list_size) {
  for (int i = 0; i < table.size; ++i) {
    const rule& r = table.rules[i];
    if (r.kind == kind && value_bytes <= r.max_value_bytes && list_size <= r.max_list_size) return i;
  }
  return -1;
}

}  // namespace tuning
TALLY_NAMESPACE_END
