// Where the time of top_k's stream kernel (or select kernel) goes: the phases of each block, by the marks
// of include/tally/detail/top_k/stream_timeline.cuh (built with TALLY_STREAM_TIMELINE by
// scripts/timeline.sh; README.md here). For each case: the event time of one call, the
// span from the first block's start to the last block's end, and each phase's median over
// the blocks that have it (µs, from clock64 at the SM's clock), the median over 9 calls.
//
// usage: stream_timeline [--spread] [CASE...]
//   --spread: also each mark's spread over the blocks in the last call (first, p10,
//   median, p90, last, from the first block's start): skew, and who waits for whom
//   CASE: ROWSxLENGTH:K (rows), flat:N:K (a flat input), with :ascending for a ramp;
//   N, LENGTH and K as the other tools take sizes (1000, 2^20, 2^16+3). Default: the cases of issue 21's table and the
//   flat sizes it misses.

#include <tally/pieces.cuh>
#include <tally/top_k.cuh>

#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/sizes.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace td = tally::detail;

struct timeline_case {
  long long rows;  // -1: flat
  long long length;
  long long k;
  bool ascending;
  std::string name;
};

// Counts as on every other command line of the project: 1000, 2^20, 2^16+3.
long long parse_count(const std::string& s) { return static_cast<long long>(tally_support::parse_size(s)); }

timeline_case parse_case(const std::string& arg) {
  timeline_case c{};
  std::string s = arg;
  const std::string asc = ":ascending";
  if (s.size() > asc.size() && s.compare(s.size() - asc.size(), asc.size(), asc) == 0) {
    c.ascending = true;
    s.resize(s.size() - asc.size());
  }
  const auto colon = s.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("a case is ROWSxLENGTH:K or flat:N:K: " + arg);
  c.k = parse_count(s.substr(colon + 1));
  const std::string shape = s.substr(0, colon);
  if (shape.rfind("flat:", 0) == 0) {
    c.rows = -1;
    c.length = parse_count(shape.substr(5));
  } else {
    const auto x = shape.find('x');
    if (x == std::string::npos) throw std::invalid_argument("a case is ROWSxLENGTH:K or flat:N:K: " + arg);
    c.rows = parse_count(shape.substr(0, x));
    c.length = parse_count(shape.substr(x + 1));
  }
  c.name = arg;
  return c;
}

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

constexpr int slots = td::stream_timeline_slots;
constexpr int blocks = td::stream_timeline_blocks;

// A phase: from mark `from` (or `alt`, where `from` is absent) to mark `to`. The select
// kernel's rows say which way to the threshold they belong to (the two use some slots
// alike): every block's own (4096 samples) or the grid's.
enum select_way { either_way, own_way, grid_way };
struct phase {
  const char* name;
  int to, from, alt;
  select_way way = either_way;
};
const phase phases[] = {
    {"threshold: reads", td::stream_mark_reads, td::stream_mark_start, -1},
    {"threshold: warps_threshold", td::stream_mark_threshold, td::stream_mark_reads, -1},
    {"pass(es)", td::stream_mark_filtered, td::stream_mark_threshold, -1},
    {"row's room (atomicAdd)", td::stream_mark_slot, td::stream_mark_filtered, -1},
    {"words out", td::stream_mark_words_out, td::stream_mark_slot, -1},
    {"arrival", td::stream_mark_arrived, td::stream_mark_words_out, -1},
    {"chooser: words in", td::stream_mark_words_in, td::stream_mark_arrived, td::stream_mark_filtered},
    {"chooser: cut", td::stream_mark_cut, td::stream_mark_words_in, -1},
    {"chooser: rest of choice", td::stream_mark_chosen, td::stream_mark_cut, td::stream_mark_words_in},
    {"chooser: outputs", td::stream_mark_written, td::stream_mark_chosen, -1},
};
// The select kernel's (flat inputs it takes: k above the stream kernel's reach), by the
// same slots (stream_timeline.cuh says what it marks with each).
// 4096 samples: every block finds the threshold (its own rows, medians over the blocks);
// more: the grid draws them after the first grid barrier ("grid:" rows).
const phase select_phases[] = {
    {"state zeroed", td::stream_mark_slot, td::stream_mark_start, -1},
    {"4096 samples read", td::stream_mark_words_out, td::stream_mark_slot, -1},
    {"first histogram", td::stream_mark_cut, td::stream_mark_words_out, -1},
    {"second, threshold", td::stream_mark_reads, td::stream_mark_cut, -1},
    {"first grid barrier", td::stream_mark_threshold, td::stream_mark_reads, td::stream_mark_start},
    {"grid: samples read", td::stream_mark_arrived, td::stream_mark_threshold, -1, grid_way},
    {"grid: their bits' barrier", td::stream_mark_chosen, td::stream_mark_arrived, -1, grid_way},
    {"grid: first histogram", td::stream_mark_grid_first, td::stream_mark_chosen, -1, grid_way},
    {"grid: second histogram", td::stream_mark_grid_second, td::stream_mark_grid_first, -1, grid_way},
    {"grid: threshold pass", td::stream_mark_filtered, td::stream_mark_grid_second, -1, grid_way},
    {"threshold pass", td::stream_mark_arrived, td::stream_mark_threshold, -1, own_way},
    {"its barrier", td::stream_mark_chosen, td::stream_mark_arrived, -1, own_way},
    {"the count read", td::stream_mark_filtered, td::stream_mark_chosen, -1, own_way},
    {"threshold pass + barrier", td::stream_mark_filtered, td::stream_mark_threshold, -1},
    {"candidates' keys in", td::stream_mark_words_in, td::stream_mark_filtered, -1},
    {"ranks and writes", td::stream_mark_written, td::stream_mark_words_in, -1},
};

