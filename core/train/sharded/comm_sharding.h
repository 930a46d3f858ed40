#pragma once
// One shard of a model split over a communicator's ranks (core/train/sharding.h): rows in Morton-ordered
// blocks (core/model/shard_layout.h), the sharded step (sharded_step.h), rebalancing (rebalance.h), and
// the gathers onto rank 0 through the communicator.
#include <memory>

#include "core/train/sharding.h"
#include "core/transport/communicator.h"

namespace splat::sharded {

// `comm` must outlive the returned object (and the trainer that holds it).
std::unique_ptr<Sharding> over(transport::Communicator& comm);

}  // namespace splat::sharded
