#include "kernels/cuda/count_readback.cuh"

#include <utility>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/host_waits.h"

namespace splat::kernels::cuda {

CountReadback::CountReadback(int /*ordinal*/) {
  check(cudaMallocHost(&host_, kSlots * sizeof(int64_t)), "allocating pinned counts");
  for (cudaEvent_t& e : events_) check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating a count event");
}

CountReadback::~CountReadback() {
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
  cudaFreeHost(host_);
}

bool CountReadback::arrived(int slot, bool wait) {
  if (wait) {
    if (cudaEventQuery(events_[slot]) == cudaErrorNotReady) note_host_wait("reading a device count");
    check(cudaEventSynchronize(events_[slot]), "waiting for a device count");
    return true;
  }
  const cudaError_t e = cudaEventQuery(events_[slot]);
  if (e == cudaErrorNotReady) return false;
  check(e, "querying a device count");
  return true;
}

void CountReadback::queue(const int64_t* device_count, Tag tag, cudaStream_t stream) {
  if (queued_ == kSlots) {  // the throttle: see the header
    check(cudaEventSynchronize(events_[oldest_]), "waiting for the oldest device count");
    ready_.push_back({tags_[oldest_], host_[oldest_]});
    oldest_ = (oldest_ + 1) % kSlots;
    --queued_;
  }
  const int slot = (oldest_ + queued_) % kSlots;
  check(cudaMemcpyAsync(host_ + slot, device_count, sizeof(int64_t), cudaMemcpyDeviceToHost, stream),
        "copying a device count");
  check(cudaEventRecord(events_[slot], stream), "recording a device count");
  tags_[slot] = tag;
  ++queued_;
}

std::vector<CountReadback::Arrived> CountReadback::take(bool wait) {
  std::vector<Arrived> out = std::move(ready_);
  ready_.clear();
  while (queued_ > 0 && arrived(oldest_, wait)) {
    out.push_back({tags_[oldest_], host_[oldest_]});
    oldest_ = (oldest_ + 1) % kSlots;
    --queued_;
  }
  return out;
}

}  // namespace splat::kernels::cuda
