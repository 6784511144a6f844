// bench_pieces: reduce_into, max_element_into and top_k_into (run-time k) over
// tally::rows / tally::segments (one launch for every piece) against CUB's
// DeviceSegmentedReduce::Sum / ArgMax and the stream_read floor, side by side in one run, by the anchors' method
// (shared/anchors/README.md, "Rows"): back-to-back calls between CUDA events, inputs
// rotating over copies that fill 512 MiB, the figure is the median over 7 loops of the
// mean µs per call. float32 uniform in [0, 1).
//
// The columns are shapes, not sizes: the anchors' rows (1 x 131072, 64 x 131072,
// 512 x 131072, 1024 x 65536, 16 x 2^24), 2^20 rows of 16 items, vector search's 2^16
// queries of 1024 candidates and 2^14 of 4096 (rows a warp each), 2^16 CSR segments of
// random lengths (mean 512, int32 offsets), the same CSR with its middle segment 2^24
// items long (skewed: balanced inside the launch?), and 1 x 2^28 (as fast as the flat
// call?). The skewed CSR comes before 1 x 2^28: in the other order CUB's reference call
// on it faulted (cudaErrorInvalidAddressSpace or IllegalAddress, CCCL 3.5.0, H100) with
// no tally call in the process at all, and not under compute-sanitizer.
// CCCL 3.5.0's DeviceSegmentedReduce::ArgMax over CSR offsets faults in this program
// (cudaErrorInvalidAddressSpace on the copy after it, H100 and H200) after other rows,
// in every order of the rows tried: with CCCL >= 3.5 that one CUB row is not run, and
// the CSR arg-max rows are checked against tally::host, unless TALLY_BENCH_CUB_CSR_ARGMAX=1
// (then run the row alone: --cases=float_argmax --benchmark_filter='cub/CSR').
// The CUB row is CCCL's DeviceSegmentedReduce: with CCCL >= 3.5 its fixed-size form for
// rows (what the anchors measured), else offsets from a counting iterator; offsets for
// CSR. Every row's result is checked against CUB's on the same input first (sums to
// 1e-4 relative; argmax: the item at tally's index equals CUB's maximum and the index is
// not after CUB's; an empty segment gives index 0, where CUB writes {1, lowest}); a wrong
// result is reported as WRONG, never timed. top_k (k = 32, 50, 256; the shapes up to
// 1024 x 65536, 2^20 x 16, 2^16 x 1024, 2^14 x 4096 and the CSR) has no CUB row (CCCL 3.5's DeviceBatchedTopK takes
// segments of a small compile-time maximum size) and is checked against tally::host on
// the same items, every entry; torch.topk: scripts/bench_pieces_torch.py.
//
// Flags (removed before Google Benchmark sees argv; its own --benchmark_* flags work):
//   --cases=LIST   subset of float_sum,float_argmax,float_top_k32,float_top_k50,float_top_k256
//   --md=FILE      where the Markdown tables go (default bench_pieces.md)
//   --json=FILE    every row as JSON Lines (n is the shape's index; see the md tables)
//   --device=N     run on CUDA device N
//   (--sizes is accepted and not used: the columns are the shapes above.)
// torch's figures for the same shapes: scripts/bench_pieces_torch.py, run beside this.

#include <tally/tally.cuh>

#include <tally_support/bench_cli.hpp>
#include <tally_support/bench_session.cuh>
#include <tally_support/cuda_check.cuh>
#include <tally_support/data.cuh>
#include <tally_support/device_buffer.cuh>
#include <tally_support/timing.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace ts = tally_support;

