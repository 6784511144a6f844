// `tally verify`: reads the options, decides between the device checks (a GPU is
// there) and the host self-check (none is), runs the checks of check_registry.cu and
// prints one table row per (check, n, backend). While it runs, a line per check goes to
// stderr (the table comes at the end, on stdout); --json writes every row as JSON Lines.

#include "verify.hpp"

#include "bench_args.hpp"
#include "check.hpp"
#include "fuzz.hpp"
#include "host_selfcheck.hpp"
#include "tool_common.hpp"

#include <tally_support/bench_report.hpp>
#include <tally_support/device_info.cuh>
#include <tally_support/sizes.hpp>
#include <tally_support/table.hpp>
#include <tally_support/timing.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

namespace ts = tally_support;

const std::vector<tally::backend_id> device_backends = {tally::backend_id::automatic, tally::backend_id::atomic,
                                                        tally::backend_id::shared_memory,
                                                        tally::backend_id::warp_shuffle};

std::set<std::string> known_types() {
  std::set<std::string> types;
  for (const auto& e : all_checks()) types.insert(e.type_key);
  return types;
}

struct parsed {
  verify_options options;
  std::vector<std::string> algos;  ///< verify's algorithm keys; empty: all
  int device = -1;
  double fuzz_seconds = 0;        ///< --fuzz: > 0 fuzzes for this long instead of the table
  std::uint64_t seed = 0;         ///< --seed (0: from the clock)
  std::uint64_t fuzz_one = 0;     ///< --fuzz-one: replay this case
  std::string json_path;          ///< --json: every row as JSON Lines
  bool quiet = false;             ///< --quiet: no progress lines on stderr
  bool help = false;
};

std::uint64_t parse_u64(const std::string& flag, const std::string& value) {
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 20)
    throw usage_error(flag + ": expected a non-negative integer, got '" + value + "'");
  return std::stoull(value);
}

/// The algorithm keys of `tally verify --algo` (an entry belongs to a key when its
/// algorithm name starts with the key: "top_k" takes top_k_into<K> and top_k<K>).
const std::vector<std::string> verify_algorithms = {"reduce", "max_element", "min_element", "top_k", "copy_if"};

std::vector<std::string> parse_verify_algorithms(const std::string& value) {
  std::vector<std::string> out;
  for (const std::string& a : ts::split_commas(value)) {
    if (a == "all") return {};
    if (a == "extrema") {
      out.push_back("max_element");
      out.push_back("min_element");
    } else if (std::find(verify_algorithms.begin(), verify_algorithms.end(), a) != verify_algorithms.end()) {
      out.push_back(a);
    } else {
      throw usage_error("--algo: unknown algorithm '" + a + "' (known: " + join_bar(verify_algorithms) +
                        "|extrema|all)");
    }
  }
  return out;
}

parsed parse(int argc, char** argv) {
  parsed p;
  verify_options& o = p.options;
  o.sizes = {0, 1, 1000, (1u << 16) + 3, 1u << 20, 1u << 24};
  o.backends = device_backends;
  arg_list args(argc, argv);
  std::string value;
  while (!args.done()) {
    if (args.take_switch("--help") || args.take_switch("-h")) {
      p.help = true;
    } else if (args.take_value("--sizes", value)) {
      try {
        o.sizes = ts::parse_size_list(value);
      } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--sizes: ") + e.what());
      }
    } else if (args.take_value("--type", value)) {
      const auto known = known_types();
      o.types = ts::split_commas(value);
      for (const auto& t : o.types)
        if (!known.count(t)) {
          std::string list;
          for (const auto& k : known) list += (list.empty() ? "" : "|") + k;
          throw usage_error("--type: unknown type '" + t + "' (known: " + list + ")");
        }
    } else if (args.take_value("--backend", value)) {
      o.backends.clear();
      for (const auto& b : ts::split_commas(value)) {
        auto it = std::find_if(device_backends.begin(), device_backends.end(),
                               [&](tally::backend_id id) { return b == tally::backend_name(id); });
        if (it == device_backends.end())
          throw usage_error("--backend: unknown backend '" + b + "' (known: automatic|atomic|shared_memory|warp_shuffle)");
        o.backends.push_back(*it);
      }
    } else if (args.take_value("--loops", value)) {
      try {
        o.loops = std::stoi(value);
      } catch (const std::exception&) {
        o.loops = 0;
      }
      if (o.loops < 1 || o.loops > 100) throw usage_error("--loops: expected a number from 1 to 100, got '" + value + "'");
    } else if (args.take_value("--algo", value)) {
      p.algos = parse_verify_algorithms(value);
    } else if (args.take_value("--device", value)) {
      p.device = parse_int_flag("--device", value, 0, 1023);
    } else if (args.take_value("--fuzz", value)) {
      p.fuzz_seconds = parse_int_flag("--fuzz", value, 1, 86400);
    } else if (args.take_value("--seed", value)) {
      p.seed = parse_u64("--seed", value);
    } else if (args.take_value("--fuzz-one", value)) {
      p.fuzz_one = parse_u64("--fuzz-one", value);
    } else if (args.take_switch("--no-timing")) {
      o.timing = false;
    } else if (args.take_switch("--markdown")) {
      o.markdown = true;
    } else if (args.take_value("--json", value)) {
      if (value.empty()) throw usage_error("--json: needs a file name");
      p.json_path = value;
    } else if (args.take_switch("--quiet")) {
      p.quiet = true;
    } else {
      const std::string a = args.current();
      throw usage_error(a.rfind("-", 0) == 0 ? "unknown option '" + a + "'" : "unexpected argument '" + a + "'");
    }
  }
  return p;
}

