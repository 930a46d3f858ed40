#pragma once
// Copying the rows of several columns gated by a flag per row. The multi-GPU exchange moves a
// projected pair to the rank rendering its camera only where the pair covers a tile (a pair that
// covers none is never read there beyond its tile count), and the gradients of those pairs back (the
// projecting rank reads none for a pair that covers no tile). A row whose flag is 0 is written only
// in the columns that ask for it (RowColumn::zero_gated: the receiver's tile counts), as zeros; the
// others are left as they were, so the copy writes a few bytes per left-out row instead of the whole
// row. Where the columns and the gate lie in a peer GPU's memory (peer access enabled), the rows that
// are not needed never cross the link.
#include <cstdint>
#include <span>

#include "kernels/device_context.h"
#include "kernels/gated_rows_math.h"

namespace splat::kernels {

// For every row r < rows of every column: its bytes where gate[r] != 0, else zeros where the column
// is zero_gated and nothing where it is not. At most
// kMostRowColumns columns of 4, 8 or 16 bytes a row; destinations must not overlap the sources.
// On CUDA enqueued on the context's stream (sources and gate may lie on a peer device), not waited
// for. Throws std::invalid_argument for a column count or row width outside those.
void copy_gated_rows(const ComputeContext& where, std::span<const RowColumn> columns, int64_t rows,
                     const int32_t* gate);

// counts[k] = the rows r in [starts[k], starts[k] + lengths[k]) with gate[r] != 0, for k < starts.size()
// (at most kMostRuns runs). counts lives in `where`; on CUDA enqueued, not waited for.
constexpr int kMostRuns = 64;
void count_gated_runs(const ComputeContext& where, const int32_t* gate, std::span<const int64_t> starts,
                      std::span<const int64_t> lengths, int64_t* counts);

// The same copy in two halves, for rows that cross a link between GPUs: the sender packs the rows whose
// gate is set into a staging area (stage_gated_rows), the receiver puts them in place
// (scatter_staged_rows); together they write what copy_gated_rows does. Read in place across the
// link, each kept row costs a 32-byte sector in every column wherever kept rows lie apart, and every
// row costs its gate; packed, the link carries the kept rows' bytes and a 4-byte row number each.
// Both take the columns in the same order and widths (stage reads their `from`, scatter their `to`
// and zero_gated) and at most 2^31 - 1 rows.
// Bytes of the staging area for `rows` rows of these columns.
int64_t staged_rows_bytes(std::span<const RowColumn> columns, int64_t rows);
// Packs the kept rows of the columns' sources into `staging` (staged_rows_bytes of them, in `where`).
void stage_gated_rows(const ComputeContext& where, std::span<const RowColumn> columns, int64_t rows,
                      const int32_t* gate, void* staging);
// Writes the rows packed in `staging` (on CUDA it may lie on a peer GPU) to the columns' destinations,
// and zeros to every other row of the zero_gated columns.
void scatter_staged_rows(const ComputeContext& where, std::span<const RowColumn> columns, int64_t rows,
                         const void* staging);

// The CPU references (the entry points call them for Device::CPU).
void copy_gated_rows_reference(std::span<const RowColumn> columns, int64_t rows, const int32_t* gate);
void stage_gated_rows_reference(std::span<const RowColumn> columns, int64_t rows, const int32_t* gate, void* staging);
void scatter_staged_rows_reference(std::span<const RowColumn> columns, int64_t rows, const void* staging);
void count_gated_runs_reference(const int32_t* gate, std::span<const int64_t> starts, std::span<const int64_t> lengths,
                                int64_t* counts);

// Throws std::invalid_argument unless the arguments are of the forms above (shared by both backends).
void check_gated_rows(std::span<const RowColumn> columns, int64_t rows);
void check_gated_runs(std::span<const int64_t> starts, std::span<const int64_t> lengths);

}  // namespace splat::kernels
