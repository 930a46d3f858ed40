#pragma once
// Runs CPU rank threads whose work may fail and records how: what each rank's own collective or
// channel call threw, what run_ranks threw (and the exception it nested), and how long it all took.
// Shared by the failure tests of the communicators and of the control channel.
#include <functional>
#include <string>
#include <vector>

#include "core/transport/control_channel.h"
#include "core/transport/run_ranks.h"

namespace splat::test {

struct RankOutcome {
  std::vector<std::string> rank_errors;  // per rank: the CommError its own call threw (empty: none)
  std::string error;                     // what run_ranks threw
  int failed_rank = -2;
  std::string nested;                    // the original exception's message, when run_ranks nested one
  double seconds = 0;
};

using RankWorkWithControl = std::function<void(transport::Communicator&, transport::ControlChannel&)>;
RankOutcome catch_ranks(int ranks, const RankWorkWithControl& work, const transport::CommOptions& options);

}  // namespace splat::test
