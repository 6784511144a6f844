// `tally tune`: searches backend x threads per block x items per thread for each
// algorithm, value size and size bucket on the present GPU (the cases: tune_*.cu), checks
// every candidate's result, and writes a tuning header in the format of
// include/tally/tuning/ (tuning/rules.cuh) with its provenance: the GPU, the date, the
// commit, and the measured µs behind every rule. The classes not searched in a run keep
// the rules compiled into this tool, so that a partial run still writes a whole header.

#include "commands.hpp"
#include "tool_common.hpp"
#include "tune_args.hpp"
#include "tune_case.cuh"
#include "tune_table.hpp"

#include <tally/tuning/copy_if.cuh>
#include <tally/tuning/reduce.cuh>
#include <tally/tuning/top_k.cuh>
#include <tally/version.hpp>

#include <tally_support/cuda_check.cuh>
#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;
namespace tt = tally::tuning;

std::vector<tune_case> all_tune_cases() {
  std::vector<tune_case> all;
  for (auto part : {tune_reduce_sum32_cases, tune_reduce_sum64_cases, tune_reduce_max_cases, tune_extrema_cases,
                    tune_top2_cases, tune_top_k8_cases, tune_top_k32_cases, tune_copy_if_stable_cases,
                    tune_copy_if_unordered_cases})
    for (auto& c : part()) all.push_back(std::move(c));
  return all;
}

void print_help(std::ostream& out) {
  out << "usage: tally tune [options]\n"
         "\n"
         "Searches, on this GPU, the backend x threads per block x items per thread of each\n"
         "algorithm's kernels for each value size and size bucket, checks every candidate's\n"
         "result against CUB, and writes a tuning header in the format of\n"
         "include/tally/tuning/ (tuning/rules.cuh) with its provenance and the µs behind\n"
         "every rule. Classes not searched keep the rules compiled into this tool. To use the\n"
         "result on an sm_90 GPU: --out include/tally/tuning/sm90.cuh, rebuild.\n"
         "\n"
         "searched (each candidate is its own kernel, compiled into the tool):\n"
         "  reduce_sum    int32, int64, float, double: atomic / shared_memory / warp_shuffle\n"
         "                x threads 256, 512, 1024 x items 4, 8, 16\n"
         "  reduce_max    float, double (min takes the same rules): as reduce_sum\n"
         "  max_element   float (packed keys), double (pairs: no atomic form); min_element\n"
         "                takes the same rules\n"
         "  top_k2        float (top_k<1> and <2> on packed keys: a reduction)\n"
         "  top_k8, top_k32   float: merge by shuffles or shared-memory tree x threads 128,\n"
         "                256, 512 x items 4, 8, 16 (lists of up to 8 and up to 32 entries)\n"
         "  copy_if       int32, double; stable and unordered(): block scan by shuffles or\n"
         "                shared memory x threads 128, 256, 512 x items 8, 16 (int32) / 4, 8\n"
         "\n"
         "options:\n"
         "  --algo LIST      reduce_sum, reduce_max, max_element, top_k2, top_k8, top_k32,\n"
         "                   copy_if, or the groups reduce, extrema, top_k, all (default: all)\n"
         "  --type LIST      int32, int64, float, double (default: all)\n"
         "  --sizes LIST     the sizes measured (default 2^10..2^28:2); each is the centre of a\n"
         "                   bucket that reaches halfway (in log2) to the next\n"
         "  --loops N        timed loops per figure (default 5)\n"
         "  --tolerance P    keep the previous bucket's choice while it is within P% of the\n"
         "                   fastest (default 2): fewer rules, fewer kernels in `automatic`\n"
         "  --max-configs N  at most N configurations per class (default 3; 0: no limit): each\n"
         "                   is a kernel compiled into every `automatic` call of that class, so\n"
         "                   the ones that cost least are dropped (compile time)\n"
         "  --out FILE       the header to write (default: standard output)\n"
         "  --no-progress    no progress bar\n"
         "  --device N       run on CUDA device N\n"
         "  -h, --help       this text\n";
}

// --- the compiled tables, as text -----------------------------------------------------------

