#pragma once
// How the whole model is cut into the ranks' shards and put back together (docs/ARCHITECTURE.md
// "Shards"): rank r owns a contiguous block of rows, the shards concatenated in rank order are the
// whole model, and global ids are row numbers in that concatenation.
//
// At the start of a run the rows are first ordered along a Morton (Z-order) curve of the means, so that
// each block is a compact region of space and a camera sees few remote Gaussians. A resumed run cuts the
// checkpoint's rows as they are (the gathered order is the shards' order), so that gathering right after
// a resume gives back the checkpoint exactly.
#include <cstdint>
#include <span>
#include <vector>

#include "core/transport/communicator.h"
#include "core/model/device_gaussians.h"
#include "kernels/morton_math.h"

namespace splat::sharded {

using transport::Communicator;

// Rows [first, first + count) of a model of n rows cut into `ranks` blocks that differ by at most one row.
struct RowBlock {
  int64_t first = 0, count = 0;
};
RowBlock row_block(int64_t n, int rank, int ranks);

// An axis-aligned box: the cells of the Morton curve divide it (kernels/morton_math.h).
using Box = kernels::MortonBox;
// The bounding box of the means ([n,3]); all zeros for none.
Box bounding_box(std::span<const float> means);

// The row order that sorts the means ([n,3]) along a Morton curve of `box` (10 bits per axis; means
// outside it count as on its faces), ties by row; stable for equal inputs. Shards sorted with one
// box shared by every rank are ordered alike.
std::vector<int64_t> morton_order(std::span<const float> means, const Box& box);
// The same over the means' own bounding box.
std::vector<int64_t> morton_order(std::span<const float> means);

// The given rows of `state` (values and both moments), in that order.
GaussianState take_rows(const GaussianState& state, std::span<const int64_t> rows);

// Rank `rank`'s shard of a starting model stored as `columns` says: the rows in Morton order, cut into blocks.
GaussianState initial_shard(const GaussianModel& whole, int rank, int ranks,
                            const ColumnTable& columns = kParamColumns);
// Rank `rank`'s shard of a whole state (a checkpoint): a block of its rows as they are.
GaussianState shard_of(const GaussianState& whole, int rank, int ranks);

// The shards of every rank concatenated in rank order (values and moments, as stored), on rank `root`;
// an empty state (same columns and SH degree) elsewhere. A collective: every rank calls it. Each array
// is gathered as stored, device to device, onto root's context, which then downloads the whole model
// once (a shard never goes through the host first).
GaussianState gather_state(Communicator& comm, const DeviceGaussians& shard, int root = 0);

// Offset of this rank's first row in the whole model: the sum of the sizes of the ranks before it.
int64_t first_global_id(std::span<const int64_t> sizes, int rank);

}  // namespace splat::sharded
