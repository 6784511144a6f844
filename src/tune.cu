// `tally tune` (the executable tally-tune, built on request; `tally tune` runs it): searches
// backend x threads per block x items per thread for each class of the tuning tables on
// the present GPU (the cases: tune_*.cu), checks every candidate's result, chooses ONE
// policy per class (a call site compiles one kernel per architecture: the policy holds at
// every n) and writes a tuning header in the shape of include/tally/tuning/sm90.cuh (the
// format: tuning/policy.cuh) with its provenance: the GPU, the date, the commit, and the
// measured µs behind every rule. The classes not searched in a run keep the rules of the
// table compiled into the tool, so that a partial run still writes a whole table.

#include "commands.hpp"
#include "tool_common.hpp"
#include "tune_args.hpp"
#include "tune_case.cuh"
#include "tune_compiled.cuh"
#include "tune_table.hpp"

#include <tally/tuning/select.cuh>
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
  out << "usage: tally tune [options]      (or tally-tune [options])\n"
         "\n"
         "Searches, on this GPU, the backend x threads per block x items per thread of each\n"
         "class of the tuning tables, checks every candidate's result against CUB, and times\n"
         "every candidate at every size. A call site compiles one kernel per architecture, so\n"
         "a class gets ONE policy for every n: the candidate with the smallest worst ratio,\n"
         "over the sizes, of its time to the fastest candidate's at that size (ties: the\n"
         "smaller sum of those ratios). Prints per class and size the fastest candidate, the\n"
         "chosen policy's time and ratio, and the time of the table compiled into the tool;\n"
         "then writes the table sm<arch>_table() (arch: this GPU's compute capability, 90 for\n"
         "H100) in the format of include/tally/tuning/policy.cuh, with its provenance and the\n"
         "µs behind every rule. Classes not searched keep the rules of the compiled table\n"
         "(sm90_table from sm_90 up, sm80_table for sm_80..89, generic_table before).\n"
         "On an sm_90 GPU: --out include/tally/tuning/sm90.cuh, then rebuild. tuning/select.cuh\n"
         "reads only sm90_table, sm80_table and generic_table: on another GPU (or for an\n"
         "installed tally), --user-table --out FILE writes a table any program can use by\n"
         "compiling with -DTALLY_USER_TUNING_HEADER='\"FILE\"'.\n"
         "\n"
         "searched (each candidate is its own kernel, compiled into tally-tune only):\n"
         "  reduce_sum    int32, int64, float, double: atomic / shared_memory / warp_shuffle\n"
         "                x threads 256, 512, 1024 x items 4, 8, 16 (integer_sum, floating_sum)\n"
         "  reduce_max    float, double (min_max; min takes the same rules): as reduce_sum\n"
         "  max_element   float (packed keys), double (pairs: no atomic form); extremum,\n"
         "                min_element takes the same rules\n"
         "  top_k2        float (top2: top_k<1> and <2> on packed keys, a reduction)\n"
         "  top_k8, top_k32   float: merge by shuffles or shared-memory tree x threads 128,\n"
         "                256, 512 x items 4, 8, 16 (top_k lists of up to 8 and up to 32\n"
         "                entries, any value size; the automatic policy runs top_k<17..32>\n"
         "                of arithmetic values under the default comparators on the\n"
         "                run-time-k engine: the top_k32 rule serves user comparators and\n"
         "                forced backends)\n"
         "  copy_if       int32, double; stable (copy_if) and unordered() (copy_if_unordered):\n"
         "                block scan by shuffles or shared memory x threads 128, 256, 512 x\n"
         "                items 8, 16 (int32) / 4, 8 (double)\n"
         "\n"
         "options:\n"
         "  --algo LIST      reduce_sum, reduce_max, max_element, top_k2, top_k8, top_k32,\n"
         "                   copy_if, or the groups reduce, extrema, top_k, all (default: all)\n"
         "  --type LIST      int32, int64, float, double (default: all)\n"
         "  --sizes LIST     the sizes measured (default 2^10..2^28:2); the chosen policy is\n"
         "                   judged over all of them\n"
         "  --loops N        timed loops per figure (default 5)\n"
         "  --out FILE       the header to write (default: standard output)\n"
         "  --user-table     write user_table(arch) instead of sm<arch>_table(): a table an\n"
         "                   installed tally uses when a program is compiled with\n"
         "                   -DTALLY_USER_TUNING_HEADER='\"FILE\"' (any architecture)\n"
         "  --no-progress    no progress bar\n"
         "  --device N       run on CUDA device N\n"
         "  -h, --help       this text\n";
}

/// The kernel_class of a name in kernel_class_names() (the enum's order).
tt::kernel_class kernel_class_of(const std::string& name) { return tt::kernel_class(kernel_class_order(name)); }

/// `lead` and `items` (each followed by "," and the last by "."), in lines of at most
/// `width` characters; continuation lines indented by two spaces.
std::string wrap_list(const std::vector<std::string>& items, const std::string& lead, std::size_t width) {
  std::string out = lead, line = lead;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : ".");
    if (line != lead && line.size() + 1 + piece.size() > width) {
      out += "\n  " + piece;
      line = "  " + piece;
    } else {
      out += " " + piece;
      line += " " + piece;
    }
  }
  return out;
}

// --- the run --------------------------------------------------------------------------------

