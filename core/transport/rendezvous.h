#pragma once
// The meeting point of the in-process ranks of one run (threads of one process): a reusable barrier
// that fails rather than wait forever, the slots where ranks post their arguments for the current
// collective, the abort flag through which one rank's failure reaches every other rank, and the mailbox
// of the ranks' control channel (control_channel.h), which that flag fails too.
//
// A collective is two barriers: ranks post, meet, read each other's posts (and buffers), meet again,
// and only then return, so every posted pointer stays valid while a peer reads it. The NCCL thread
// ranks share one too, for its abort flag only.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/transport/communicator.h"

namespace splat::transport {

class Rendezvous {
 public:
  // One name per rank (describe_rank), used in every message.
  Rendezvous(std::vector<std::string> rank_names, std::chrono::milliseconds timeout);

  int size() const { return static_cast<int>(names_.size()); }
  const std::string& rank_name(int rank) const { return names_[rank]; }

  // What a rank posts for one collective, written before the first barrier and read by the others
  // until the second. Posts alternate between two sets, so a rank that has left collective k and
  // posts for k+1 never overwrites what a slower peer still reads of k (it cannot reach k+2 first).
  struct Post {
    const char* op = nullptr;  // the collective's name: ranks calling different ones are caught
    std::span<const ExchangeBuffer> buffers;  // an exchange's buffers (the caller's, valid until it returns)
    std::span<const int64_t> row_bytes;      // a gated exchange's row widths, one per buffer
    int cuda_device = -1;                    // where the buffers live: a CUDA ordinal (-1: host)
    const void* values = nullptr;  // all_reduce_sum's host values
    size_t value_count = 0;
    void* ready = nullptr;  // copier token: this rank's send buffers are written, its receive buffers free
    void* done = nullptr;   // copier token: this rank's copies from and to its peers are enqueued
  };
  // This rank's post for its current collective.
  Post& post(int rank) { return posts_[calls_[rank] % 2][rank]; }
  // Rank `peer`'s post for the collective `observer` is in.
  const Post& posted(int observer, int peer) const { return posts_[calls_[observer] % 2][peer]; }
  // Ends `rank`'s current collective (after its second barrier): its next post goes to the other set.
  void finish(int rank) { ++calls_[rank]; }

  // Blocks until every rank has arrived. Throws CommError when the group is aborted, when a rank that
  // has not arrived has left, or when the timeout passes (then it aborts the group naming the first
  // rank that did not arrive). Once every rank has arrived it returns even if an abort races in, so a
  // rank never leaves a collective while a peer reads its buffers.
  void arrive_and_wait(int rank, const char* op);

  // Marks `rank` failed: every pending and later wait throws naming it and `reason`. The first failure
  // wins (what follows it is a consequence). Returns whether this call was the first.
  bool abort(int rank, const std::string& reason);
  // The rank calls no more collectives (its work returned); a peer waiting for it fails at once.
  void leave(int rank);
  // The rank that failed first, -1 while none has.
  int failed_rank() const;
  // Throws the CommError that `observer` reports while in `op`, if the group is aborted.
  void throw_if_aborted(int observer, const char* op) const;

  // The control channel: rank 0 sends blocks of values without waiting; every other rank takes them in
  // order, waiting for the next one (a block stays until every rank has taken it). Both throw CommError
  // when the group is aborted. A taker fails the group naming rank 0 when rank 0 has left or sends
  // nothing within the timeout; rank 0 fails it naming a rank that left before taking every block.
  void send_control(std::span<const int64_t> values);
  void take_control(int rank, std::span<int64_t> values);

 private:
  [[noreturn]] void throw_aborted(int observer, const char* op) const;  // mutex held
  bool abort_locked(int rank, const std::string& reason);

  const std::vector<std::string> names_;
  const std::chrono::milliseconds timeout_;
  std::vector<Post> posts_[2];
  std::vector<uint64_t> calls_;  // collectives each rank finished; entry r touched by rank r only

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> arrived_, left_;
  int arrived_count_ = 0;
  uint64_t generation_ = 0;  // completed barriers
  int failed_rank_ = -1;
  std::string failure_;
  std::deque<std::vector<int64_t>> control_;  // blocks not yet taken by every rank
  uint64_t control_front_ = 0;                // sequence number of control_.front()
  std::vector<uint64_t> control_taken_;       // blocks each rank has taken
};

}  // namespace splat::transport
