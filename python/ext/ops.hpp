#pragma once
// The module's kernels, as plain functions over device addresses: the Python layer
// (python/src/tally/_ops.py) checks the arrays, allocates the outputs with the input's framework and
// passes pointers, shapes in items and the framework's current stream. Every function
// queues its work on `stream` and returns at once. "Rows" are `rows` rows of `length`
// items, row r starting at item r * stride of x (a flat input is one row).

#include <cstdint>
#include <string>

namespace tally_python {

using address = std::uintptr_t;

/// The dtype of sum's result for an input dtype: float16/bfloat16/float32 -> the same
/// (accumulated in float32), float64 -> float64, uint64 -> uint64, other integers -> int64.
std::string sum_dtype(const std::string& dtype);

/// out[r] = the sum / max / min of row r (max and min in the library's order: NaN greatest).
void sum_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream);
void max_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream);
void min_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
              address out, int device, address stream);

/// out[r] = the int64 index in row r of its first largest / smallest item.
void argmax_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream);
void argmin_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                 address out, int device, address stream);

/// values[r * k + j], indices[r * k + j] (int64): the k best items of row r, best first,
/// ties by the lower index; largest or smallest. k <= 2048 (tally::max_top_k_pieces).
void top_k_rows(const std::string& dtype, address x, std::int64_t rows, std::int64_t length, std::int64_t stride,
                std::int64_t k, bool largest, address values, address indices, int device, address stream);
/// The same over one flat range of n items, any k.
void top_k_flat(const std::string& dtype, address x, std::int64_t n, std::int64_t k, bool largest, address values,
                address indices, int device, address stream);

/// Copies the items x[i] with mask[i] != 0 (mask: one byte an item) to out, in order unless
/// !ordered, and writes their int64 count to the calling thread's count slot for
/// `device` (read it with wait_count). Items are moved as itemsize-byte words.
/// count_first: the count comes from a reduce over the mask queued before the copy (an
/// extra read of n bytes; the host has the count before the copy ends).
void select(int itemsize, address x, address mask, std::int64_t n, address out, bool ordered, bool count_first,
            int device, address stream);

/// The CUDA device that holds `pointer` (std::invalid_argument when it is host memory).
int device_of(address pointer);
/// The calling thread's count slot for `device`: two mapped, pinned int64 that kernels
/// write (the first is the one wait_count reads).
std::int64_t* count_slot(int device);
/// The count in the calling thread's slot for `device`, once a kernel queued on `stream`
/// has written it (polls the slot; a CUDA error of the stream raises).
std::int64_t wait_count(int device, address stream);
/// Waits for `stream`.
void synchronize(int device, address stream);

}  // namespace tally_python
