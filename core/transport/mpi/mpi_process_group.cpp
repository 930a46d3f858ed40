#include <mpi.h>

#include <climits>

#include "core/transport/mpi/mpi_communicator.h"

namespace splat::transport {

namespace {

// The processes of MPI's world: the setup's collectives on a CPU communicator of their own, which like
// every MPI call here end the job when they time out.
class MpiProcessGroup final : public ProcessGroup {
 public:
  explicit MpiProcessGroup(const CommOptions& setup) : setup_(make_mpi_communicator(setup)) {}

  int rank() const override { return setup_->rank(); }
  int size() const override { return setup_->size(); }
  void barrier() override { setup_->barrier(); }
  void all_reduce_sum(std::span<int64_t> values) override { setup_->all_reduce_sum(values); }
  void broadcast(std::span<std::byte> bytes) override {
    if (bytes.size() > static_cast<size_t>(INT_MAX)) throw std::invalid_argument("broadcast: too many bytes");
    MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  }
  std::unique_ptr<ControlChannel> make_control_channel(const CommOptions& options) override {
    return make_mpi_control_channel(options);
  }
  bool carries_cpu_training() const override { return true; }
  std::unique_ptr<Communicator> make_cpu_communicator(const CommOptions& options) override {
    return make_mpi_communicator(options);
  }
  std::string describe(const kernels::ComputeContext& where) const override { return describe_process(where); }
  void end(const std::string& reason, const kernels::ComputeContext& where) override {
    abort_mpi_job(reason, where);
  }

 private:
  std::unique_ptr<Communicator> setup_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_mpi_process_group(const CommOptions& setup) {
  return std::make_unique<MpiProcessGroup>(setup);
}

}  // namespace splat::transport
