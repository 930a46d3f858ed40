#include "app/mpi_launch.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/transport/run_ranks.h"
#include "kernels/device.h"
#if SPLATLAB_HAVE_MPI && SPLATLAB_HAVE_NCCL
#include "core/transport/mpi/nccl_over_mpi.h"
#endif

namespace splat::app {
namespace {

// An OpenMPI variable's value: a whole number at least `least`; nullopt when it is not set.
std::optional<int> ompi_number(const char* name, int least) {
  const char* text = std::getenv(name);
  if (!text) return std::nullopt;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [at, error] = std::from_chars(text, end, value);
  if (error != std::errc() || at != end || value < least)
    throw std::invalid_argument(std::string(name) + "='" + text + "': expected a whole number of at least " +
                                std::to_string(least) + " (the environment OpenMPI's mpirun gives its processes)");
  return value;
}

int required_number(const char* name, int least) {
  if (const std::optional<int> v = ompi_number(name, least)) return *v;
  throw std::invalid_argument(std::string(name) + " is not set, though OMPI_COMM_WORLD_SIZE is: start splatlab "
                              "with OpenMPI's mpirun, or unset OMPI_COMM_WORLD_SIZE to run without it");
}

}  // namespace

std::optional<MpiLaunch> mpi_launch_from_environment() {
  const std::optional<int> size = ompi_number("OMPI_COMM_WORLD_SIZE", 1);
  if (!size) return std::nullopt;
  MpiLaunch launch{.rank = required_number("OMPI_COMM_WORLD_RANK", 0),
                   .size = *size,
                   .local_rank = required_number("OMPI_COMM_WORLD_LOCAL_RANK", 0),
                   .local_size = required_number("OMPI_COMM_WORLD_LOCAL_SIZE", 1)};
  if (launch.rank >= launch.size || launch.local_rank >= launch.local_size || launch.local_size > launch.size)
    throw std::invalid_argument("OpenMPI's environment is inconsistent: rank " + std::to_string(launch.rank) + " of " +
                                std::to_string(launch.size) + ", local rank " + std::to_string(launch.local_rank) +
                                " of " + std::to_string(launch.local_size));
  return launch;
}

#if SPLATLAB_HAVE_MPI

namespace {
// Scene loading on every process and rank 0 generating the demo scene first can take a while: the
// setup's collectives wait long, as a backstop for a process that hangs.
constexpr transport::CommOptions kSetupWait{.timeout = std::chrono::minutes(30)};
}  // namespace

MpiJob::MpiJob(const MpiLaunch& launch) : launch_(launch), control_(transport::make_mpi_communicator(kSetupWait)) {
  if (control_->rank() != launch_.rank || control_->size() != launch_.size)
    throw std::runtime_error("MPI says rank " + std::to_string(control_->rank()) + " of " +
                             std::to_string(control_->size()) + ", OpenMPI's environment rank " +
                             std::to_string(launch_.rank) + " of " + std::to_string(launch_.size));
}

kernels::ComputeContext MpiJob::choose_device(kernels::Device device) {
  where_ = kernels::ComputeContext(device, device == kernels::Device::CUDA ? launch_.local_rank : 0);
  if (device == kernels::Device::CPU) return where_;
  if (!transport::nccl_built_in())
    throw std::invalid_argument("CUDA ranks in separate processes talk NCCL, and this build has no NCCL: "
                                "train with --device cpu (MPI), or rebuild with NCCL");
  if (const int gpus = kernels::cuda_device_count(); launch_.local_rank >= gpus)
    throw std::invalid_argument("this node runs " + std::to_string(launch_.local_size) +
                                " processes of the job, and it has " + std::to_string(gpus) +
                                " CUDA device(s): start one process per GPU (mpirun -H host:GPUS,...; a process "
                                "takes the GPU numbered by its rank on the node)");
  kernels::use_cuda_device(where_.ordinal);
  return where_;
}

void MpiJob::setup(const std::function<void()>& step) {
  if (failure_) return;
  try {
    step();
  } catch (const std::exception& e) {
    failure_ = e.what();
  }
}

void MpiJob::setup_in_turn(const std::function<void()>& step) {
  const int turn = launch_.rank == 0 ? 0 : launch_.local_rank == 0 ? 1 : 2;
  for (int t = 0; t < 3; ++t) {
    if (t == turn) setup(step);
    control_->barrier();
  }
}

bool MpiJob::agree_setup() {
  std::vector<int64_t> failed(static_cast<size_t>(launch_.size), 0);
  failed[static_cast<size_t>(launch_.rank)] = failure_.has_value();
  control_->all_reduce_sum(failed);
  int first = -1;
  int64_t count = 0;
  for (int r = 0; r < launch_.size; ++r) {
    if (failed[static_cast<size_t>(r)] && first < 0) first = r;
    count += failed[static_cast<size_t>(r)];
  }
  if (first < 0) return true;
  if (first == launch_.rank) {
    const std::string others = count > 1 ? " (the setup of " + std::to_string(count - 1) + " more rank(s) failed too)" : "";
    std::fprintf(stderr, "error: %s: %s%s; no rank started training\n", transport::describe_process(where_).c_str(),
                 failure_->c_str(), others.c_str());
  }
  return false;
}

std::unique_ptr<transport::Communicator> MpiJob::make_communicator() const {
#if SPLATLAB_HAVE_NCCL
  if (where_.device == kernels::Device::CUDA) return transport::make_nccl_communicator_over_mpi(where_);
#endif
  return transport::make_mpi_communicator();
}

int MpiJob::run(const std::function<int()>& training) const {
  try {
    return training();
  } catch (const std::exception& e) {
    transport::abort_mpi_job(e.what(), where_);
  } catch (...) {
    transport::abort_mpi_job("an exception that is not a std::exception", where_);
  }
}

#endif

}  // namespace splat::app
