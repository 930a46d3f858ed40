#pragma once
// What each rank of a distributed run measured in its last step: the balance and
// traffic figures that the CLI's metrics and the GUI's per-GPU panel show. Measured by every rank for
// itself every step (Trainer::rank_stats, no collective) and gathered at the metrics cadence
// (gather_rank_stats, a collective), so that rank 0's records hold every rank's row.
#include <cstdint>
#include <vector>

#include "core/transport/communicator.h"

namespace splat::sharded {

using transport::Communicator;

struct RankStats {
  int rank = 0;
  int device_ordinal = -1;        // the CUDA device the rank computes on; -1 for a CPU rank
  int64_t gaussians = 0;          // rows of the rank's shard
  double step_ms = 0;             // wall time of the rank's last step
  double render_ms = 0;           // of which rasterizing, loss and backward of its cameras
  double exchange_wait_ms = 0;    // of which waiting in the pair and gradient exchanges
  int64_t bytes_sent = 0;         // last step's exchange traffic to and from other ranks
  int64_t bytes_received = 0;
  double device_memory_mb = 0;    // device memory in use on its device (0 on the CPU)
};

// max / mean of a per-rank quantity (1 = perfectly balanced; 0 for an empty or all-zero list).
inline double imbalance(const std::vector<double>& per_rank) {
  double sum = 0, top = 0;
  for (double v : per_rank) sum += v, top = v > top ? v : top;
  return sum > 0 ? top * double(per_rank.size()) / sum : 0.0;
}

// Every rank's `mine`, in rank order, on every rank: two small sums on the host. A collective.
std::vector<RankStats> gather_rank_stats(Communicator& comm, const RankStats& mine);

}  // namespace splat::sharded
