// Cost of the distributed step on one GPU: R in-process ranks sharing GPU 0,
// each with its own stream, against one rank at the same batch; packed against dense exchange.
// Usage: bench_exchange SCENE [train_images=3000] [steps=20] [--data-factor N] [--device cuda|cpu]
//   SCENE is any COLMAP scene folder (images/ and sparse/0/), loaded as `splatlab train` loads it
//   (images_N/ or downsampled by --data-factor); its training views may differ in size. --device cpu
//   runs the same measurement with CPU ranks (a check that the program works, not a benchmark).
//
// The scene is trained for train_images images first (batch 1, default strategy), so that
// the model has a trained scene's size and spread; its rows are then cut into Morton-ordered shards
// (core/model/shard_layout.h), as a distributed run starts. Per configuration (batch B in {2, 4},
// packed or dense, R in {1, 2, 4} with R <= B) it times `steps` steps of sharded::ShardedStep (project,
// exchange of counts and pairs, rasterize, loss, backward, reverse exchange, project backward) after
// 3 warm-up steps; a step's time runs from a barrier to the barrier after every rank's stream has
// finished. The batch cameras are the training views in order, the same on every rank.
// Prints per configuration: median step ms, its ratio to R = 1 at the same batch and layout, the
// median time per step spent in the exchanges (counts, pairs, gradients; waiting for peers included:
// StepTimes, on each rank's own stream; mean over ranks), the pairs each rank projects and
// receives (means over ranks) and the bytes exchanged per step (sum over ranks of pairs sent to other
// ranks plus gradients returned to them), and below each configuration rank 0's phases of the step
// (ShardedStep::set_phase_timer: events on its own stream, so with ranks sharing a GPU a phase
// includes whatever the other ranks ran meanwhile), in ms per step.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "core/transport/run_ranks.h"
#include "core/model/shard_layout.h"
#include "core/train/sharded/sharded_step.h"
#include "core/model/device_gaussians.h"
#include "core/scene/scene_loader.h"
#include "core/train/trainer.h"

using namespace splat;
using Clock = std::chrono::steady_clock;

namespace {

struct Figures {
  double step_ms = 0, wait_ms = 0, projected = 0, received = 0, bytes = 0;
  std::string phases;  // rank 0's step phases, ms per step
};

std::string phase_line(const kernels::PhaseTotals& totals, int steps) {
  std::string line;
  char item[160];
  for (const auto& p : totals.phases()) {
    std::snprintf(item, sizeof item, "%s%s %.3f", line.empty() ? "" : ", ", p.name.c_str(), p.total_ms / steps);
    line += item;
  }
  return line;
}

struct Args {
  std::string scene;
  int train_images = 3000, steps = 20;
  SceneLoadOptions load;
  kernels::Device device = kernels::Device::CUDA;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "bench_exchange: %s\nusage: bench_exchange SCENE [train_images=3000] [steps=20] "
               "[--data-factor N] [--device cuda|cpu]\n", problem.c_str());
  std::exit(2);
}

int positive(const std::string& what, const char* text) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*text == 0 || *end != 0 || v < 1 || v > 1000000000) usage(what + " must be a positive integer, got '" + text + "'");
  return int(v);
}

