#pragma once
// Copying the rows of several columns gated by a flag per row. The multi-GPU exchange moves a
// projected pair to the rank rendering its camera only where the pair covers a tile (a pair that
// covers none is never read there beyond its tile count), and the gradients of those pairs back (the
// projecting rank reads none for a pair that covers no tile). A row whose flag is 0 is written only
// in the columns that ask for it (RowColumn::zero_gated: the receiver's tile counts), as zeros; the
// others are left as they were, so the copy writes a few bytes per left-out row instead of the whole
// row. Where the destinations lie in a peer GPU's memory (peer access enabled), the rows that are not
// needed never cross the link.
#include <cstdint>
#include <span>

#include "kernels/device_context.h"
#include "kernels/gated_rows_math.h"

namespace splat::kernels {

// For every row r < rows of every column: its bytes where gate[r] != 0, else zeros where the column
// is zero_gated and nothing where it is not. At most
// kMostRowColumns columns of 4, 8 or 16 bytes a row; destinations must not overlap the sources.
// On CUDA enqueued on the context's stream (any of the pointers may lie on a peer device), not waited
// for. Throws std::invalid_argument for a column count or row width outside those.
void copy_gated_rows(const ComputeContext& where, std::span<const RowColumn> columns, int64_t rows,
                     const int32_t* gate);

// counts[k] = the rows r in [starts[k], starts[k] + lengths[k]) with gate[r] != 0, for k < starts.size()
// (at most kMostRuns runs). counts lives in `where`; on CUDA enqueued, not waited for.
constexpr int kMostRuns = 64;
void count_gated_runs(const ComputeContext& where, const int32_t* gate, std::span<const int64_t> starts,
                      std::span<const int64_t> lengths, int64_t* counts);

// The CPU references (the entry points call them for Device::CPU).
void copy_gated_rows_reference(std::span<const RowColumn> columns, int64_t rows, const int32_t* gate);
void count_gated_runs_reference(const int32_t* gate, std::span<const int64_t> starts, std::span<const int64_t> lengths,
                                int64_t* counts);

// Throws std::invalid_argument unless the arguments are of the forms above (shared by both backends).
void check_gated_rows(std::span<const RowColumn> columns, int64_t rows);
void check_gated_runs(std::span<const int64_t> starts, std::span<const int64_t> lengths);

}  // namespace splat::kernels