bool wanted(const verify_options& o, const std::vector<std::string>& algos, const check_entry& e) {
  const bool type_ok = o.types.empty() || std::find(o.types.begin(), o.types.end(), e.type_key) != o.types.end();
  bool algo_ok = algos.empty();
  for (const auto& a : algos) algo_ok = algo_ok || e.algorithm.rfind(a, 0) == 0;
  return type_ok && algo_ok;
}

/// After a failed check: is the CUDA context still usable? (A fault inside a kernel is
/// sticky; every later call would fail too, so the run stops.)
bool context_broken(std::string& why) {
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return false;
  why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
  return true;
}

/// Where the rows of a run go besides the table: JSON Lines (--json), one object a row,
/// each with the run's device, date and commit so that a line stands alone.
class json_writer {
 public:
  json_writer(const std::string& path, const std::string& device, const std::string& date) {
    if (path.empty()) return;
    out_.open(path);
    if (!out_) throw usage_error("--json: cannot write '" + path + "'");
    head_ = "{\"program\": \"tally verify\", \"device\": " + ts::json_string(device) +
            ", \"date\": " + ts::json_string(date) + ", \"commit\": " + ts::json_string(current_commit());
  }
  void row(const check_row& r) {
    if (!out_.is_open()) return;
    const bool timed = r.ok && r.timed;
    out_ << head_ << ", \"algorithm\": " << ts::json_string(r.algorithm) << ", \"type\": " << ts::json_string(r.type)
         << ", \"data\": " << ts::json_string(r.data) << ", \"n\": " << r.n << ", \"backend\": "
         << ts::json_string(r.all_backends ? "(all)" : tally::backend_name(r.backend))
         << ", \"ok\": " << (r.ok ? "true" : "false");
    if (timed)
      out_ << ", \"tally_us\": " << ts::json_number(r.tally_us) << ", \"cub_us\": " << ts::json_number(r.cub_us)
           << ", \"gbps\": " << ts::json_number(ts::gbps(r.bytes, r.tally_us));
    if (!r.ok) out_ << ", \"detail\": " << ts::json_string(r.detail);
    out_ << "}\n" << std::flush;
  }
  void summary(const std::string& mode, int total, int failed) {
    if (!out_.is_open()) return;
    out_ << head_ << ", \"summary\": " << ts::json_string(mode) << ", \"checks\": " << total
         << ", \"failed\": " << failed << "}\n" << std::flush;
  }

 private:
  std::ofstream out_;
  std::string head_;
};