namespace {

// --- the shapes (table columns) ----------------------------------------------------------

struct shape {
  const char* label;
  std::int64_t rows;    // rows, or segments for CSR
  std::int64_t length;  // row length; for CSR the mean segment length
  bool csr;
  std::int64_t long_one = 0;  // CSR: the middle segment's length instead (0: none)
};
const shape shapes[] = {
    {"1x131072", 1, 131072, false},         {"64x131072", 64, 131072, false},
    {"512x131072", 512, 131072, false},     {"1024x65536", 1024, 65536, false},
    {"16x2^24", 16, 1 << 24, false},        {"2^20x16", 1 << 20, 16, false},
    {"2^16x1024", 1 << 16, 1024, false},    {"2^14x4096", 1 << 14, 4096, false},
    {"CSR 2^16 (mean 512)", 1 << 16, 512, true}, {"CSR 2^16 + one 2^24", 1 << 16, 512, true, 1 << 24},
    {"1x2^28", 1, 1 << 28, false},
};
constexpr int shape_count = int(sizeof(shapes) / sizeof(shapes[0]));

enum class op { sum, argmax, top_k32, top_k50, top_k256 };
const op all_ops[] = {op::sum, op::argmax, op::top_k32, op::top_k50, op::top_k256};
const char* op_case(op o) {
  switch (o) {
    case op::sum: return "float_sum";
    case op::argmax: return "float_argmax";
    case op::top_k32: return "float_top_k32";
    case op::top_k50: return "float_top_k50";
    case op::top_k256: return "float_top_k256";
  }
  return "?";
}
std::int64_t top_k_of(op o) { return o == op::top_k32 ? 32 : o == op::top_k50 ? 50 : o == op::top_k256 ? 256 : 0; }
/// top_k runs on the shapes of at most 2^26 items (one block per piece: not the long rows).
bool measured(op o, const shape& s) {
  return top_k_of(o) == 0 || (s.long_one == 0 && s.rows * s.length <= (std::int64_t(1) << 26));
}

/// Whether CUB's arg-max over CSR offsets is called (see the header).
bool cub_csr_argmax() {
  const char* v = std::getenv("TALLY_BENCH_CUB_CSR_ARGMAX");
  return CCCL_VERSION < 3005000 || (v != nullptr && std::string(v) == "1");
}

// --- the implementations (table rows, in this order) --------------------------------------

enum class impl { floor, cub, tally_automatic, tally_atomic, tally_shared_memory, tally_warp_shuffle };
const impl all_impls[] = {impl::floor,        impl::cub,          impl::tally_automatic,
                          impl::tally_atomic, impl::tally_shared_memory, impl::tally_warp_shuffle};
const char* impl_row(impl i) {
  switch (i) {
    case impl::floor: return "stream_read (floor)";
    case impl::cub: return "cub DeviceSegmentedReduce";
    case impl::tally_automatic: return "tally automatic";
    case impl::tally_atomic: return "tally atomic";
    case impl::tally_shared_memory: return "tally shared_memory";
    case impl::tally_warp_shuffle: return "tally warp_shuffle";
  }
  return "?";
}
const char* impl_key(impl i) {
  switch (i) {
    case impl::floor: return "stream_read";
    case impl::cub: return "cub";
    case impl::tally_automatic: return "tally_automatic";
    case impl::tally_atomic: return "tally_atomic";
    case impl::tally_shared_memory: return "tally_shared_memory";
    case impl::tally_warp_shuffle: return "tally_warp_shuffle";
  }
  return "?";
}

template <class F>
void with_tally_policy(impl which, cudaStream_t s, F&& f) {
  switch (which) {
    case impl::tally_automatic: f(tally::par.on(s).with(tally::backend::automatic)); break;
    case impl::tally_atomic: f(tally::par.on(s).with(tally::backend::atomic)); break;
    case impl::tally_shared_memory: f(tally::par.on(s).with(tally::backend::shared_memory)); break;
    case impl::tally_warp_shuffle: f(tally::par.on(s).with(tally::backend::warp_shuffle)); break;
    default: throw std::logic_error("with_tally_policy: not a tally row");
  }
}

#if CCCL_VERSION < 3005000
/// Row r's first item: r * length (CUB's offsets for rows before CCCL 3.5).
struct row_offset {
  std::int64_t length;
  __host__ __device__ std::int64_t operator()(std::int64_t r) const { return r * length; }
};
#endif

/// values[s] = in[begins[s] + index[s]]: the items at tally's indices, for the check.
/// (An index past the input, as an empty last segment's 0 is, reads nothing.)
__global__ void gather_at(const float* in, std::int64_t n, const std::int64_t* begins, const std::int64_t* index,
                          float* values, std::int64_t count) {
  for (std::int64_t s = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; s < count;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t at = begins[s] + index[s];
    values[s] = at >= 0 && at < n ? in[at] : 0.0f;
  }
}

// --- the input of one shape ---------------------------------------------------------------

/// The items of one shape in rotating copies, its offsets, the outputs, and CUB's results.
struct pieces_input {
  const shape& sh;
  cudaStream_t stream;
  std::vector<int> host_offsets;  // CSR only
  std::int64_t items;
  ts::device_buffer<int> offsets;
  ts::device_buffer<std::int64_t> begins;
  ts::device_copies<float> in;
  ts::device_buffer<unsigned char> cub_temp;
  std::size_t cub_temp_bytes = 0;
  ts::device_buffer<float> sums;
  ts::device_buffer<cub::KeyValuePair<int, float>> pairs;
  ts::device_buffer<std::int64_t> index;
  ts::device_buffer<float> values;
  ts::device_buffer<float> top_values;          // rows x 256
  ts::device_buffer<std::int64_t> top_indices;  // rows x 256
  std::vector<float> cub_sums;
  std::vector<cub::KeyValuePair<int, float>> cub_pairs;

