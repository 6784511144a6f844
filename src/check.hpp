#pragma once
// The table of checks behind `tally verify`. A check entry is one (algorithm, type,
// data pattern); run(n, options) compares tally with CUB on one input of n items, for
// every requested backend, and times both. New algorithms (top_k, copy_if) plug in
// by returning their entries from a function listed in check_registry.cu.

#include <tally/policy.cuh>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tally_tool {

struct verify_options {
  std::vector<std::uint64_t> sizes;         ///< item counts to check
  std::vector<std::string> types;           ///< type keys to check; empty: all
  std::vector<tally::backend_id> backends;  ///< backends to check (automatic included)
  int loops = 3;                            ///< timed loops per figure (the median is reported)
  bool timing = true;                       ///< false: check results only
  bool markdown = false;                    ///< print the table as Markdown
  std::uint64_t data_seed = 0;              ///< the data's seed (0: the anchors' data); the fuzzer varies it
  std::uint64_t int_modulus = 4;            ///< integer data in [0, modulus) (the fuzzer varies it)
};

/// One line of the report: one backend on one input.
struct check_row {
  std::string algorithm;  ///< "reduce sum", "reduce max", ...
  std::string type;       ///< as shown: "float", "half (float acc)"
  std::string data;       ///< "random", "constant", "with_nan", "+inf", "-inf"
  std::uint64_t n = 0;
  tally::backend_id backend = tally::backend_id::automatic;
  bool all_backends = false;   ///< the failure came before any backend ran (input or CUB)
  bool ok = false;
  std::string detail;          ///< why it failed (got vs CUB, or the exception)
  bool timed = false;
  double tally_us = 0, cub_us = 0;
  double bytes = 0;            ///< bytes read per call, and for copy_if written (for GB/s)
};

struct check_entry {
  std::string algorithm;  ///< "reduce sum"
  std::string type_key;   ///< what --type matches: "int32", "float", "half", ...
  std::string data;       ///< data pattern name
  /// Runs the check on n items for every backend in options.backends; one row each.
  std::function<std::vector<check_row>(std::uint64_t n, const verify_options& options)> run;
};

/// Every check, in report order.
std::vector<check_entry> all_checks();

/// The entries of each algorithm (one function per algorithm, one file each; top_k's and the
/// pieces' long lists are split over files, so that no one file is the tool build's long pole).
std::vector<check_entry> reduce_checks();
std::vector<check_entry> extrema_checks();  ///< max_element_into, min_element_into
std::vector<check_entry> top_k_checks();    ///< top_k_into<K>, top_k<K>, top_k_into(k): every list below
std::vector<check_entry> top_k_32_checks();        ///< top_k_into<32> on float (checks_top_k32.cu)
std::vector<check_entry> top_k_typed_checks();     ///< top_k<K> on int32, int64, double, half
std::vector<check_entry> top_k_any_checks();       ///< top_k with k at run time
std::vector<check_entry> copy_if_checks();  ///< copy_if_into (stable, unordered, stencil), copy_if
std::vector<check_entry> pieces_checks();   ///< reduce_into, max_element_into, top_k_into over rows and segments
std::vector<check_entry> pieces_top_k_checks();      ///< top_k_into(k) over rows and segments
std::vector<check_entry> pieces_top_k_int_checks();  ///< the int32 ones

}  // namespace tally_tool
