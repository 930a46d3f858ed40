#pragma once
// Per-word body of interleaving columns into records and back (kernels/records.h), shared by the
// CPU reference and the CUDA kernels so that both compute the same function.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

inline constexpr int kMaxRecordFields = 8;

// The columns a record is made of, in record order: field f is `words[f]` 32-bit words per row of
// columns[f]. Word is `const uint32_t` for columns that are read (packing), `uint32_t` for columns
// that are written (unpacking). Passed to the CUDA kernels by value.
template <class Word>
struct BasicRecordFields {
  Word* columns[kMaxRecordFields] = {};
  int words[kMaxRecordFields] = {};
  int count = 0;
  int record_words = 0;  // the sum of words[]: one record's size in 32-bit words
};
using RecordSources = BasicRecordFields<const uint32_t>;
using RecordTargets = BasicRecordFields<uint32_t>;

// Where word e of the records (row e / record_words, in record order) lives in its column.
template <class Word>
SPLAT_HD Word* column_word(const BasicRecordFields<Word>& f, int64_t e) {
  const int64_t row = e / f.record_words;
  int w = int(e - row * f.record_words), k = 0;
  while (w >= f.words[k]) w -= f.words[k++];
  return f.columns[k] + row * f.words[k] + w;
}

}  // namespace splat::kernels
