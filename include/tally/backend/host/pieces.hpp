#pragma once
// The host backend over pieces (rows, segments): the flat reference once per piece, in
// piece order. Indices are local to the piece; an empty piece gives init (reduce) or 0,
// its length (the extrema).

#include <tally/backend/host/extrema.hpp>
#include <tally/backend/host/reduce.hpp>

#include <cstdint>

TALLY_NAMESPACE_BEGIN
namespace backend_host {

template <class It, class Pieces, class Out, class T, class Op>
void reduce_pieces(It first, const Pieces& pieces, Out out, T init, Op op) {
  for (std::int64_t s = 0; s < pieces.count(); ++s) {
    const It begin = first + pieces.begin(s);
    out[s] = backend_host::reduce(begin, begin + pieces.length(s), init, op);
  }
}

template <bool Max, class It, class Pieces, class Out, class Compare>
void extremum_pieces(It first, const Pieces& pieces, Out out, Compare comp) {
  for (std::int64_t s = 0; s < pieces.count(); ++s) {
    const It begin = first + pieces.begin(s);
    out[s] = backend_host::extremum_index<Max>(begin, begin + pieces.length(s), comp);
  }
}

}  // namespace backend_host
TALLY_NAMESPACE_END
