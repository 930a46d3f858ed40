#include "core/train/frame_turns.h"

namespace splat {

std::optional<FrameTurns::Turn> FrameTurns::take(Clock::duration patience) {
  const Clock::time_point deadline = Clock::now() + patience;
  std::unique_lock lock(mutex_);
  // The trainer may still be closing the last turn (a frame right after a frame).
  changed_.wait_until(lock, deadline, [&] { return phase_ == Phase::Idle || !open_; });
  if (!open_ || phase_ != Phase::Idle) return std::nullopt;
  phase_ = Phase::Asked;
  changed_.wait_until(lock, deadline, [&] { return phase_ != Phase::Asked || !open_; });
  if (phase_ == Phase::Granted) return Turn(this, generation_);
  if (phase_ == Phase::Asked) phase_ = Phase::Idle;  // not served in time (or closed): no longer asking
  return std::nullopt;
}

bool FrameTurns::serve(const kernels::ComputeContext& training, Clock::duration patience) {
  std::unique_lock lock(mutex_);
  if (!open_ || phase_ != Phase::Asked) return false;
  queued_end_.record(training);
  phase_ = Phase::Granted;
  const uint64_t mine = ++generation_;
  changed_.notify_all();
  changed_.wait_for(lock, patience, [&] { return phase_ != Phase::Granted; });
  const bool framed = phase_ == Phase::Finished && generation_ == mine;
  if (framed) {
    frame_end_.wait_on(training);
    ++served_;
  } else if (phase_ == Phase::Granted) {
    ++dropped_;  // the frame was not queued in time: it renders beside this step if it comes
  }
  phase_ = Phase::Idle;
  changed_.notify_all();
  return framed;
}

void FrameTurns::close() {
  std::lock_guard lock(mutex_);
  open_ = false;
  changed_.notify_all();
}

void FrameTurns::open() {
  std::lock_guard lock(mutex_);
  open_ = true;
}

uint64_t FrameTurns::served() const {
  std::lock_guard lock(mutex_);
  return served_;
}

uint64_t FrameTurns::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

// The turn's end: with `viewer`, the frame is queued there (Finished), without, given back (Returned).
// A turn the trainer has already dropped (its generation passed, or no longer Granted) changes nothing.
void FrameTurns::end_turn(uint64_t generation, const kernels::ComputeContext* viewer) {
  std::lock_guard lock(mutex_);
  if (generation != generation_ || phase_ != Phase::Granted) return;
  if (viewer) frame_end_.record(*viewer);
  phase_ = viewer ? Phase::Finished : Phase::Returned;
  changed_.notify_all();
}

FrameTurns::Turn::~Turn() {
  if (turns_) turns_->end_turn(generation_, nullptr);
}

void FrameTurns::Turn::start(const kernels::ComputeContext& viewer) const {
  if (!turns_) return;
  std::lock_guard lock(turns_->mutex_);
  // The event is re-recorded only at the next grant, which waits for this turn to end.
  if (generation_ == turns_->generation_) turns_->queued_end_.wait_on(viewer);
}

void FrameTurns::Turn::finish(const kernels::ComputeContext& viewer) {
  if (!turns_) return;
  turns_->end_turn(generation_, &viewer);
  turns_ = nullptr;
}

}  // namespace splat
