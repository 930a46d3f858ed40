#pragma once
// What the CUDA rasterizer reveals beyond the Rasterizer contract, for the benchmark and the
// viewer's memory display: its workspace high-water mark and the intersections of the last call.
// (Stage timing is part of the contract: Rasterizer::set_stage_timing / stage_times.)
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
