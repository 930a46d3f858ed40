// PhaseTimer for both backends (this file sees the CUDA runtime): a pool of CUDA events reused
// from one sequence to the next, or host clock readings on the CPU backend.
#include "kernels/phase_timer.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_scope.cuh"

namespace splat::kernels {

using cuda::check;

void PhaseTotals::add(const std::string& name, double ms) {
  auto it = std::find_if(phases_.begin(), phases_.end(), [&](const Phase& p) { return p.name == name; });
  if (it == phases_.end()) it = phases_.insert(phases_.end(), Phase{name});
  it->total_ms += ms;
  it->max_ms = std::max(it->max_ms, ms);
  ++it->count;
}

double PhaseTotals::total_ms() const {
  double t = 0;
  for (const Phase& p : phases_) t += p.total_ms;
  return t;
}

struct PhaseTimer::Impl {
  explicit Impl(const ComputeContext& w) : where(w), stream(static_cast<cudaStream_t>(w.stream)) {}
  ComputeContext where;
  cudaStream_t stream;
  std::vector<cudaEvent_t> events;  // events[0] is start(); events[k] ends names[k-1]
  std::vector<std::chrono::steady_clock::time_point> clocks;
  std::vector<const char*> names;
  size_t used = 0;

  void record() {
    if (where.device == Device::CPU) {
      if (clocks.size() <= used) clocks.resize(used + 1);
      clocks[used++] = std::chrono::steady_clock::now();
      return;
    }
    const cuda::DeviceScope scope(where.ordinal);
    if (events.size() <= used) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "phase timer: creating an event");
      events.push_back(e);
    }
    check(cudaEventRecord(events[used++], stream), "phase timer: recording an event");
  }
  double elapsed_ms(size_t a, size_t b) const {
    if (where.device == Device::CPU) return std::chrono::duration<double, std::milli>(clocks[b] - clocks[a]).count();
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events[a], events[b]), "phase timer: reading an event");
    return ms;
  }
};

PhaseTimer::PhaseTimer(const ComputeContext& where) : impl_(std::make_unique<Impl>(where)) {}

PhaseTimer::~PhaseTimer() {
  if (impl_->events.empty()) return;
  const cuda::DeviceScope scope(impl_->where.ordinal, std::nothrow);  // no throwing from a destructor
  if (!scope.ok()) return;
  for (cudaEvent_t e : impl_->events) cudaEventDestroy(e);
}

void PhaseTimer::start() {
  impl_->used = 0;
  impl_->names.clear();
  impl_->record();
}

void PhaseTimer::mark(const char* name) {
  if (impl_->used == 0) throw std::logic_error("PhaseTimer::mark before start");
  impl_->names.push_back(name);
  impl_->record();
}

void PhaseTimer::collect() {
  if (impl_->used < 2) return;
  std::optional<cuda::DeviceScope> scope;  // events are read on their own device
  if (impl_->where.device == Device::CUDA) {
    scope.emplace(impl_->where.ordinal);
    check(cudaEventSynchronize(impl_->events[impl_->used - 1]), "phase timer: waiting for events");
  }
  for (size_t k = 1; k < impl_->used; ++k) totals_.add(impl_->names[k - 1], impl_->elapsed_ms(k - 1, k));
  impl_->used = 0;
}

}  // namespace splat::kernels
