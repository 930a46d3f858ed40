#pragma once
// Timing on the device's own timeline, the one mechanism of the project: on CUDA each mark records an
// event on the context's stream, so marking costs no host wait and the durations are what the GPU saw,
// idle gaps (a host that is late to enqueue) included; on the CPU backend, whose work is synchronous,
// each mark reads the host clock. Two ways to read the same marks:
//   PhaseTimer  named phases of one sequence, read back by waiting for its last mark (profiling: the
//               trainer's step phases, the rasterizer's stages);
//   StepMarks   a sequence repeated every step, read without ever waiting (figures reported every
//               step: a rank's render and exchange times).
#include <cstdint>
#include <memory>
#include <optional>
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
  // Whether a sequence was started (mark and skip need one).
  bool started() const;
  // Ends the phase called `name` (the time since the previous mark, skip or start()).
  void mark(const char* name);
  // Starts the next phase without counting the time since the previous mark: work of the caller's
  // between two of its own phases (the loss between a rasterizer's forward and backward).
  void skip();
  // Waits for the last mark and adds each phase of this sequence to totals(), or to `into`.
  void collect();
  void collect(PhaseTotals& into) const;
  const PhaseTotals& totals() const { return totals_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  PhaseTotals totals_;
};

// Durations between the marks of a sequence that repeats every step, read without waiting for the
// work: a figure reported every step (a rank's render and exchange times) must not add a host
// synchronisation to every step. On CUDA each mark records an event on the stream, and latest()
// returns the newest sequence whose last event has completed (typically the previous step's), found
// by querying the events, never by waiting for them. On the CPU backend each mark reads the host
// clock, and a sequence is complete at its last mark.
class StepMarks {
 public:
  // `marks` marks per sequence (at least 2) on `where`'s stream.
  StepMarks(const ComputeContext& where, int marks);
  ~StepMarks();
  StepMarks(const StepMarks&) = delete;
  StepMarks& operator=(const StepMarks&) = delete;

  // Mark k of the current sequence; mark 0 begins a new one, marks come in order 0..marks-1.
  void mark(int k);
  // The number of the sequence begun by the last mark 0 (1 for the first; 0 before any), by which
  // take_completed() names it: what the caller did in that sequence (which images a step rendered)
  // is the caller's to remember.
  uint64_t sequence() const;
  // The newest complete sequence's durations, ms from mark k to mark k + 1 (marks - 1 values);
  // nullopt until a sequence completes.
  std::optional<std::vector<double>> latest();
  // Every sequence completed since the last call (the newest kSlots of them), oldest first, each once
  // (the same durations as latest()): what a mean over steps must add up, rather than sampling latest()
  // once a step.
  struct Completed {
    uint64_t sequence = 0;   // as sequence() named it
    std::vector<double> ms;  // as latest()
  };
  std::vector<Completed> take_completed();
  // Sequences overwritten before they completed (the host kSlots steps ahead of the device).
  uint64_t lost() const;
  static constexpr int kSlots = 32;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace splat::kernels
