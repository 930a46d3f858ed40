#include "core/transport/mpi/nccl_over_mpi.h"

#include <mpi.h>

#include "core/transport/nccl/nccl_communicator.h"

namespace splat::transport {

std::unique_ptr<Communicator> make_nccl_communicator_over_mpi(const kernels::ComputeContext& where,
                                                              const CommOptions& options) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  NcclId id;
  if (rank == 0) id = make_nccl_id();
  MPI_Bcast(id.bytes.data(), static_cast<int>(id.bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  return make_nccl_communicator(id, rank, size, where, options);
}

}  // namespace splat::transport
