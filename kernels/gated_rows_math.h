#pragma once
// One row of a gated row copy (kernels/gated_rows.h), shared by the CPU reference and the CUDA kernel:
// each column's row is 4, 8 or 16 bytes, copied as one aligned word of that width.
#include <cstddef>
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// A column of rows: `row_bytes` (4, 8 or 16) bytes a row, read at `from`, written at `to`; both
// aligned to row_bytes. `zero_gated`: a row whose gate is 0 is written as zeros; otherwise it is not
// written at all (its bytes at `to` stay as they were).
struct RowColumn {
  const void* from;
  void* to;
  int64_t row_bytes;
  bool zero_gated = false;
};

// The most columns one gated copy moves (a projected pair has 7).
constexpr int kMostRowColumns = 8;

struct alignas(8) RowWord8 {
  uint32_t v[2];
};
struct alignas(16) RowWord16 {
  uint32_t v[4];
};

// One column's row as a 16-byte word: a 4- or 8-byte row uses the first one or two of its values.
template <class Word>
SPLAT_HD RowWord16 load_row_word(const void* from, int64_t row) {
  const Word w = static_cast<const Word*>(from)[row];
  RowWord16 out{};
  for (size_t i = 0; i < sizeof(Word) / 4; ++i) out.v[i] = reinterpret_cast<const uint32_t*>(&w)[i];
  return out;
}

template <class Word>
SPLAT_HD void store_row_word(void* to, int64_t row, const RowWord16& in) {
  Word w;
  for (size_t i = 0; i < sizeof(Word) / 4; ++i) reinterpret_cast<uint32_t*>(&w)[i] = in.v[i];
  static_cast<Word*>(to)[row] = w;
}

// Row `row` of every column: its bytes where gate[row] != 0; where it is 0, zeros in the columns that
// ask for them and nothing in the others. Every column's load is issued before any store: where the
// sources lie across a link, a row then waits for one round trip rather than one per column (a
// store between two loads would hold the second back until the first had arrived).
SPLAT_HD void copy_gated_row(const RowColumn* columns, int n_columns, int64_t row, const int32_t* gate) {
  const bool keep = gate[row] != 0;
  RowWord16 words[kMostRowColumns];
  SPLAT_UNROLL
  for (int k = 0; k < kMostRowColumns; ++k) {
    words[k] = RowWord16{};
    if (k >= n_columns || !keep) continue;
    const RowColumn& c = columns[k];
    if (c.row_bytes == 16) words[k] = load_row_word<RowWord16>(c.from, row);
    else if (c.row_bytes == 8) words[k] = load_row_word<RowWord8>(c.from, row);
    else words[k] = load_row_word<uint32_t>(c.from, row);
  }
  SPLAT_UNROLL
  for (int k = 0; k < kMostRowColumns; ++k) {
    if (k >= n_columns) continue;
    const RowColumn& c = columns[k];
    if (!keep && !c.zero_gated) continue;
    if (c.row_bytes == 16) store_row_word<RowWord16>(c.to, row, words[k]);
    else if (c.row_bytes == 8) store_row_word<RowWord8>(c.to, row, words[k]);
    else store_row_word<uint32_t>(c.to, row, words[k]);
  }
}

}  // namespace splat::kernels