int run_device_checks(const verify_options& o, const std::vector<std::string>& algos, const parsed& p) {
  ts::require_device();
  const std::string device = ts::describe(ts::current_device_info()), date = ts::utc_now();
  json_writer json(p.json_path, device, date);
  std::cout << "tally verify on " << device << ", " << date << "\n";
  if (o.timing)
    std::cout << "times: median over " << o.loops
              << " loops of the mean µs per call, inputs rotating over copies that fill 512 MiB; "
                 "vs CUB = CUB µs / tally µs (> 1: tally is faster)\n";
  std::cout << std::flush;

  ts::table t({"algorithm", "type", "data", "n", "backend", "result", "µs", "GB/s", "CUB µs", "vs CUB"}, 5);
  std::vector<check_row> failures;
  int total = 0;
  int entries = 0, entry_number = 0;
  for (const check_entry& entry : all_checks()) entries += wanted(o, algos, entry);
  for (const check_entry& entry : all_checks()) {
    if (!wanted(o, algos, entry)) continue;
    ++entry_number;
    int entry_rows = 0, entry_failed = 0;
    for (std::uint64_t n : o.sizes) {
      std::vector<check_row> rows;
      try {
        rows = entry.run(n, o);
      } catch (const std::exception& e) {  // the input or CUB failed: one FAIL row for the lot
        check_row r;
        r.algorithm = entry.algorithm;
        r.type = entry.type_key;
        r.data = entry.data;
        r.n = n;
        r.all_backends = true;
        r.detail = e.what();
        rows.push_back(r);
      }
      for (const check_row& r : rows) {
        ++total;
        const bool timed = r.ok && r.timed;
        const std::string backend = r.all_backends ? "(all)" : tally::backend_name(r.backend);
        t.add_row({r.algorithm, r.type, r.data, ts::size_label(r.n), backend,
                   r.ok ? "ok" : "FAIL", timed ? ts::figure(r.tally_us) : "-",
                   timed ? ts::figure(ts::gbps(r.bytes, r.tally_us)) : "-", timed ? ts::figure(r.cub_us) : "-",
                   timed && r.tally_us > 0 ? ts::fixed(r.cub_us / r.tally_us, 2) + "x" : "-"});
        if (!r.ok) failures.push_back(r);
        json.row(r);
        ++entry_rows;
        entry_failed += !r.ok;
      }
      std::string why;
      if (!failures.empty() && context_broken(why)) {
        std::cout << (o.markdown ? t.markdown() : t.text());
        std::cerr << "tally verify: the CUDA context is broken (" << why << "); stopping\n";
        json.summary("device checks (stopped: CUDA context broken)", total, int(failures.size()));
        return 1;
      }
    }
    if (!p.quiet)
      std::cerr << "tally verify: [" << entry_number << "/" << entries << "] " << entry.algorithm << " "
                << entry.type_key << " " << entry.data << ": " << entry_rows - entry_failed << " ok"
                << (entry_failed ? ", " + std::to_string(entry_failed) + " FAILED" : std::string()) << "\n";
  }
  json.summary("device checks", total, int(failures.size()));
  std::cout << "\n" << (o.markdown ? t.markdown() : t.text()) << "\n";
  for (const check_row& r : failures)
    std::cout << "FAIL " << r.algorithm << " " << r.type << " " << r.data << " n=" << r.n << " "
              << (r.all_backends ? "(all backends)" : tally::backend_name(r.backend)) << ": " << r.detail << "\n";
  std::cout << total << " checks, " << failures.size() << " failed\n";
  return failures.empty() ? 0 : 1;
}

}  // namespace

