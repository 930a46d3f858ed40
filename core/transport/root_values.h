#pragma once
// How the ranks of a run follow decisions that only rank 0 can take (a user's stop or pause, the GUI's
// control queue, a signal to the CLI): rank 0's host values are given to every rank, as one small sum to
// which only rank 0 contributes, so that every rank then takes the same steps and meets its peers in the
// same collectives. Collective: every rank calls it at the same point.
#include <cstdint>
#include <span>

#include "core/transport/communicator.h"

namespace splat::transport {

// Replaces `values` on every rank with rank 0's. Without a communicator (one rank) they stay as they are.
void share_root_values(Communicator* comm, std::span<int64_t> values);

}  // namespace splat::transport