Args parse(int argc, char** argv) {
  Args a;
  std::vector<const char*> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--data-factor" || arg == "--device") {
      if (i + 1 == argc) usage(arg + " needs a value");
      const char* value = argv[++i];
      if (arg == "--data-factor") a.load.data_factor = positive(arg, value);
      else if (std::string(value) == "cpu") a.device = kernels::Device::CPU;
      else if (std::string(value) != "cuda") usage("--device is cuda or cpu, got '" + std::string(value) + "'");
    } else if (arg.rfind("--", 0) == 0) {
      usage("unknown option " + arg);
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.empty() || positional.size() > 3) usage("expected a scene folder and at most two numbers");
  a.scene = positional[0];
  if (positional.size() > 1) a.train_images = positive("train_images", positional[1]);
  if (positional.size() > 2) a.steps = positive("steps", positional[2]);
  return a;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const int train_images = args.train_images, steps = args.steps;
  const kernels::Device device = args.device;
  const bool cuda = device == kernels::Device::CUDA;
  Scene scene;
  try {
    scene = load_scene(args.scene, args.load);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_exchange: %s\n", e.what());
    return 1;
  }

  TrainerOptions opt;
  opt.device = device;
  opt.images = train_images;
  Trainer trainer(scene, init_from_points(scene.points), opt);
  while (!trainer.finished()) trainer.step();
  const GaussianModel model = trainer.gaussians().to_model();
  std::printf("scene %s: %zu views, model of %lld Gaussians after %d training images\n", args.scene.c_str(),
              scene.views.size(), static_cast<long long>(model.size()), train_images);

  // Training views, their cameras and photos on GPU 0 (read by every rank), or in host memory.
  std::vector<int> views;
  for (size_t v = 0; v < scene.views.size(); ++v)
    if (!scene.views[v].is_test) views.push_back(static_cast<int>(v));
  std::vector<kernels::Buffer<uint8_t>> targets;
  for (int v : views) {
    targets.emplace_back(device);
    targets.back().upload(scene.images[static_cast<size_t>(v)].pixels);
  }

  if (views.empty()) {
    std::fprintf(stderr, "bench_exchange: %s has no training views\n", args.scene.c_str());
    return 1;
  }
  std::vector<cudaStream_t> streams(4, nullptr);
  if (cuda)
    for (auto& s : streams) cudaStreamCreate(&s);  // blocking streams: ordered with the model's default-stream work
  auto finish = [&](int r) {  // the rank's work done (CPU work is done when its calls return)
    if (cuda) cudaStreamSynchronize(streams[size_t(r)]);
  };
  std::map<std::pair<int, bool>, double> one_rank_ms;
  std::printf("%5s %6s %6s %10s %8s %10s %14s %14s %16s\n", "batch", "layout", "ranks", "step ms", "vs R=1",
              "wait ms", "pairs proj/rk", "pairs recv/rk", "bytes/step");
  for (const int batch : {2, 4})
    for (const bool packed : {false, true})
      for (const int ranks : {1, 2, 4}) {
        if (ranks > batch) continue;
        Figures fig;
        transport::run_ranks(
            ranks, [&](int r) { return kernels::ComputeContext(device, 0, streams[size_t(r)]); },
            [&](transport::Communicator& comm) {
              const int r = comm.rank();
              DeviceGaussians shard(comm.context(), sharded::initial_shard(model, r, ranks));
              const std::vector<int64_t> sizes = comm.all_gather_value(shard.size());
              kernels::GaussiansView view = shard.view();
              view.first_id = sharded::first_global_id(sizes, r);
              kernels::RasterSettings settings;
              settings.sh_degree = 3;
              settings.packed = packed;
              sharded::ShardedStep step(comm);
              kernels::PhaseTimer timer(comm.context());
              std::vector<double> times, waits;
              double projected = 0, received = 0, bytes = 0;
              for (int k = 0; k < 3 + steps; ++k) {
                std::vector<kernels::Camera> cams;
                std::vector<const uint8_t*> batch_targets;
                for (int j = 0; j < batch; ++j) {
                  const size_t i = static_cast<size_t>(k * batch + j) % views.size();
                  cams.push_back(scene.views[static_cast<size_t>(views[i])].to_kernel_camera());
                  batch_targets.push_back(targets[i].data());
                }
                shard.zero_stats();
                finish(r);
                comm.barrier();
                const auto t0 = Clock::now();
                step.set_phase_timer(k < 3 ? nullptr : &timer);
                if (k >= 3) timer.start();
                step.run({cams, settings, batch_targets, {}, sizes}, {view, [&](GradWrite how) { return shard.grad(how); },
                                                                      shard.stats()});
                finish(r);
                comm.barrier();
                if (k >= 3) timer.collect();  // the stream has finished: no wait inside the timed step
                const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
                if (k < 3) continue;
                times.push_back(ms);
                waits.push_back(step.step_times().exchange_wait_ms);  // this step's: its stream has finished
                const ExchangeSizes& e = step.exchange_sizes();
                projected += double(e.pairs_projected), received += double(e.pairs_received);
                bytes += double(e.bytes_sent);
              }
              std::vector<float> sums{float(projected), float(received), float(bytes), float(median(waits))};
              comm.all_reduce_sum(sums);
              if (r == 0) {
                fig.step_ms = median(times);
                fig.projected = sums[0] / steps / ranks;
                fig.received = sums[1] / steps / ranks;
                fig.bytes = sums[2] / steps;
                fig.wait_ms = sums[3] / ranks;
                fig.phases = phase_line(timer.totals(), steps);
              }
            },
            transport::RankBackend::InProcess);
        if (ranks == 1) one_rank_ms[{batch, packed}] = fig.step_ms;
        std::printf("%5d %6s %6d %10.2f %8.3f %10.3f %14.0f %14.0f %16.0f\n", batch, packed ? "packed" : "dense", ranks,
                    fig.step_ms, fig.step_ms / one_rank_ms[{batch, packed}], fig.wait_ms, fig.projected, fig.received,
                    fig.bytes);
        std::printf("      rank 0 phases, ms/step: %s\n", fig.phases.c_str());
        std::fflush(stdout);
      }
  if (cuda)
    for (auto s : streams) cudaStreamDestroy(s);
  return 0;
}
