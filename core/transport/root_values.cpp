#include "core/transport/root_values.h"

#include <algorithm>

namespace splat::transport {

void share_root_values(Communicator* comm, std::span<int64_t> values) {
  if (!comm) return;
  if (comm->rank() != 0) std::fill(values.begin(), values.end(), 0);
  comm->all_reduce_sum(values);
}

}  // namespace splat::transport
