#include "core/transport/rendezvous.h"

#include <algorithm>
#include <cstdio>

namespace splat::transport {

namespace {
constexpr const char* kControl = "the control channel";  // how messages name it

std::string seconds_text(std::chrono::milliseconds t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g s", std::chrono::duration<double>(t).count());
  return text;
}
}  // namespace

Rendezvous::Rendezvous(std::vector<std::string> rank_names, std::chrono::milliseconds timeout)
    : names_(std::move(rank_names)),
      timeout_(timeout),
      posts_{std::vector<Post>(names_.size()), std::vector<Post>(names_.size())},
      calls_(names_.size(), 0),
      arrived_(names_.size(), false),
      left_(names_.size(), false),
      control_taken_(names_.size(), 0) {
  if (names_.empty()) throw std::invalid_argument("a rendezvous needs at least one rank");
}

void Rendezvous::arrive_and_wait(int rank, const char* op) {
  std::unique_lock lock(mutex_);
  if (failed_rank_ >= 0) throw_aborted(rank, op);
  const uint64_t generation = generation_;
  arrived_[rank] = true;
  if (++arrived_count_ == size()) {
    arrived_count_ = 0;
    std::fill(arrived_.begin(), arrived_.end(), false);
    ++generation_;
    changed_.notify_all();
    return;
  }
  auto first_missing_left = [&] {
    for (int r = 0; r < size(); ++r)
      if (!arrived_[r] && left_[r]) return r;
    return -1;
  };
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const bool woken = changed_.wait_until(lock, deadline, [&] {
    return generation_ != generation || failed_rank_ >= 0 || first_missing_left() >= 0;
  });
  if (generation_ != generation) return;  // everyone arrived: finish the collective together
  if (failed_rank_ < 0) {
    if (const int gone = first_missing_left(); gone >= 0) {
      abort_locked(gone, "stopped calling collectives while " + names_[rank] + " waited in " + op);
    } else if (!woken) {
      std::string missing;
      int first = -1;
      for (int r = 0; r < size(); ++r)
        if (!arrived_[r]) {
          missing += (missing.empty() ? "" : ", ") + names_[r];
          if (first < 0) first = r;
        }
      abort_locked(first, std::string("did not reach ") + op + " within " + seconds_text(timeout_) + " (" +
                              names_[rank] + " waited for " + missing + ")");
    }
  }
  throw_aborted(rank, op);
}

bool Rendezvous::abort(int rank, const std::string& reason) {
  std::lock_guard lock(mutex_);
  return abort_locked(rank, reason);
}

bool Rendezvous::abort_locked(int rank, const std::string& reason) {
  if (failed_rank_ >= 0) return false;
  failed_rank_ = rank;
  failure_ = reason;
  changed_.notify_all();
  return true;
}

void Rendezvous::leave(int rank) {
  std::lock_guard lock(mutex_);
  left_[rank] = true;
  changed_.notify_all();
}

int Rendezvous::failed_rank() const {
  std::lock_guard lock(mutex_);
  return failed_rank_;
}

void Rendezvous::throw_if_aborted(int observer, const char* op) const {
  std::lock_guard lock(mutex_);
  if (failed_rank_ >= 0) throw_aborted(observer, op);
}

void Rendezvous::send_control(std::span<const int64_t> values) {
  std::lock_guard lock(mutex_);
  if (failed_rank_ < 0)
    for (int r = 1; r < size(); ++r)
      if (left_[r]) abort_locked(r, "stopped taking decisions while " + names_[0] + " sent one");
  if (failed_rank_ >= 0) throw_aborted(0, kControl);
  if (size() == 1) return;
  control_.emplace_back(values.begin(), values.end());
  changed_.notify_all();
}

void Rendezvous::take_control(int rank, std::span<int64_t> values) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return control_front_ + control_.size() > control_taken_[rank]; };
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  const bool woken =
      changed_.wait_until(lock, deadline, [&] { return ready() || failed_rank_ >= 0 || left_[0]; });
  if (failed_rank_ < 0 && ready()) {
    const std::vector<int64_t>& block = control_[control_taken_[rank] - control_front_];
    if (block.size() != values.size())
      throw CommError("ranks disagree: " + names_[0] + " sent " + std::to_string(block.size()) + " control values, " +
                          names_[rank] + " expects " + std::to_string(values.size()),
                      -1);
    std::copy(block.begin(), block.end(), values.begin());
    ++control_taken_[rank];
    // Rank 0 never takes: the oldest block goes once every other rank has it.
    while (!control_.empty() &&
           *std::min_element(control_taken_.begin() + 1, control_taken_.end()) > control_front_) {
      control_.pop_front();
      ++control_front_;
    }
    return;
  }
  if (failed_rank_ < 0) {
    if (left_[0]) abort_locked(0, "stopped sending decisions while " + names_[rank] + " waited for one");
    else if (!woken)
      abort_locked(0, "sent no decision within " + seconds_text(timeout_) + " (" + names_[rank] + " waited for one)");
  }
  throw_aborted(rank, kControl);
}

void Rendezvous::throw_aborted(int observer, const char* op) const {
  const std::string cause = names_[failed_rank_] + " failed: " + failure_;
  if (observer == failed_rank_) throw CommError(names_[observer] + " in " + op + ": " + failure_, failed_rank_);
  throw CommError(names_[observer] + " stopped in " + op + " because " + cause, failed_rank_);
}

}  // namespace splat::transport
