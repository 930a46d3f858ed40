#include "core/transport/nccl/nccl_communicator.h"

#include <cuda_runtime.h>
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "core/transport/process_group.h"
#include "core/transport/rendezvous.h"
#include "kernels/buffer.h"
#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"

namespace splat::transport {

static_assert(sizeof(ncclUniqueId) == sizeof(NcclId::bytes), "NcclId must hold an ncclUniqueId");

namespace {

using kernels::cuda::DeviceScope;

void check_nccl(ncclResult_t r, const std::string& what) {
  if (r != ncclSuccess && r != ncclInProgress) throw std::runtime_error(what + ": " + ncclGetErrorString(r));
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(const NcclId& id, int rank, int size, const kernels::ComputeContext& where,
                   const CommOptions& options, std::shared_ptr<Rendezvous> abort_channel)
      : rank_(rank),
        size_(size),
        where_(where),
        name_(describe_rank(rank, where)),
        options_(options),
        abort_channel_(std::move(abort_channel)),
        stream_(static_cast<cudaStream_t>(where.stream)),
        scratch_(where) {
    if (where.device != kernels::Device::CUDA)
      throw std::invalid_argument(name_ + ": the NCCL backend needs a CUDA rank");
    DeviceScope on(where.ordinal);
    ncclUniqueId unique;
    std::memcpy(&unique, id.bytes.data(), sizeof unique);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // calls return at once; wait() watches them (see the header)
    const ncclResult_t r = ncclCommInitRankConfig(&comm_, size, unique, rank, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
      comm_ = nullptr;
      fail("joining the NCCL group", std::string("ncclCommInitRankConfig: ") + ncclGetErrorString(r));
    }
    wait("joining the NCCL group", /*stream_too=*/false);
  }

  ~NcclCommunicator() override {
    if (!comm_) return;
    DeviceScope on(where_.ordinal, std::nothrow);
    if (!on.ok()) return;
    // Finalize flushes what is pending and needs the peers; a peer that is gone makes it time out,
    // and abort releases the communicator without them.
    const ncclResult_t finalize = ncclCommFinalize(comm_);
    bool clean = finalize == ncclSuccess || finalize == ncclInProgress;
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    ncclResult_t state = ncclInProgress;
    while (clean && state == ncclInProgress) {
      ncclCommGetAsyncError(comm_, &state);
      if (std::chrono::steady_clock::now() > deadline) clean = false;
      std::this_thread::yield();
    }
    if (clean && state == ncclSuccess)
      ncclCommDestroy(comm_);
    else
      ncclCommAbort(comm_);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const kernels::ComputeContext& context() const override { return where_; }

  void all_to_all_v(const void* send, PeerSlices sends, void* recv, PeerSlices recvs) override {
    const ExchangeBuffer one{send, sends, recv, recvs};
    all_to_all_buffers(std::span(&one, 1));
  }

  void all_to_all_buffers(std::span<const ExchangeBuffer> buffers) override {
    static constexpr const char* op = "all_to_all_v";
    for (const ExchangeBuffer& b : buffers) check_slices(b.sends, b.recvs);
    throw_if_unusable(op);
    DeviceScope on(where_.ordinal);
    for (const ExchangeBuffer& b : buffers)
      if (const int64_t own = b.recvs.counts[rank_]; own > 0)
        kernels::cuda::check(cudaMemcpyAsync(static_cast<std::byte*>(b.recv) + b.recvs.offsets[rank_],
                                             static_cast<const std::byte*>(b.send) + b.sends.offsets[rank_], own,
                                             cudaMemcpyDeviceToDevice, stream_),
                             "copying the rank's own slice");
    // Zero counts are skipped on both sides alike, since counts agree pairwise. One group for every
    // buffer: NCCL runs its sends and receives together, and the host waits once.
    nccl_call(op, ncclGroupStart());
    for (const ExchangeBuffer& b : buffers) {
      const auto* src = static_cast<const std::byte*>(b.send);
      auto* dst = static_cast<std::byte*>(b.recv);
      for (int p = 0; p < size_; ++p) {
        if (p == rank_) continue;
        if (b.sends.counts[p] > 0)
          nccl_call(op, ncclSend(src + b.sends.offsets[p], b.sends.counts[p], ncclUint8, p, comm_, stream_));
        if (b.recvs.counts[p] > 0)
          nccl_call(op, ncclRecv(dst + b.recvs.offsets[p], b.recvs.counts[p], ncclUint8, p, comm_, stream_));
      }
    }
    nccl_call(op, ncclGroupEnd());
    wait(op, true);
  }

  void all_reduce_sum(std::span<float> host_values) override {
    reduce(host_values.data(), host_values.size(), sizeof(float), ncclFloat32, "all_reduce_sum(float)");
  }
  void all_reduce_sum(std::span<int64_t> host_values) override {
    reduce(host_values.data(), host_values.size(), sizeof(int64_t), ncclInt64, "all_reduce_sum(int64)");
  }

 private:
  // NCCL reduces device memory: the host values go through a small device buffer.
  void reduce(void* host, size_t n, size_t element_bytes, ncclDataType_t type, const char* op) {
    throw_if_unusable(op);
    DeviceScope on(where_.ordinal);
    scratch_.resize(n * element_bytes);
    kernels::copy_from_host(scratch_.data(), where_, host, scratch_.bytes(), "an NCCL host sum");
    nccl_call(op, ncclAllReduce(scratch_.data(), scratch_.data(), n, type, ncclSum, comm_, stream_));
    wait(op, true);  // before the copy back, which would otherwise block on a stream that may never finish
    kernels::copy_to_host(host, scratch_.data(), where_, scratch_.bytes(), "an NCCL host sum");
  }

  void nccl_call(const char* op, ncclResult_t r) {
    if (r != ncclSuccess && r != ncclInProgress) fail(op, std::string("NCCL: ") + ncclGetErrorString(r) + detail());
  }

  std::string detail() const {
    const char* last = comm_ ? ncclGetLastError(comm_) : nullptr;
    return last && *last ? std::string(" (") + last + ")" : std::string();
  }

  void throw_if_unusable(const char* op) {
    if (abort_channel_) abort_channel_->throw_if_aborted(rank_, op);
    if (!comm_) throw CommError(name_ + " in " + op + ": its NCCL communicator was aborted by an earlier failure", rank_);
  }

  // Polls until NCCL has accepted the work (and, with stream_too, the stream has run it), or fails.
  void wait(const char* op, bool stream_too) {
    if (stream_too) kernels::note_host_wait("an NCCL collective waiting for its stream");
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      ncclCommGetAsyncError(comm_, &state);
      if (state != ncclSuccess && state != ncclInProgress)
        fail(op, std::string("NCCL: ") + ncclGetErrorString(state) + detail());
      if (state == ncclSuccess) {
        if (!stream_too) return;
        const cudaError_t e = cudaStreamQuery(stream_);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) fail(op, std::string("CUDA: ") + cudaGetErrorString(e));
      }
      if (abort_channel_ && abort_channel_->failed_rank() >= 0) {
        ncclCommAbort(comm_);  // peers' kernels will never arrive: release ours
        comm_ = nullptr;
        abort_channel_->throw_if_aborted(rank_, op);
      }
      if (std::chrono::steady_clock::now() > deadline)
        fail(op, "did not complete within " + std::to_string(std::chrono::duration<double>(options_.timeout).count()) +
                     " s (a peer stopped or hangs)");
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  // Aborts the NCCL communicator, tells the thread group, and throws naming this rank.
  [[noreturn]] void fail(const char* op, const std::string& problem) {
    if (comm_) ncclCommAbort(comm_);
    comm_ = nullptr;
    if (abort_channel_ && !abort_channel_->abort(rank_, std::string(op) + ": " + problem))
      abort_channel_->throw_if_aborted(rank_, op);  // another rank failed first: report that cause
    throw CommError(name_ + " in " + op + ": " + problem, rank_);
  }

  int rank_, size_;
  kernels::ComputeContext where_;
  std::string name_;
  CommOptions options_;
  std::shared_ptr<Rendezvous> abort_channel_;
  cudaStream_t stream_;
  ncclComm_t comm_ = nullptr;
  kernels::Buffer<std::byte> scratch_;
};

}  // namespace

NcclId make_nccl_id() {
  ncclUniqueId unique;
  check_nccl(ncclGetUniqueId(&unique), "ncclGetUniqueId");
  NcclId id;
  std::memcpy(id.bytes.data(), &unique, sizeof unique);
  return id;
}

std::unique_ptr<Communicator> make_nccl_communicator(const NcclId& id, int rank, int size,
                                                     const kernels::ComputeContext& where, const CommOptions& options,
                                                     std::shared_ptr<Rendezvous> abort_channel) {
  return std::make_unique<NcclCommunicator>(id, rank, size, where, options, std::move(abort_channel));
}

std::unique_ptr<Communicator> make_nccl_communicator(ProcessGroup& group, const kernels::ComputeContext& where,
                                                     const CommOptions& options) {
  NcclId id;
  if (group.rank() == 0) id = make_nccl_id();
  group.broadcast(std::as_writable_bytes(std::span(id.bytes)));
  return make_nccl_communicator(id, group.rank(), group.size(), where, options);
}

}  // namespace splat::transport
