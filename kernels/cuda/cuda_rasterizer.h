#pragma once
// What the CUDA rasterizer reveals beyond the Rasterizer contract, for bench/bench_raster.cpp: its
// workspace high-water mark and the intersections of the last call. (The workspace held now and
// the stage timing are part of the contract: Rasterizer::workspace_bytes, set_stage_timing.)
// Reach it with dynamic_cast<const CudaRasterizerProbe*>(rasterizer.get()).
#include <cstddef>

#include "kernels/rasterizer.h"

namespace splat::kernels::cuda {

class CudaRasterizerProbe {
 public:
  virtual ~CudaRasterizerProbe() = default;
  // Largest device memory the rasterizer's own workspace has held (bytes).
  virtual size_t workspace_peak_bytes() const = 0;
  // (camera, tile, Gaussian) intersections of the last forward.
  virtual long long last_intersections() const = 0;
};

}  // namespace splat::kernels::cuda
