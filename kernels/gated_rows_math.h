#pragma once
// One row of a gated row copy (kernels/gated_rows.h), shared by the CPU reference and the CUDA kernel:
// each column's row is 4, 8 or 16 bytes, copied as one aligned word of that width.
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

template <class Word>
SPLAT_HD void copy_or_zero(const RowColumn& c, int64_t row, bool keep) {
  if (!keep && !c.zero_gated) return;
  Word w{};
  if (keep) w = static_cast<const Word*>(c.from)[row];
  static_cast<Word*>(c.to)[row] = w;
}

// Row `row` of every column: its bytes where gate[row] != 0; where it is 0, zeros in the columns that
// ask for them and nothing in the others.
SPLAT_HD void copy_gated_row(const RowColumn* columns, int n_columns, int64_t row, const int32_t* gate) {
  const bool keep = gate[row] != 0;
  for (int k = 0; k < n_columns; ++k) {
    const RowColumn& c = columns[k];
    if (c.row_bytes == 16) copy_or_zero<RowWord16>(c, row, keep);
    else if (c.row_bytes == 8) copy_or_zero<RowWord8>(c, row, keep);
    else copy_or_zero<uint32_t>(c, row, keep);
  }
}

}  // namespace splat::kernels