struct case_result {
  std::vector<tune_measurement> ms;
  std::map<std::uint64_t, double> automatic_us;  ///< the compiled table's choice
  tune_choice choice;
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
    r.choice = choose_policy(r.ms);
  }
  bar.finish();
  TALLY_SUPPORT_CHECK(cudaStreamDestroy(stream));

  // The report: per case, the chosen policy; per size the fastest, the choice's time and
  // ratio, and the compiled table's time (`automatic`).
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const tune_case& c = cases[i];
    const case_result& r = results[i];
    const tt::launch_policy compiled = tt::select(arch, kernel_class_of(c.kind), c.max_value_bytes, c.max_list_size);
    const tune_config compiled_config{tally::backend_name(compiled.backend), compiled.threads,
                                      compiled.items_per_thread};
    std::cout << "\n== " << c.label << " {" << c.key() << "}, " << c.configs.size() << " candidates\n";
    if (!r.choice.chosen) {
      std::cout << "no candidate ran right at every size: the compiled rule (" << compiled_config.label()
                << ") is kept\n";
    } else {
      std::cout << "chosen: " << r.choice.config.label() << ", worst " << fixed2(r.choice.worst_ratio)
                << "x the fastest (" << ts::size_label(r.choice.worst_n) << "); compiled table: "
                << compiled_config.label() << "\n";
    }
    ts::table t({"n", "fastest", "µs", "chosen µs", "ratio", "compiled table µs", "compiled / chosen"}, 2);
    for (std::uint64_t n : o.sizes) {
      const tune_measurement* best = nullptr;
      for (const auto& m : r.ms)
        if (m.n == n && m.ok && m.us > 0 && (!best || m.us < best->us)) best = &m;
      const double compiled_us = r.automatic_us.count(n) ? r.automatic_us.at(n) : 0;
      if (!best) {
        t.add_row({ts::size_label(n), "(none ran)", "-", "-", "-", compiled_us > 0 ? ts::figure(compiled_us) : "-", "-"});
        continue;
      }
      const tune_size_result* mine = nullptr;
      for (const auto& s : r.choice.sizes)
        if (s.n == n) mine = &s;
      t.add_row({ts::size_label(n), best->config.label(), ts::figure(best->us), mine ? ts::figure(mine->chosen_us) : "-",
                 mine ? ts::fixed(mine->ratio, 2) + "x" : "-", compiled_us > 0 ? ts::figure(compiled_us) : "-",
                 compiled_us > 0 && mine ? ts::fixed(compiled_us / mine->chosen_us, 2) + "x" : "-"});
    }
    std::cout << t.text();
  }

  // The header: the compiled table's rows, each tuned class replacing its row.
  const std::string compiled_name = compiled_table_name(arch);
  std::vector<tune_row> tuned;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const tune_case& c = cases[i];
    const tune_choice& choice = results[i].choice;
    if (!choice.chosen) continue;  // nothing ran right at every size: keep the compiled rule
    tuned.push_back({c.kind, c.max_value_bytes, c.max_list_size, choice.config, c.label + ": " + choice.evidence});
  }
  const std::vector<tune_row> rows =
      merge_rows(rows_of(compiled_table(arch), "kept: not searched in this run"), tuned);

  std::vector<std::string> searched, sizes;
  for (const auto& c : cases) searched.push_back(c.label + " (" + std::to_string(c.configs.size()) + ")");
  for (auto n : o.sizes) sizes.push_back(ts::size_label(n));
  const std::string provenance =
      "GPU: " + ts::describe(device) + "\n" + "date: " + when + "; commit: " + commit + "; tally " +
      std::to_string(TALLY_VERSION_MAJOR) + "." + std::to_string(TALLY_VERSION_MINOR) + "." +
      std::to_string(TALLY_VERSION_PATCH) + "\n" + "method: GPU time per call, the median over " +
      std::to_string(o.loops) +
      " loops of up to 100 calls queued behind a\n"
      "spin kernel between CUDA events, inputs rotating over copies that fill 512 MiB; every\n"
      "candidate's result checked against CUB first. One policy per class, used at every n (the\n"
      "grid follows n at run time): the candidate with the smallest worst ratio, over the sizes,\n"
      "of its time to the fastest candidate's at that size (ties: the smaller sum of ratios); a\n"
      "candidate that failed at any size is never chosen. Beside each rule: its µs per size and\n"
      "that worst ratio.\n" +
      wrap_list(sizes, "sizes:", 92) + "\n" + wrap_list(searched, "searched (candidates):", 92) + "\n" +
      "Rows marked \"kept\" are " + compiled_name + "'s as compiled into tally-tune.";
  const std::string header =
      o.user_table ? user_tuning_header(provenance, arch, rows) : tuning_header(provenance, arch, rows);
  if (o.out.empty()) {
    std::cout << "\n" << header;
  } else {
    std::ofstream f(o.out);
    if (!(f << header)) throw std::runtime_error("cannot write " + o.out);
    std::cout << "\nwrote " << o.out << (o.user_table ? " (user_table)" : " (sm" + std::to_string(arch) + "_table)")
              << "\n";
  }
  if (o.user_table)
    std::cout << "use it: compile with -DTALLY_USER_TUNING_HEADER='\"" << (o.out.empty() ? "<file>" : o.out)
              << "\"' (docs/api/policies.md#your-own-tuning-table)\n";
  else if (!table_is_read(arch))
    std::cout << "note: tuning/select.cuh reads sm90_table, sm80_table and generic_table only; for sm" << arch
              << " write a table of your own with --user-table (docs/api/policies.md#your-own-tuning-table).\n";
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
