#pragma once
// The metric history the Metrics panel plots: columns, parallel, oldest first; x is training
// images (runs at any batch size line up) or wall seconds. The loss is smoothed for reading its
// trend (an exponential moving average); the raw values stay for the faint line under it.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/train/metrics_log.h"
#include "ui/eta_estimator.h"

namespace splat::ui {

inline constexpr double kLossSmoothing = 0.9;  // EMA weight of the previous smoothed value

struct MetricHistory {
  std::vector<float> loss_images, loss_wall, loss, loss_smooth;
  std::vector<float> psnr_images, psnr_wall, psnr;
  int64_t gaussians = 0;
  double images_per_s = 0;
  std::optional<TrainingMemory> memory;  // of the newest record that had one
  int last_step = 0;    // of the newest record: the session hands out records after it
  int last_images = 0;
  EtaEstimator eta;  // the recent rate, from each record's images and wall time

  // Appends one record. `batch_size` turns its step time into images/s.
  void add(const MetricsRecord& m, int batch_size);
};

}  // namespace splat::ui
