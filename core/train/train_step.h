#pragma once
// The render-and-learn part of one training step, the one contract every step path keeps: project
// the Gaussians into the batch's cameras, (exchange the projected pairs between ranks,) rasterize,
// photometric loss, and backward into the rows' gradients and densification statistics. A batch may
// mix image sizes. Two implementations, called the same way by the trainer:
//   LocalStep            one rank, the whole model (core/train/local_step.h)
//   sharded::ShardedStep one rank of several, its shard (core/train/sharded/sharded_step.h)
// Both write the step's gradients with their first backward call (GradWrite: no zeroing pass) and
// add to the statistics; at one rank they give the same numbers (tests/ranks/test_step_paths.cpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/model/device_gaussians.h"
#include "kernels/loss.h"
#include "kernels/phase_timer.h"
#include "kernels/rasterizer.h"

namespace splat {

// What one step trains on: the same on every rank.
struct StepBatch {
  std::span<const kernels::Camera> cameras;  // the batch's B cameras, in batch order
  kernels::RasterSettings settings;
  // The photo (8-bit RGB [H,W,3]) of each batch camera on the step's context; a rank reads only the
  // cameras it renders (other entries may be null). masks: empty, or one per camera like targets.
  std::span<const uint8_t* const> targets;
  std::span<const uint8_t* const> masks;
  // Every rank's row count in rank order, when known: with a dense projection the exchange sizes
  // follow from them, with no host wait. Empty: counted on the device. Given on every rank or none.
  std::span<const int64_t> shard_sizes = {};
  // The largest width and height of any image the run draws (0: unknown). The step sizes its image
  // buffers and loss scratch for the batch at that size from the first step on, so that a batch of
  // larger images than any before does not grow them (freeing device memory waits for the device).
  int largest_width = 0, largest_height = 0;
  // Per-image colour compensation (kernels/color_affine.h), where the run asks for it: every training
  // view's map [V, 12] on the step's context and their gradients (accumulated), found by `views`. The
  // loss compares the mapped render with the photo. Null params: none.
  struct ColorMaps {
    const float* params = nullptr;
    float* grads = nullptr;
  } color = {};
  // The training view each camera is (B entries; empty where the caller names none): by these a rank
  // says which images its measured render times were for (StepTimes::views), and the colour maps
  // are found.
  std::span<const int> views = {};
};

// The rows a step reads and the arrays it writes: their parameters, their gradient arrays for each way
// a backward call writes them (DeviceGaussians::grad), and the densification statistics to add to
// (null pointers: not wanted; they cost time).
struct StepRows {
  kernels::GaussiansView view;  // first_id: the global id of row 0 (0 for one rank)
  std::function<kernels::GaussiansGrad(GradWrite)> grad;
  kernels::DensifyStats stats;
};
// A trainer's rows: `g`'s arrays, with its statistics when `stats` (the AbsGS sums among them when
// `abs_stats`).
StepRows step_rows(DeviceGaussians& g, bool stats, bool abs_stats);

// Throws std::invalid_argument unless every one of `ranks` ranks gets an image of a batch of `batch_size`
// (the sharded step splits a batch's cameras over the ranks). `batch_name` names the setting. The one
// check of it, for the command line, the GUI, the trainer and the sharded step.
void check_batch_covers_ranks(int batch_size, int ranks, const std::string& batch_name = "batch size");

// Throws std::invalid_argument unless the batch has a target per camera, and a mask and a view per
// camera or none (a view per camera where it has colour maps). `path` names the step path in the message.
void check_batch_lists(const StepBatch& batch, const std::string& path);

// Where the runs of equal image size in `cameras` end (ascending; the last is cameras.size()): a
// rasterizer or loss call takes one image size, so both step paths work run by run.
std::vector<size_t> size_run_ends(std::span<const kernels::Camera> cameras);

// The largest run of `cameras` images a step of `batch` may draw: the run's largest width and height
// (StepBatch::largest_width); 0 cameras when the batch does not say. What a step sizes its image
// buffers and loss scratch for.
kernels::ImageBatchShape largest_run(const StepBatch& batch, int cameras);

// Sizes of the last step's exchange of projected pairs (zeros for one rank), for balance and traffic.
struct ExchangeSizes {
  int64_t pairs_projected = 0;  // pairs of this rank's rows, all B cameras
  int64_t pairs_received = 0;   // pairs this rank rasterized (from every shard)
  int64_t bytes_sent = 0;       // pairs sent to other ranks plus gradients returned to them
  int64_t bytes_received = 0;
};

// Where a step's time went on the rank's own timeline (device time on CUDA, host time on the CPU).
struct StepTimes {
  double render_ms = 0;         // rasterize, loss and rasterize backward of this rank's cameras
  double exchange_wait_ms = 0;  // inside the exchanges, waiting for peers included (0 for one rank)
  std::vector<int> views;       // with ranks, the views this rank rendered (StepBatch::views' entries)
};

class TrainStep {
 public:
  virtual ~TrainStep() = default;

  // One step's forward and backward over `rows` (this rank's Gaussians; their arrays must not change
  // during the call). With ranks a collective: every rank calls it with the same batch.
  virtual void run(const StepBatch& batch, const StepRows& rows) = 0;
  // The last step's batch loss (the mean over its images, every rank's included). Waits for the
  // device; with ranks a collective.
  virtual float read_loss() = 0;

  // The newest step whose times are known without waiting (on CUDA usually the one before the last).
  virtual StepTimes step_times() = 0;
  // Every step whose times became known since the last call, oldest first, each once: the host runs
  // several steps ahead of the device, so a mean over steps adds these, not step_times() once a step.
  virtual std::vector<StepTimes> measured_steps() = 0;
  virtual ExchangeSizes exchange_sizes() const { return {}; }
  // Bytes of the rendered images and their gradients the step keeps between calls.
  virtual size_t render_bytes() const = 0;

  // The step's rasterizer (evaluation renders with it; its stage timing while profiling).
  virtual kernels::Rasterizer& rasterizer() = 0;
  // Profiling: while `timer` is set (already started for the step), run() marks its phases on it.
  void set_phase_timer(kernels::PhaseTimer* timer) { timer_ = timer; }

 protected:
  void mark(const char* phase) {
    if (timer_) timer_->mark(phase);
  }

 private:
  kernels::PhaseTimer* timer_ = nullptr;
};

}  // namespace splat
