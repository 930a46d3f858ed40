#pragma once
// The viewer's frames and the training steps of the GPU they share, taking turns while the view moves.
//
// Thread blocks are not preempted: a frame is a chain of about twenty dependent kernels, and on a GPU
// that trains each of them starts only as training's blocks retire, so a frame that takes about a
// millisecond alone takes 10–19 ms of wall time beside training, whatever its stream's priority
// (bench/VIEWER.md). While the view moves, a frame instead asks for a turn: at its next step boundary the
// training rank on the viewer's GPU hands over the end of the work it has queued, the frame's kernels
// run right after that work with the device to themselves, and the rank's next step waits on the device
// for the frame's end. A frame then waits for at most the step the device is running, and costs
// training what the frame costs alone.
//
// Both sides wait on the host with a bound, so neither can hang the other: a frame whose turn does not
// come within its patience renders beside training as before; a turn whose frame is not queued within
// the trainer's patience is dropped, and the step goes on. One viewer takes turns (the one thread that renders
// the viewport); the trainer thread of the rank on its GPU serves them.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>

#include "kernels/device_context.h"
#include "kernels/stream.h"

namespace splat {

class FrameTurns {
 public:
  using Clock = std::chrono::steady_clock;
  // The viewer's side of one turn: start() before the frame's work, finish() once it is queued.
  class Turn {
   public:
    Turn(Turn&& o) noexcept : turns_(o.turns_), generation_(o.generation_) { o.turns_ = nullptr; }
    Turn& operator=(Turn&&) = delete;
    Turn(const Turn&) = delete;
    ~Turn();  // a turn not finished is given back: the step goes on without waiting for a frame
    // Work queued on `viewer` from now on starts after the training work queued before the turn.
    void start(const kernels::ComputeContext& viewer) const;
    // The frame is queued on `viewer`: training's next step waits on the device for it to run.
    void finish(const kernels::ComputeContext& viewer);

   private:
    friend class FrameTurns;
    Turn(FrameTurns* turns, uint64_t generation) : turns_(turns), generation_(generation) {}
    FrameTurns* turns_;
    uint64_t generation_;
  };

  // The viewer: waits at most `patience` for the trainer's next step boundary and returns the turn;
  // nullopt when it does not come (training between steps for longer: evaluating, refining, paused,
  // ended) or the turns are closed.
  std::optional<Turn> take(Clock::duration patience);
  // The trainer, between two steps: when a frame waits for a turn, hands it the end of the work queued
  // on `training`, waits (at most `patience`) for the frame to be queued and makes `training` wait for
  // it on the device. Returns whether a frame took the turn. Without a frame waiting, no wait. Queueing
  // a frame takes the viewer well under a millisecond of host time, plus its render's count read, which
  // waits on the device for the work queued before the turn: the patience allows for that work.
  bool serve(const kernels::ComputeContext& training, Clock::duration patience);
  // No turns until open(): frames waiting for one, and later ones, go without (training stopped).
  void close();
  void open();
  // Turns served (frames that took one) and granted turns whose frame did not come in time.
  uint64_t served() const;
  uint64_t dropped() const;

 private:
  enum class Phase { Idle, Asked, Granted, Finished, Returned };
  void end_turn(uint64_t generation, const kernels::ComputeContext* viewer);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = true;
  Phase phase_ = Phase::Idle;
  uint64_t generation_ = 0;  // counts granted turns: a late finish() of a dropped turn is ignored
  uint64_t served_ = 0, dropped_ = 0;
  kernels::StreamEvent queued_end_;  // the training work queued before the turn (recorded by serve)
  kernels::StreamEvent frame_end_;   // the frame's work (recorded by Turn::finish)
};

}  // namespace splat
