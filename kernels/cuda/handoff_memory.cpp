// kernels/handoff_memory.h on the CUDA runtime (and the host for the CPU backend).
#include "kernels/handoff_memory.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/cuda_util.h"

namespace splat::kernels {
namespace {

using cuda::check;
using cuda::DeviceScope;

// The stream each device's hand-off memory goes back on, made on first use and never destroyed (nor is
// this table): blocks may be dropped at any time until the process ends, after every other stream and
// static is gone. Made together with the pool setting that keeps another stream from waiting for these
// frees (see the header). `keep`: the pool keeps at least this much freed memory for the next block
// instead of giving it back to the driver at the next synchronisation, so that a snapshot of the same size
// reuses its predecessor's memory rather than mapping new memory on the trainer's thread.
cudaStream_t prepare(int ordinal, size_t keep) {
  static auto* mutex = new std::mutex;
  static auto* streams = new std::vector<cudaStream_t>;
  std::lock_guard lock(*mutex);
  if (static_cast<size_t>(ordinal) >= streams->size()) streams->resize(static_cast<size_t>(ordinal) + 1, nullptr);
  cudaStream_t& s = (*streams)[static_cast<size_t>(ordinal)];
  const std::string what = "preparing hand-off memory on CUDA device " + std::to_string(ordinal);
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, ordinal), what.c_str());
  if (!s) {
    int no = 0;
    check(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no), what.c_str());
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), what.c_str());
  }
  if (keep > 0) {
    uint64_t threshold = 0;
    check(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold), what.c_str());
    if (threshold < keep) {
      uint64_t raised = keep;
      check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &raised), what.c_str());
    }
  }
  return s;
}

}  // namespace

// One event per stream that used the block: re-recording it covers everything that stream enqueued
// before, so a viewer that renders the same snapshot many times keeps one.
struct HandoffBlock::Uses {
  struct Use {
    void* stream;
    int ordinal;
    cudaEvent_t event;
  };
  std::mutex mutex;
  std::vector<Use> uses;
};

HandoffBlock::HandoffBlock(const ComputeContext& maker, size_t bytes)
    : where_(maker.device, maker.ordinal), bytes_(bytes) {
  if (bytes == 0) return;
  if (maker.device == Device::CPU) {
    ptr_ = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!ptr_) throw OutOfMemory("out of host memory: could not allocate " + std::to_string(bytes >> 20) + " MiB");
    return;
  }
  const DeviceScope scope(maker.ordinal);
  prepare(maker.ordinal, bytes);  // the pool's settings come before its first block
  uses_ = std::make_unique<Uses>();
  check(cudaMallocAsync(&ptr_, bytes, static_cast<cudaStream_t>(maker.stream)),
        ("allocating " + std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB on CUDA device " +
         std::to_string(maker.ordinal))
            .c_str());
  // The free waits at least for the allocation's place in the maker's stream, should the maker record
  // nothing later (a copy that threw).
  used_on(maker);
}

HandoffBlock::HandoffBlock() = default;
HandoffBlock::~HandoffBlock() { release(); }

HandoffBlock::HandoffBlock(HandoffBlock&& o) noexcept
    : where_(o.where_), ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)),
      uses_(std::move(o.uses_)) {}

HandoffBlock& HandoffBlock::operator=(HandoffBlock&& o) noexcept {
  if (this != &o) {
    release();
    where_ = o.where_;
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
    uses_ = std::move(o.uses_);
  }
  return *this;
}

void HandoffBlock::used_on(const ComputeContext& user) const {
  if (!ptr_ || !uses_ || user.device != Device::CUDA) return;
  std::lock_guard lock(uses_->mutex);
  const DeviceScope scope(user.ordinal);
  Uses::Use* use = nullptr;
  for (Uses::Use& u : uses_->uses)
    if (u.stream == user.stream && u.ordinal == user.ordinal) use = &u;
  if (!use) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating a hand-off event");
    uses_->uses.push_back({user.stream, user.ordinal, e});
    use = &uses_->uses.back();
  }
  check(cudaEventRecord(use->event, static_cast<cudaStream_t>(user.stream)), "recording a hand-off event");
}

void HandoffBlock::release() noexcept {
  if (!ptr_) return;
  void* p = std::exchange(ptr_, nullptr);
  bytes_ = 0;
  if (where_.device == Device::CPU) {
    std::free(p);
    return;
  }
  // No throwing from here (destructors); a lost device leaves the memory to the driver's teardown.
  std::unique_ptr<Uses> uses = std::move(uses_);
  const DeviceScope scope(where_.ordinal, std::nothrow);
  if (!scope.ok()) return;
  cudaStream_t s = nullptr;
  try {
    s = prepare(where_.ordinal, 0);
  } catch (...) {
    return;
  }
  if (uses) {
    for (const Uses::Use& u : uses->uses) {
      // The wait takes the event's state now; the event itself may go right after.
      cudaStreamWaitEvent(s, u.event, 0);
      const DeviceScope on(u.ordinal, std::nothrow);
      if (on.ok()) cudaEventDestroy(u.event);
    }
  }
  cudaFreeAsync(p, s);
}

}  // namespace splat::kernels
