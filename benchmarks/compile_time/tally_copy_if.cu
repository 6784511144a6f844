// One call of tally::copy_if_into (int, stable: the default), as a user writes it;
// compiled by scripts/compile-time.sh (nvcc -O3 -c) against cub_select_if.cu.
#include <tally/copy_if.cuh>

#include <cstdint>

struct greater_equal_2 {
  __host__ __device__ bool operator()(int x) const { return x >= 2; }
};

void call(const int* in, std::int64_t n, int* out, std::int64_t* count, cudaStream_t s) {
  tally::copy_if_into(tally::par.on(s), in, in + n, out, count, greater_equal_2{});
}
