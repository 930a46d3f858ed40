#pragma once
// Where each column word goes in the records (kernels/records.h), shared by the CPU reference and
// the CUDA kernels so that both compute the same function.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

inline constexpr int kMaxRecordFields = 8;

// The columns a record is made of, in record order: field f is `words[f]` 32-bit words per row of
// columns[f], starting at word starts[f] of its record. Word is `const uint32_t` for columns that
// are read (packing), `uint32_t` for columns that are written (unpacking). Passed to the CUDA
// kernels by value.
template <class Word>
struct BasicRecordFields {
  Word* columns[kMaxRecordFields] = {};
  int words[kMaxRecordFields] = {};
  int starts[kMaxRecordFields] = {};
  int count = 0;
  int record_words = 0;  // the sum of words[]: one record's size in 32-bit words
};
using RecordSources = BasicRecordFields<const uint32_t>;
using RecordTargets = BasicRecordFields<uint32_t>;

// Word i of a field's column (counted from the first row of a run of rows) sits at this word of
// the run's records: its row is i / words, and within the row the field starts at `start`. I is
// int32 in the CUDA kernels (a tile of rows: no 64-bit division), int64 on the CPU.
template <class I>
SPLAT_HD I record_word(I i, int words, int start, int record_words) {
  const I row = i / words;
  return row * record_words + start + (i - row * words);
}

}  // namespace splat::kernels
