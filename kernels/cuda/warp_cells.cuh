#pragma once
// The blending kernels' warps each own one 8 x 4-pixel cell of their block's tile (raster::kWarpCell*),
// and walk only the staged Gaussians whose α >= 1/255 ellipse reaches that cell. In a trained scene
// most of a tile's Gaussians are small and miss most of its eight cells; without this a warp tested
// each of its 32 pixels against every one of them. Where a batch is staged, each thread finds the
// cells of its Gaussian (exact for the ellipse, raster::warp_cells_reached), and every warp turns its
// 32 Gaussians' cells into one walk word per warp (WarpWalks).
#include <cstdint>

#include "kernels/cuda/projected.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {

constexpr int kBlockWarps = kBlockPixels / 32;
static_assert(kBlockWarps == raster::kWarpCellsX * raster::kWarpCellsY, "one warp cell per warp of a tile's block");
static_assert(raster::kWarpCellW * raster::kWarpCellH == 32, "one pixel per lane");

// Lane `lane` of warp `warp`: pixel (x, y) of the tile, x = column of the cell + lane % 8, y = its row + lane / 8.
__device__ inline int warp_cell_x(int warp, int lane) {
  return (warp % raster::kWarpCellsX) * raster::kWarpCellW + lane % raster::kWarpCellW;
}
__device__ inline int warp_cell_y(int warp, int lane) {
  return (warp / raster::kWarpCellsX) * raster::kWarpCellH + lane / raster::kWarpCellW;
}

// The ellipse is taken with k² enlarged by this factor: a pixel where the blending kernels' α (the
// fast exp, in float) reaches 1/255 must never lie outside the cells found, and 1e-3 of k² is orders
// of magnitude above both the exp's and the ellipse's rounding (at k² <= 2 ln 255 it lowers the α
// level of the ellipse's edge by under 0.6 %, which only adds a cell now and then).
constexpr float kCellMargin = 1.001f;

// The cells of tile (tile_x, tile_y) that a staged Gaussian reaches (bit w: warp w's cell).
__device__ inline unsigned staged_cells(float2 mean, float4 conic_opacity, int tile_x, int tile_y) {
  const Vec2f in_tile{mean.x - float(tile_x * raster::kTileSize), mean.y - float(tile_y * raster::kTileSize)};
  const raster::Sym2<float> conic{conic_opacity.x, conic_opacity.y, conic_opacity.z};
  return raster::warp_cells_reached(in_tile, conic, raster::alpha_level_k2(conic_opacity.w) * kCellMargin);
}

// Per warp of the block, one word per 32 staged entries: bit i of word k set where entry 32k + i
// reaches the warp's cell.
struct WarpWalks {
  uint32_t word[kBlockWarps][kBlockWarps];

  // Every thread of the block passes the cells of the entry it staged (0 for none); a barrier must
  // follow before the words are read.
  __device__ void publish(unsigned cells) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int w = 0; w < kBlockWarps; ++w) {
      const uint32_t reached = __ballot_sync(0xffffffffu, cells >> w & 1u);
      if (lane == w) word[w][warp] = reached;
    }
  }

  // Calls visit(j) for the staged entries j in [from, to) that reach cell `cell`, in order, until it
  // returns false.
  template <class Visit>
  __device__ void walk(int cell, int from, int to, Visit&& visit) const {
    for (int k = from / 32; 32 * k < to; ++k) {
      uint32_t reached = word[cell][k];
      if (from > 32 * k) reached &= ~0u << (from - 32 * k);
      if (to < 32 * (k + 1)) reached &= (1u << (to - 32 * k)) - 1u;
      for (; reached != 0; reached &= reached - 1)
        if (!visit(32 * k + __ffs(reached) - 1)) return;
    }
  }
};

}  // namespace splat::kernels::cuda