void print_verify_help(std::ostream& out) {
  out << "usage: tally verify [options]\n"
         "\n"
         "Checks tally's algorithms against CUB on the same input, for every backend, and\n"
         "times both. Exit code 0 when every result matches, 1 when one does not, 2 for a\n"
         "bad command line. Without a CUDA device it runs the host backend's self-check.\n"
         "\n"
         "options:\n"
         "  --algo LIST       reduce,max_element,min_element,top_k,copy_if (or extrema, all;\n"
         "                    default: all)\n"
         "  --sizes LIST      item counts, e.g. 0,1,1000,2^16+3,2^20, or ranges of powers of two\n"
         "                    2^10..2^20 (default 0,1,1000,2^16+3,2^20,2^24)\n"
         "  --type LIST       int32,int64,float,double,half (default: all; half sums accumulate in float)\n"
         "  --backend LIST    automatic,atomic,shared_memory,warp_shuffle (default: all)\n"
         "  --loops N         timed loops per figure (default 3; the median is reported)\n"
         "  --no-timing       check results only\n"
         "  --markdown        print the table as Markdown\n"
         "  --json FILE       also write every row to FILE as JSON Lines (one object a line:\n"
         "                    program, device, date, commit, algorithm, type, data, n, backend,\n"
         "                    ok, and tally_us, cub_us, gbps when timed, detail when failed;\n"
         "                    a last line with the summary: checks, failed)\n"
         "  --quiet           no progress lines (one per check, on stderr, as the run goes)\n"
         "  --device N        run on CUDA device N (default: CUDA's default device)\n"
         "  --fuzz SECONDS    differential fuzzing instead of the table: random checks (algorithm,\n"
         "                    operator, type, data pattern and seed, one backend, a size near a\n"
         "                    tile boundary) against CUB or the host reference for SECONDS;\n"
         "                    each failure prints the seed that replays it\n"
         "  --seed S          the fuzzing run's seed (default: from the clock; printed)\n"
         "  --fuzz-one SEED   replay the one fuzz case a failure printed\n"
         "  -h, --help        this text\n"
         "\n"
         "checks (data: random, constant, NaN every 1000th item, all +inf, all -inf; for the\n"
         "integers +inf / -inf mean the largest / lowest value):\n"
         "  reduce sum         int32, int64, float, double, half; random and constant data\n"
         "  reduce max/min     float; every pattern\n"
         "  max_element_into   int32, float, double, half; random, constant, +inf, -inf, and\n"
         "  min_element_into     NaN for the floating types\n"
         "  top_k_into<K>      float with K = 1, 2, 8, 32, int32 / int64 / double / half with\n"
         "  top_k<K>             K = 3 (int64: 1); the largest (less) or the smallest (greater)\n"
         "                       first, user comparators; random, constant, +inf, -inf, NaN\n"
         "  copy_if_into       int32 (x >= 2), int64, float (x < 0.5), double; random, constant,\n"
         "                       +inf, -inf, sorted, NaN; stable (on atomic: unordered)\n"
         "  copy_if_into unordered, copy_if (sync): int32, float; copy_if_into stencil: float,\n"
         "                       a counting iterator as the stencil, every third index selected\n"
         "references: CUB on the same input (DeviceReduce; ArgMax / ArgMin; for top_k a stable\n"
         "radix sort of (value, index) pairs; for copy_if DeviceSelect::If / FlaggedIf, the\n"
         "items compared in order, or as multisets for unordered results), or the host backend\n"
         "where CUB's order is not tally's (NaN in the extrema and top_k, user comparators).\n"
         "The GB/s of copy_if count the items read and the items written.\n";
}

int verify_main(int argc, char** argv) {
  parsed p;
  try {
    p = parse(argc, argv);
  } catch (const usage_error& e) {
    std::cerr << "tally verify: " << e.what() << " (see 'tally verify --help')\n";
    return 2;
  }
  if (p.help) {
    print_verify_help(std::cout);
    return 0;
  }

  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (p.device >= 0 && e == cudaSuccess && devices > 0) {
    try {
      select_device(p.device);
    } catch (const usage_error& u) {
      std::cerr << "tally verify: " << u.what() << " (see 'tally verify --help')\n";
      return 2;
    }
  }
  if ((e != cudaSuccess || devices == 0) && (p.fuzz_seconds > 0 || p.fuzz_one != 0)) {
    std::cerr << "tally verify: fuzzing needs a CUDA device ("
              << (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices") << ")\n";
    return 1;
  }
  if (e != cudaSuccess || devices == 0) {
    std::cout << "tally verify: no CUDA device ("
              << (e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0 devices")
              << "); running the host backend self-check instead\n";
    int checks = 0, failed = 0;
    const int status = run_host_selfcheck(std::cout, p.options.markdown, &checks, &failed);
    try {
      json_writer(p.json_path, "host (no CUDA device)", ts::utc_now()).summary("host self-check", checks, failed);
    } catch (const usage_error& u) {
      std::cerr << "tally verify: " << u.what() << "\n";
      return 2;
    }
    return status;
  }
  try {
    if (p.fuzz_one != 0) return run_fuzz_case(p.fuzz_one, p.options);
    if (p.fuzz_seconds > 0) {
      ts::require_device();
      return run_fuzz(p.fuzz_seconds, p.seed, p.options);
    }
    return run_device_checks(p.options, p.algos, p);
  } catch (const std::exception& ex) {
    std::cerr << "tally verify: " << ex.what() << "\n";
    return 1;
  }
}

}  // namespace tally_tool
