#pragma once
/// @file
/// Item counts written the way people write them on a command line: "1000", "2^20",
/// "2^16+3", "2^20-1", "1<<20"; lists separated by commas (split_commas), and ranges of
/// powers of two ("2^10..2^28", "2^10..2^28:2").

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_support {

namespace detail {
inline std::uint64_t parse_unsigned(const std::string& s, const std::string& whole) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("bad size '" + whole + "' (use e.g. 1000, 2^20, 2^16+3)");
  return std::stoull(s);
}
}  // namespace detail

/// Parses "1000", "2^20", "1<<20", "2^16+3", "2^20-1". Throws std::invalid_argument.
inline std::uint64_t parse_size(const std::string& text) {
  std::string s;
  for (char c : text)
    if (c != ' ') s += c;
  std::int64_t offset = 0;
  const std::size_t sign = s.find_first_of("+-");
  if (sign != std::string::npos) {
    const std::uint64_t off = detail::parse_unsigned(s.substr(sign + 1), text);
    offset = s[sign] == '+' ? std::int64_t(off) : -std::int64_t(off);
    s = s.substr(0, sign);
  }
  std::uint64_t base = 0;
  std::size_t op = s.find('^');
  std::size_t op_len = 1;
  if (op == std::string::npos && (op = s.find("<<")) != std::string::npos) op_len = 2;
  if (op != std::string::npos) {
    const std::uint64_t b = detail::parse_unsigned(s.substr(0, op), text);
    const std::uint64_t e = detail::parse_unsigned(s.substr(op + op_len), text);
    if (op_len == 1 && b != 2) throw std::invalid_argument("bad size '" + text + "': only powers of 2");
    if (e > 40) throw std::invalid_argument("bad size '" + text + "': too large");
    base = op_len == 1 ? (std::uint64_t(1) << e) : (b << e);
  } else {
    base = detail::parse_unsigned(s, text);
  }
  if (offset < 0 && std::uint64_t(-offset) > base) throw std::invalid_argument("bad size '" + text + "': negative");
  return base + offset;
}

/// "a,b,,c" -> {"a", "b", "", "c"}; "" -> {""}. (Command-line lists: sizes, cases, types.)
inline std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t c; (c = text.find(',', start)) != std::string::npos; start = c + 1)
    out.push_back(text.substr(start, c - start));
  out.push_back(text.substr(start));
  return out;
}

/// Parses a comma-separated list of sizes; an item "A..B" is every power of two from A
/// to B (both powers of two, A <= B), and "A..B:S" every S-th of them ("2^10..2^28:2":
/// 2^10, 2^12, ..., 2^28).
inline std::vector<std::uint64_t> parse_size_list(const std::string& text) {
  std::vector<std::uint64_t> out;
  for (const std::string& item : split_commas(text)) {
    const std::size_t dots = item.find("..");
    if (dots == std::string::npos) {
      out.push_back(parse_size(item));
      continue;
    }
    std::string upper = item.substr(dots + 2);
    std::uint64_t step = 1;
    const std::size_t colon = upper.find(':');
    if (colon != std::string::npos) {
      step = detail::parse_unsigned(upper.substr(colon + 1), item);
      upper = upper.substr(0, colon);
      if (step == 0) throw std::invalid_argument("bad range '" + item + "': the step must be at least 1");
    }
    const std::uint64_t a = parse_size(item.substr(0, dots)), b = parse_size(upper);
    const auto is_power = [](std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; };
    if (!is_power(a) || !is_power(b) || a > b)
      throw std::invalid_argument("bad range '" + item + "': use powers of two, low..high, e.g. 2^10..2^28");
    for (std::uint64_t x = a; x <= b && x != 0; x <<= step) {
      out.push_back(x);
      if (step >= 64 || x > (b >> step)) break;
    }
  }
  return out;
}

/// "2^20" for powers of two, "2^16+3" / "2^20-1" within 16 of one (from 2^8 up), else decimal.
inline std::string size_label(std::uint64_t n) {
  for (int e = 63; e >= 8; --e) {
    const std::uint64_t p = std::uint64_t(1) << e;
    if (n == p) return "2^" + std::to_string(e);
    if (n > p && n - p <= 16) return "2^" + std::to_string(e) + "+" + std::to_string(n - p);
    if (n < p && p - n <= 16) return "2^" + std::to_string(e) + "-" + std::to_string(p - n);
  }
  return std::to_string(n);
}

}  // namespace tally_support
