#pragma once
// Runs the ranks of one process: R threads, each with its own Communicator, for `splatlab train --gpus N`
// / `--ranks R`, the GUI's trainer and the tests.
#include <functional>
#include <span>

#include "core/transport/communicator.h"
#include "core/transport/control_channel.h"
#include "kernels/device.h"

namespace splat::transport {

enum class RankBackend {
  Auto,       // see choose_backend
  InProcess,  // threads meeting in host memory; CUDA ranks copy device to device (any number per GPU)
  Nccl,       // one rank per GPU; refused where NCCL was not built in or two ranks share a GPU
};

// Whether this build has the NCCL backend.
bool nccl_built_in();

// Whether CUDA device `from` can copy from and to device `to` directly (peer to peer).
using PeerQuery = std::function<bool(int from, int to)>;

// What Auto means for these contexts: in-process for CPU ranks, for ranks sharing a GPU, and for one
// rank per GPU where every pair of the GPUs reaches each other peer to peer (`peers`; the ranks then
// copy each other's slices with direct device copies, which measured faster than NCCL's sends on two
// NVLink GPUs, bench/NCCL_OR_THREADS.md, and the host waits for no collective); NCCL for one rank per
// GPU where some pair cannot (it finds a path), when it is built in. Throws std::invalid_argument for
// contexts that no backend takes (CPU and CUDA ranks mixed) and for Nccl where it cannot run, saying
// why. Processes of a job (app/job_launch) always meet over NCCL.
RankBackend choose_backend(std::span<const kernels::ComputeContext> contexts, RankBackend wanted = RankBackend::Auto,
                           const PeerQuery& peers = kernels::can_access_peer);

using ContextFor = std::function<kernels::ComputeContext(int rank)>;
using RankWork = std::function<void(Communicator&)>;

// Starts `ranks` threads, rank r computing on context_for(r) (called on the caller's thread first) and
// running work(communicator). Returns when every rank has returned. When a rank fails, the other ranks'
// pending and later collectives throw CommError naming it, and once every thread has stopped the first
// failure is rethrown: as it was when it is a CommError (it names its rank already), otherwise as a
// CommError naming the rank and its device with the original exception nested
// (std::rethrow_if_nested gives it back: out of memory stays kernels::OutOfMemory).
// A rank that returns while a peer waits for it in a collective is a failure too.
void run_ranks(int ranks, const ContextFor& context_for, const RankWork& work,
               RankBackend backend = RankBackend::Auto, const CommOptions& options = {});

// The same, each rank also given its end of the ranks' control channel (control_channel.h), which a
// rank's failure fails as it fails the collectives.
using ControlledRankWork = std::function<void(Communicator&, ControlChannel&)>;
void run_ranks_with_control(int ranks, const ContextFor& context_for, const ControlledRankWork& work,
                            RankBackend backend = RankBackend::Auto, const CommOptions& options = {});

}  // namespace splat::transport
