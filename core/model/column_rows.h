#pragma once
// Row edits of one host column of `width` floats per row: the single implementation behind the
// host model's and the host training state's append_rows / keep_rows.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace splat {

// Header-only: the fuzz build compiles a fixed list of core sources, and these few lines need no
// file of their own.

// Throws std::out_of_range naming `who` when a row is outside [0, n).
inline void check_rows_in_range(std::span<const int64_t> rows, int64_t n, const char* who) {
  for (int64_t r : rows)
    if (r < 0 || r >= n)
      throw std::out_of_range(std::string(who) + ": row " + std::to_string(r) + " of " + std::to_string(n));
}

// Throws std::logic_error naming `who` when the mask's length is not n.
inline void check_mask_length(std::span<const uint8_t> keep, int64_t n, const char* who) {
  if (static_cast<int64_t>(keep.size()) != n)
    throw std::logic_error(std::string(who) + ": mask has " + std::to_string(keep.size()) + " entries for " +
                           std::to_string(n) + " rows");
}

// Appends copies of the given rows (repeats allowed; rows already checked).
inline void append_column_rows(std::vector<float>& col, int width, std::span<const int64_t> rows) {
  const size_t w = static_cast<size_t>(width);
  col.reserve(col.size() + rows.size() * w);
  for (int64_t r : rows)
    for (size_t k = 0; k < w; ++k) col.push_back(col[static_cast<size_t>(r) * w + k]);
}

// Keeps the rows whose mask entry is nonzero, in order.
inline void keep_column_rows(std::vector<float>& col, int width, std::span<const uint8_t> keep) {
  const size_t w = static_cast<size_t>(width);
  size_t out = 0;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (!keep[i]) continue;
    for (size_t k = 0; k < w; ++k) col[out * w + k] = col[i * w + k];
    ++out;
  }
  col.resize(out * w);
}

}  // namespace splat
