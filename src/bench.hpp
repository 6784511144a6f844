#pragma once
// What `tally bench` runs: its --algo and --type mapped onto the cases of the Google
// Benchmark executables in benchmarks/ (bench_reduce, bench_max_element, bench_top_k,
// bench_copy_if), and the command line each one gets. No CUDA here: the host tests read it.

#include "bench_args.hpp"

#include <tally_support/sizes.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tally_tool {

/// One (algorithm, type) of `tally bench` and the cases of one executable that time it.
struct bench_mapping {
  std::string algorithm, type;
  std::string executable;          ///< "bench_reduce"
  std::vector<std::string> cases;  ///< its --cases
};

/// Every (algorithm, type) the executables have, in the order they run. bench_top_k times
/// K = 2, 8 and 32 in one case (its targets table needs all three), and bench_copy_if
/// has 5%, 50% and 95% selectivity per type (and int32_anchors, the anchors' own case, and
/// int32_mask50, a byte mask as the stencil).
inline const std::vector<bench_mapping>& bench_mappings() {
  static const std::vector<bench_mapping> m = {
      {"reduce_sum", "int32", "bench_reduce", {"int32_sum"}},
      {"reduce_sum", "float", "bench_reduce", {"float_sum"}},
      {"reduce_sum", "double", "bench_reduce", {"double_sum"}},
      {"reduce_max", "float", "bench_reduce", {"float_max"}},
      {"max_element", "float", "bench_max_element", {"float_argmax"}},
      {"min_element", "float", "bench_max_element", {"float_argmin"}},
      {"max_element", "int32", "bench_max_element", {"int32_argmax"}},
      {"top_k2", "float", "bench_top_k", {"float_top_k"}},
      {"top_k8", "float", "bench_top_k", {"float_top_k"}},
      {"top_k32", "float", "bench_top_k", {"float_top_k"}},
      {"top_k2", "int32", "bench_top_k", {"int32_top_k"}},
      {"top_k8", "int32", "bench_top_k", {"int32_top_k"}},
      {"top_k32", "int32", "bench_top_k", {"int32_top_k"}},
      {"copy_if", "int32", "bench_copy_if",
       {"int32_5pct", "int32_50pct", "int32_95pct", "int32_anchors", "int32_mask50"}},
      {"copy_if", "float", "bench_copy_if", {"float_5pct", "float_50pct", "float_95pct"}},
  };
  return m;
}

/// One executable to run and its arguments (after argv[0]).
struct bench_invocation {
  std::string executable;
  std::vector<std::string> args;
  std::string json_part;  ///< where it writes its rows ("" : no --json)
};

/// The executables `o` runs, in order, each once with the union of its wanted cases.
/// usage_error when --algo and --type select nothing.
inline std::vector<bench_invocation> bench_plan(const bench_options& o) {
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<std::string> executables;
  std::vector<std::vector<std::string>> cases;
  for (const auto& m : bench_mappings()) {
    if (!in(o.algos, m.algorithm) || !in(o.types, m.type)) continue;
    auto at = std::find(executables.begin(), executables.end(), m.executable);
    if (at == executables.end()) {
      executables.push_back(m.executable);
      cases.emplace_back();
      at = executables.end() - 1;
    }
    auto& c = cases[std::size_t(at - executables.begin())];
    for (const auto& name : m.cases)
      if (std::find(c.begin(), c.end(), name) == c.end()) c.push_back(name);
  }
  if (executables.empty()) throw usage_error("no benchmark matches --algo and --type together");

  std::string sizes;
  for (auto n : o.sizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(n);
  std::vector<bench_invocation> plan;
  for (std::size_t i = 0; i < executables.size(); ++i) {
    bench_invocation b;
    b.executable = executables[i];
    b.args.push_back("--cases=" + tally_support::join_commas(cases[i]));
    b.args.push_back("--sizes=" + sizes);
    if (o.device >= 0) b.args.push_back("--device=" + std::to_string(o.device));
    if (!o.md_dir.empty()) b.args.push_back("--md=" + o.md_dir + "/" + b.executable + ".md");
    if (!o.json.empty()) {
      b.json_part = o.json + "." + b.executable + ".part";
      b.args.push_back("--json=" + b.json_part);
    }
    for (const auto& a : o.extra) b.args.push_back(a);
    plan.push_back(b);
  }
  return plan;
}

}  // namespace tally_tool
