#pragma once
// Opt-in timing of the phases of a repeated sequence (the training step), on the device's own
// timeline: on CUDA each mark records an event on the stream, so marking costs no host wait and
// the durations are what the GPU saw, idle gaps (a host that is late to enqueue) included; on the
// CPU backend, whose work is synchronous, each mark reads the host clock. Durations are only read
// back in collect(), which waits for the sequence's last mark.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/device_context.h"

namespace splat::kernels {

// Totals of named phases over many sequences, in the order the names first appeared.
class PhaseTotals {
 public:
  struct Phase {
    std::string name;
    double total_ms = 0, max_ms = 0;
    int64_t count = 0;
  };
  void add(const std::string& name, double ms);
  const std::vector<Phase>& phases() const { return phases_; }
  double total_ms() const;

 private:
  std::vector<Phase> phases_;
};

class PhaseTimer {
 public:
  // Times the work enqueued on `where`'s stream (a plain Device: ordinal 0, default stream).
  explicit PhaseTimer(const ComputeContext& where);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  // Begins a sequence: the first phase starts here.
  void start();
  // Ends the phase called `name` (the time since the previous mark or start()).
  void mark(const char* name);
  // Waits for the last mark and adds each phase of this sequence to totals().
  void collect();
  const PhaseTotals& totals() const { return totals_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  PhaseTotals totals_;
};

}  // namespace splat::kernels
