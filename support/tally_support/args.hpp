#pragma once
/// @file
/// The one command-line reader of the tally tool and the benchmarks: "--name value" and
/// "--name=value" flags, switches, the value checks every program repeats (a number in a
/// range, a size list, names from a known list), and the usage_error that every bad
/// argument becomes (exit code 2). Sizes are read by sizes.hpp.
///
///   arg_list args(argc, argv);
///   std::string v;
///   while (!args.done()) {
///     if (args.take_value("--sizes", v)) sizes = parse_sizes_flag(v);
///     else if (args.take_switch("--help")) help = true;
///     else throw usage_error("unknown option '" + args.current() + "'");
///   }
///
/// No CUDA here: the host tests read it.

#include <tally_support/sizes.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tally_support {

/// A bad command line: the message says what is wrong; the caller exits with code 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Walks argv from a given argument on (the first after the subcommand, or argv[1]).
class arg_list {
 public:
  arg_list(int argc, char** argv) : argc_(argc), argv_(argv) {}

  bool done() const { return i_ >= argc_; }
  std::string current() const { return done() ? std::string() : std::string(argv_[i_]); }
  /// The current argument's position in the argv given to the constructor.
  int index() const { return i_; }

  /// Moves past the current argument (a positional one the caller has read).
  void skip() { ++i_; }

  /// Consumes a "--name" switch if it is the current argument.
  bool take_switch(const std::string& name) {
    if (done() || current() != name) return false;
    ++i_;
    return true;
  }

  /// Consumes "--name value" or "--name=value" if the current argument is that flag.
  bool take_value(const std::string& name, std::string& value) {
    if (done()) return false;
    const std::string a = current();
    if (a == name) {
      if (i_ + 1 >= argc_) throw usage_error(name + " needs a value");
      value = argv_[i_ + 1];
      i_ += 2;
      return true;
    }
    if (a.rfind(name + "=", 0) == 0) {
      value = a.substr(name.size() + 1);
      ++i_;
      return true;
    }
    return false;
  }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
};

/// "a,b,c"
inline std::string join_commas(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

/// "a|b|c"
inline std::string join_bar(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
  return s;
}

/// Every name in `value` (a comma list) must be in `known`.
inline std::vector<std::string> parse_known_list(const std::string& flag, const std::string& value,
                                                 const std::vector<std::string>& known) {
  std::vector<std::string> out = split_commas(value);
  for (const auto& t : out)
    if (std::find(known.begin(), known.end(), t) == known.end())
      throw usage_error(flag + ": unknown value '" + t + "' (known: " + join_bar(known) + ")");
  return out;
}

/// A size list to time (sizes.hpp's syntax); 0 items is refused.
inline std::vector<std::uint64_t> parse_sizes_flag(const std::string& value, const std::string& flag = "--sizes") {
  try {
    std::vector<std::uint64_t> sizes = parse_size_list(value);
    for (std::uint64_t n : sizes)
      if (n == 0) throw usage_error(flag + ": 0 items cannot be timed (tally verify checks empty ranges)");
    return sizes;
  } catch (const std::invalid_argument& e) {
    throw usage_error(flag + ": " + e.what());
  }
}

/// An integer from lo to hi, written in full ("7x" is refused).
inline int parse_int_flag(const std::string& flag, const std::string& value, int lo, int hi) {
  const std::string expected =
      flag + ": expected a number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", got '" + value + "'";
  int v = 0;
  try {
    std::size_t used = 0;
    v = std::stoi(value, &used);
    if (used != value.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw usage_error(expected);
  }
  if (v < lo || v > hi) throw usage_error(expected);
  return v;
}

}  // namespace tally_support
