#include "core/transport/mpi/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace splat::transport {

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// Polls rather than blocks so that the timeout holds. Pending requests point into the caller's buffers,
// so a timeout cannot unwind: it ends the job.
void wait_or_end_job(const char* op, std::vector<MPI_Request>& requests, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    if (std::chrono::steady_clock::now() > deadline)
      abort_mpi_job(std::string(op) + " did not complete within " +
                    std::to_string(std::chrono::duration<double>(timeout).count()) + " s (a peer stopped or hangs)");
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

// A communicator of our own (MPI_Comm_dup of the world): no mix-up with anyone else's messages.
class OwnComm {
 public:
  OwnComm() { MPI_Comm_dup(MPI_COMM_WORLD, &comm_); }
  ~OwnComm() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  OwnComm(const OwnComm&) = delete;
  OwnComm& operator=(const OwnComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

class MpiControlChannel final : public ControlChannel {
 public:
  explicit MpiControlChannel(const CommOptions& options) : options_(options) {}
  void share(std::span<int64_t> values) override {
    if (values.size() > static_cast<size_t>(INT_MAX)) throw std::invalid_argument("too many control values");
    std::vector<MPI_Request> requests(1);
    MPI_Ibcast(values.data(), static_cast<int>(values.size()), MPI_INT64_T, 0, comm_.get(), requests.data());
    wait_or_end_job("the control channel", requests, options_.timeout);
  }

 private:
  CommOptions options_;
  OwnComm comm_;
};

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(const CommOptions& options) : options_(options) {
    MPI_Comm_rank(comm_.get(), &rank_);
    MPI_Comm_size(comm_.get(), &size_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const kernels::ComputeContext& context() const override { return where_; }

  void all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) override {
    check_slices(sends, recvs);
    const auto* src = static_cast<const std::byte*>(send);
    auto* dst = static_cast<std::byte*>(recv);
    if (recvs.counts[rank_] > 0) std::memcpy(dst + recvs.offsets[rank_], src + sends.offsets[rank_], recvs.counts[rank_]);
    // MPI counts are int: slices go in chunks, which MPI delivers in order between one pair of ranks.
    constexpr int64_t kChunk = int64_t{1} << 30;
    std::vector<MPI_Request> requests;
    for (int p = 0; p < size_; ++p) {
      if (p == rank_) continue;
      for (int64_t at = 0; at < recvs.counts[p]; at += kChunk)
        MPI_Irecv(dst + recvs.offsets[p] + at, static_cast<int>(std::min(kChunk, recvs.counts[p] - at)), MPI_BYTE, p,
                  kTag, comm_.get(), &requests.emplace_back());
      for (int64_t at = 0; at < sends.counts[p]; at += kChunk)
        MPI_Isend(src + sends.offsets[p] + at, static_cast<int>(std::min(kChunk, sends.counts[p] - at)), MPI_BYTE, p,
                  kTag, comm_.get(), &requests.emplace_back());
    }
    wait_all("all_to_all_v", requests);
  }

  void all_reduce_sum(std::span<float> host_values) override {
    reduce(host_values.data(), host_values.size(), MPI_FLOAT, "all_reduce_sum(float)");
  }
  void all_reduce_sum(std::span<int64_t> host_values) override {
    reduce(host_values.data(), host_values.size(), MPI_INT64_T, "all_reduce_sum(int64)");
  }

 private:
  static constexpr int kTag = 12;

  void reduce(void* values, size_t n, MPI_Datatype type, const char* op) {
    if (n > static_cast<size_t>(INT_MAX)) throw std::invalid_argument(std::string(op) + ": too many values");
    std::vector<MPI_Request> requests(1);
    MPI_Iallreduce(MPI_IN_PLACE, values, static_cast<int>(n), type, MPI_SUM, comm_.get(), requests.data());
    wait_all(op, requests);
  }

  void wait_all(const char* op, std::vector<MPI_Request>& requests) { wait_or_end_job(op, requests, options_.timeout); }

  CommOptions options_;
  kernels::ComputeContext where_{kernels::Device::CPU};
  OwnComm comm_;
  int rank_ = 0, size_ = 1;
};

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::unique_ptr<Communicator> make_mpi_communicator(const CommOptions& options) {
  return std::make_unique<MpiCommunicator>(options);
}

std::unique_ptr<ControlChannel> make_mpi_control_channel(const CommOptions& options) {
  return std::make_unique<MpiControlChannel>(options);
}

std::string describe_process(const kernels::ComputeContext& where) {
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int length = 0;
  MPI_Get_processor_name(host, &length);
  return describe_rank(world_rank(), where) + " on host " + std::string(host, static_cast<size_t>(length));
}

void abort_mpi_job(const std::string& reason, const kernels::ComputeContext& where) {
  std::fprintf(stderr, "error: %s failed: %s; ending the MPI job\n", describe_process(where).c_str(), reason.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest if it did
}

}  // namespace splat::transport
