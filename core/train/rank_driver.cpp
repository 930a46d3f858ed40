#include "core/train/rank_driver.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/train/planted_fault.h"
#include "core/train/sharded/comm_sharding.h"
#include "core/transport/run_ranks.h"
#include "kernels/stream.h"

namespace splat {

namespace {

using Clock = std::chrono::steady_clock;

// The one place a rank's TrainingRun (and its Trainer) is made from the spec.
// The only rank (comm null) trains on `solo`; a rank among several where its communicator computes.
std::unique_ptr<TrainingRun> build_rank_run(const RankRunSpec& spec, transport::Communicator* comm,
                                            const kernels::ComputeContext& solo) {
  TrainerOptions o = spec.trainer;
  // CPU ranks on one machine share its cores rather than each taking all of them.
  const int ranks_here = spec.ranks_on_host > 0 ? spec.ranks_on_host : comm ? comm->size() : 1;
  if (o.device == kernels::Device::CPU && o.cpu_threads == 0 && ranks_here > 1)
    o.cpu_threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / ranks_here);
  return std::make_unique<TrainingRun>(spec.scene, spec.init, o, spec.run, comm ? sharded::over(*comm) : one_rank(solo));
}

// How many steps rank 0 grants per decision: as many as fit the decision interval at the last grant's
// step time (the first grant, with no time known, is one step).
class Pace {
 public:
  explicit Pace(const DriverOptions& o) : interval_(o.decision_interval), most_(std::max(1, o.max_steps_between_decisions)) {}
  int64_t steps() const { return steps_; }
  void took(int steps, Clock::duration time) {
    const auto per_step = std::max<Clock::duration>(time / steps, Clock::duration(1));
    steps_ = std::clamp<int64_t>(interval_ / per_step, 1, most_);
  }

 private:
  Clock::duration interval_;
  int64_t most_;
  int64_t steps_ = 1;
};

}  // namespace

bool can_step(const TrainingRun& run, int ranks) {
  const Trainer& t = run.trainer();
  const int left = t.options().images - t.images_done();
  return !run.done() && !(left < t.options().batch_size && left < ranks);
}

void drive_rank(const RankRunSpec& spec, transport::Communicator* comm, transport::ControlChannel& channel,
                RankController& controller, const DriverOptions& options) {
  const DrivenRank at{comm ? comm->rank() : 0, comm ? comm->size() : 1, comm};
  // A rehearsal's fault (core/train/planted_fault.h), read before anything is built.
  const std::optional<PlantedFault> fault = planted_fault_from_env();
  // The only rank computes on a stream of its own at the training priority, as rank threads do
  // (transport::RankStreams); declared before the run, which must not outlive it.
  std::optional<kernels::PriorityStream> solo_stream;
  const kernels::ComputeContext solo =
      comm ? kernels::ComputeContext() : kernels::on_own_stream(spec.trainer.device, kernels::StreamPriority::Training, solo_stream);
  const std::unique_ptr<TrainingRun> run = build_rank_run(spec, comm, solo);
  controller.on_start(*run, at);
  // Rank 0 answers well within the time its peers wait for it.
  const auto patience = std::min<Clock::duration>(std::chrono::seconds(1), options.comm.timeout / 4);
  Pace pace(options);
  while (true) {
    RankDecision d;
    if (at.root()) d = controller.decide(*run, Clock::now() + patience);
    // The grant travels with the decision: every rank knows where the next decision point is.
    int64_t block[4] = {d.stop, d.commands, d.publish, d.step ? pace.steps() : 0};
    channel.share(block);
    d = {.stop = block[0] != 0, .commands = block[1], .publish = block[2] != 0, .step = block[3] > 0};
    controller.serve(*run, at, d);
    if (d.stop) break;
    const auto t0 = Clock::now();
    int taken = 0;
    while (taken < block[3] && can_step(*run, at.ranks)) {
      const RunStep s = run->step();
      ++taken;
      controller.on_step(*run, at, s);
      if (fault_due(fault, at.rank, run->trainer().images_done())) {
        const kernels::ComputeContext& where = comm ? comm->context() : solo;
        fire_fault(*fault, "rank " + std::to_string(at.rank), transport::describe_device(where));
      }
      if (s.metrics) break;  // every rank recorded at this step: a decision point that costs no extra wait
    }
    if (taken > 0) pace.took(taken, Clock::now() - t0);
  }
  controller.on_end(*run, at);
}

void drive_ranks(const RankRunSpec& spec, const transport::RankPlan& plan, RankController& controller,
                 const DriverOptions& options) {
  // The one-rank trainer computes on the CPU or on GPU 0 without a communicator (on its own stream);
  // anything else (more ranks, or one rank on another GPU) runs as rank threads, each on its own stream.
  if (plan.ranks == 1 && plan.context(0) == kernels::ComputeContext(plan.device)) {
    const std::unique_ptr<transport::ControlChannel> solo = transport::make_solo_control_channel();
    drive_rank(spec, nullptr, *solo, controller, options);
    return;
  }
  const transport::RankStreams streams(plan);  // outlives the rank threads and their communicators
  transport::run_ranks_with_control(
      plan.ranks, [&](int r) { return streams.context(r); },
      [&](transport::Communicator& comm, transport::ControlChannel& channel) {
        drive_rank(spec, &comm, channel, controller, options);
      },
      transport::RankBackend::Auto, options.comm);
}

}  // namespace splat
