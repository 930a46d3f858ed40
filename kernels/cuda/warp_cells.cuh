#pragma once
// The blending kernels' warps each own 8 x 4-pixel cells of their block's tile (raster::kWarpCell*):
// one cell at one pixel a thread (the forward), two stacked at two (the backward). A warp walks only
// the staged Gaussians whose α >= 1/255 ellipse reaches one of its cells. In a trained scene most of
// a tile's Gaussians are small and miss most of its eight cells; without this a warp tested each of
// its pixels against every one of them. Where a batch is staged, each thread finds the cells of its
// Gaussian (exact for the ellipse, raster::warp_cells_reached), and every warp turns its 32
// Gaussians' cells into one walk word per cell (CellWalks).
#include <cstdint>

#include "kernels/cuda/projected.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {

constexpr int kWarpCells = raster::kWarpCellsX * raster::kWarpCellsY;
static_assert(kWarpCells * 32 == kBlockPixels, "a tile's warp cells hold one pixel per lane of its block");
static_assert(raster::kWarpCellW * raster::kWarpCellH == 32, "one pixel per lane");

// Lane `lane` in warp cell `cell`: pixel (x, y) of the tile, x = column of the cell + lane % 8, y = its row + lane / 8.
__device__ inline int warp_cell_x(int cell, int lane) {
  return (cell % raster::kWarpCellsX) * raster::kWarpCellW + lane % raster::kWarpCellW;
}
__device__ inline int warp_cell_y(int cell, int lane) {
  return (cell / raster::kWarpCellsX) * raster::kWarpCellH + lane / raster::kWarpCellW;
}

// A block of kBlockPixels / kRows threads gives each warp kRows warp cells stacked in a column (a lane
// then has kRows pixels, one in each): warp w's first cell. Its others are that cell + kWarpCellsX i.
template <int kRows>
__device__ inline int first_cell_of_warp(int warp) {
  return (warp / raster::kWarpCellsX) * kRows * raster::kWarpCellsX + warp % raster::kWarpCellsX;
}

// The ellipse is taken with k² enlarged by this factor: a pixel where the blending kernels' α (the
// fast exp, in float) reaches 1/255 must never lie outside the cells found, and 1e-3 of k² is orders
// of magnitude above both the exp's and the ellipse's rounding (at k² <= 2 ln 255 it lowers the α
// level of the ellipse's edge by under 0.6 %, which only adds a cell now and then).
constexpr float kCellMargin = 1.001f;

// The cells of tile (tile_x, tile_y) that a staged Gaussian reaches (bit c: warp cell c).
__device__ inline unsigned staged_cells(float2 mean, float4 conic_opacity, int tile_x, int tile_y) {
  const Vec2f in_tile{mean.x - float(tile_x * raster::kTileSize), mean.y - float(tile_y * raster::kTileSize)};
  const raster::Sym2<float> conic{conic_opacity.x, conic_opacity.y, conic_opacity.z};
  return raster::warp_cells_reached(in_tile, conic, raster::alpha_level_k2(conic_opacity.w) * kCellMargin);
}

// For a batch of kEntries staged entries (one per thread of the block), per warp cell one word per 32
// of them: bit i of word k set where entry 32k + i reaches the cell.
template <int kEntries>
struct CellWalks {
  static constexpr int kWords = kEntries / 32;
  uint32_t word[kWarpCells][kWords];

  // Every thread of the block passes the cells of the entry it staged (0 for none); a barrier must
  // follow before the words are read.
  __device__ void publish(unsigned cells) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int c = 0; c < kWarpCells; ++c) {
      const uint32_t reached = __ballot_sync(0xffffffffu, cells >> c & 1u);
      if (lane == c) word[c][warp] = reached;
    }
  }

  // Calls visit(j) for the staged entries j in [from, to) that reach any of the kRows cells from `cell`
  // down its column (cell + kWarpCellsX i), in order, until it returns false.
  template <int kRows = 1, class Visit>
  __device__ void walk(int cell, int from, int to, Visit&& visit) const {
    for (int k = from / 32; 32 * k < to; ++k) {
      uint32_t reached = 0;
#pragma unroll
      for (int i = 0; i < kRows; ++i) reached |= word[cell + raster::kWarpCellsX * i][k];
      if (from > 32 * k) reached &= ~0u << (from - 32 * k);
      if (to < 32 * (k + 1)) reached &= (1u << (to - 32 * k)) - 1u;
      for (; reached != 0; reached &= reached - 1)
        if (!visit(32 * k + __ffs(reached) - 1)) return;
    }
  }
};

// The walks of a block of one thread per pixel (each warp one cell).
using WarpWalks = CellWalks<kBlockPixels>;

}  // namespace splat::kernels::cuda
