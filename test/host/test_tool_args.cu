// The tally tool's command lines: `tally bench` and `tally tune` options, size lists and
// ranges, what `tally bench` runs (bench_plan), and the errors a bad argument gets
// (usage_error: exit code 2); and the flags the bench_* executables share (bench_cli.hpp).

#include "../../src/bench.hpp"
#include "../../src/bench_args.hpp"
#include "../../src/tune_args.hpp"

#include <tally_support/bench_cli.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using tally_tool::usage_error;

/// Runs a parser on the words of `line` (split at spaces).
template <class Parse>
auto parse_line(Parse parse, const std::string& line) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < line.size()) {
    std::size_t end = line.find(' ', start);
    if (end == std::string::npos) end = line.size();
    if (end > start) words.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  return parse(int(argv.size()), argv.data());
}

auto bench = [](const std::string& line) { return parse_line(tally_tool::parse_bench_args, line); };
auto tune = [](const std::string& line) { return parse_line(tally_tool::parse_tune_args, line); };

/// The usage_error message of `call`, or "" when it did not throw one.
template <class F>
std::string usage_message(F&& call) {
  try {
    call();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("tally bench: defaults and every option") {
  const auto d = bench("");
  REQUIRE(d.sizes.size() == 10);  // 2^10, 2^12, ..., 2^28
  CHECK(d.sizes.front() == (1u << 10));
  CHECK(d.sizes.back() == (1u << 28));
  CHECK(d.algos.empty());
  CHECK(d.device == -1);
  CHECK(d.extra.empty());

  const auto o = bench("--algo top_k,copy_if --type float --sizes 1000,2^20+3 --json r.json --md-dir=t "
                       "--device 1 --markdown -- --benchmark_filter=cub");
  CHECK(o.algos == std::vector<std::string>{"top_k2", "top_k8", "top_k32", "copy_if"});
  CHECK(o.types == std::vector<std::string>{"float"});
  CHECK(o.sizes == std::vector<std::uint64_t>{1000, (1u << 20) + 3});
  CHECK(o.json == "r.json");
  CHECK(o.md_dir == "t");
  CHECK(o.device == 1);
  CHECK(o.extra == std::vector<std::string>{"--benchmark_filter=cub"});
  CHECK(bench("-h").help);
  CHECK(bench("--algo reduce,reduce_sum").algos == std::vector<std::string>{"reduce_sum", "reduce_max"});
}

TEST_CASE("tally bench: --algo and --type become the executables' --cases") {
  const auto plan = tally_tool::bench_plan(bench("--algo top_k,copy_if,reduce_max --type float --sizes 2^10 --json r.json"));
  REQUIRE(plan.size() == 3);  // in the order they run
  CHECK(plan[0].executable == "bench_reduce");
  CHECK(plan[0].args == std::vector<std::string>{"--cases=float_max", "--sizes=1024", "--json=r.json.bench_reduce.part"});
  CHECK(plan[1].executable == "bench_top_k");
  CHECK(plan[1].args[0] == "--cases=float_top_k");  // K = 2, 8 and 32 share one case
  CHECK(plan[2].args[0] == "--cases=float_5pct,float_50pct,float_95pct");
  const auto all = tally_tool::bench_plan(bench("--device 2 --md-dir d -- --x"));
  REQUIRE(all.size() == 4);
  CHECK(all[1].args == std::vector<std::string>{"--cases=float_argmax,float_argmin,int32_argmax",
                                                "--sizes=1024,4096,16384,65536,262144,1048576,4194304,16777216,"
                                                "67108864,268435456",
                                                "--device=2", "--md=d/bench_max_element.md", "--x"});
  CHECK(usage_message([] { tally_tool::bench_plan(bench("--algo min_element --type int32")); })
            .find("no benchmark matches") != std::string::npos);
}

TEST_CASE("tally bench / tune: size ranges") {
  CHECK(bench("--sizes 2^10..2^13").sizes == std::vector<std::uint64_t>{1024, 2048, 4096, 8192});
  CHECK(bench("--sizes 2^10..2^16:3").sizes == std::vector<std::uint64_t>{1u << 10, 1u << 13, 1u << 16});
  CHECK(bench("--sizes 2^20..2^20").sizes == std::vector<std::uint64_t>{1u << 20});
  CHECK(bench("--sizes 5,2^4..2^5").sizes == std::vector<std::uint64_t>{5, 16, 32});
  CHECK(usage_message([] { bench("--sizes 2^12..2^10"); }).find("--sizes") == 0);
  CHECK(usage_message([] { bench("--sizes 1000..2^20"); }).find("powers of two") != std::string::npos);
  CHECK(usage_message([] { bench("--sizes 2^10..2^20:0"); }).find("step") != std::string::npos);
}

TEST_CASE("tally bench: bad arguments are usage errors that say what is wrong") {
  CHECK(usage_message([] { bench("--algo sort"); }).find("unknown algorithm 'sort'") != std::string::npos);
  CHECK(usage_message([] { bench("--type int128"); }).find("unknown value 'int128'") != std::string::npos);
  CHECK(usage_message([] { bench("--sizes 2^x"); }).find("--sizes") == 0);
  CHECK(usage_message([] { bench("--sizes 0"); }).find("0 items") != std::string::npos);
  CHECK(usage_message([] { tune("--loops 0"); }).find("--loops") == 0);
  CHECK(usage_message([] { tune("--loops 7x"); }).find("--loops") == 0);
  CHECK(usage_message([] { bench("--device -1"); }).find("--device") == 0);
  CHECK(usage_message([] { bench("--json"); }).find("needs a value") != std::string::npos);
  CHECK(usage_message([] { bench("--frobnicate"); }).find("unknown option '--frobnicate'") != std::string::npos);
  CHECK(usage_message([] { bench("extra"); }).find("unexpected argument 'extra'") != std::string::npos);
  CHECK(usage_message([] { bench("--json -"); }).find("give a file") != std::string::npos);
  // The options of the former built-in harness say that they are gone.
  CHECK(usage_message([] { bench("--csv r.csv"); }).find("'--csv' is gone") == 0);
  CHECK(usage_message([] { bench("--loops=3"); }).find("'--loops' is gone") == 0);
  CHECK(usage_message([] { bench("--no-progress"); }).find("'--no-progress' is gone") == 0);
}

TEST_CASE("tally tune: defaults, options and errors") {
  const auto d = tune("");
  CHECK(d.sizes.size() == 10);
  CHECK(d.loops == 5);
  CHECK(d.out.empty());
  const auto o = tune("--algo extrema,top_k8 --type double --out t.cuh --sizes 2^10,2^20 --device 0");
  // extrema expands to the tuned members only (min_element takes max_element's rules).
  CHECK(o.algos == std::vector<std::string>{"max_element", "top_k8"});
  CHECK(o.types == std::vector<std::string>{"double"});
  CHECK(o.out == "t.cuh");
  CHECK(o.device == 0);
  CHECK(usage_message([] { tune("--algo min_element"); }).find("unknown algorithm") != std::string::npos);
  CHECK(usage_message([] { tune("--type half"); }).find("unknown value 'half'") != std::string::npos);
  // One policy per class now: the options of the per-size rules are gone, and say so.
  CHECK(usage_message([] { tune("--tolerance 5"); }).find("'--tolerance' is gone") == 0);
  CHECK(usage_message([] { tune("--max-configs 3"); }).find("'--max-configs' is gone") == 0);
}

TEST_CASE("the benchmarks' flags: --timing, and what is left in argv for Google Benchmark") {
  const tally_support::bench_program p{"bench_x", "x\n", "bench_x.md", {"a", "b"}, "a/x"};
  const auto parse = [&](std::vector<std::string> words, int& argc, std::vector<std::string>& left) {
    words.insert(words.begin(), "bench_x");
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    argc = int(words.size());
    const auto f = tally_support::parse_bench_flags(argc, argv.data(), p);
    left.assign(argv.begin(), argv.begin() + argc);
    return f;
  };
  int argc = 0;
  std::vector<std::string> left;
  const auto d = parse({}, argc, left);
  CHECK_FALSE(d.queued);  // the anchors' back-to-back calls unless asked
  CHECK(d.cases == std::vector<std::string>{"a", "b"});
  const auto q = parse({"--timing=queued", "--benchmark_filter=a/", "--cases=b"}, argc, left);
  CHECK(q.queued);
  CHECK(q.cases == std::vector<std::string>{"b"});
  CHECK(left == std::vector<std::string>{"bench_x", "--benchmark_filter=a/"});
  CHECK_FALSE(parse({"--timing", "calls"}, argc, left).queued);
  CHECK(usage_message([&] { parse({"--timing=gpu"}, argc, left); }).find("--timing") == 0);
}
