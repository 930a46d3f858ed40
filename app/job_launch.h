#pragma once
// `splatlab train` as one rank of a job of one rank per process, on one node or across nodes, started by
// OpenMPI's mpirun, Slurm's srun, or a torchrun-style launcher. Nothing to ask for on the command line: the
// launcher tells every process its place in the job (core/transport/job_place.h), and a process that has
// one is one rank.
//
// The processes meet through MPI where it sees the job (mpirun; srun with PMIx), otherwise over a TCP
// rendezvous at MASTER_ADDR:MASTER_PORT (core/transport/tcp/). Either way the job goes through two parts,
// each with its own way of failing:
//   1. setup, on every process (arguments, scene, device) before anything is written. A failure is kept,
//      and agree_setup() has the lowest rank that failed print why, naming itself and its host, while
//      every process returns 1: a clean stop that leaves nothing behind.
//   2. training (run()) over make_communicator(): NCCL on the GPU of the process's node-local rank (the
//      process group only carries NCCL's id), or MPI for CPU ranks (refused over TCP: it has no CPU
//      communicator). A process that fails here (a throw, a peer's timeout) prints one line naming its
//      rank, device and host and ends the job: its peers may be waiting inside NCCL on the GPU, where
//      nothing else reaches them. Under MPI that is MPI_Abort (mpirun stops the others); over TCP a notice
//      to the peers and the sockets closed, so their next wait fails naming it, then exit status 1. A
//      checkpoint is written to a temporary file and renamed, so the one on disk is always a whole one.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/transport/communicator.h"
#include "core/transport/job_place.h"
#include "core/transport/process_group.h"
#include "kernels/stream.h"
#if SPLATLAB_HAVE_MPI
#include "core/transport/mpi/mpi_communicator.h"
#endif

namespace splat::app {

class Job {
 public:
  // Meets the job's other processes (MPI_Init where MPI sees the job; MPI_Finalize when it goes). Throws
  // where they cannot meet, naming the address or the variable.
  explicit Job(const transport::JobPlace& place);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  const transport::JobPlace& place() const { return place_; }
  bool is_root() const { return place_.rank == 0; }

  // The device this process trains on: the CPU, or the CUDA device numbered by its node-local rank
  // (refused where the node has fewer GPUs than processes, or the build has no NCCL), made this thread's
  // current device for good, on a stream of this job's own at the device's highest priority (as every
  // CUDA rank, core/transport/rank_plan.h RankStreams). Named in messages.
  kernels::ComputeContext choose_device(kernels::Device device);

  // A setup step: runs `step` unless an earlier step of this process failed, and keeps its failure for
  // agree_setup().
  void setup(const std::function<void()>& step);
  // The same, one process after another in three turns: rank 0, then the first process of every node,
  // then the rest. For work that fills a cache other processes may share on one disk (the demo scene):
  // the first makes it, the others find it made.
  void setup_in_turn(const std::function<void()>& step);
  // Whether every process's setup succeeded; where one did not, the lowest rank that failed has printed
  // its failure and every process gets false (and exits with 1).
  bool agree_setup();

  // This rank's communicator on the chosen device: NCCL for CUDA (its id handed out by the process group),
  // MPI for the CPU.
  std::unique_ptr<transport::Communicator> make_communicator();
  // This process's end of rank 0's control channel.
  std::unique_ptr<transport::ControlChannel> make_control_channel();

  // Runs the training and returns its exit code; any failure ends the whole job, naming this process.
  int run(const std::function<int()>& training);

 private:
  // A collective of the setup: a failure of the meeting itself (a peer gone) ends the job.
  void talk(const std::function<void()>& collective);

  transport::JobPlace place_;
#if SPLATLAB_HAVE_MPI
  std::optional<transport::MpiSession> mpi_;  // before group_: MPI_Finalize after the group is gone
#endif
  std::unique_ptr<transport::ProcessGroup> group_;
  std::optional<kernels::PriorityStream> stream_;  // where_'s stream on CUDA; outlives the communicator
  kernels::ComputeContext where_{kernels::Device::CPU};
  std::optional<std::string> failure_;
};

}  // namespace splat::app