struct group {
  int order = 0;            ///< the group's place in its table
  std::string key;          ///< the rule's leading fields
  std::vector<std::string> rows;
};

int class_order(tt::reduce_op_class c) {
  switch (c) {
    case tt::reduce_op_class::integer_sum: return 0;
    case tt::reduce_op_class::floating_sum: return 1;
    case tt::reduce_op_class::min_max: return 2;
    case tt::reduce_op_class::extremum: return 3;
    case tt::reduce_op_class::top2: return 4;
    case tt::reduce_op_class::other: return 9;
  }
  return 9;
}
const char* class_name(tt::reduce_op_class c) {
  switch (c) {
    case tt::reduce_op_class::integer_sum: return "integer_sum";
    case tt::reduce_op_class::floating_sum: return "floating_sum";
    case tt::reduce_op_class::min_max: return "min_max";
    case tt::reduce_op_class::extremum: return "extremum";
    case tt::reduce_op_class::top2: return "top2";
    case tt::reduce_op_class::other: return "other";
  }
  return "other";
}
std::string bytes_text(int b) { return b >= tt::any_size ? "any_size" : std::to_string(b); }
template <class Config>
std::string compiled_config(const Config& c) {
  return config_cpp({tally::backend_name(c.backend), c.threads, c.items_per_thread});
}

template <std::size_t N>
std::map<std::string, group> reduce_groups(const tt::reduce_rule (&table)[N]) {
  std::map<std::string, group> out;
  for (const auto& r : table) {
    const std::string key = std::string("reduce_op_class::") + class_name(r.op) + ", " + bytes_text(r.max_value_bytes);
    group& g = out[key];
    g.order = class_order(r.op) * 10000 + std::min(r.max_value_bytes, 9999);
    g.key = key;
    g.rows.push_back("  {" + key + ", " + log2_cpp(r.max_log2_n) + ", " + compiled_config(r.config) + "},");
  }
  return out;
}
template <std::size_t N>
std::map<std::string, group> top_k_groups(const tt::top_k_rule (&table)[N]) {
  std::map<std::string, group> out;
  for (const auto& r : table) {
    const std::string key = std::to_string(r.max_list_size);
    group& g = out[key];
    g.order = r.max_list_size;
    g.key = key;
    g.rows.push_back("  {" + key + ", " + log2_cpp(r.max_log2_n) + ", " + compiled_config(r.config) + "},");
  }
  return out;
}
template <std::size_t N>
std::map<std::string, group> copy_if_groups(const tt::copy_if_rule (&table)[N]) {
  std::map<std::string, group> out;
  for (const auto& r : table) {
    const std::string key = std::string(r.unordered ? "true" : "false") + ", " + bytes_text(r.max_value_bytes);
    group& g = out[key];
    g.order = (r.unordered ? 100000 : 0) + std::min(r.max_value_bytes, 9999);
    g.key = key;
    g.rows.push_back("  {" + key + ", " + log2_cpp(r.max_log2_n) + ", " + compiled_config(r.config) + "},");
  }
  return out;
}

tune_table_text table_text(const std::string& type, const std::string& name, std::map<std::string, group> groups) {
  std::vector<group> v;
  for (auto& [k, g] : groups) v.push_back(std::move(g));
  std::stable_sort(v.begin(), v.end(), [](const group& a, const group& b) { return a.order < b.order; });
  tune_table_text t{type, name, {}};
  for (const auto& g : v)
    for (const auto& r : g.rows) t.rows.push_back(r);
  return t;
}

/// The group's order for a tuned case (as the compiled groups' orders).
int tuned_order(const tune_case& c) {
  if (c.table == "reduce") {
    static const std::map<std::string, tt::reduce_op_class> classes = {
        {"integer_sum", tt::reduce_op_class::integer_sum}, {"floating_sum", tt::reduce_op_class::floating_sum},
        {"min_max", tt::reduce_op_class::min_max},         {"extremum", tt::reduce_op_class::extremum},
        {"top2", tt::reduce_op_class::top2}};
    const std::string name = c.key.substr(c.key.find("::") + 2, c.key.find(',') - c.key.find("::") - 2);
    return class_order(classes.at(name)) * 10000 + c.item_bytes;
  }
  if (c.table == "top_k") return std::stoi(c.key);
  return (c.key.rfind("true", 0) == 0 ? 100000 : 0) + c.item_bytes;
}

