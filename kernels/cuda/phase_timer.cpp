// PhaseTimer for both backends (this file sees the CUDA runtime): a pool of CUDA events reused
// from one sequence to the next, or host clock readings on the CPU backend.
#include "kernels/phase_timer.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

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

namespace splat::kernels {

// Two slots of events, used in turn: while one sequence is being recorded, the previous one's events
// can still be read once the device has passed them.
struct StepMarks::Impl {
  struct Slot {
    std::vector<cudaEvent_t> events;
    std::vector<std::chrono::steady_clock::time_point> clocks;
    uint64_t sequence = 0;  // 0: nothing recorded; else the sequence number it holds
    int recorded = 0;       // marks recorded so far
    bool read = false;      // its durations were taken into `newest`
  };
  ComputeContext where;
  int marks;
  Slot slots[2];
  int current = 1;
  uint64_t sequences = 0;
  std::optional<std::vector<double>> newest;

  Impl(const ComputeContext& w, int m) : where(w), marks(m) {}

  bool complete(const Slot& s) const {
    if (s.sequence == 0 || s.read || s.recorded < marks) return false;
    if (where.device == Device::CPU) return true;
    const cudaError_t e = cudaEventQuery(s.events.back());
    if (e == cudaErrorNotReady) return false;
    check(e, "step marks: querying an event");
    return true;
  }
  void take(Slot& s) {
    std::vector<double> ms(size_t(marks - 1));
    for (int k = 0; k + 1 < marks; ++k) {
      if (where.device == Device::CPU) {
        ms[size_t(k)] = std::chrono::duration<double, std::milli>(s.clocks[size_t(k + 1)] - s.clocks[size_t(k)]).count();
      } else {
        float t = 0;
        check(cudaEventElapsedTime(&t, s.events[size_t(k)], s.events[size_t(k + 1)]), "step marks: reading an event");
        ms[size_t(k)] = t;
      }
    }
    newest = std::move(ms);
    for (Slot& other : slots) other.read = other.read || other.sequence <= s.sequence;
  }
  // Takes the newest complete sequence that is newer than the one held.
  void harvest() {
    std::optional<cuda::DeviceScope> scope;
    if (where.device == Device::CUDA) scope.emplace(where.ordinal);
    Slot& a = slots[current];
    Slot& b = slots[1 - current];
    for (Slot* s : {&a, &b})
      if (complete(*s)) return take(*s);
  }
};

StepMarks::StepMarks(const ComputeContext& where, int marks) : impl_(std::make_unique<Impl>(where, marks)) {
  if (marks < 2) throw std::invalid_argument("StepMarks needs at least 2 marks, got " + std::to_string(marks));
  if (where.device == Device::CPU) {
    for (auto& s : impl_->slots) s.clocks.resize(size_t(marks));
    return;
  }
  const cuda::DeviceScope scope(where.ordinal);
  for (auto& s : impl_->slots)
    for (int k = 0; k < marks; ++k) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "step marks: creating an event");
      s.events.push_back(e);
    }
}

StepMarks::~StepMarks() {
  if (impl_->where.device == Device::CPU) return;
  const cuda::DeviceScope scope(impl_->where.ordinal, std::nothrow);  // no throwing from a destructor
  if (!scope.ok()) return;
  for (auto& s : impl_->slots)
    for (cudaEvent_t e : s.events) cudaEventDestroy(e);
}

void StepMarks::mark(int k) {
  Impl& m = *impl_;
  if (k < 0 || k >= m.marks) throw std::logic_error("StepMarks::mark " + std::to_string(k) + " of " + std::to_string(m.marks));
  if (k == 0) {
    m.harvest();  // the slot about to be reused may hold the newest complete sequence
    m.current = 1 - m.current;
    m.slots[m.current] = {std::move(m.slots[m.current].events), std::move(m.slots[m.current].clocks), ++m.sequences, 0,
                          false};
  }
  Impl::Slot& s = m.slots[m.current];
  if (k != s.recorded) throw std::logic_error("StepMarks::mark " + std::to_string(k) + " out of order");
  if (m.where.device == Device::CPU) {
    s.clocks[size_t(k)] = std::chrono::steady_clock::now();
  } else {
    const cuda::DeviceScope scope(m.where.ordinal);
    check(cudaEventRecord(s.events[size_t(k)], static_cast<cudaStream_t>(m.where.stream)), "step marks: recording an event");
  }
  ++s.recorded;
}

std::optional<std::vector<double>> StepMarks::latest() {
  impl_->harvest();
  return impl_->newest;
}

}  // namespace splat::kernels
