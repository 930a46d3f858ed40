#include "ui/metric_history.h"

namespace splat::ui {

void MetricHistory::add(const MetricsRecord& m, int batch_size) {
  const float raw = static_cast<float>(m.loss);
  // The first value starts the average: no ramp up from zero.
  const float smooth = loss_smooth.empty() ? raw
                                           : static_cast<float>(kLossSmoothing * loss_smooth.back() +
                                                                (1.0 - kLossSmoothing) * raw);
  loss_images.push_back(static_cast<float>(m.images));
  loss_wall.push_back(static_cast<float>(m.wall_s));
  loss.push_back(raw);
  loss_smooth.push_back(smooth);
  if (m.psnr) {
    psnr_images.push_back(static_cast<float>(m.images));
    psnr_wall.push_back(static_cast<float>(m.wall_s));
    psnr.push_back(static_cast<float>(*m.psnr));
  }
  gaussians = m.gaussians;
  if (m.memory) memory = m.memory;
  images_per_s = m.step_ms > 0 ? batch_size * 1000.0 / m.step_ms : 0.0;
  last_step = m.step;
  last_images = m.images;
  eta.add(m.images, m.wall_s);
}

}  // namespace splat::ui
