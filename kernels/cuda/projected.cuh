#pragma once
// Device-side layout of projected (camera, Gaussian) pairs, shared by the CUDA stages.
//
// A "slot" is one projected pair. Dense layout: slot = camera * N + gaussian for every pair (culled
// pairs have tile_count 0). Packed layout: only visible pairs, compacted in (camera, gaussian) order
// by a prefix sum, with camera_of/gaussian_of saying which pair a slot holds. Attributes are packed
// into 16-byte vectors so that the blending kernels read each with one load.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/raster_math.h"

namespace splat::kernels::cuda {

// A block of kTileSize^2 threads blends one tile, one pixel per thread.
constexpr int kBlockPixels = raster::kTileSize * raster::kTileSize;

struct ProjectedSlots {
  int64_t count = 0;                 // number of slots
  int64_t gaussians = 0;             // N of the shard (dense: slot / N is the camera)
  bool packed = false;
  float2* mean2d = nullptr;          // pixel coordinates
  float4* conic_opacity = nullptr;   // conic (a, b, c) of the inverse 2D covariance, opacity
  float4* color_depth = nullptr;     // rgb after SH, camera-space depth
  int2* half = nullptr;              // half sizes of the screen box in pixels (raster::screen_half_extent)
  int32_t* tile_count = nullptr;     // tiles the box covers (0: culled)
  int32_t* camera_of = nullptr;      // packed only
  int32_t* gaussian_of = nullptr;    // packed only

  __device__ int camera(int64_t s) const { return packed ? camera_of[s] : static_cast<int>(s / gaussians); }
  __device__ int64_t gaussian(int64_t s) const { return packed ? gaussian_of[s] : s % gaussians; }
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

// Per-camera image geometry, constant over one call.
struct TileGrid {
  int width = 0, height = 0;
  int tiles_x = 0, tiles_y = 0;
  int cameras = 0;
  static TileGrid of(int width, int height, int cameras) {
    return {width, height, raster::tiles_along(width), raster::tiles_along(height), cameras};
  }
  __host__ __device__ int tiles() const { return tiles_x * tiles_y; }
};

}  // namespace splat::kernels::cuda
