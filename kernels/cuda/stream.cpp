// kernels/stream.h on the CUDA runtime.
#include "kernels/stream.h"

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"

namespace splat::kernels {
namespace {

using cuda::check;
using cuda::DeviceScope;

cudaStream_t stream_of(const ComputeContext& c) { return static_cast<cudaStream_t>(c.stream); }

}  // namespace

StreamPriorityRange stream_priority_range(int ordinal) {
  const DeviceScope on(ordinal);
  int least = 0, greatest = 0;
  check(cudaDeviceGetStreamPriorityRange(&least, &greatest),
        ("reading the stream priorities of CUDA device " + std::to_string(ordinal)).c_str());
  return {least, greatest};
}

PriorityStream::PriorityStream(int ordinal, StreamPriority priority) : ordinal_(ordinal) {
  const StreamPriorityRange range = stream_priority_range(ordinal);
  const DeviceScope on(ordinal);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                     priority_number(range, priority)),
        ("creating a stream on CUDA device " + std::to_string(ordinal)).c_str());
  stream_ = s;
}

PriorityStream::~PriorityStream() {
  if (!stream_) return;
  const DeviceScope on(ordinal_, std::nothrow);
  // Work still queued runs to its end; the stream's resources go once it has.
  if (on.ok()) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

PriorityStream::PriorityStream(PriorityStream&& o) noexcept
    : ordinal_(o.ordinal_), stream_(std::exchange(o.stream_, nullptr)) {}

PriorityStream& PriorityStream::operator=(PriorityStream&& o) noexcept {
  if (this != &o) {
    PriorityStream gone(std::move(*this));
    ordinal_ = o.ordinal_;
    stream_ = std::exchange(o.stream_, nullptr);
  }
  return *this;
}

ComputeContext on_own_stream(const ComputeContext& where, StreamPriority priority,
                             std::optional<PriorityStream>& owner) {
  owner.reset();
  if (where.device != Device::CUDA) return where;
  owner.emplace(where.ordinal, priority);
  return owner->context();
}

int stream_priority(const ComputeContext& where) {
  if (where.device != Device::CUDA) return 0;
  const DeviceScope on(where.ordinal);
  int p = 0;
  check(cudaStreamGetPriority(stream_of(where), &p), "reading a stream's priority");
  return p;
}

StreamEvent::~StreamEvent() {
  if (!event_) return;
  const DeviceScope on(ordinal_, std::nothrow);
  // Streams still waiting for it keep what they need; the event goes once they have.
  if (on.ok()) cudaEventDestroy(static_cast<cudaEvent_t>(event_));
}

StreamEvent::StreamEvent(StreamEvent&& o) noexcept : event_(std::exchange(o.event_, nullptr)), ordinal_(o.ordinal_) {}

StreamEvent& StreamEvent::operator=(StreamEvent&& o) noexcept {
  if (this != &o) {
    StreamEvent gone(std::move(*this));
    event_ = std::exchange(o.event_, nullptr);
    ordinal_ = o.ordinal_;
  }
  return *this;
}

void StreamEvent::record(const ComputeContext& on) {
  if (on.device != Device::CUDA) return;
  const DeviceScope scope(on.ordinal);
  if (event_ && ordinal_ != on.ordinal) {  // an event belongs to the device it was made on
    cudaEventDestroy(static_cast<cudaEvent_t>(event_));
    event_ = nullptr;
  }
  if (!event_) {
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "creating a stream event");
    event_ = e;
    ordinal_ = on.ordinal;
  }
  check(cudaEventRecord(static_cast<cudaEvent_t>(event_), stream_of(on)), "recording a stream event");
}

void StreamEvent::wait_on(const ComputeContext& reader) const {
  if (!event_ || reader.device != Device::CUDA) {
    // A CPU reader of CUDA memory goes through a host copy, which waits on the host.
    if (event_) synchronize("a CPU reader of CUDA work");
    return;
  }
  const DeviceScope scope(reader.ordinal);
  // An event of another device may be waited for: the reader's device waits for it in its queue.
  check(cudaStreamWaitEvent(stream_of(reader), static_cast<cudaEvent_t>(event_), 0), "waiting for a stream event");
}

void StreamEvent::synchronize(const char* what) const {
  if (!event_) return;
  note_host_wait(what);
  const DeviceScope scope(ordinal_);
  check(cudaEventSynchronize(static_cast<cudaEvent_t>(event_)), what);
}

}  // namespace splat::kernels