  pieces_input(const shape& s, cudaStream_t st)
      : sh(s), stream(st), host_offsets(make_offsets(s)), items(total_items(s, host_offsets)),
        offsets(host_offsets.empty() ? 1 : host_offsets.size()), begins(std::size_t(s.rows)),
        in(std::size_t(items), ts::rotating_copies(std::size_t(items) * sizeof(float))), sums(std::size_t(s.rows)),
        pairs(std::size_t(s.rows)), index(std::size_t(s.rows)), values(std::size_t(s.rows)),
        top_values(std::size_t(s.rows) * 256), top_indices(std::size_t(s.rows) * 256) {
    std::vector<std::int64_t> b(std::size_t(s.rows));
    for (std::int64_t r = 0; r < s.rows; ++r) b[r] = s.csr ? host_offsets[r] : r * s.length;
    // On the stream (non-blocking): a cudaMemcpy from pageable memory may return before its
    // DMA lands, and the legacy stream does not order the kernels below after it. CUB's
    // sum then read offsets left by an earlier shape's buffers (0x55 words) and faulted.
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(begins.data(), b.data(), sizeof(std::int64_t) * b.size(),
                                        cudaMemcpyHostToDevice, stream));
    if (s.csr)
      TALLY_SUPPORT_CHECK(cudaMemcpyAsync(offsets.data(), host_offsets.data(), sizeof(int) * host_offsets.size(),
                                          cudaMemcpyHostToDevice, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    ts::fill_uniform(in.copy(0), std::size_t(items), 0, stream);
    in.replicate_first(stream);
    std::size_t sum_bytes = 0, arg_bytes = 0;
    TALLY_SUPPORT_CHECK(cub_call(op::sum, nullptr, sum_bytes, 0));
    if (!s.csr || cub_csr_argmax()) TALLY_SUPPORT_CHECK(cub_call(op::argmax, nullptr, arg_bytes, 0));
    cub_temp_bytes = std::max(sum_bytes, arg_bytes);
    cub_temp = ts::device_buffer<unsigned char>(cub_temp_bytes == 0 ? 1 : cub_temp_bytes);
    cub_sums = cub_result<float>(op::sum, 0);
    if (!s.csr || cub_csr_argmax()) cub_pairs = cub_result<cub::KeyValuePair<int, float>>(op::argmax, 0);
    // Never time on zeros: the data must be there, in the first copy and the last.
    if (cub_sums[0] == 0.0f) throw std::runtime_error(std::string(sh.label) + ": CUB's first sum is 0: not filled?");
    if (cub_result<float>(op::sum, in.count() - 1) != cub_sums)
      throw std::runtime_error(std::string(sh.label) + ": the last input copy differs from the first");
  }

  static std::vector<int> make_offsets(const shape& s) {
    if (!s.csr) return {};
    std::mt19937_64 rng(2026);
    std::vector<int> o{0};
    for (std::int64_t r = 0; r < s.rows; ++r) {
      const int length = int(rng() % std::uint64_t(2 * s.length + 1));
      o.push_back(o.back() + (s.long_one > 0 && r == s.rows / 2 ? int(s.long_one) : length));
    }
    return o;
  }
  static std::int64_t total_items(const shape& s, const std::vector<int>& o) {
    return s.csr ? o.back() : s.rows * s.length;
  }

  /// CUB's call for `o` on copy k (into sums or pairs); with temp == nullptr, the size query.
  cudaError_t cub_call(op o, void* temp, std::size_t& bytes, int k) {
    const float* first = in.copy(k);
    if (sh.csr) {
      return o == op::sum ? cub::DeviceSegmentedReduce::Sum(temp, bytes, first, sums.data(), sh.rows, offsets.data(),
                                                            offsets.data() + 1, stream)
                          : cub::DeviceSegmentedReduce::ArgMax(temp, bytes, first, pairs.data(), sh.rows,
                                                               offsets.data(), offsets.data() + 1, stream);
    }
#if CCCL_VERSION >= 3005000
    // The fixed-size ArgMax writes cuda::std::pair<int, float>: the same bytes as the
    // KeyValuePair the offsets form writes (index, then value).
    static_assert(sizeof(cuda::std::pair<int, float>) == sizeof(cub::KeyValuePair<int, float>));
    const int length = int(sh.length);
    auto* fixed_pairs = reinterpret_cast<cuda::std::pair<int, float>*>(pairs.data());
    return o == op::sum ? cub::DeviceSegmentedReduce::Sum(temp, bytes, first, sums.data(), sh.rows, length, stream)
                        : cub::DeviceSegmentedReduce::ArgMax(temp, bytes, first, fixed_pairs, sh.rows, length, stream);
#else
    const auto begin = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), row_offset{sh.length});
    return o == op::sum ? cub::DeviceSegmentedReduce::Sum(temp, bytes, first, sums.data(), sh.rows, begin, begin + 1,
                                                          stream)
                        : cub::DeviceSegmentedReduce::ArgMax(temp, bytes, first, pairs.data(), sh.rows, begin,
                                                             begin + 1, stream);
#endif
  }
  template <class R>
  std::vector<R> cub_result(op o, int k) {
    TALLY_SUPPORT_CHECK(cub_call(o, cub_temp.data(), cub_temp_bytes, k));
    std::vector<R> got(std::size_t(sh.rows));
    const void* from = o == op::sum ? static_cast<const void*>(sums.data()) : static_cast<const void*>(pairs.data());
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(got.data(), from, sizeof(R) * got.size(), cudaMemcpyDeviceToHost, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    return got;
  }

  /// tally's call for `o` on copy k with `policy`.
  template <class Policy>
  void tally_call(op o, const Policy& policy, int k) {
    const float* first = in.copy(k);
    const auto run = [&](const auto& pieces) {
      if (o == op::sum) tally::reduce_into(policy, first, pieces, sums.data(), 0.0f);
      else if (o == op::argmax) tally::max_element_into(policy, first, pieces, index.data());
      else tally::top_k_into(policy, first, pieces, top_k_of(o), top_values.data(), top_indices.data());
    };
    if (sh.csr) run(tally::segments(offsets.data(), sh.rows));
    else run(tally::rows(sh.rows, sh.length));
  }

  /// top_k: "" when every entry on copy 0 is tally::host's on the same items.
  std::string check_top_k(op o) {
    const std::int64_t k = top_k_of(o);
    const std::size_t out = std::size_t(sh.rows * k);
    std::vector<float> host(static_cast<std::size_t>(items)), got_v(out), want_v(out);
    std::vector<std::int64_t> got_i(out), want_i(out);
    TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), in.copy(0), sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
    TALLY_SUPPORT_CHECK(cudaMemcpy(got_v.data(), top_values.data(), sizeof(float) * out, cudaMemcpyDeviceToHost));
    TALLY_SUPPORT_CHECK(cudaMemcpy(got_i.data(), top_indices.data(), sizeof(std::int64_t) * out, cudaMemcpyDeviceToHost));
    if (sh.csr)
      tally::top_k_into(tally::host, host.data(), tally::segments(host_offsets.data(), sh.rows), k, want_v.data(),
                        want_i.data());
    else
      tally::top_k_into(tally::host, host.data(), tally::rows(sh.rows, sh.length), k, want_v.data(), want_i.data());
    for (std::size_t j = 0; j < out; ++j)
      if (got_i[j] != want_i[j] || (want_i[j] >= 0 && got_v[j] != want_v[j])) {
        std::ostringstream why;
        why << "piece " << j / k << " entry " << j % k << ": index " << got_i[j] << ", want " << want_i[j];
        return why.str();
      }
    return "";
  }

