#pragma once
// How rank 0's decisions reach the other ranks of a run (a user's stop or pause, the GUI's command
// queue, a signal to the CLI): a small block of int64 values that rank 0 sends and every other rank
// receives, on the host only. It never touches a rank's stream: a Communicator's host sum would, with
// NCCL, wait for the stream to drain, and the ranks would pay that at every decision.
//
// Every rank calls share() the same number of times, at points all of them know in advance (the rank
// driver, core/train/rank_driver.h, puts the next decision point in each block). Rank 0 sends and goes
// on without waiting for the others; another rank waits for rank 0's next block.
//
// Failure, as for the communicators (communicator.h): when a rank fails, every pending and later
// share() throws CommError naming it; a rank waiting longer than CommOptions::timeout for rank 0's
// block fails the run naming rank 0. Rank 0 is expected to send more often than that even while it has
// nothing to say (the driver sends an empty decision while the GUI is paused).
#include <cstdint>
#include <memory>
#include <span>

#include "core/transport/communicator.h"
#include "core/transport/rendezvous.h"

namespace splat::transport {

class ControlChannel {
 public:
  virtual ~ControlChannel() = default;
  // Rank 0: sends `values`. Other ranks: replaces `values` with rank 0's next block (same count).
  virtual void share(std::span<int64_t> values) = 0;
};

// The only rank of a run: nothing to send.
std::unique_ptr<ControlChannel> make_solo_control_channel();

// Rank `rank` of the threads meeting at `group` (run_ranks): a mailbox in the group's host memory, failed
// by the group's abort (any rank's failure) and by rank 0 leaving.
std::unique_ptr<ControlChannel> make_in_process_control_channel(std::shared_ptr<Rendezvous> group, int rank);

}  // namespace splat::transport