// --- the run --------------------------------------------------------------------------------

struct case_result {
  std::vector<tune_measurement> ms;
  std::map<std::uint64_t, double> automatic_us;  ///< the compiled tables' choice
  std::vector<tune_rule> rules;
};

int run(const tune_options& o) {
  select_device(o.device);
  ts::require_device();
  std::vector<tune_case> cases;
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return v.empty() || std::find(v.begin(), v.end(), x) != v.end();
  };
  for (auto& c : all_tune_cases())
    if (in(o.algos, c.algorithm) && in(o.types, c.type)) cases.push_back(std::move(c));
  if (cases.empty()) throw usage_error("nothing to search for that --algo and --type");

  const double free_bytes = free_device_bytes();
  for (const auto& c : cases)
    for (std::uint64_t n : o.sizes) {
      const double need = std::max(double(ts::rotation_budget_bytes), double(n) * c.item_bytes) +
                          double(n) * c.item_bytes * 6 + 64e6;
      if (need > free_bytes)
        throw usage_error("--sizes: " + ts::size_label(n) + " items of " + c.label + " need about " + gigabytes(need) +
                          " of device memory; the device has " + gigabytes(free_bytes) + " free");
    }

  const ts::device_info device = ts::current_device_info();
  const int arch = device.cc_major * 10 + device.cc_minor;
  const std::string when = ts::utc_now(), commit = current_commit();
  std::cerr << "tally tune on " << ts::describe(device) << ", " << when << ", commit " << commit << "\n";

  long total = 0;
  for (const auto& c : cases) total += long(c.configs.size() * o.sizes.size());
  progress_bar bar(total, o.progress);
  cudaStream_t stream = nullptr;
  TALLY_SUPPORT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const ts::spin_calibration spin = ts::calibrate_spin(stream);
  std::vector<case_result> results(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const tune_case& c = cases[i];
    case_result& r = results[i];
    for (std::uint64_t n : o.sizes) {
      tune_env env;
      env.stream = stream;
      env.spin = spin;
      env.timing.loops = o.loops;
      env.n = n;
      env.record = [&](const tune_config& config, double us, bool ok, const std::string& why) {
        r.ms.push_back({n, config, us, ok});
        bar.step(c.label + " " + ts::size_label(n) + " " + config.label());
        if (!ok && why.find("too many resources") == std::string::npos && why.find("launch") == std::string::npos)
          std::cerr << "\ntally tune: " << c.label << " n=" << n << " " << config.label() << ": " << why << "\n";
      };
      env.record_automatic = [&](double us) { r.automatic_us[n] = us; };
      c.run(n, env);
    }
    r.rules = choose_rules(r.ms, o.tolerance, o.max_configs);
  }
  bar.finish();
  TALLY_SUPPORT_CHECK(cudaStreamDestroy(stream));

  // The report: per case, each size's fastest, the choice, and the compiled tables' time.
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const case_result& r = results[i];
    std::cout << "\n== " << cases[i].label << " (" << cases[i].table << " {" << cases[i].key << ", ...})\n";
    ts::table t({"n", "fastest", "µs", "tuned table", "µs", "compiled table µs", "gain"}, 2);
    for (std::uint64_t n : o.sizes) {
      const tune_measurement* best = nullptr;
      for (const auto& m : r.ms)
        if (m.n == n && m.ok && (!best || m.us < best->us)) best = &m;
      if (!best) {
        t.add_row({ts::size_label(n), "(none ran)", "-", "-", "-", "-", "-"});
        continue;
      }
      // The tuned table's pick for n.
      const tune_rule* rule = nullptr;
      for (const auto& ru : r.rules)
        if (!rule && (ru.max_log2_n >= tune_any_n || n <= (std::uint64_t(1) << ru.max_log2_n))) rule = &ru;
      double chosen_us = 0;
      for (const auto& m : r.ms)
        if (rule && m.n == n && m.ok && m.config == rule->config) chosen_us = m.us;
      const double compiled = r.automatic_us.count(n) ? r.automatic_us.at(n) : 0;
      t.add_row({ts::size_label(n), best->config.label(), ts::figure(best->us), rule ? rule->config.label() : "-",
                 chosen_us > 0 ? ts::figure(chosen_us) : "-", compiled > 0 ? ts::figure(compiled) : "-",
                 compiled > 0 && chosen_us > 0 ? ts::fixed(compiled / chosen_us, 2) + "x" : "-"});
    }
    std::cout << t.text();
  }

  // The header: tuned groups replace the compiled ones of the same key.
  const std::string suffix = "sm" + std::to_string(arch);
  auto reduce = arch >= 90 ? reduce_groups(tt::reduce_sm90)
                           : (arch >= 80 ? reduce_groups(tt::reduce_sm80) : reduce_groups(tt::reduce_default));
  auto top_k = arch >= 90 ? top_k_groups(tt::top_k_sm90) : top_k_groups(tt::top_k_default);
  auto copy_if = arch >= 90 ? copy_if_groups(tt::copy_if_sm90) : copy_if_groups(tt::copy_if_default);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const tune_case& c = cases[i];
    if (results[i].rules.empty()) continue;  // nothing ran: keep the compiled rules
    group g;
    g.order = tuned_order(c);
    g.key = c.key;
    g.rows.push_back("  // " + c.label + " (" + std::to_string(c.configs.size()) + " candidates)");
    for (const auto& rule : results[i].rules)
      g.rows.push_back("  {" + c.key + ", " + log2_cpp(rule.max_log2_n) + ", " + config_cpp(rule.config) + "},  // " +
                       rule.evidence);
    auto& groups = c.table == "reduce" ? reduce : (c.table == "top_k" ? top_k : copy_if);
    groups[c.key] = g;
  }
  std::string searched;
  for (std::size_t i = 0; i < cases.size(); ++i)
    searched += (i == 0 ? "" : (i % 6 == 0 ? ",\n  " : ", ")) + cases[i].label;
  const std::string provenance =
      "GPU: " + ts::describe(device) + "\n" + "date: " + when + "; commit: " + commit + "; tally " +
      std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
      std::to_string(TALLY_VERSION_PATCH) + "\n" + "method: GPU time per call, the median over " + std::to_string(o.loops) +
      " loops of up to 100 calls queued behind a spin kernel\n" +
      "between CUDA events, inputs rotating over copies that fill 512 MiB; every candidate's result\n" +
      "checked against CUB first.\n" +
      "sizes: " + [&] {
        std::string s;
        for (auto n : o.sizes) s += (s.empty() ? "" : ", ") + ts::size_label(n);
        return s;
      }() + "; a choice is kept while within " + std::to_string(int(o.tolerance * 100 + 0.5)) +
      "% of the fastest; at most " + std::to_string(o.max_configs) + " configurations per class.\n" + "searched: " + searched + ".\n" +
      "Rows without a measurement comment were kept from the tables compiled into the tool.";
  const std::string header = tuning_header(provenance, {table_text("reduce_rule", "reduce_" + suffix, reduce),
                                                        table_text("top_k_rule", "top_k_" + suffix, top_k),
                                                        table_text("copy_if_rule", "copy_if_" + suffix, copy_if)});
  if (o.out.empty()) {
    std::cout << "\n" << header;
  } else {
    std::ofstream f(o.out);
    if (!(f << header)) throw std::runtime_error("cannot write " + o.out);
    std::cout << "\nwrote " << o.out << "\n";
  }
  return 0;
}

}  // namespace

int tune_main(int argc, char** argv) {
  try {
    const tune_options o = parse_tune_args(argc, argv);
    if (o.help) {
      print_help(std::cout);
      return 0;
    }
    return run(o);
  } catch (const usage_error& e) {
    std::cerr << "tally tune: " << e.what() << " (see 'tally tune --help')\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tally tune: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tally_tool