  /// "" when tally's result on copy 0 (just computed) matches CUB's, else the first difference.
  std::string check(op o) {
    if (top_k_of(o) > 0) return check_top_k(o);
    std::ostringstream why;
    if (o == op::sum) {
      std::vector<float> got(std::size_t(sh.rows));
      TALLY_SUPPORT_CHECK(cudaMemcpy(got.data(), sums.data(), sizeof(float) * got.size(), cudaMemcpyDeviceToHost));
      for (std::size_t s = 0; s < got.size(); ++s)
        if (!(std::fabs(got[s] - cub_sums[s]) <= 1e-4f * std::max(1.0f, std::fabs(cub_sums[s])))) {
          why << "piece " << s << ": sum " << got[s] << ", CUB gives " << cub_sums[s];
          return why.str();
        }
      return "";
    }
    gather_at<<<256, 256, 0, stream>>>(in.copy(0), items, begins.data(), index.data(), values.data(), sh.rows);
    TALLY_SUPPORT_CHECK(cudaGetLastError());
    std::vector<float> got(std::size_t(sh.rows));
    std::vector<std::int64_t> idx(std::size_t(sh.rows));
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(got.data(), values.data(), sizeof(float) * got.size(), cudaMemcpyDeviceToHost,
                                        stream));
    TALLY_SUPPORT_CHECK(cudaMemcpyAsync(idx.data(), index.data(), sizeof(std::int64_t) * idx.size(),
                                        cudaMemcpyDeviceToHost, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
    if (cub_pairs.empty()) {  // CSR without CUB's row: tally::host on the same items
      std::vector<float> host(static_cast<std::size_t>(items));
      std::vector<std::int64_t> want(got.size());
      TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), in.copy(0), sizeof(float) * host.size(), cudaMemcpyDeviceToHost));
      tally::max_element_into(tally::host, host.data(), tally::segments(host_offsets.data(), sh.rows), want.data());
      for (std::size_t s = 0; s < got.size(); ++s)
        if (idx[s] != want[s]) {
          why << "piece " << s << ": index " << idx[s] << ", tally::host gives " << want[s];
          return why.str();
        }
      return "";
    }
    for (std::size_t s = 0; s < got.size(); ++s) {
      if (sh.csr && host_offsets[s + 1] == host_offsets[s]) {  // empty: tally writes 0, CUB {1, lowest}
        if (idx[s] != 0) {
          why << "empty piece " << s << ": index " << idx[s] << ", want 0";
          return why.str();
        }
        continue;
      }
      if (!(got[s] == cub_pairs[s].value && idx[s] <= cub_pairs[s].key)) {
        why << "piece " << s << ": index " << idx[s] << " (item " << got[s] << "), CUB gives " << cub_pairs[s].key
            << " (" << cub_pairs[s].value << ")";
        return why.str();
      }
    }
    return "";
  }
};

