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

template <class Word>
SPLAT_HD void copy_or_zero(const RowColumn& c, int64_t row, bool keep) {
  if (!keep && !c.zero_gated) return;
  Word w{};
  if (keep) w = static_cast<const Word*>(c.from)[row];
  static_cast<Word*>(c.to)[row] = w;
}

template <class Word>
SPLAT_HD void copy_word(const void* from, int64_t i, void* to, int64_t j) {
  static_cast<Word*>(to)[j] = static_cast<const Word*>(from)[i];
}
// Row i of `from` to row j of `to`, rows of `row_bytes` (4, 8 or 16) bytes.
SPLAT_HD void copy_row_word(const void* from, int64_t i, void* to, int64_t j, int64_t row_bytes) {
  if (row_bytes == 16) copy_word<RowWord16>(from, i, to, j);
  else if (row_bytes == 8) copy_word<RowWord8>(from, i, to, j);
  else copy_word<uint32_t>(from, i, to, j);
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

// The kept rows packed for a copy in two halves (kernels/gated_rows.h: stage_gated_rows, then
// scatter_staged_rows). The staging area for up to `rows` kept rows: their count (int64) at byte 0,
// their row numbers (int32) from byte 16, then each column's kept rows back to back, every run
// starting on a 16-byte boundary. Place k holds one kept row: its number at index k and its bytes at
// row k of every column's run; the places may stand in any order (the CUDA packing takes them by
// atomics), since each carries its row number.
struct StagedLayout {
  static constexpr int64_t kIndexAt = 16;
  int64_t column_at[kMostRowColumns] = {};
  int64_t bytes = 0;
};

inline StagedLayout staged_layout(const RowColumn* columns, int n_columns, int64_t rows) {
  auto aligned = [](int64_t b) { return (b + 15) / 16 * 16; };
  StagedLayout l;
  int64_t at = aligned(StagedLayout::kIndexAt + 4 * rows);
  for (int k = 0; k < n_columns; ++k) {
    l.column_at[k] = at;
    at = aligned(at + rows * columns[k].row_bytes);
  }
  l.bytes = at;
  return l;
}

// Packs kept row `row` into place k of `staging`: its number and its bytes in every column.
SPLAT_HD void stage_row(const RowColumn* columns, int n_columns, const StagedLayout& l, int64_t row, int64_t k,
                        std::byte* staging) {
  reinterpret_cast<int32_t*>(staging + StagedLayout::kIndexAt)[k] = int32_t(row);
  for (int c = 0; c < n_columns; ++c)
    copy_row_word(columns[c].from, row, staging + l.column_at[c], k, columns[c].row_bytes);
}

// Writes place k of `staging` to its row of every column's destination.
SPLAT_HD void scatter_row(const RowColumn* columns, int n_columns, const StagedLayout& l, int64_t k,
                          const std::byte* staging) {
  const int64_t row = reinterpret_cast<const int32_t*>(staging + StagedLayout::kIndexAt)[k];
  for (int c = 0; c < n_columns; ++c)
    copy_row_word(staging + l.column_at[c], k, columns[c].to, row, columns[c].row_bytes);
}

}  // namespace splat::kernels
