#pragma once
// Command-line reading for the tally tool: "--name value" and "--name=value" flags,
// and the usage_error that every bad argument becomes (exit code 2).

#include <stdexcept>
#include <string>

namespace tally_tool {

/// A bad command line: the message says what is wrong; the caller exits with code 2.
struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Walks argv from the first argument after the subcommand.
class arg_list {
 public:
  arg_list(int argc, char** argv) : argc_(argc), argv_(argv) {}

  bool done() const { return i_ >= argc_; }
  std::string current() const { return done() ? std::string() : std::string(argv_[i_]); }

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

}  // namespace tally_tool
