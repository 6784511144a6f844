#pragma once
// The table of measurements behind `tally bench`. A bench entry is one (algorithm,
// type): it names its rows (the implementations: tally on each backend and automatic,
// CUB, Thrust, the stream_read floor) and, given n, makes one input, checks every row's
// result against the reference (CUB, or CUB's sort for top_k) and times it by the
// anchors' method. Each algorithm's entries live in their own file (bench_*.cu).

#include <tally_support/timing.cuh>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tally_tool {

/// Row names every entry uses the same way (the ratio column divides by "cub").
inline const std::string row_cub = "cub";
inline const std::string row_floor = "floor (stream_read)";

/// One measured (or failed) row on one input.
struct bench_sample {
  std::string algorithm;  ///< "reduce_sum"
  std::string type;       ///< "float", or "int32 (5% selected)" with the entry's variant
  std::string impl;       ///< the row: "tally automatic", "cub", ...
  std::uint64_t n = 0;
  bool ok = true;          ///< false: wrong result or an error; not timed
  std::string detail;      ///< why not ok
  double us = 0;           ///< median µs per call
  double min_us = 0, max_us = 0;
  double bytes = 0;        ///< bytes read (and, for copy_if, written) per call
};

/// What an entry's run gets: where its rows go, the stream and the floor ruler.
class bench_env {
 public:
  cudaStream_t stream = nullptr;
  tally_support::stream_read* ruler = nullptr;
  tally_support::timing_options timing;
  std::function<void(const bench_sample&)> sink;  ///< every row, as soon as it is measured

  /// Set by the driver before each run.
  std::string algorithm, type;
  std::uint64_t n = 0;

  /// One row: `check()` runs it once and returns "" when its result is right (else what
  /// it got); `time()` returns its timing_result. A wrong row is reported, never timed.
  /// An exception is reported as the row's failure and rethrown (a CUDA error may have
  /// poisoned the context: the driver decides whether to go on).
  template <class Check, class Time>
  void measure(const std::string& impl, double bytes, Check&& check, Time&& time) {
    bench_sample s;
    s.algorithm = algorithm;
    s.type = type;
    s.impl = impl;
    s.n = n;
    s.bytes = bytes;
    try {
      s.detail = check();
      s.ok = s.detail.empty();
      if (s.ok) {
        const tally_support::timing_result t = time();
        s.us = t.median_us;
        s.min_us = t.min_us;
        s.max_us = t.max_us;
      }
    } catch (const std::exception& e) {
      s.ok = false;
      s.detail = e.what();
      sink(s);
      throw;
    }
    sink(s);
  }
};

struct bench_entry {
  std::string algorithm;          ///< what --algo matches: "reduce_sum", "max_element", "top_k8", ...
  std::string type;               ///< what --type matches: "int32", "float", ...
  std::string variant;            ///< what tells entries of one (algorithm, type) apart: "5% selected"
  std::string description;        ///< data and operator, one line
  std::vector<std::string> rows;  ///< the rows run() measures, in report order
  int item_bytes = 4;             ///< sizeof(value): the rotating copies take max(512 MiB, n x this)
  /// Device bytes an input of n items takes beyond the 512 MiB of rotating copies (the
  /// outputs, CUB's and the sort's storage): checked against free memory before allocating.
  std::function<double(std::uint64_t n)> extra_bytes;
  /// Makes the input of n items and measures every row through env.measure.
  std::function<void(std::uint64_t n, bench_env& env)> run;
};

/// Every entry, in report order.
std::vector<bench_entry> all_bench_entries();

std::vector<bench_entry> reduce_bench_entries();   ///< reduce_sum (int32, float, double), reduce_max (float)
std::vector<bench_entry> extrema_bench_entries();  ///< max_element, min_element (int32, float)
std::vector<bench_entry> top_k_bench_entries();    ///< top_k2, top_k8, top_k32 (float, int32)
std::vector<bench_entry> copy_if_bench_entries();  ///< copy_if (int32, float; 5% and 50% selected)

}  // namespace tally_tool
