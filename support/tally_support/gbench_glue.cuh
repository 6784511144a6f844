#pragma once
/// @file
/// Glue between the benchmarks and Google Benchmark: the command line (this program's
/// flags, then Google Benchmark's), registering a measurement, and the head and the
/// writing of the Markdown report. A benchmark entry here is one whole measurement (the
/// anchors' 7 loops, or more): it runs once (Iterations(1)) and reports its figure
/// through manual time.
///
///   bench_flags flags;
///   if (!start_benchmarks(argc, argv, program, flags)) return 2;
///   register_measurement("float_sum/cub/2^20", [](benchmark::State& st) { ... });
///   std::string md = markdown_head("bench_reduce", dev, when) + ...;
///   write_markdown(md, flags.md);
///   write_file(json_lines(run, rows), flags.json);  // with --json

#include <tally/version.hpp>

#include <tally_support/bench_cli.hpp>
#include <tally_support/device_info.cuh>

#include <benchmark/benchmark.h>
#include <cuda/version>

#include <exception>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>

namespace tally_support {

/// Takes this program's flags out of argv (parse_bench_flags), then initialises Google
/// Benchmark with the rest. False (after saying why on stderr) when the command line is
/// bad: the program exits with code 2.
inline bool start_benchmarks(int& argc, char** argv, const bench_program& p, bench_flags& flags) {
  try {
    flags = parse_bench_flags(argc, argv, p);
  } catch (const std::exception& e) {
    std::cerr << p.name << ": " << e.what() << " (see --help)\n";
    return false;
  }
  benchmark::Initialize(&argc, argv);
  return !benchmark::ReportUnrecognizedArguments(argc, argv);
}

/// Registers `run(state)` as one measurement: one iteration, manual time, in µs.
template <class Run>
void register_measurement(const std::string& name, Run&& run) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Run>(run))
      ->Iterations(1)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

/// (slowest - fastest) / median, in percent (0 when the median is 0).
inline double spread_percent(double median_us, double min_us, double max_us) {
  return median_us > 0 ? 100.0 * (max_us - min_us) / median_us : 0.0;
}

inline std::string tally_version_string() {
  return std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
         std::to_string(TALLY_VERSION_PATCH);
}
inline std::string cccl_version_string() {
  return std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
         std::to_string(CCCL_PATCH_VERSION);
}

/// "# title", then the device, the date and the tally and CCCL versions, one item each.
inline std::string markdown_head(const std::string& title, const device_info& dev, const std::string& when) {
  std::string md = "# " + title + "\n\n";
  md += "- device: " + describe(dev) + "\n";
  md += "- date: " + when + "\n";
  md += "- tally " + tally_version_string() + ", CCCL " + cccl_version_string() + "\n";
  return md;
}

/// Prints the report and writes it to `path` (throws std::runtime_error if it cannot).
inline void write_markdown(const std::string& md, const std::string& path) {
  std::cout << "\n" << md;
  std::ofstream file(path);
  file << md;
  if (!file) throw std::runtime_error("cannot write " + path);
  std::cout << "(tables written to " << path << ")\n";
}

/// Writes `text` to `path` (throws std::runtime_error if it cannot).
inline void write_file(const std::string& text, const std::string& path) {
  std::ofstream file(path);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + path);
}

}  // namespace tally_support
