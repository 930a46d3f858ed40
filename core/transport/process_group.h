#pragma once
// The processes of one job (one rank per process) talking on the host, before and beside the training's
// communicator: the setup's barrier and sums, handing out NCCL's unique id, rank 0's control channel, and
// ending the job. Two ways to meet: MPI, where mpirun (or srun with PMIx) started the processes
// (mpi/mpi_communicator.h), and a TCP rendezvous at MASTER_ADDR:MASTER_PORT where nothing else wires them
// up (tcp/tcp_group.h).
//
// Every process calls the collectives in the same order. A collective that cannot complete (a peer failed,
// left or hangs past the timeout) either throws CommError naming that peer (TCP) or ends the job itself
// (MPI, whose pending requests cannot be unwound).
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>

#include "core/transport/communicator.h"
#include "core/transport/control_channel.h"

namespace splat::transport {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;

  virtual void barrier() = 0;
  // Element-wise sum over the processes, in place; every process gets the same values.
  virtual void all_reduce_sum(std::span<int64_t> values) = 0;
  // Rank 0's bytes into every other process's `bytes` (same size everywhere).
  virtual void broadcast(std::span<std::byte> bytes) = 0;

  // This process's end of rank 0's control channel (control_channel.h), beside the training's
  // communicator; `options.timeout` bounds a wait for rank 0's next block.
  virtual std::unique_ptr<ControlChannel> make_control_channel(const CommOptions& options) = 0;

  // Whether the group also carries CPU ranks' training data (MPI does; CUDA ranks use NCCL everywhere).
  virtual bool carries_cpu_training() const = 0;
  // The CPU ranks' communicator for training; only where carries_cpu_training().
  virtual std::unique_ptr<Communicator> make_cpu_communicator(const CommOptions& options) = 0;

  // "rank 1 (CUDA device 0) on host nodeB": how this process is named in messages.
  virtual std::string describe(const kernels::ComputeContext& where) const = 0;

  // Prints "error: <describe(where)> failed: <reason>; ending the job" to stderr and ends this process
  // and the job: MPI_Abort, or over TCP a notice to the peers (their waits fail naming this rank), the
  // sockets closed and exit status 1. For a failure while training, when peers may wait anywhere.
  [[noreturn]] void end_job(const std::string& reason, const kernels::ComputeContext& where) {
    end(reason, where);
    std::abort();  // end() does not return; this keeps [[noreturn]] honest, which a virtual call cannot be
  }

 protected:
  // What end_job does; never returns.
  virtual void end(const std::string& reason, const kernels::ComputeContext& where) = 0;
};

}  // namespace splat::transport
