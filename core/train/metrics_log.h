#pragma once
// Training metrics as JSON Lines (one object per line), so a run can be plotted or compared
// with any tool while it is still being written:
//   {"step":..,"images":..,"loss":..,"psnr":..,"ssim":..,"gaussians":..,"step_ms":..,"gpu_mem_mb":..,"wall_s":..}
// psnr/ssim are present only on evaluation lines; gpu_mem_mb only on the CUDA backend. "memory"
// is the training memory by role (TrainingMemory, MiB) and "state_bytes_per_gaussian" the
// parameters, moments, gradients and statistics per Gaussian (what decides how large a scene fits).
// A run with several ranks adds each rank's figures of its last step and two balance figures (max / mean over
// the ranks, 1 = even; sharded::imbalance):
//   "ranks":[{"rank":..,"device":..,"gaussians":..,"step_ms":..,"render_ms":..,"wait_ms":..,
//             "bytes_sent":..,"bytes_received":..,"mem_mb":..},..],"imbalance":..,"render_imbalance":..
// imbalance is of the shards' Gaussian counts (what rebalancing evens), render_imbalance of the render times.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>

#include <vector>

#include "core/train/rank_stats.h"
#include "kernels/rasterizer.h"

namespace splat {

// The memory a trainer holds by role, in bytes allocated (spare capacity included), computed from
// its buffers' sizes. On the CPU backend the same buffers are host memory.
struct TrainingMemory {
  size_t parameters = 0;  // the columns' values
  size_t optimizer = 0;   // Adam's two moments
  size_t gradients = 0;
  size_t statistics = 0;  // densification statistics
  size_t photos = 0;      // training photos (8-bit) and masks
  size_t renders = 0;     // the step's rendered images and their gradients
  size_t workspace = 0;   // the rasterizer's cached workspace (device only)
  int64_t gaussians = 0;  // Gaussians these buffers hold (a rank's shard in distributed mode)
  size_t state() const { return parameters + optimizer + gradients + statistics; }
  size_t total() const { return state() + photos + renders + workspace; }
};

struct MetricsRecord {
  int step = 0;    // steps done
  int images = 0;  // training images done (runs at different batch sizes compare at equal images)
  double loss = 0;
  std::optional<double> psnr, ssim;
  int64_t gaussians = 0;
  double step_ms = 0;  // mean wall time per step since the previous record
  std::optional<double> gpu_mem_mb;
  std::optional<TrainingMemory> memory;
  double wall_s = 0;   // since training started
  std::vector<sharded::RankStats> ranks;  // every rank's figures, with more than one rank (else empty)
};

// max / mean of the ranks' Gaussian counts (sharded::imbalance); nullopt without ranks.
std::optional<double> gaussian_imbalance(const MetricsRecord& r);

class MetricsLog {
 public:
  // Appends when `append` (a resumed run), else truncates. Throws std::runtime_error naming the file.
  MetricsLog(const std::filesystem::path& file, bool append);
  void write(const MetricsRecord& r);

 private:
  std::filesystem::path file_;
  std::ofstream out_;
};

// Device memory in use on the current CUDA device (MiB), nullopt for the CPU backend.
std::optional<double> device_memory_used_mb(kernels::Device device);

}  // namespace splat