// The marks --spread prints, in the kernel's order (the select kernel's two ways to its
// threshold mark different things in some slots).
struct mark_name {
  int slot;
  const char* name;
};
const mark_name stream_marks[] = {
    {td::stream_mark_start, "start"},         {td::stream_mark_reads, "threshold's reads"},
    {td::stream_mark_threshold, "threshold"}, {td::stream_mark_filtered, "pass(es) done"},
    {td::stream_mark_slot, "row's room"},     {td::stream_mark_words_out, "words out"},
    {td::stream_mark_arrived, "arrived"},     {td::stream_mark_words_in, "chooser: words in"},
    {td::stream_mark_cut, "chooser: cut"},    {td::stream_mark_chosen, "chooser: chosen"},
    {td::stream_mark_written, "written"},
};
const mark_name select_own_marks[] = {
    {td::stream_mark_start, "start"},           {td::stream_mark_slot, "state zeroed"},
    {td::stream_mark_words_out, "samples read"}, {td::stream_mark_cut, "first histogram"},
    {td::stream_mark_reads, "threshold found"}, {td::stream_mark_arrived, "pass done"},
    {td::stream_mark_chosen, "past its barrier"}, {td::stream_mark_filtered, "count read"},
    {td::stream_mark_words_in, "keys in"},      {td::stream_mark_written, "written"},
};
const mark_name select_grid_marks[] = {
    {td::stream_mark_start, "start"},
    {td::stream_mark_threshold, "first grid barrier"},
    {td::stream_mark_arrived, "grid: samples read"},
    {td::stream_mark_chosen, "grid: bits' barrier"},
    {td::stream_mark_grid_first, "grid: first level"},
    {td::stream_mark_grid_second, "grid: second level"},
    {td::stream_mark_filtered, "pass + barrier, count"},
    {td::stream_mark_words_in, "keys in"},
    {td::stream_mark_written, "written"},
};

