#pragma once
// How many pair records each rank sends each peer when only the pairs a peer sees travel (dense
// steps): the sizes of an NCCL all-to-all must be known on the host, and the number of visible pairs
// is only known on the device. Reading it back every step would make the host wait for the stream, so
// each direction's size is planned (kernels/capacity_plan.h) from the counts of steps at least kLag
// steps old, which come back without a wait (kernels/host_copies.h). Sender and receiver of a
// direction plan it from the same counts at the same steps, so they agree on its size without
// talking. A direction whose pairs outgrow the plan sends the first ones that fit; the rest are left
// out of that step's render for that peer, and counted.
//
// Before kLag steps have come back, every direction sends room for all of its pairs.
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "kernels/capacity_plan.h"
#include "kernels/device_context.h"
#include "kernels/host_copies.h"

namespace splat::sharded {

class ExchangePlan {
 public:
  static constexpr int kLag = 2;  // steps between a count and the plans it feeds

  ExchangePlan(const kernels::ComputeContext& where, int ranks);

  struct Sizes {
    std::vector<int64_t> send, receive;  // records per peer (0 for the rank itself)
  };
  // This step's sizes for `all_send`/`all_receive` pairs per peer (the dense counts). Takes in the
  // counts of the step kLag back first (waiting for them only if the device is that far behind).
  Sizes plan(const std::vector<int64_t>& all_send, const std::vector<int64_t>& all_receive);

  // After the step's counts exchange: `device_counts` holds [visible sent per peer | visible received
  // per peer] (2R values) of the step last planned; queued to come back.
  void counted(const int64_t* device_counts);

  // Directions (this rank's sends and receives) whose pairs outgrew their planned size, so far.
  uint64_t overflows() const { return overflows_; }

 private:
  struct Step {
    uint64_t copy = 0;
    std::vector<int64_t> all_send, all_receive;
    Sizes sizes;
  };
  void learn(const Step& s, const std::vector<int64_t>& counts);

  int ranks_;
  std::vector<kernels::CapacityPlan> send_, receive_;  // per peer
  std::unique_ptr<kernels::HostCopies> copies_;
  std::deque<Step> pending_;  // planned and counted steps whose counts have not been learnt from
  Step current_;              // planned, not yet counted
  uint64_t overflows_ = 0;
};

}  // namespace splat::sharded
