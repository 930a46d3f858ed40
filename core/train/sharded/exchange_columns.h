#pragma once
// The columns of the multi-GPU exchange (core/train/sharded/sharded_step.h), described once for both
// directions. Each column goes from the sender's array straight into the receiver's (one
// Communicator::all_to_all_buffers), since pairs bound for one peer are a run of rows in every column:
//   forward  one projected pair: conic_opacity, color_depth (16 bytes each), mean2d (8), camera, tiles
//            (4): 48 bytes. Not its screen box (`half`): the rasterize stage finds a pair's tiles from
//            its ellipse, and the box's radius is a statistic of the projecting rank. Not its global id:
//            the pairs arrive in the order the rasterize stage needs (within a camera, ascending id),
//            and it reads no id.
//   reverse  the gradients of one pair: d mean2d, d conic_opacity, d color_depth (16 each): 48 bytes
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/gated_rows_math.h"
#include "kernels/rasterizer.h"

namespace splat::sharded {

// One column of the exchange: rows of `row_bytes` bytes, read from `from` and written to `to`.
using ExchangeColumn = kernels::RowColumn;

// Pairs received in the exchange, one column per attribute as the rasterizer reads them.
class ReceivedPairs {
 public:
  // Writable pointers with the member names of kernels::ProjectedGaussians.
  struct Columns {
    int32_t* camera;
    float *mean2d, *conic_opacity, *color_depth;
    int32_t* tiles;
  };

  explicit ReceivedPairs(const kernels::ComputeContext& where)
      : camera_(where), tiles_(where), mean2d_(where), conic_opacity_(where),
        color_depth_(where) {}

  void resize(int64_t count) {
    count_ = count;
    const size_t m = size_t(count);
    camera_.resize(m), tiles_.resize(m);
    mean2d_.resize(2 * m), conic_opacity_.resize(4 * m), color_depth_.resize(4 * m);
  }
  Columns columns() {
    return {camera_.data(), mean2d_.data(), conic_opacity_.data(), color_depth_.data(), tiles_.data()};
  }
  kernels::ProjectedGaussians view() const {
    return {count_, camera_.data(), nullptr, mean2d_.data(), conic_opacity_.data(), color_depth_.data(),
            nullptr, tiles_.data()};
  }

 private:
  int64_t count_ = 0;
  kernels::Buffer<int32_t> camera_, tiles_;
  kernels::Buffer<float> mean2d_, conic_opacity_, color_depth_;
};

// Every column of a projected pair, from the project stage's output into received pairs. The tile
// counts are zero_gated: a pair left out of a gated exchange arrives with tiles 0 and nothing else
// written, which is all the rasterizer reads of a pair that covers no tile.
inline std::vector<ExchangeColumn> pair_columns(const kernels::ProjectedGaussians& from,
                                                const ReceivedPairs::Columns& to) {
  return {{from.conic_opacity, to.conic_opacity, 16}, {from.color_depth, to.color_depth, 16},
          {from.mean2d, to.mean2d, 8},                {from.camera, to.camera, 4},
          {from.tiles, to.tiles, 4, true}};
}

// Where a projection writes one camera's pairs straight into a receiver's columns (kernels::
// PairDestination): `starts` holds where this rank's slice begins in each of pair_columns()' columns
// of the receiver, in that order (Communicator::open_mapped_writes), and the camera's pairs begin `row`
// rows into the slice.
inline kernels::PairDestination pair_destination(std::span<void* const> starts, int64_t row) {
  const auto at = [&](size_t column, int64_t row_bytes) {
    return static_cast<std::byte*>(starts[column]) + row * row_bytes;
  };
  return {reinterpret_cast<float*>(at(2, 8)), reinterpret_cast<float*>(at(0, 16)),
          reinterpret_cast<float*>(at(1, 16)), reinterpret_cast<int32_t*>(at(3, 4)),
          reinterpret_cast<int32_t*>(at(4, 4))};
}

// The three gradient arrays of pairs, from the renderer's into the projecting rank's.
inline std::vector<ExchangeColumn> gradient_columns(const kernels::ConstProjectedGrads& from,
                                                    const kernels::ProjectedGrads& to) {
  return {{from.mean2d, to.mean2d, 16}, {from.conic_opacity, to.conic_opacity, 16},
          {from.color_depth, to.color_depth, 16}};
}

// Where a projecting rank reads one camera's pair gradients in the renderer's arrays (Rasterizer::
// project_backward_by_camera): `starts` holds where the renderer's slice for this rank begins in each of
// gradient_columns()' columns, in that order (Communicator::open_mapped_reads), and the camera's pairs
// begin `row` rows into the slice.
inline kernels::ConstProjectedGrads gradient_source(std::span<const void* const> starts, int64_t row) {
  const auto at = [&](size_t column) { return reinterpret_cast<const float*>(starts[column]) + 4 * row; };
  return {at(0), at(1), at(2)};
}

// Bytes of one row over all the columns.
inline int64_t row_bytes(const std::vector<ExchangeColumn>& columns) {
  int64_t sum = 0;
  for (const ExchangeColumn& c : columns) sum += c.row_bytes;
  return sum;
}

}  // namespace splat::sharded
