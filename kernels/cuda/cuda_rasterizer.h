#pragma once
// What the CUDA rasterizer reveals beyond the Rasterizer contract, for the benchmark and the
// viewer's memory display: its workspace high-water mark and a per-stage timing of the last calls.
// Reach it with dynamic_cast<const CudaRasterizerProbe*>(rasterizer.get()).
#include <cstddef>
#include <string>
#include <vector>

namespace splat::kernels::cuda {

struct StageTime {
  std::string stage;
  float ms = 0.f;
};

class CudaRasterizerProbe {
 public:
  virtual ~CudaRasterizerProbe() = default;
  // Largest device memory the rasterizer's own workspace has held (bytes).
  virtual size_t workspace_peak_bytes() const = 0;
  // (camera, tile, Gaussian) intersections of the last forward.
  virtual long long last_intersections() const = 0;
  // When on, forward/backward record CUDA events between stages (a little overhead, no syncs).
  virtual void set_stage_timing(bool on) = 0;
  // Stage durations of the last forward and backward; synchronises the stream.
  virtual std::vector<StageTime> stage_times() = 0;
};

}  // namespace splat::kernels::cuda
