#include "app/job_launch.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "core/transport/run_ranks.h"
#include "core/transport/tcp/tcp_group.h"
#include "kernels/device.h"
#if SPLATLAB_HAVE_NCCL
#include "core/transport/nccl/nccl_communicator.h"
#endif

namespace splat::app {

namespace {
// Scene loading on every process and rank 0 generating the demo scene first can take a while: the
// setup's collectives wait long, as a backstop for a process that hangs.
constexpr transport::CommOptions kSetupWait{.timeout = std::chrono::minutes(30)};
}  // namespace

Job::Job(const transport::JobPlace& place) : place_(place) {
  using transport::Launcher;
  if (place_.launcher == Launcher::OpenMpi) {
#if SPLATLAB_HAVE_MPI
    mpi_.emplace();
    if (mpi_->rank() != place_.rank || mpi_->size() != place_.size)
      throw std::runtime_error("MPI says rank " + std::to_string(mpi_->rank()) + " of " + std::to_string(mpi_->size()) +
                               ", OpenMPI's environment rank " + std::to_string(place_.rank) + " of " +
                               std::to_string(place_.size));
    group_ = transport::make_mpi_process_group(kSetupWait);
    return;
#else
    throw std::invalid_argument("started by mpirun, but this splatlab was built without MPI (scripts/deps.sh "
                                "installs libopenmpi-dev; rebuild)");
#endif
  }
#if SPLATLAB_HAVE_MPI
  // srun's tasks are one MPI job only where srun gave them PMIx (or PMI-2) and MPI sees srun's job through
  // it. Without such an interface MPI_Init is not tried: depending on the MPI build it makes every task a
  // job of its own or refuses to start. Where MPI's view differs, the session stays unused until the end.
  if (place_.launcher == Launcher::Slurm && place_.pmi) {
    mpi_.emplace();
    if (mpi_->rank() == place_.rank && mpi_->size() == place_.size) {
      group_ = transport::make_mpi_process_group(kSetupWait);
      return;
    }
  }
#endif
  group_ = transport::meet_over_tcp(transport::rendezvous_address(place_), place_.rank, place_.size,
                                    {.wait = kSetupWait.timeout});
}

kernels::ComputeContext Job::choose_device(kernels::Device device) {
  where_ = kernels::ComputeContext(device, device == kernels::Device::CUDA ? place_.local_rank : 0);
  if (device == kernels::Device::CPU) {
    if (!group_->carries_cpu_training())
      throw std::invalid_argument(std::string("--device cpu: these ") + transport::launcher_name(place_.launcher) +
                                  " processes met over TCP, which carries no CPU ranks' training data (CUDA ranks "
                                  "talk NCCL): CPU ranks in separate processes need MPI (mpirun, or srun "
                                  "--mpi=pmix); on one machine --ranks R runs R CPU ranks as threads of one process");
    return where_;
  }
  if (!transport::nccl_built_in())
    throw std::invalid_argument(std::string("CUDA ranks in separate processes talk NCCL, and this build has no NCCL: ") +
                                (group_->carries_cpu_training() ? "train with --device cpu (MPI), or rebuild with NCCL"
                                                                : "rebuild with NCCL"));
  if (const int gpus = kernels::cuda_device_count(); place_.local_rank >= gpus)
    throw std::invalid_argument("this node runs " + std::to_string(place_.local_size) +
                                " processes of the job, and it has " + std::to_string(gpus) +
                                " CUDA device(s): start one process per GPU (a process takes the GPU numbered by "
                                "its rank on the node)");
  kernels::use_cuda_device(where_.ordinal);
  where_ = kernels::on_own_stream(where_, kernels::StreamPriority::Training, stream_);
  return where_;
}

void Job::setup(const std::function<void()>& step) {
  if (failure_) return;
  try {
    step();
  } catch (const std::exception& e) {
    failure_ = e.what();
  }
}

void Job::talk(const std::function<void()>& collective) {
  try {
    collective();
  } catch (const std::exception& e) {
    group_->end_job(e.what(), where_);
  }
}

void Job::setup_in_turn(const std::function<void()>& step) {
  const int turn = place_.rank == 0 ? 0 : place_.local_rank == 0 ? 1 : 2;
  for (int t = 0; t < 3; ++t) {
    if (t == turn) setup(step);
    talk([&] { group_->barrier(); });
  }
}

bool Job::agree_setup() {
  std::vector<int64_t> failed(static_cast<size_t>(place_.size), 0);
  failed[static_cast<size_t>(place_.rank)] = failure_.has_value();
  talk([&] { group_->all_reduce_sum(failed); });
  int first = -1;
  int64_t count = 0;
  for (int r = 0; r < place_.size; ++r) {
    if (failed[static_cast<size_t>(r)] && first < 0) first = r;
    count += failed[static_cast<size_t>(r)];
  }
  if (first < 0) return true;
  if (first == place_.rank) {
    const std::string others = count > 1 ? " (the setup of " + std::to_string(count - 1) + " more rank(s) failed too)" : "";
    std::fprintf(stderr, "error: %s: %s%s; no rank started training\n", group_->describe(where_).c_str(),
                 failure_->c_str(), others.c_str());
  }
  return false;
}

std::unique_ptr<transport::Communicator> Job::make_communicator() {
#if SPLATLAB_HAVE_NCCL
  if (where_.device == kernels::Device::CUDA) return transport::make_nccl_communicator(*group_, where_);
#endif
  return group_->make_cpu_communicator({});
}

std::unique_ptr<transport::ControlChannel> Job::make_control_channel() { return group_->make_control_channel({}); }

int Job::run(const std::function<int()>& training) {
  try {
    return training();
  } catch (const std::exception& e) {
    group_->end_job(e.what(), where_);
  } catch (...) {
    group_->end_job("an exception that is not a std::exception", where_);
  }
}

}  // namespace splat::app