// --- shared state of one run ----------------------------------------------------------------

ts::bench_session g;
std::unique_ptr<pieces_input> g_input;  // one shape's input at a time
int g_input_shape = -1;

pieces_input& input_of(int shape_index) {
  if (shape_index != g_input_shape) {
    g_input.reset();  // free the previous shape's input first
    g_input_shape = -1;
    g_input = std::make_unique<pieces_input>(shapes[shape_index], g.stream);
    g_input_shape = shape_index;
  }
  return *g_input;
}

void run_benchmark(benchmark::State& state, op o, impl which, int shape_index) {
  const shape& sh = shapes[shape_index];
  ts::measurement_id id{op_case(o), impl_row(which), impl_key(which), std::uint64_t(shape_index), sizeof(float)};
  ts::checked_measurement(
      state, g, id,
      [&]() -> pieces_input& {
        pieces_input& s = input_of(shape_index);
        id.items = double(s.items);  // checked_measurement reads it after input()
        return s;
      },
      [&](pieces_input& s) {
        if (which == impl::floor || which == impl::cub) return std::string();  // the reference itself
        TALLY_SUPPORT_CHECK(cudaMemsetAsync(s.sums.data(), 0xff, sizeof(float) * sh.rows, g.stream));
        TALLY_SUPPORT_CHECK(cudaMemsetAsync(s.index.data(), 0, sizeof(std::int64_t) * sh.rows, g.stream));
        TALLY_SUPPORT_CHECK(cudaMemsetAsync(s.top_indices.data(), 0x55, sizeof(std::int64_t) * sh.rows * 256, g.stream));
        with_tally_policy(which, g.stream, [&](auto policy) { s.tally_call(o, policy, 0); });
        TALLY_SUPPORT_CHECK(cudaStreamSynchronize(g.stream));
        return s.check(o);
      },
      [&](pieces_input& s) {
        const int copies = s.in.count();
        if (which == impl::floor)
          return ts::time_row(g, [&](int k) { (*g.ruler)(s.in.copy(k), std::size_t(s.items) * sizeof(float), g.stream); },
                                copies);
        if (which == impl::cub)
          return ts::time_row(g, [&](int k) { TALLY_SUPPORT_CHECK(s.cub_call(o, s.cub_temp.data(), s.cub_temp_bytes, k)); },
                                copies);
        ts::timing_result t;
        with_tally_policy(which, g.stream, [&](auto policy) {
          t = ts::time_row(g, [&](int k) { s.tally_call(o, policy, k); }, copies);
        });
        return t;
      });
}

