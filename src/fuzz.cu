// Differential fuzzing (`tally verify --fuzz SECONDS`): each case draws, from its own seed,
// a check of `tally verify` (an algorithm, operator, value type and data pattern), one
// device backend (the policy), a size biased to the tile boundaries of the kernels'
// shapes, and the data's seed and integer range; it runs the check (tally against CUB, or
// the host reference where CUB's order is not tally's) and prints the case's seed when it
// fails, so that `tally verify --fuzz-one SEED` replays it exactly.

#include "fuzz.hpp"

#include <tally/policy.cuh>

#include <tally_support/sizes.hpp>

#include <cuda_runtime.h>

#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace tally_tool {
namespace {

/// SplitMix64: a case's draws come from its seed alone.
struct splitmix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

/// A size near a boundary where a kernel's work changes hands: multiples of the tiles of
/// the launch shapes (threads x items), of a warp, and powers of two, give or take a few
/// items; or any size up to 2^24; or a tiny one.
std::uint64_t draw_size(splitmix& r) {
  static const std::uint64_t tiles[] = {32, 128 * 4, 256 * 4, 256 * 8, 256 * 16, 512 * 8, 512 * 16, 1024 * 8, 1024 * 16};
  switch (r.below(4)) {
    case 0: return r.below(70);  // 0..69: empty, single items, one warp
    case 1: {
      const std::uint64_t tile = tiles[r.below(sizeof tiles / sizeof tiles[0])];
      const std::uint64_t k = 1 + r.below(r.below(2) ? 4 : 300);  // a few tiles, or enough for several waves
      const std::int64_t delta = std::int64_t(r.below(5)) - 2;      // -2..+2
      const std::int64_t n = std::int64_t(tile * k) + delta;
      return n < 0 ? 0 : std::uint64_t(n);
    }
    case 2: {
      const std::uint64_t p = std::uint64_t(1) << (5 + r.below(20));  // 2^5..2^24
      return p + r.below(5) - 2;
    }
    default: return r.below(std::uint64_t(1) << 24);
  }
}

const tally::backend_id device_backends[] = {tally::backend_id::automatic, tally::backend_id::atomic,
                                             tally::backend_id::shared_memory, tally::backend_id::warp_shuffle};

struct fuzz_case {
  const check_entry* entry = nullptr;
  std::uint64_t n = 0;
  verify_options options;
};

fuzz_case draw(std::uint64_t case_seed, const std::vector<check_entry>& entries, const verify_options& base) {
  splitmix r{case_seed};
  fuzz_case c;
  c.entry = &entries[r.below(entries.size())];
  c.n = draw_size(r);
  c.options = base;
  c.options.timing = false;
  c.options.backends = {device_backends[r.below(4)]};
  c.options.data_seed = 1 + r.below(1u << 30);
  // Integer data in [0, m): many ties (2, 4) to few (2^16); sums stay far from overflow.
  static const std::uint64_t moduli[] = {2, 4, 1000, 65536};
  c.options.int_modulus = moduli[r.below(4)];
  return c;
}

std::string describe(std::uint64_t seed, const fuzz_case& c) {
  return "seed " + std::to_string(seed) + ": " + c.entry->algorithm + " " + c.entry->type_key + " " + c.entry->data +
         " n=" + std::to_string(c.n) + " (" + tally_support::size_label(c.n) + ") backend " +
         tally::backend_name(c.options.backends[0]) + ", data seed " + std::to_string(c.options.data_seed) +
         ", integers mod " + std::to_string(c.options.int_modulus);
}

/// Runs one case; "" when it passed, else why.
std::string run_case(const fuzz_case& c) {
  try {
    for (const check_row& row : c.entry->run(c.n, c.options))
      if (!row.ok) return row.detail;
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
  return "";
}

std::uint64_t case_seed_of(std::uint64_t run_seed, std::uint64_t i) {
  splitmix r{run_seed ^ (i * 0xd1b54a32d192ed03ull)};
  return r.next();
}

}  // namespace

int run_fuzz_case(std::uint64_t case_seed, const verify_options& base) {
  const std::vector<check_entry> entries = all_checks();
  const fuzz_case c = draw(case_seed, entries, base);
  std::cout << "replaying " << describe(case_seed, c) << "\n";
  const std::string why = run_case(c);
  std::cout << (why.empty() ? "ok" : "FAIL: " + why) << "\n";
  return why.empty() ? 0 : 1;
}

int run_fuzz(double seconds, std::uint64_t seed, const verify_options& base) {
  if (seed == 0) seed = std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) | 1;
  const std::vector<check_entry> entries = all_checks();
  std::cout << "tally verify --fuzz " << seconds << " --seed " << seed << ": " << entries.size()
            << " checks x 4 backends x sizes at tile boundaries\n"
            << std::flush;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t cases = 0, failures = 0;
  std::map<std::string, int> per_algorithm;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const std::uint64_t case_seed = case_seed_of(seed, cases);
    const fuzz_case c = draw(case_seed, entries, base);
    ++cases;
    ++per_algorithm[c.entry->algorithm];
    const std::string why = run_case(c);
    if (!why.empty()) {
      ++failures;
      std::cout << "FAIL " << describe(case_seed, c) << ": " << why << "\n  replay: tally verify --fuzz-one "
                << case_seed << "\n"
                << std::flush;
      if (cudaDeviceSynchronize() != cudaSuccess) {
        std::cout << "the CUDA context is broken; stopping\n";
        break;
      }
    }
  }
  std::cout << "cases by algorithm:";
  for (const auto& [a, k] : per_algorithm) std::cout << " " << a << " " << k << ";";
  std::cout << "\nfuzz: " << cases << " cases in " << seconds << " s, " << failures << " failed (seed " << seed
            << ")\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace tally_tool
