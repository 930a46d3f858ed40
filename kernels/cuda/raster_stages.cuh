#pragma once
// The stages of the CUDA rasterizer, each a kernel launch (or a few) on the caller's stream.
// cuda_rasterizer.cu strings them together; every stage calls the shared math of
// kernels/raster_math.h so the CUDA backend computes the CPU reference's function.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/cuda/binning.cuh"
#include "kernels/cuda/projected.cuh"
#include "kernels/cuda/tile_chunks.cuh"
#include "kernels/rasterizer.h"

namespace splat::kernels::cuda {

// What projection needs besides the Gaussians: the cameras (device memory) and the settings.
struct ProjectionSetup {
  const Camera* cameras = nullptr;  // [C] on the device
  int cameras_count = 0;
  // [C] on the device, or null: where a dense projection writes each camera's pairs
  // (Rasterizer::project's destinations) instead of its slots' mean2d, conic, colour and camera.
  const PairDestination* destinations = nullptr;
  // [C] on the device, or null: where a dense project_backward reads each camera's pair gradients
  // (Rasterizer::project_backward_by_camera; pair i of camera c at row i) instead of by slot.
  const ProjectedGrads* gradient_sources = nullptr;
  int sh_degree = 0;
  float near_plane = 0, far_plane = 0, eps2d = 0;
  bool antialiased = false;
};

// Dense layout: projects every (camera, Gaussian) into slot c * N + g (tile_count 0 when culled).
void project_dense(const GaussiansView& g, const ProjectionSetup& setup, ProjectedSlots& slots, cudaStream_t stream);

// Packed layout, first pass: tiles covered by every pair, pair_tiles[c * N + g] (0 when culled).
void count_pair_tiles(const GaussiansView& g, const ProjectionSetup& setup, int32_t* pair_tiles, cudaStream_t stream);
// Packed layout, second pass: writes the visible pairs into their compacted slots.
// pair_slot_end: inclusive prefix sum of (pair_tiles > 0), so a visible pair's slot is its value - 1.
void project_packed(const GaussiansView& g, const ProjectionSetup& setup, const int32_t* pair_tiles,
                    const int32_t* pair_slot_end, ProjectedSlots& slots, cudaStream_t stream);

// What forward blending keeps for backward, per pixel [C, H, W].
struct PixelState {
  float* final_transmittance = nullptr;
  int32_t* contributors = nullptr;  // entries of the tile's list up to the last composited one
  float* depth = nullptr;           // expected depth (kept even when the caller did not ask for it)
};

// `chunks`: where the backward will split long lists (forward keeps the resume records there).
// `at_once`: blend_forward_slots of the device, the even share its lanes on long tiles are measured against.
void blend_forward(const ProjectedSlots& slots, const TileBins& bins, const TileChunks& chunks, const TileGrid& grid,
                   const float* background, const RenderOutputs& out, const PixelState& state, int at_once,
                   cudaStream_t stream);

// The forward blend's blocks that device `device` runs at once.
int blend_forward_slots(int device);

// Gradients w.r.t. projected attributes (must be zeroed before; accumulated atomically). The AbsGS
// sums are computed only when `abs_stats` (they are left zero otherwise).
void blend_backward(const ProjectedSlots& slots, const TileBins& bins, const TileChunks& chunks, const TileGrid& grid,
                    const float* background, const PixelState& state, const RenderOutputGrads& dout,
                    const ProjectedGrads& dslots, bool abs_stats, cudaStream_t stream);

// The backward blend's blocks that device `device` runs at once (training's variant): the even share of
// a call's work that tile_chunks.cuh measures long tiles against.
int blend_backward_slots(int device);

// Back through projection and SH into the Gaussians' gradients (+=) and the densification statistics.
void project_backward(const GaussiansView& g, const ProjectionSetup& setup, const ProjectedSlots& slots,
                      const ProjectedGrads& dslots, const GaussiansGrad& grad, const DensifyStats& stats,
                      cudaStream_t stream);

}  // namespace splat::kernels::cuda
