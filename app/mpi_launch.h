#pragma once
// `splatlab train` started by OpenMPI's mpirun: one rank per process, on one node or across nodes.
// Nothing to ask for on the command line: OpenMPI tells every process it starts its place in the job
// (OMPI_COMM_WORLD_SIZE, _RANK, _LOCAL_RANK, _LOCAL_SIZE), and a process that has them is one rank.
//
// A job goes through two parts, each with its own way of failing:
//   1. setup, on every process (arguments, scene, device) before anything is written. A failure is kept,
//      and agree_setup() has the lowest rank that failed print why, naming itself and its host, while
//      every process returns 1: a clean stop that leaves nothing behind.
//   2. training (run()) over make_communicator(): NCCL on the GPU of the process's node-local rank (MPI
//      only carries NCCL's id), or MPI for CPU ranks. A process that fails here (a throw, a peer's timeout)
//      prints one line naming its rank, device and host and ends the job (MPI_Abort): its peers may be
//      waiting inside NCCL on the GPU, where nothing else reaches them. mpirun then stops them; a checkpoint
//      is written to a temporary file and renamed, so the one on disk is always a whole one.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/transport/communicator.h"
#if SPLATLAB_HAVE_MPI
#include "core/transport/mpi/mpi_communicator.h"
#endif

namespace splat::app {

struct MpiLaunch {
  int rank = 0, size = 1;              // in the whole job
  int local_rank = 0, local_size = 1;  // among the job's processes on this node
};

// This process's place in the job when mpirun started it, else nullopt. Throws std::invalid_argument
// naming the variable when OpenMPI's variables are incomplete or malformed.
std::optional<MpiLaunch> mpi_launch_from_environment();

#if SPLATLAB_HAVE_MPI
class MpiJob {
 public:
  explicit MpiJob(const MpiLaunch& launch);  // MPI_Init; MPI_Finalize when it goes
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  const MpiLaunch& launch() const { return launch_; }
  bool is_root() const { return launch_.rank == 0; }

  // The device this process trains on: the CPU, or the CUDA device numbered by its node-local rank
  // (refused where the node has fewer GPUs than processes, or the build has no NCCL), made this thread's
  // current device for good. Named in messages.
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

  // This rank's communicator on the chosen device: NCCL bootstrapped over MPI for CUDA, MPI for the CPU.
  std::unique_ptr<transport::Communicator> make_communicator() const;

  // Runs the training and returns its exit code; any failure ends the whole job, naming this process.
  int run(const std::function<int()>& training) const;

 private:
  MpiLaunch launch_;
  transport::MpiSession session_;
  std::unique_ptr<transport::Communicator> control_;  // setup's turns and agreement: MPI, host values only
  kernels::ComputeContext where_{kernels::Device::CPU};
  std::optional<std::string> failure_;
};
#endif

}  // namespace splat::app
