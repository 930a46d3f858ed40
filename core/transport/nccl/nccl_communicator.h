#pragma once
// The NCCL backend: one rank per GPU (NCCL refuses two ranks on one GPU: "Duplicate GPU detected"; the
// in-process backend covers that case). Ranks are threads of one process (run_ranks) or processes of one
// job, whose process group (process_group.h: MPI or the TCP rendezvous) hands out the id. Built only where NCCL is found
// (SPLATLAB_HAVE_NCCL).
//
// NCCL kernels wait on the GPU for their peers, so a dead peer would block a stream forever: the
// communicator is non-blocking and every call polls its stream, NCCL's asynchronous error, the thread
// group's abort flag and the timeout until the collective completes, and aborts the NCCL communicator
// when any of them fails. Each call therefore returns with its work done on the device.
#include <array>
#include <memory>

#include "core/transport/communicator.h"

namespace splat::transport {

class ProcessGroup;
class Rendezvous;

// The id every rank of one NCCL group joins with (ncclUniqueId's bytes): made once, by one rank, and
// handed to the others: directly to threads, through the job's process group to processes.
struct NcclId {
  std::array<char, 128> bytes{};
};
NcclId make_nccl_id();

// Joins the group as `rank` of `size`, computing on `where` (a CUDA context; its own GPU). Blocks until
// every rank has joined (within the timeout). `abort_channel`, shared by thread ranks, carries one
// rank's failure to the others' pending calls; null for processes (there a failing process ends the job).
std::unique_ptr<Communicator> make_nccl_communicator(const NcclId& id, int rank, int size,
                                                     const kernels::ComputeContext& where,
                                                     const CommOptions& options = {},
                                                     std::shared_ptr<Rendezvous> abort_channel = nullptr);

// This process's communicator in `group`'s job, on its own GPU `where`: rank 0 makes the id and the group
// broadcasts it. Every process of the job calls it.
std::unique_ptr<Communicator> make_nccl_communicator(ProcessGroup& group, const kernels::ComputeContext& where,
                                                     const CommOptions& options = {});

}  // namespace splat::transport
