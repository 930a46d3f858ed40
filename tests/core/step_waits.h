#pragma once
// Counting a training run's host waits step by step (kernels/host_waits.h; docs/ARCHITECTURE.md "No
// host wait in a step"), for the one-rank and the rank-thread tests, on either backend. A step may wait
// only where the design allows it: a refinement (the strategy plans it on the host), the step after
// one (buffers sized by the model grow to its new size, freeing the old ones) and a step that records
// metrics (it reads the loss). Every other step must make none.
//
// The counter is per thread, so a rank thread counts its own waits; the result is plain data that the
// test's main thread checks (Catch2's assertions are not for rank threads).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/scene/scene.h"
#include "core/train/training_run.h"
#include "kernels/host_waits.h"

namespace splat::test {

struct StepWaits {
  int steady_steps = 0;              // steps after the warm-up that had to make no wait
  int refinements = 0;               // steps after the warm-up that refined (allowed to wait)
  std::vector<std::string> waited;   // one line per steady step that waited, naming its last wait
};

// Runs `run` to its end. The first `warmup` steps (first allocations, first calls) are not looked at.
inline StepWaits count_step_waits(TrainingRun& run, int warmup) {
  StepWaits w;
  bool after_refinement = false;
  for (int step = 0; !run.done(); ++step) {
    const uint64_t before = kernels::host_waits();
    const RunStep s = run.step();
    const uint64_t waits = kernels::host_waits() - before;
    const bool follows = std::exchange(after_refinement, s.result.structure_changed);
    if (step < warmup || s.metrics || follows) continue;
    if (s.result.structure_changed) {
      ++w.refinements;
      continue;
    }
    ++w.steady_steps;
    if (waits > 0)
      w.waited.push_back("step " + std::to_string(s.result.step) + " (images " +
                         std::to_string(s.result.first_image) + "+" + std::to_string(s.result.batch_size) +
                         "): " + std::to_string(waits) + " host wait(s), the last " +
                         kernels::last_host_wait());
  }
  return w;
}

// Fails naming the first few steady steps that waited (a wait in every step would otherwise print
// hundreds of lines); `least` steady steps must have been looked at (a window that the schedule filled
// with refinements and records would prove nothing).
inline void check_no_steady_waits(const StepWaits& w, int least) {
  CHECK(w.steady_steps >= least);
  const size_t shown = std::min<size_t>(w.waited.size(), 3);
  for (size_t k = 0; k < shown; ++k) FAIL_CHECK(w.waited[k]);
  INFO(w.waited.size() << " of " << w.steady_steps << " steady steps waited");
  CHECK(w.waited.empty());
}

// Trainer options for a short run whose refinements come every 50 images from image 100 to 300, with
// steps past the last of them, on `device`; MCMC on the same schedule (its cap out of reach).
inline TrainerOptions wait_run_options(kernels::Device device, const std::string& strategy, int batch) {
  TrainerOptions o;
  o.device = device;
  o.images = 400;
  o.batch_size = batch;
  o.cpu_threads = 2;
  o.sh_degree_interval = 100;  // every SH degree within the run
  o.strategy = strategy;
  o.default_strategy.refine_start = o.mcmc.refine_start = 100;
  o.default_strategy.refine_every = o.mcmc.refine_every = 50;
  o.default_strategy.refine_stop = o.mcmc.refine_stop = 300;
  o.default_strategy.reset_every = 200;  // an opacity reset within the window too
  return o;
}

// Records metrics every 150 images (those steps may wait: they read the loss).
inline RunOptions wait_run_records() {
  RunOptions r;
  r.metrics_every = 150;
  return r;
}

// The scene with every other view cropped by a few pixels at its right and bottom edges (the principal
// point stays where it was in the pixels kept), so that a batch mixes two image sizes: runs of one
// size, one loss call each (core/train/batch_loss.h). Needs a scene without masks.
inline Scene with_two_image_sizes(Scene scene) {
  for (size_t v = 1; v < scene.views.size(); v += 2) {
    PinholeIntrinsics& k = scene.views[v].intrinsics;
    ImageRGB8& image = scene.images[v];
    const int w = k.width - 6, h = k.height - 4;
    std::vector<uint8_t> kept;
    for (int y = 0; y < h; ++y) {
      const auto row = image.pixels.begin() + ptrdiff_t(y) * image.width * 3;
      kept.insert(kept.end(), row, row + ptrdiff_t(w) * 3);
    }
    image = {w, h, std::move(kept)};
    k.width = w, k.height = h;
  }
  return scene;
}

}  // namespace splat::test
