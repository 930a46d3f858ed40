#pragma once
// NCCL across processes (one per GPU, started by mpirun, on one node or several): MPI carries the NCCL
// id from rank 0 to every process, then all data goes over NCCL. Built where both are found.
#include <memory>

#include "core/transport/communicator.h"

namespace splat::transport {

// The world rank's NCCL communicator on `where` (its own GPU). Needs a live MpiSession (mpi_communicator.h);
// every process of the job calls it.
std::unique_ptr<Communicator> make_nccl_communicator_over_mpi(const kernels::ComputeContext& where,
                                                              const CommOptions& options = {});

}  // namespace splat::transport
