// CPU reference of the gated row copy and its run counts (kernels/gated_rows.h).
#include <stdexcept>
#include <string>

#include "kernels/gated_rows.h"

namespace splat::kernels {

void check_gated_rows(std::span<const RowColumn> columns, int64_t rows) {
  if (columns.empty() || columns.size() > size_t(kMostRowColumns) || rows < 0)
    throw std::invalid_argument("copy_gated_rows: " + std::to_string(columns.size()) + " columns of " +
                                std::to_string(rows) + " rows (1 to " + std::to_string(kMostRowColumns) +
                                " columns)");
  for (const RowColumn& c : columns)
    if (c.row_bytes != 4 && c.row_bytes != 8 && c.row_bytes != 16)
      throw std::invalid_argument("copy_gated_rows: a column of " + std::to_string(c.row_bytes) +
                                  "-byte rows (4, 8 or 16)");
}

void check_gated_runs(std::span<const int64_t> starts, std::span<const int64_t> lengths) {
  if (starts.size() != lengths.size() || starts.size() > size_t(kMostRuns))
    throw std::invalid_argument("count_gated_runs: " + std::to_string(starts.size()) + " starts and " +
                                std::to_string(lengths.size()) + " lengths (at most " + std::to_string(kMostRuns) +
                                " runs)");
  for (size_t k = 0; k < starts.size(); ++k)
    if (starts[k] < 0 || lengths[k] < 0) throw std::invalid_argument("count_gated_runs: a negative run");
}

void copy_gated_rows_reference(std::span<const RowColumn> columns, int64_t rows, const int32_t* gate) {
  check_gated_rows(columns, rows);
  for (int64_t r = 0; r < rows; ++r) copy_gated_row(columns.data(), int(columns.size()), r, gate);
}

void count_gated_runs_reference(const int32_t* gate, std::span<const int64_t> starts, std::span<const int64_t> lengths,
                                int64_t* counts) {
  check_gated_runs(starts, lengths);
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t n = 0;
    for (int64_t r = starts[k]; r < starts[k] + lengths[k]; ++r) n += gate[r] != 0;
    counts[k] = n;
  }
}

}  // namespace splat::kernels
