// The CUDA side of the in-process copier (rank_copier.h): the only place the in-process backend
// touches the CUDA runtime.
#include <cuda_runtime.h>

#include <vector>

#include "core/transport/rank_copier.h"
#include "kernels/cuda_util.h"
#include "kernels/device.h"

namespace splat::transport {

namespace {

using kernels::cuda::check;
using kernels::cuda::DeviceScope;

class CudaCopier final : public RankCopier {
 public:
  explicit CudaCopier(const kernels::ComputeContext& where)
      : where_(where), ordinal_(where.ordinal), stream_(static_cast<cudaStream_t>(where.stream)) {
    DeviceScope on(ordinal_);
    check(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming), "creating the exchange's ready event");
    check(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "creating the exchange's done event");
    check(cudaEventCreateWithFlags(&own_done_, cudaEventDisableTiming), "creating the own rows' event");
    check(cudaStreamCreateWithFlags(&own_stream_, cudaStreamNonBlocking), "creating the own rows' stream");
  }
  ~CudaCopier() override {
    DeviceScope on(ordinal_, std::nothrow);
    if (!on.ok()) return;  // a lost device: nothing left to release
    cudaEventDestroy(ready_);
    cudaEventDestroy(done_);
    cudaEventDestroy(own_done_);
    cudaStreamDestroy(own_stream_);
  }

  void* ready() override {
    DeviceScope on(ordinal_);
    check(cudaEventRecord(ready_, stream_), "recording the exchange's ready event");
    return ready_;
  }
  void copy_from(void* dst, const void* src, size_t bytes, void* peer_ready) override {
    DeviceScope on(ordinal_);
    check(cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(peer_ready), 0), "waiting for a peer's sends");
    // cudaMemcpyDefault: unified addressing finds both devices (one GPU, or a peer copy between two).
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_), "copying a peer's slice");
  }
  bool copy_rows_to(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate,
                    void* peer_ready, int peer_device) override {
    DeviceScope on(ordinal_);
    check(cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(peer_ready), 0), "waiting for a peer's buffers");
    if (reaches(peer_device)) {
      kernels::copy_gated_rows(where_, columns, rows, gate);  // a kernel: writes over the link
      return true;
    }
    // Another GPU that this one cannot write directly (no peer access): every row, through the runtime.
    for (const kernels::RowColumn& c : columns)
      check(cudaMemcpyAsync(c.to, c.from, size_t(rows * c.row_bytes), cudaMemcpyDefault, stream_),
            "copying a peer's rows");
    return false;
  }
  // The own rows need only this rank's ready token (recorded on its stream before it posted), so they
  // are copied while the copies to the peers wait for those peers and cross the link: on two GPUs they
  // had added 6-19 us to each exchange's path (bench/TWO_GPUS.md, "The ranks' timelines").
  void copy_own_rows(std::span<const kernels::RowColumn> columns, int64_t rows, const int32_t* gate) override {
    DeviceScope on(ordinal_);
    check(cudaStreamWaitEvent(own_stream_, ready_, 0), "starting the own rows after the ready token");
    kernels::ComputeContext beside = where_;
    beside.stream = own_stream_;
    kernels::copy_gated_rows(beside, columns, rows, gate);
    check(cudaEventRecord(own_done_, own_stream_), "recording the own rows' copy");
    check(cudaStreamWaitEvent(stream_, own_done_, 0), "joining the own rows' copy");
  }
  void* copies_done() override {
    DeviceScope on(ordinal_);
    check(cudaEventRecord(done_, stream_), "recording the exchange's done event");
    return done_;
  }
  void after_peer(void* peer_done) override {
    DeviceScope on(ordinal_);
    check(cudaStreamWaitEvent(stream_, static_cast<cudaEvent_t>(peer_done), 0), "waiting for a peer's copies");
  }

 private:
  // Whether a kernel on this rank's device may reach CUDA device `device`'s memory: its own, or a peer's
  // that it reaches directly (run_ranks enables peer access wherever the GPUs support it). Asked once
  // per device.
  bool reaches(int device) {
    if (device == ordinal_) return true;
    if (device < 0) return false;
    if (size_t(device) >= reach_.size()) reach_.resize(size_t(device) + 1, -1);
    if (reach_[size_t(device)] < 0) reach_[size_t(device)] = kernels::can_access_peer(ordinal_, device) ? 1 : 0;
    return reach_[size_t(device)] == 1;
  }

  kernels::ComputeContext where_;
  int ordinal_;
  cudaStream_t stream_;
  cudaEvent_t ready_ = nullptr, done_ = nullptr, own_done_ = nullptr;
  cudaStream_t own_stream_ = nullptr;  // copy_own_rows()
  std::vector<int8_t> reach_;  // per CUDA device: -1 not asked yet, else whether reaches() holds
};

}  // namespace

std::unique_ptr<RankCopier> make_cuda_rank_copier(const kernels::ComputeContext& where) {
  return std::make_unique<CudaCopier>(where);
}

}  // namespace splat::transport
