#pragma once
/// @file
/// A small table of strings printed as aligned text (terminals) or as Markdown.
///
///   table t({"impl", "2^10", "2^12"});
///   t.add_row({"cub", "5.3", "5.0"});
///   std::cout << t.markdown();

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tally_support {

class table {
 public:
  /// `left_columns`: how many leading columns are labels (left-aligned); the rest are
  /// numbers (right-aligned).
  explicit table(std::vector<std::string> header, std::size_t left_columns = 1)
      : header_(std::move(header)), left_(left_columns) {}

  void add_row(std::vector<std::string> cells) {
    if (cells.size() != header_.size()) throw std::invalid_argument("table::add_row: wrong number of cells");
    rows_.push_back(std::move(cells));
  }
  bool empty() const { return rows_.empty(); }

  std::string markdown() const {
    std::string out = line(header_, "| ", " | ", " |");
    std::vector<std::string> rule;
    for (std::size_t c = 0; c < header_.size(); ++c) rule.push_back(c < left_ ? "---" : "---:");
    out += line(rule, "|", "|", "|");
    for (const auto& r : rows_) out += line(r, "| ", " | ", " |");
    return out;
  }

  std::string text() const {
    std::vector<std::size_t> w(header_.size());
    for (std::size_t c = 0; c < w.size(); ++c) {
      w[c] = width(header_[c]);
      for (const auto& r : rows_) w[c] = std::max(w[c], width(r[c]));
    }
    auto pad = [&](const std::vector<std::string>& r) {
      std::vector<std::string> p;
      for (std::size_t c = 0; c < r.size(); ++c) {
        const std::string fill(w[c] - width(r[c]), ' ');
        p.push_back(c < left_ ? r[c] + fill : fill + r[c]);
      }
      return p;
    };
    std::string out = line(pad(header_), "", "  ", "");
    for (const auto& r : rows_) out += line(pad(r), "", "  ", "");
    return out;
  }

 private:
  /// Characters on screen: UTF-8 continuation bytes ("µ" is two bytes) take no column.
  static std::size_t width(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char ch : s) n += (ch & 0xc0) != 0x80;
    return n;
  }

  static std::string line(const std::vector<std::string>& cells, const char* open, const char* sep,
                          const char* close) {
    std::string s = open;
    for (std::size_t c = 0; c < cells.size(); ++c) s += (c ? sep : "") + cells[c];
    return s + close + "\n";
  }

  std::vector<std::string> header_;
  std::size_t left_;
  std::vector<std::vector<std::string>> rows_;
};

/// printf("%.*f") into a std::string.
inline std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

/// A figure with about three significant digits: 3.44, 34.4, 344, 3440.
inline std::string figure(double x) {
  const double a = x < 0 ? -x : x;
  return fixed(x, a >= 100 ? 0 : a >= 10 ? 1 : 2);
}

}  // namespace tally_support
