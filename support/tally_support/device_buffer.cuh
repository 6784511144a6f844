#pragma once
/// @file
/// RAII device memory: `device_buffer<T>` (one array) and `device_copies<T>` (several
/// copies of one input, for timing loops that rotate over inputs so that small inputs
/// are not served from L2 on every call).

#include <tally_support/cuda_check.cuh>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tally_support {

/// `n` items of T in device memory (cudaMalloc / cudaFree). Move-only; contents are
/// uninitialised after construction from a size. An empty buffer holds no allocation.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t n) : size_(n) {
    if (n != 0) TALLY_SUPPORT_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  explicit device_buffer(const std::vector<T>& host) : device_buffer(host.size()) { copy_from_host(host); }

  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~device_buffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  /// Copies `host` into the buffer (synchronous); the sizes must match.
  void copy_from_host(const std::vector<T>& host) {
    if (host.size() != size_) throw std::invalid_argument("device_buffer::copy_from_host: size mismatch");
    if (size_ != 0) {
      TALLY_SUPPORT_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
      // From pageable memory cudaMemcpy may return before the DMA into data_ is done (it
      // returns once the host buffer is staged): work on a non-blocking stream could then
      // be overwritten by the copy's tail. Seen: top_k's -1 past a row's length replaced
      // by the test's -7 guards near the end of a 655 KB buffer (test_top_k_pieces, H100).
      TALLY_SUPPORT_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
    }
  }
  /// Copies the buffer into `host`, resizing it (synchronous).
  void copy_to_host(std::vector<T>& host) const {
    host.resize(size_);
    if (size_ != 0) TALLY_SUPPORT_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }
  std::vector<T> to_host() const {
    std::vector<T> host;
    copy_to_host(host);
    return host;
  }
  /// Reads item i (synchronous; for results and spot checks).
  T get(std::size_t i = 0) const {
    if (i >= size_) throw std::out_of_range("device_buffer::get: index out of range");
    T value;
    TALLY_SUPPORT_CHECK(cudaMemcpy(&value, data_ + i, sizeof(T), cudaMemcpyDeviceToHost));
    return value;
  }
  /// Sets every byte to `byte` (synchronous). cudaMemset alone may return before the
  /// fill is done, and it runs on the legacy stream, which a non-blocking stream (the
  /// benchmarks') does not wait for: the device sync makes the fill land before any
  /// work queued afterwards on any stream.
  void memset(int byte) {
    if (size_ == 0) return;
    TALLY_SUPPORT_CHECK(cudaMemset(data_, byte, bytes()));
    TALLY_SUPPORT_CHECK(cudaDeviceSynchronize());
  }

 private:
  void release() noexcept {
    if (data_ != nullptr) cudaFree(data_);  // no throw from a destructor; errors resurface at the next check
    data_ = nullptr;
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// `count` copies of an n-item input in one allocation. Each copy starts on a 256-byte
/// boundary (what cudaMalloc gives a single array), so an odd n never costs an
/// implementation its aligned vector loads on some copies but not others.
template <class T>
class device_copies {
 public:
  device_copies(std::size_t n, int count)
      : n_(n), count_(count < 1 ? 1 : count), stride_(round_up(n * sizeof(T), 256) / sizeof(T)),
        storage_(stride_ * static_cast<std::size_t>(count_)) {
    static_assert(256 % sizeof(T) == 0 || sizeof(T) % 256 == 0, "item size must divide 256");
  }

  std::size_t size() const noexcept { return n_; }    ///< items per copy
  int count() const noexcept { return count_; }       ///< number of copies
  std::size_t bytes() const noexcept { return n_ * sizeof(T); }  ///< bytes per copy
  T* copy(int k) noexcept { return storage_.data() + stride_ * static_cast<std::size_t>(k % count_); }
  const T* copy(int k) const noexcept { return storage_.data() + stride_ * static_cast<std::size_t>(k % count_); }

  /// Makes every copy equal to copy 0 (fill copy 0 first, e.g. with tally_support::fill).
  void replicate_first(cudaStream_t stream = 0) {
    for (int k = 1; k < count_; ++k)
      if (n_ != 0) TALLY_SUPPORT_CHECK(cudaMemcpyAsync(copy(k), copy(0), bytes(), cudaMemcpyDeviceToDevice, stream));
    TALLY_SUPPORT_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  static std::size_t round_up(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }

  std::size_t n_;
  int count_;
  std::size_t stride_;
  device_buffer<T> storage_;
};

}  // namespace tally_support
