#pragma once
/// @file
/// Collects benchmark figures (case x implementation x n) and writes the Markdown
/// tables the project reports: for each case, µs per call, GB/s, and the speed-up
/// against a reference implementation (reference µs / implementation µs).
///
///   bench_report r(sizes);
///   r.add_case("int32_sum", "int32 sum, data hash(i) % 4", 4);
///   r.record("int32_sum", "cub", 1024, 5.3);
///   r.record_wrong("int32_sum", "tally (atomic)", 1024);
///   std::cout << r.markdown("cub");
///
/// bench_rows keeps the same figures row by row and writes them as JSON Lines (one object
/// a line, the input of `tally plot`; the files of several benchmarks concatenate).

#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tally_support {

class bench_report {
 public:
  explicit bench_report(std::vector<std::uint64_t> sizes) : sizes_(std::move(sizes)) {}

  /// Columns other than sizes (bench_pieces: one per shape): the keys measurements are
  /// recorded under, each column's heading, and the items a call reads there (for GB/s).
  void set_columns(std::vector<std::uint64_t> keys, std::function<std::string(std::uint64_t)> label,
                   std::function<double(std::uint64_t)> items) {
    sizes_ = std::move(keys);
    label_ = std::move(label);
    items_ = std::move(items);
  }

  /// Declares a case (tables come out in declaration order).
  void add_case(const std::string& name, const std::string& description, double bytes_per_item) {
    cases_.push_back({name, description, bytes_per_item, {}, {}});
  }

  /// A measured figure: median µs per call.
  void record(const std::string& case_name, const std::string& impl, std::uint64_t n, double us) {
    cell_of(case_name, impl, n) = {true, false, us};
  }
  /// A result that did not match the reference: reported as WRONG, never as a time.
  void record_wrong(const std::string& case_name, const std::string& impl, std::uint64_t n) {
    cell_of(case_name, impl, n) = {false, true, 0};
  }

  bool any_wrong() const {
    for (const auto& c : cases_)
      for (const auto& [key, cell] : c.cells)
        if (cell.wrong) return true;
    return false;
  }

  /// Three tables per case. Cells that were not run (filtered out) show "-".
  std::string markdown(const std::string& reference_impl) const {
    std::string out;
    for (const auto& c : cases_) {
      if (c.rows.empty()) continue;
      out += "## " + c.name + ": " + c.description + "\n\n";
      out += "µs per call (median over loops of the mean per call):\n\n" +
             section(c, [](const cell_t& x, const cell_t*, const case_t&, std::uint64_t) {
               return fixed(x.us, x.us < 10 ? 2 : 1);  // as the anchors write them
             });
      out += "\nGB/s (n x " + fixed(c.bytes_per_item, 0) + " bytes read / time):\n\n" +
             section(c, [this](const cell_t& x, const cell_t*, const case_t& cs, std::uint64_t n) {
               return fixed(x.us > 0 ? items_of(n) * cs.bytes_per_item / (x.us * 1e3) : 0.0, 1);
             });
      out += "\nspeed-up vs " + reference_impl + " (" + reference_impl +
             " µs / implementation µs; > 1 means faster than " + reference_impl + "):\n\n" +
             section(
                 c,
                 [](const cell_t& x, const cell_t* ref, const case_t&, std::uint64_t) {
                   return ref && ref->measured && x.us > 0 ? fixed(ref->us / x.us, 2) + "x" : std::string("-");
                 },
                 reference_impl);
      out += "\n";
    }
    return out;
  }

 private:
  struct cell_t {
    bool measured = false;
    bool wrong = false;
    double us = 0;
  };
  struct case_t {
    std::string name, description;
    double bytes_per_item;
    std::vector<std::string> rows;  // implementations in first-recorded order
    std::map<std::pair<std::string, std::uint64_t>, cell_t> cells;
  };

  cell_t& cell_of(const std::string& case_name, const std::string& impl, std::uint64_t n) {
    auto it = std::find_if(cases_.begin(), cases_.end(), [&](const case_t& c) { return c.name == case_name; });
    if (it == cases_.end()) throw std::invalid_argument("bench_report: unknown case " + case_name);
    if (std::find(it->rows.begin(), it->rows.end(), impl) == it->rows.end()) it->rows.push_back(impl);
    return it->cells[{impl, n}];
  }

  double items_of(std::uint64_t n) const { return items_ ? items_(n) : double(n); }

  template <class Format>
  std::string section(const case_t& c, Format format, const std::string& reference = "") const {
    std::vector<std::string> header{"implementation"};
    for (auto n : sizes_) header.push_back(label_ ? label_(n) : size_label(n));
    table t(header);
    for (const auto& impl : c.rows) {
      std::vector<std::string> row{impl};
      for (auto n : sizes_) {
        const auto it = c.cells.find({impl, n});
        const auto ref = reference.empty() ? c.cells.end() : c.cells.find({reference, n});
        if (it == c.cells.end()) row.push_back("-");
        else if (it->second.wrong) row.push_back("WRONG");
        else if (!it->second.measured) row.push_back("-");
        else row.push_back(format(it->second, ref == c.cells.end() ? nullptr : &ref->second, c, n));
      }
      t.add_row(row);
    }
    return t.markdown();
  }

  std::vector<std::uint64_t> sizes_;
  std::function<std::string(std::uint64_t)> label_;
  std::function<double(std::uint64_t)> items_;
  std::vector<case_t> cases_;
};

/// One measured (or WRONG) row, as `tally plot` reads it.
struct bench_row {
  std::string case_name;  ///< "float_sum"
  std::string row;        ///< "tally automatic"
  std::string key;        ///< "tally_automatic"
  std::uint64_t n = 0;
  bool ok = true;  ///< false: WRONG, not timed
  double us = 0, min_us = 0, max_us = 0;
  double gbps = 0;
};

/// Where a run was made; repeated on every JSON line so that each line stands alone.
struct bench_run_info {
  std::string program, device, date, commit, tally_version, cccl_version;
  int sms = 0;
  double copy_gbps = 0;  ///< the device-to-device copy ceiling (read + write)
};

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

inline std::string json_number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

/// The rows as JSON Lines: {"program", "device", "sms", "date", "commit", "tally", "cccl",
/// "copy_gbps", "case", "row", "key", "n", "ok", "us", "min_us", "max_us", "gbps"}.
inline std::string json_lines(const bench_run_info& run, const std::vector<bench_row>& rows) {
  const std::string head = "{\"program\": " + json_string(run.program) + ", \"device\": " + json_string(run.device) +
                           ", \"sms\": " + std::to_string(run.sms) + ", \"date\": " + json_string(run.date) +
                           ", \"commit\": " + json_string(run.commit) + ", \"tally\": " +
                           json_string(run.tally_version) + ", \"cccl\": " + json_string(run.cccl_version) +
                           ", \"copy_gbps\": " + json_number(run.copy_gbps);
  std::string out;
  for (const auto& r : rows)
    out += head + ", \"case\": " + json_string(r.case_name) + ", \"row\": " + json_string(r.row) +
           ", \"key\": " + json_string(r.key) + ", \"n\": " + std::to_string(r.n) +
           ", \"ok\": " + (r.ok ? "true" : "false") + ", \"us\": " + json_number(r.us) +
           ", \"min_us\": " + json_number(r.min_us) + ", \"max_us\": " + json_number(r.max_us) +
           ", \"gbps\": " + json_number(r.gbps) + "}\n";
  return out;
}

}  // namespace tally_support