const ts::bench_program program{"bench_pieces",
                                "tally reduce_into / max_element_into / top_k_into over rows and segments vs "
                                "CUB's DeviceSegmentedReduce and the stream_read floor\n",
                                "bench_pieces.md",
                                {"float_sum", "float_argmax", "float_top_k32", "float_top_k50", "float_top_k256"},
                                "float_sum/tally_automatic"};

}  // namespace

int main(int argc, char** argv) {
  return ts::run_comparison_benchmarks(
      argc, argv, program, g,
      [](const ts::bench_flags& flags) {
        std::vector<std::uint64_t> keys;
        for (int i = 0; i < shape_count; ++i) keys.push_back(std::uint64_t(i));
        g.report->set_columns(
            keys, [](std::uint64_t i) { return std::string(shapes[i].label); },
            [](std::uint64_t i) {
              const shape& s = shapes[i];
              // CSR: the mean (the generator's expectation), and the long segment
              return double(s.rows) * double(s.length) + double(s.long_one);
            });
        for (op o : all_ops) {
          if (!flags.wants(op_case(o))) continue;
          const std::string k = std::to_string(top_k_of(o));
          g.report->add_case(op_case(o),
                             o == op::sum      ? "reduce_into over pieces, float32 sum (cub row: Sum)"
                             : o == op::argmax ? "max_element_into over pieces, float32 (cub row: ArgMax)"
                                               : "top_k_into over pieces, float32, k = " + k + " (no cub row)",
                             sizeof(float));
          for (int i = 0; i < shape_count; ++i)
            for (impl which : all_impls) {
              if (!measured(o, shapes[i])) continue;
              if (o == op::argmax && shapes[i].csr && which == impl::cub && !cub_csr_argmax()) continue;
              // top_k: one engine on every backend; the floor and automatic rows only.
              if (top_k_of(o) > 0 && which != impl::floor && which != impl::tally_automatic) continue;
              const std::string name = std::string(op_case(o)) + "/" + impl_key(which) + "/" + shapes[i].label;
              ts::register_measurement(name, [o, which, i](benchmark::State& st) { run_benchmark(st, o, which, i); });
            }
        }
      },
      [] {
        g_input.reset();
        g_input_shape = -1;
      },
      [](const ts::bench_session& s) {
        std::string md =
            "- method: median over 7 loops of the mean time per call, back-to-back calls between CUDA events, "
            "inputs rotating over copies that fill 512 MiB (at most 1024); CUB temporary storage allocated once\n";
        md += std::string("- cub row: CCCL ") + ts::cccl_version_string() +
              (CCCL_VERSION >= 3005000 ? ", fixed-size rows" : ", rows as offsets (no fixed-size form before 3.5)") +
              "; CSR as int32 offsets\n";
        md += "- copy ceiling: 1 GiB device-to-device copy, " + ts::figure(s.ceiling.gbps) + " GB/s (read + write)\n";
        md += "- GB/s for CSR uses the expected item count (segments x 512, plus the long segment's 2^24)\n";
        md += "- WRONG: the result differed from CUB's on the same input; such a row is not timed\n\n";
        md += s.report->markdown("cub DeviceSegmentedReduce");
        return md;
      });
}
