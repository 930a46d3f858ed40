#include "core/train/metrics_log.h"

#include <cuda_runtime.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace splat {

MetricsLog::MetricsLog(const std::filesystem::path& file, bool append)
    : file_(file), out_(file, append ? std::ios::app : std::ios::trunc) {
  if (!out_) throw std::runtime_error(file.string() + ": cannot open the metrics log for writing");
}

void MetricsLog::write(const MetricsRecord& r) {
  nlohmann::json j{{"step", r.step}, {"images", r.images}, {"loss", r.loss}, {"gaussians", r.gaussians}, {"step_ms", r.step_ms},
                   {"wall_s", r.wall_s}};
  if (r.psnr) j["psnr"] = *r.psnr;
  if (r.ssim) j["ssim"] = *r.ssim;
  if (r.gpu_mem_mb) j["gpu_mem_mb"] = *r.gpu_mem_mb;
  if (!r.ranks.empty()) {
    std::vector<double> render;
    for (const sharded::RankStats& s : r.ranks) {
      j["ranks"].push_back({{"rank", s.rank}, {"device", s.device_ordinal}, {"gaussians", s.gaussians},
                            {"step_ms", s.step_ms}, {"render_ms", s.render_ms}, {"wait_ms", s.exchange_wait_ms},
                            {"bytes_sent", s.bytes_sent}, {"bytes_received", s.bytes_received},
                            {"mem_mb", s.device_memory_mb}});
      render.push_back(s.render_ms);
    }
    j["imbalance"] = *gaussian_imbalance(r);
    j["render_imbalance"] = sharded::imbalance(render);
  }
  if (r.memory) {
    const TrainingMemory& m = *r.memory;
    auto mib = [](size_t b) { return double(b) / (1024.0 * 1024.0); };
    j["memory"] = {{"parameters_mb", mib(m.parameters)}, {"optimizer_mb", mib(m.optimizer)},
                   {"gradients_mb", mib(m.gradients)},   {"statistics_mb", mib(m.statistics)},
                   {"photos_mb", mib(m.photos)},         {"renders_mb", mib(m.renders)},
                   {"workspace_mb", mib(m.workspace)}};
    if (m.gaussians > 0) j["state_bytes_per_gaussian"] = double(m.state()) / double(m.gaussians);
  }
  out_ << j.dump() << '\n';
  out_.flush();  // a crashed or killed run keeps every line written so far
  if (!out_) throw std::runtime_error(file_.string() + ": write failed");
}

std::optional<double> gaussian_imbalance(const MetricsRecord& r) {
  if (r.ranks.empty()) return std::nullopt;
  std::vector<double> counts;
  for (const sharded::RankStats& s : r.ranks) counts.push_back(double(s.gaussians));
  return sharded::imbalance(counts);
}

std::optional<double> device_memory_used_mb(kernels::Device device) {
  if (device != kernels::Device::CUDA) return std::nullopt;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return std::nullopt;
  return double(total_b - free_b) / (1024.0 * 1024.0);
}

}  // namespace splat
