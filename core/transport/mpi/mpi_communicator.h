#pragma once
// The MPI backend: CPU ranks in separate processes started by mpirun, one rank per process (the world
// rank). Built only where MPI is found (SPLATLAB_HAVE_MPI). For GPU ranks across processes or nodes MPI
// only bootstraps NCCL, as the job's process group (make_mpi_process_group).
//
// A process that fails cannot reach its peers' pending calls the way a thread can: it ends the job
// instead (abort_mpi_job, or mpirun, which stops every process when one exits with an error), and every
// call polls its requests against the timeout, so a peer that hangs ends the job too: no rank waits
// forever.
#include <memory>
#include <string>

#include "core/transport/communicator.h"
#include "core/transport/control_channel.h"
#include "core/transport/process_group.h"

namespace splat::transport {

// MPI for the lifetime of a process: MPI_Init_thread (funneled: one thread talks to MPI) and
// MPI_Finalize. One per process, made before anything talks MPI and outliving every communicator.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

// This process's rank of the world, on the CPU. Needs a live MpiSession.
std::unique_ptr<Communicator> make_mpi_communicator(const CommOptions& options = {});

// This process's end of the job's control channel (control_channel.h): a broadcast from rank 0 of host
// memory on a communicator of its own, beside the training's (NCCL's for GPU ranks, which it never waits
// for). Like every call here it polls against the timeout and ends the job when that passes. Needs a
// live MpiSession.
std::unique_ptr<ControlChannel> make_mpi_control_channel(const CommOptions& options = {});

// MPI's world as the job's process group (process_group.h): the setup's collectives wait up to
// `setup.timeout`; it carries CPU ranks' training too. Needs a live MpiSession.
std::unique_ptr<ProcessGroup> make_mpi_process_group(const CommOptions& setup);

// "rank 1 (CUDA device 0) on host nodeB": how this process is named in messages. Needs a live MpiSession.
std::string describe_process(const kernels::ComputeContext& where);

// Prints "error: <describe_process(where)> failed: <reason>; ..." to stderr and ends every process of the
// job (MPI_Abort: mpirun sends the others SIGTERM, then SIGKILL).
[[noreturn]] void abort_mpi_job(const std::string& reason,
                                const kernels::ComputeContext& where = kernels::Device::CPU);

}  // namespace splat::transport
