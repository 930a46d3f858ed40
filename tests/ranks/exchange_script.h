#pragma once
// A fixed series of collectives on host memory (counts exchange, then the payload exchange sized by
// it, float and int64 sums, broadcast, gather, barrier) whose transcript (everything the rank
// received, in order) must not depend on the backend: the MPI program (tests/ranks/mpi) and the
// thread ranks run it, and the test compares their transcripts byte for byte.
#include <cstdint>
#include <vector>

#include "core/transport/communicator.h"

namespace splat::test {

constexpr uint32_t kExchangeScriptSeed = 5;

std::vector<uint8_t> run_exchange_script(transport::Communicator& comm, uint32_t seed = kExchangeScriptSeed);

}  // namespace splat::test