void run(const timeline_case& c, bool spread, float* x, float* values, int* indices) {
  const bool flat = c.rows < 0;
  const long long n = flat ? c.length : c.rows * c.length;
  tally_support::fill_options o;
  constexpr int copies = 4;
  for (int r = 0; r < copies; ++r) {
    o.seed = 17 + r;
    tally_support::fill(x + r * n, std::size_t(n), c.ascending ? tally_support::pattern::sorted
                                                              : tally_support::pattern::random, o);
  }
  const auto call = [&](int r) {
    if (flat) tally::top_k_into(tally::par, x + r * n, x + r * n + n, c.k, values, indices);
    else tally::top_k_into(tally::par, x + r * n, tally::rows(c.rows, c.length), c.k, values, indices);
  };
  for (int w = 0; w < 20; ++w) call(w % copies);
  TALLY_SUPPORT_CHECK(cudaDeviceSynchronize());

  cudaEvent_t e0, e1;
  TALLY_SUPPORT_CHECK(cudaEventCreate(&e0));
  TALLY_SUPPORT_CHECK(cudaEventCreate(&e1));
  std::vector<unsigned long long> time(std::size_t(blocks) * slots);
  std::vector<long long> clock(std::size_t(blocks) * slots);
  const std::vector<unsigned long long> zeros(time.size(), 0);
  constexpr int reps = 9;
  std::vector<std::vector<double>> per_phase(std::max(std::size(phases), std::size(select_phases)));
  bool select = false, grid = false;
  std::vector<std::string> spread_lines;
  std::vector<double> event_us, span_us, ghz, count, total, kept, chosen_after_start;
  int recorded = 0;
  for (int rep = 0; rep < reps; ++rep) {
    TALLY_SUPPORT_CHECK(cudaMemcpyToSymbol(td::stream_timeline_time, zeros.data(), zeros.size() * 8));
    TALLY_SUPPORT_CHECK(cudaMemcpyToSymbol(td::stream_timeline_clock, zeros.data(), zeros.size() * 8));
    TALLY_SUPPORT_CHECK(cudaEventRecord(e0));
    call(rep % copies);
    TALLY_SUPPORT_CHECK(cudaEventRecord(e1));
    TALLY_SUPPORT_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    TALLY_SUPPORT_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    event_us.push_back(ms * 1000.0);
    TALLY_SUPPORT_CHECK(cudaMemcpyFromSymbol(time.data(), td::stream_timeline_time, time.size() * 8));
    TALLY_SUPPORT_CHECK(cudaMemcpyFromSymbol(clock.data(), td::stream_timeline_clock, clock.size() * 8));
    // The first start and the last end over the blocks, then each block's phases.
    unsigned long long first = ~0ull, last = 0;
    recorded = 0;
    for (int b = 0; b < blocks; ++b) {
      const unsigned long long* t = &time[std::size_t(b) * slots];
      if (!t[td::stream_mark_start]) continue;
      ++recorded;
      first = std::min(first, t[td::stream_mark_start]);
      for (int m : {int(td::stream_mark_arrived), int(td::stream_mark_written)}) last = std::max(last, t[m]);
    }
    if (recorded == 0) break;  // another kernel took the call
    for (int b = 0; b < blocks && !select; ++b) select = time[std::size_t(b) * slots + td::stream_value_select] == 1;
    for (int b = 0; b < blocks && select && !grid; ++b) grid = time[std::size_t(b) * slots + td::stream_mark_grid_first] != 0;
    const phase* table = select ? select_phases : phases;
    const std::size_t table_size = select ? std::size(select_phases) : std::size(phases);
    std::vector<std::vector<double>> cycles(table_size);
    std::vector<double> rate;
    for (int b = 0; b < blocks; ++b) {
      const unsigned long long* t = &time[std::size_t(b) * slots];
      const long long* k = &clock[std::size_t(b) * slots];
      if (!t[td::stream_mark_start]) continue;
      for (std::size_t p = 0; p < table_size; ++p) {
        if (table[p].way == (grid ? own_way : grid_way)) continue;
        const int from = k[table[p].from] ? table[p].from : table[p].alt;
        if (k[table[p].to] && from >= 0 && k[from]) cycles[p].push_back(double(k[table[p].to] - k[from]));
      }
      if (t[td::stream_mark_written] > t[td::stream_mark_start])
        rate.push_back(double(k[td::stream_mark_written] - k[td::stream_mark_start]) /
                       double(t[td::stream_mark_written] - t[td::stream_mark_start]));
      if (k[td::stream_mark_filtered]) count.push_back(double(t[td::stream_value_count]));
      if (k[td::stream_mark_words_in]) total.push_back(double(t[td::stream_value_total]));
      if (k[td::stream_mark_cut]) kept.push_back(double(t[td::stream_value_kept]));
      if (k[td::stream_mark_chosen]) chosen_after_start.push_back(double(t[td::stream_mark_words_in] - first));
    }
    const double cycles_per_ns = median(rate);
    ghz.push_back(cycles_per_ns);
    for (std::size_t p = 0; p < table_size; ++p) per_phase[p].push_back(median(cycles[p]) / cycles_per_ns / 1000.0);
    span_us.push_back(double(last - first) / 1000.0);
    if (spread && rep == reps - 1) {
      // Each mark over the blocks, from the first block's start (this call only).
      const mark_name* marks = !select ? stream_marks : grid ? select_grid_marks : select_own_marks;
      const std::size_t count_of = !select ? std::size(stream_marks) : grid ? std::size(select_grid_marks)
                                                                              : std::size(select_own_marks);
      for (std::size_t m = 0; m < count_of; ++m) {
        std::vector<double> at;
        for (int b = 0; b < blocks; ++b) {
          const unsigned long long* t = &time[std::size_t(b) * slots];
          if (t[td::stream_mark_start] && t[marks[m].slot]) at.push_back(double(t[marks[m].slot] - first) / 1000.0);
        }
        if (at.empty()) continue;
        std::sort(at.begin(), at.end());
        char line[160];
        std::snprintf(line, sizeof line, "  %-24s %5zu blocks: first %6.2f  p10 %6.2f  median %6.2f  p90 %6.2f  last %6.2f us",
                      marks[m].name, at.size(), at.front(), at[at.size() / 10], at[at.size() / 2],
                      at[at.size() * 9 / 10], at.back());
        spread_lines.emplace_back(line);
      }
    }
  }
  TALLY_SUPPORT_CHECK(cudaEventDestroy(e0));
  TALLY_SUPPORT_CHECK(cudaEventDestroy(e1));
  if (recorded == 0) {
    std::printf("%s: no block of the stream or select kernel (another kernel took the call)\n", c.name.c_str());
    return;
  }
  std::printf("%s: %s kernel, %d blocks; one call %.2f us (event), first start to last end %.2f us, clock %.2f GHz\n",
              c.name.c_str(), select ? "select" : "stream", recorded, median(event_us), median(span_us), median(ghz));
  for (std::size_t p = 0; p < (select ? std::size(select_phases) : std::size(phases)); ++p) {
    const double us = median(per_phase[p]);
    if (us >= 0) std::printf("  %-26s %7.2f us (block median)\n", (select ? select_phases : phases)[p].name, us);
  }
  if (select) {
    std::printf("  candidates %.0f\n", median(count));
  } else {
    std::printf("  candidates: a block %.0f, a row (the chooser's) %.0f; kept by the cut %.0f; the chooser starts "
                "choosing %.2f us after the first block starts\n",
                median(count), median(total), median(kept), median(chosen_after_start) / 1000.0);
  }
  if (!spread_lines.empty()) std::printf(" each mark from the first block's start (the last call):\n");
  for (const auto& line : spread_lines) std::printf("%s\n", line.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<timeline_case> cases;
  bool spread = false;
  try {
    for (int i = 1; i < argc; ++i) {
      if (std::string(argv[i]) == "--spread") spread = true;
      else cases.push_back(parse_case(argv[i]));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stream_timeline: %s\n", e.what());
    return 2;
  }
  if (cases.empty()) {
    for (const char* s : {"1x131072:50", "64x131072:50", "512x131072:50", "512x131072:256", "1024x65536:32",
                          "64x131072:50:ascending", "flat:2^18:32", "flat:2^19:32", "flat:2^16:256"})
      cases.push_back(parse_case(s));
  }
  long long most = 0;
  for (const auto& c : cases) most = std::max(most, c.rows < 0 ? c.length : c.rows * c.length);
  float* x = nullptr;
  float* values = nullptr;
  int* indices = nullptr;
  TALLY_SUPPORT_CHECK(cudaMalloc(&x, std::size_t(most) * 4 * sizeof(float)));
  TALLY_SUPPORT_CHECK(cudaMalloc(&values, std::size_t(1) << 24));
  TALLY_SUPPORT_CHECK(cudaMalloc(&indices, std::size_t(1) << 24));
  for (const auto& c : cases) {
    if ((c.rows < 0 ? 1 : c.rows) * c.k * 4 > (1LL << 24)) {
      std::fprintf(stderr, "stream_timeline: %s: outputs past 16 MB\n", c.name.c_str());
      return 2;
    }
    run(c, spread, x, values, indices);
  }
  TALLY_SUPPORT_CHECK(cudaFree(x));
  TALLY_SUPPORT_CHECK(cudaFree(values));
  TALLY_SUPPORT_CHECK(cudaFree(indices));
  return 0;
}
