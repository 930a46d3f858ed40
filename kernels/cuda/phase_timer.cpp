// The timing mechanism of kernels/phase_timer.h for both backends (this file sees the CUDA runtime):
// one Timeline (a reusable sequence of CUDA events, or host clock readings on the CPU backend) under
// PhaseTimer and StepMarks alike.
#include "kernels/phase_timer.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"

namespace splat::kernels {

using cuda::check;

namespace {

// Timestamps 0, 1, 2, ... on a context's timeline, reused from one sequence to the next: CUDA events
// recorded on the context's stream (made on first use, on its device), or host clock readings.
class Timeline {
 public:
  explicit Timeline(const ComputeContext& where) : where_(where) {}
  ~Timeline() {
    if (events_.empty()) return;
    const cuda::DeviceScope scope(where_.ordinal, std::nothrow);  // no throwing from a destructor
    if (!scope.ok()) return;
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  void record(size_t k) {
    if (where_.device == Device::CPU) {
      if (clocks_.size() <= k) clocks_.resize(k + 1);
      clocks_[k] = std::chrono::steady_clock::now();
      return;
    }
    const cuda::DeviceScope scope(where_.ordinal);
    while (events_.size() <= k) {
      cudaEvent_t e = nullptr;
      check(cudaEventCreate(&e), "timing: creating an event");
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[k], static_cast<cudaStream_t>(where_.stream)), "timing: recording an event");
  }
  // Whether the device has passed timestamp k, without waiting (the CPU's are passed when recorded).
  bool passed(size_t k) const {
    if (where_.device == Device::CPU) return true;
    const cuda::DeviceScope scope(where_.ordinal);
    const cudaError_t e = cudaEventQuery(events_[k]);
    if (e == cudaErrorNotReady) return false;
    check(e, "timing: querying an event");
    return true;
  }
  // Counted on both backends: on the CPU the timestamp is already taken, but a CUDA run waits here.
  void wait(size_t k) const {
    note_host_wait("waiting for a timing event");
    if (where_.device == Device::CPU) return;
    const cuda::DeviceScope scope(where_.ordinal);
    check(cudaEventSynchronize(events_[k]), "timing: waiting for an event");
  }
  // Milliseconds from timestamp a to b (both passed).
  double ms(size_t a, size_t b) const {
    if (where_.device == Device::CPU) return std::chrono::duration<double, std::milli>(clocks_[b] - clocks_[a]).count();
    const cuda::DeviceScope scope(where_.ordinal);
    float t = 0;
    check(cudaEventElapsedTime(&t, events_[a], events_[b]), "timing: reading an event");
    return t;
  }

 private:
  ComputeContext where_;
  std::vector<cudaEvent_t> events_;
  std::vector<std::chrono::steady_clock::time_point> clocks_;
};

}  // namespace

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

// ---- PhaseTimer: named phases, read by waiting ----

struct PhaseTimer::Impl {
  explicit Impl(const ComputeContext& where) : line(where) {}
  Timeline line;
  std::vector<const char*> names;  // names[k - 1] ends at timestamp k; null: a skipped gap
  size_t used = 0;                 // timestamps of this sequence
  void record(const char* name) {
    if (used == 0) throw std::logic_error("PhaseTimer: a mark before start");
    names.push_back(name);
    line.record(used++);
  }
};

PhaseTimer::PhaseTimer(const ComputeContext& where) : impl_(std::make_unique<Impl>(where)) {}
PhaseTimer::~PhaseTimer() = default;

void PhaseTimer::start() {
  impl_->names.clear();
  impl_->used = 0;
  impl_->line.record(impl_->used++);
}

bool PhaseTimer::started() const { return impl_->used > 0; }
void PhaseTimer::mark(const char* name) { impl_->record(name); }
void PhaseTimer::skip() { impl_->record(nullptr); }

void PhaseTimer::collect() { collect(totals_); }

void PhaseTimer::collect(PhaseTotals& into) const {
  const Impl& m = *impl_;
  if (m.used < 2) return;
  m.line.wait(m.used - 1);
  for (size_t k = 1; k < m.used; ++k)
    if (m.names[k - 1]) into.add(m.names[k - 1], m.line.ms(k - 1, k));
}

// ---- StepMarks: a repeated sequence, read without waiting ----

// A ring of timelines, used in turn: while one sequence is being recorded, the earlier ones' timestamps
// are read once the device has passed them. The host runs ahead of the device by several steps (a
// step makes no host wait), so the ring holds that many: with two timelines, every sequence the host
// had passed by two steps was overwritten before it completed, and only the steps after a host stall
// were ever measured.
struct StepMarks::Impl {
  struct Slot {
    explicit Slot(const ComputeContext& where) : line(where) {}
    Timeline line;
    uint64_t sequence = 0;  // 0: nothing recorded; else the sequence number it holds
    int recorded = 0;       // marks recorded so far
    bool read = false;      // its durations were taken
  };
  int marks;
  std::vector<std::unique_ptr<Slot>> slots;
  size_t current = 0;
  uint64_t sequences = 0, lost = 0;
  std::optional<std::vector<double>> newest;
  std::vector<Completed> completed;  // taken, not yet handed out by take_completed()

