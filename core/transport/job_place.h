#pragma once
// This process's place in a job of one rank per process, as its launcher tells it through the environment:
// rank, size, local rank and local size, and how the processes meet (MPI, or TCP at MASTER_ADDR:MASTER_PORT).
//
// Three launchers, read in this order, the first whose variables are set winning:
//   1. OpenMPI's mpirun: OMPI_COMM_WORLD_SIZE, _RANK, _LOCAL_RANK, _LOCAL_SIZE. Set per process by the
//      launcher that also wires MPI up, and the most specific: mpirun inside a Slurm allocation passes on
//      the SLURM_* variables of the allocation, which do not describe its processes.
//   2. Slurm's srun: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, and the node's task count from
//      SLURM_NTASKS_PER_NODE, else SLURM_TASKS_PER_NODE ("2(x3),1") at SLURM_NODEID. MASTER_ADDR and
//      MASTER_PORT, where set, are where the tasks meet when MPI cannot see them (srun without PMIx).
//   3. torchrun-style: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT. Last, since
//      these are generic names that a batch script or another tool may export for its own use.
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace splat::transport {

enum class Launcher { OpenMpi, Slurm, Torchrun };

// "mpirun", "srun", "torchrun-style": how messages name the launcher.
const char* launcher_name(Launcher launcher);

// Where rank 0 listens and the other ranks connect.
struct TcpAddress {
  std::string host;
  int port = 0;
  std::string text() const { return host + ":" + std::to_string(port); }
};

struct JobPlace {
  Launcher launcher = Launcher::OpenMpi;
  int rank = 0, size = 1;              // in the whole job
  int local_rank = 0, local_size = 1;  // among the job's processes on this node
  // MASTER_ADDR:MASTER_PORT where set: always for torchrun-style, optional under srun.
  std::optional<TcpAddress> rendezvous;
  // Under srun: whether srun gave the task a process-management interface MPI can join the job through
  // (PMIX_RANK or PMI_RANK set, as `srun --mpi=pmix` or `--mpi=pmi2` do).
  bool pmi = false;
};

// Reads a variable: null when it is not set. std::getenv in the program; a table in the tests.
using Environment = std::function<const char*(const char* name)>;

// This process's place when one of the launchers started it, else nullopt. Throws std::invalid_argument
// naming the variable when a launcher's set is incomplete, malformed or inconsistent.
std::optional<JobPlace> job_place_from_environment(const Environment& environment);
std::optional<JobPlace> job_place_from_environment();  // the process's own environment

// The TCP meeting point of `place`: throws std::invalid_argument saying how to set MASTER_ADDR and
// MASTER_PORT where they are not (srun without PMIx needs them from the batch script).
const TcpAddress& rendezvous_address(const JobPlace& place);

// Slurm's per-node task counts, "2(x3),1" -> {2, 2, 2, 1}. Throws std::invalid_argument naming `name`.
std::vector<int> parse_slurm_tasks_per_node(const std::string& text, const char* name = "SLURM_TASKS_PER_NODE");

}  // namespace splat::transport
