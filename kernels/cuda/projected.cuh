#pragma once
// Device-side layout of projected (camera, Gaussian) pairs, shared by the CUDA stages.
//
// A "slot" is one projected pair. Dense layout: slot = camera * N + gaussian for every pair (culled
// pairs have tile_count 0). Explicit layout (packed projection, and any pairs handed to the
// rasterize stage): camera_of/id_of say which pair a slot holds. Attributes are packed into 16-byte
// vectors so that the blending kernels read each with one load: this is the device view of the
// public kernels::ProjectedGaussians (same arrays, CUDA vector types).
#include <cuda_runtime.h>

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/raster_math.h"

namespace splat::kernels::cuda {

// A block of kTileSize^2 threads blends one tile, one pixel per thread.
constexpr int kBlockPixels = raster::kTileSize * raster::kTileSize;

struct ProjectedSlots {
  int64_t count = 0;                 // number of slots
  int64_t gaussians = 0;             // N of the shard (dense: slot / N is the camera)
  bool packed = false;               // explicit layout
  int64_t first_id = 0;              // global id of the shard's row 0 (id_of[s] - first_id is the row)
  float2* mean2d = nullptr;          // pixel coordinates
  float4* conic_opacity = nullptr;   // conic (a, b, c) of the inverse 2D covariance, opacity
  float4* color_depth = nullptr;     // rgb after SH, camera-space depth
  int2* half = nullptr;              // half sizes of the screen box in pixels (raster::screen_half_extent)
  int32_t* tile_count = nullptr;     // tiles the box covers (0: culled)
  int32_t* camera_of = nullptr;      // explicit layout (dense: also filled when the pairs are made public)
  int64_t* id_of = nullptr;          // global ids, alongside camera_of

  __device__ int camera(int64_t s) const { return packed ? camera_of[s] : static_cast<int>(s / gaussians); }
  __device__ int64_t gaussian(int64_t s) const { return packed ? id_of[s] - first_id : s % gaussians; }

  // The public view of these slots, and slots over public pairs (explicit layout, read only).
  ProjectedGaussians view() const;
  static ProjectedSlots over(const ProjectedGaussians& pairs);
};

// Gradients of the loss w.r.t. the projected attributes, accumulated per slot by the backward blend:
// 12 floats per slot as three float4 arrays (one warp adds them with three vector atomics):
//   mean2d:        dL/dmean2d (x, y), then sums over pixels of |per-pixel dL/dmean2d| (AbsGS statistic)
//   conic_opacity: dL/dconic (Sym2 convention), dL/dopacity
//   color_depth:   dL/dcolor, dL/ddepth
constexpr int kGradValues = 12;
struct ProjectedGrads {
  float4* mean2d = nullptr;
  float4* conic_opacity = nullptr;
  float4* color_depth = nullptr;
};

// One camera's image in a call: its size, tile grid, and where its tiles and pixels start in the
// call's tile ranges and outputs (cameras of one call may differ in size).
struct ImageLayout {
  int width = 0, height = 0;
  int tiles_x = 0, tiles_y = 0;
  int64_t tile_offset = 0;
  int64_t pixel_offset = 0;
};

// The images of one call. Tile t of the call (an index into its tile ranges) is tile
// t - images[c].tile_offset of the camera c whose tiles hold it, in raster order.
struct TileGrid {
  int cameras = 0;
  int first_camera = 0;  // pairs name camera first_camera + c for images[c]
  int64_t total_tiles = 0, total_pixels = 0;
  const ImageLayout* images = nullptr;  // [cameras] on the device
};

// Where tile t of a call lies: its camera (an index into images) and its tile column and row.
struct TilePlace {
  int camera, x, y;
};
__device__ inline TilePlace tile_place(const TileGrid& grid, int64_t t) {
  int lo = 0, hi = grid.cameras - 1;  // the last camera whose tiles start at or before t
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (grid.images[mid].tile_offset <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int64_t local = t - grid.images[lo].tile_offset;
  const int tiles_x = grid.images[lo].tiles_x;
  return {lo, int(local % tiles_x), int(local / tiles_x)};
}

// Layouts of the cameras' images, and the grid over them (images: the device copy of `layouts`).
std::vector<ImageLayout> image_layouts(std::span<const Camera> cameras);
TileGrid tile_grid(std::span<const ImageLayout> layouts, const ImageLayout* images);

}  // namespace splat::kernels::cuda
