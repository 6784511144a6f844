#pragma once
// What `tally bench` prints and writes: the tables, JSON (the input of `tally plot`) and CSV.

#include "bench.hpp"

#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace tally_tool {

/// One run of `tally bench`: where and when, the copy bandwidth, every row.
struct bench_run {
  tally_support::device_info device;
  std::string when, commit, version;
  int loops = 7;
  tally_support::copy_ceiling ceiling;
  std::vector<bench_sample> samples;

  double gbps(const bench_sample& s) const { return tally_support::gbps(s.bytes, s.us); }
  double percent_of_copy(const bench_sample& s) const {
    return ceiling.gbps > 0 ? 100.0 * gbps(s) / ceiling.gbps : 0.0;
  }
  /// CUB's µs over the row's on the same input (0 when CUB's row is missing or wrong).
  double vs_cub(const bench_sample& s) const {
    for (const auto& c : samples)
      if (c.impl == row_cub && c.ok && c.algorithm == s.algorithm && c.type == s.type && c.n == s.n && s.us > 0)
        return c.us / s.us;
    return 0.0;
  }
};

inline std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}

inline std::string number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

inline std::string bench_json(const bench_run& r) {
  std::ostringstream o;
  o << "{\n  \"tool\": \"tally bench\",\n  \"version\": \"" << r.version << "\",\n"
    << "  \"device\": \"" << json_escape(tally_support::describe(r.device)) << "\",\n"
    << "  \"device_name\": \"" << json_escape(r.device.name) << "\",\n"
    << "  \"sm\": " << r.device.cc_major * 10 + r.device.cc_minor << ",\n"
    << "  \"date\": \"" << r.when << "\",\n  \"commit\": \"" << json_escape(r.commit) << "\",\n"
    << "  \"method\": \"median over " << r.loops
    << " loops of the mean time per call; back-to-back calls between CUDA events; inputs rotating over copies "
       "that fill 512 MiB\",\n"
    << "  \"copy_gbps\": " << number(r.ceiling.gbps) << ",\n  \"results\": [";
  for (std::size_t i = 0; i < r.samples.size(); ++i) {
    const bench_sample& s = r.samples[i];
    o << (i ? ",\n" : "\n") << "    {\"algorithm\": \"" << s.algorithm << "\", \"type\": \"" << json_escape(s.type)
      << "\", \"impl\": \"" << json_escape(s.impl) << "\", \"n\": " << s.n << ", \"ok\": " << (s.ok ? "true" : "false");
    if (s.ok)
      o << ", \"us\": " << number(s.us) << ", \"min_us\": " << number(s.min_us) << ", \"max_us\": " << number(s.max_us)
        << ", \"gbps\": " << number(r.gbps(s)) << ", \"percent_of_copy\": " << number(r.percent_of_copy(s))
        << ", \"vs_cub\": " << number(r.vs_cub(s));
    else
      o << ", \"error\": \"" << json_escape(s.detail) << "\"";
    o << "}";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

inline std::string bench_csv(const bench_run& r) {
  std::ostringstream o;
  o << "algorithm,type,impl,n,ok,us,min_us,max_us,gbps,percent_of_copy,vs_cub,error\n";
  for (const bench_sample& s : r.samples) {
    o << s.algorithm << "," << csv_field(s.type) << "," << csv_field(s.impl) << "," << s.n << ","
      << (s.ok ? "true" : "false") << ",";
    if (s.ok)
      o << number(s.us) << "," << number(s.min_us) << "," << number(s.max_us) << "," << number(r.gbps(s)) << ","
        << number(r.percent_of_copy(s)) << "," << number(r.vs_cub(s)) << ",";
    else
      o << ",,,,,," << csv_field(s.detail);
    o << "\n";
  }
  return o.str();
}

/// Writes `text` to `path` ("-": standard output). Throws std::runtime_error.
inline void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << text;
  if (!f) throw std::runtime_error("error while writing " + path);
}

/// The report: per (algorithm, type) a table of every row at every size, then the
/// summary of tally automatic against CUB.
inline std::string bench_tables(const bench_run& r, const std::vector<bench_entry>& entries, bool markdown) {
  namespace ts = tally_support;
  std::string out;
  std::vector<std::pair<std::string, std::string>> order;  // (algorithm, type) in report order
  for (const auto& s : r.samples) {
    const auto key = std::make_pair(s.algorithm, s.type);
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  }
  std::vector<std::uint64_t> sizes;
  for (const auto& s : r.samples)
    if (std::find(sizes.begin(), sizes.end(), s.n) == sizes.end()) sizes.push_back(s.n);

  for (const auto& [algorithm, type] : order) {
    std::string description;
    for (const auto& e : entries)
      if (e.algorithm == algorithm && (type == e.type || type.rfind(e.type + " (", 0) == 0)) description = e.description;
    out += (markdown ? "### " : "== ") + algorithm + " " + type + "\n" + (markdown ? "\n" : "") + description + "\n\n";
    ts::table t({"n", "implementation", "µs", "GB/s", "% copy", "vs CUB"}, 2);
    for (const auto& s : r.samples) {
      if (s.algorithm != algorithm || s.type != type) continue;
      const double ratio = r.vs_cub(s);
      t.add_row({ts::size_label(s.n), s.impl, s.ok ? ts::figure(s.us) : "WRONG", s.ok ? ts::figure(r.gbps(s)) : "-",
                 s.ok ? ts::fixed(r.percent_of_copy(s), 0) + "%" : "-",
                 s.ok && ratio > 0 ? ts::fixed(ratio, 2) + "x" : "-"});
    }
    out += (markdown ? t.markdown() : t.text()) + "\n";
  }

  // The summary: tally automatic against CUB, every (algorithm, type) at every size.
  std::vector<std::string> header = {"algorithm", "type"};
  for (auto n : sizes) header.push_back(ts::size_label(n));
  ts::table summary(header, 2);
  for (const auto& [algorithm, type] : order) {
    std::vector<std::string> row = {algorithm, type};
    for (auto n : sizes) {
      std::string cell = "-";
      for (const auto& s : r.samples)
        if (s.algorithm == algorithm && s.type == type && s.n == n && s.impl == "tally automatic")
          cell = s.ok ? (r.vs_cub(s) > 0 ? ts::fixed(r.vs_cub(s), 2) + "x" : "-") : "WRONG";
      row.push_back(cell);
    }
    summary.add_row(row);
  }
  out += std::string(markdown ? "### " : "== ") + "tally automatic vs CUB (CUB µs / tally µs)\n\n";
  out += markdown ? summary.markdown() : summary.text();
  return out;
}

}  // namespace tally_tool