  Impl(const ComputeContext& w, int m) : marks(m) {
    for (int k = 0; k < kSlots; ++k) slots.push_back(std::make_unique<Slot>(w));
  }

  bool pending(const Slot& s) const { return s.sequence != 0 && !s.read && s.recorded == marks; }
  // Takes every sequence the device has passed, oldest first; they are on one stream, so the first one
  // still pending ends the search.
  void harvest() {
    for (size_t k = 1; k <= slots.size(); ++k) {
      Slot& s = *slots[(current + k) % slots.size()];
      if (!pending(s)) continue;
      if (!s.line.passed(size_t(marks - 1))) return;
      std::vector<double> ms(size_t(marks - 1));
      for (int j = 0; j + 1 < marks; ++j) ms[size_t(j)] = s.line.ms(size_t(j), size_t(j + 1));
      newest = ms;
      // Bounded for a caller that reads only latest() (the viewer's snapshot marks).
      if (completed.size() == size_t(kSlots)) completed.erase(completed.begin());
      completed.push_back({s.sequence, std::move(ms)});
      s.read = true;
    }
  }
};

StepMarks::StepMarks(const ComputeContext& where, int marks) : impl_(std::make_unique<Impl>(where, marks)) {
  if (marks < 2) throw std::invalid_argument("StepMarks needs at least 2 marks, got " + std::to_string(marks));
}

StepMarks::~StepMarks() = default;

void StepMarks::mark(int k) {
  Impl& m = *impl_;
  if (k < 0 || k >= m.marks) throw std::logic_error("StepMarks::mark " + std::to_string(k) + " of " + std::to_string(m.marks));
  if (k == 0) {
    m.harvest();  // the slot about to be reused may hold a complete sequence
    m.current = (m.current + 1) % m.slots.size();
    Impl::Slot& s = *m.slots[m.current];
    if (s.sequence != 0 && !s.read) ++m.lost;
    s.sequence = ++m.sequences;
    s.recorded = 0;
    s.read = false;
  }
  Impl::Slot& s = *m.slots[m.current];
  if (k != s.recorded) throw std::logic_error("StepMarks::mark " + std::to_string(k) + " out of order");
  s.line.record(size_t(k));
  ++s.recorded;
}

std::optional<std::vector<double>> StepMarks::latest() {
  impl_->harvest();
  return impl_->newest;
}

uint64_t StepMarks::sequence() const { return impl_->sequences; }

std::vector<StepMarks::Completed> StepMarks::take_completed() {
  impl_->harvest();
  return std::exchange(impl_->completed, {});
}

uint64_t StepMarks::lost() const { return impl_->lost; }

}  // namespace splat::kernels
