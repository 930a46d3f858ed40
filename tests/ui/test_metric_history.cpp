// The Metrics panel's history: the smoothed loss (EMA) and a run's metrics.jsonl read back.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "tests/support/test_support.h"
#include "ui/gui_run.h"
#include "ui/metric_history.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

namespace {
MetricsRecord record(int images, double loss, double wall) {
  MetricsRecord m;
  m.step = images;
  m.images = images;
  m.loss = loss;
  m.wall_s = wall;
  return m;
}
}  // namespace

TEST_CASE("the smoothed loss starts at the first value and follows the trend, not the noise", "[ui][metrics]") {
  MetricHistory h;
  // A noisy loss around 0.5 that drops to around 0.1 halfway.
  for (int i = 0; i < 200; ++i) h.add(record(10 * (i + 1), (i < 100 ? 0.5 : 0.1) + (i % 2 ? 0.05 : -0.05), i), 1);
  REQUIRE(h.loss_smooth.size() == h.loss.size());
  CHECK(h.loss_smooth[0] == h.loss[0]);
  double raw_jump = 0, smooth_jump = 0;  // step-to-step change, late in each plateau
  for (int i = 60; i < 100; ++i) {
    raw_jump += std::abs(h.loss[i] - h.loss[i - 1]);
    smooth_jump += std::abs(h.loss_smooth[i] - h.loss_smooth[i - 1]);
  }
  CHECK(smooth_jump < 0.2 * raw_jump);
  CHECK(h.loss_smooth[99] == Approx(0.5).margin(0.01));
  CHECK(h.loss_smooth[199] == Approx(0.1).margin(0.01));
  // Each value is the previous smoothed value moved towards the raw one.
  for (size_t i = 1; i < h.loss.size(); ++i)
    CHECK(h.loss_smooth[i] == Approx(kLossSmoothing * h.loss_smooth[i - 1] + (1 - kLossSmoothing) * h.loss[i]));
  CHECK(h.loss_images.back() == 2000.f);
  CHECK(h.last_images == 2000);
}

TEST_CASE("metrics.jsonl reads back as plot history, across continuations and a torn line", "[ui][metrics]") {
  const fs::path dir = splat::test::scratch_dir("ui_metric_history");
  const fs::path file = dir / "metrics.jsonl";
  {
    std::ofstream out(file);
    out << R"({"step":10,"images":20,"loss":0.5,"gaussians":100,"step_ms":4,"wall_s":1.0})" << "\n";
    out << R"({"step":20,"images":40,"loss":0.4,"psnr":18.5,"gaussians":120,"step_ms":4,"wall_s":2.0})" << "\n";
    // A continued run: its clock starts again.
    out << R"({"step":30,"images":60,"loss":0.3,"gaussians":130,"step_ms":4,"wall_s":0.5})" << "\n";
    out << R"({"step":40,"images":80,"lo)";  // cut off mid-write
  }
  const MetricHistory h = read_metric_history(file);
  REQUIRE(h.loss.size() == 3);
  CHECK(h.loss_images == std::vector<float>{20, 40, 60});
  CHECK(h.psnr == std::vector<float>{18.5f});
  CHECK(h.psnr_images == std::vector<float>{40});
  CHECK(h.loss_wall[2] > h.loss_wall[1]);  // wall time keeps increasing
  CHECK(h.gaussians == 130);
  CHECK(h.last_step == 30);
  CHECK(read_metric_history(dir / "missing.jsonl").loss.empty());
}

TEST_CASE("the history keeps the newest record's memory breakdown", "[ui][metrics]") {
  MetricHistory h;
  h.add(record(10, 0.5, 1), 1);
  CHECK_FALSE(h.memory);
  MetricsRecord with = record(20, 0.4, 2);
  with.memory = TrainingMemory{.parameters = 100, .optimizer = 200, .gaussians = 1};
  h.add(with, 1);
  REQUIRE(h.memory);
  CHECK(h.memory->optimizer == 200);
  h.add(record(30, 0.3, 3), 1);  // a record without one (read back from an older metrics.jsonl)
  REQUIRE(h.memory);
  CHECK(h.memory->parameters == 100);
}
