#pragma once
// Streams that say who goes first on a shared GPU, and events that order two streams without a host
// wait. Free of the CUDA headers, like device_context.h (the handles are kept as void*).
//
// Training and the live viewer share a GPU. On the legacy default stream their kernels serialise with
// equal priority, so every viewer frame delays the training step behind it. Instead every CUDA
// training rank computes on its own non-blocking stream at StreamPriority::Training and the viewer
// renders on its own non-blocking stream at Background: the GPU's scheduler hands free SMs to the
// training kernels first, and the viewer fills what they leave.
//
// A non-blocking stream orders itself with no other stream, not even the legacy default one, so data
// that one stream writes and another reads must be handed over with a StreamEvent (record on the
// writer, wait_on from the reader) or a host wait. kernels/buffer.h's copies between two contexts
// wait on the host; cudaMalloc and cudaFree need no order (cudaFree waits for the whole device).
#include <optional>

#include "kernels/device_context.h"

namespace splat::kernels {

// Three levels, so that something can go before training as well as after it.
enum class StreamPriority {
  Interactive,  // the device's greatest: work a user is waiting for on screen
  Training,     // one below the greatest: training ranks
  Background,   // the device's least
};

// A non-blocking CUDA stream at one priority on one device, owned: destroyed with the object (work
// still queued on it runs to the end). Whoever owns one keeps it alive for as long as any object that
// carries its context (ComputeContext's rule).
class PriorityStream {
 public:
  // Throws like every CUDA call that fails (std::invalid_argument for a device that does not exist).
  PriorityStream(int ordinal, StreamPriority priority);
  ~PriorityStream();
  PriorityStream(PriorityStream&& o) noexcept;
  PriorityStream& operator=(PriorityStream&& o) noexcept;
  PriorityStream(const PriorityStream&) = delete;
  PriorityStream& operator=(const PriorityStream&) = delete;

  // The CUDA context of this stream: device `ordinal`, this stream.
  ComputeContext context() const { return ComputeContext(Device::CUDA, ordinal_, stream_); }
  int ordinal() const { return ordinal_; }

 private:
  int ordinal_ = 0;
  void* stream_ = nullptr;  // cudaStream_t
};

// `where` on a stream of its own at `priority` when it is a CUDA context (`owner` then holds that
// stream, replacing what it held); a CPU context is returned as it is and `owner` emptied. The one way
// the training ranks and the viewer get their streams.
ComputeContext on_own_stream(const ComputeContext& where, StreamPriority priority, std::optional<PriorityStream>& owner);

// The stream priority of `where` as the device reports it (cudaStreamGetPriority; numerically lower
// is a higher priority, the legacy default stream has 0). 0 on the CPU.
int stream_priority(const ComputeContext& where);

// The least and the greatest priority numbers of CUDA device `ordinal`
// (cudaDeviceGetStreamPriorityRange: the least is the larger number).
struct StreamPriorityRange {
  int lowest = 0, highest = 0;
};
StreamPriorityRange stream_priority_range(int ordinal);

// The number CUDA gets for `priority` on a device with priorities `range`. Training sits one level
// below the greatest where that still leaves it above the least; with two levels it shares the
// greatest with Interactive (training above the background matters more), with one level all share it.
inline int priority_number(const StreamPriorityRange& range, StreamPriority priority) {
  switch (priority) {
    case StreamPriority::Interactive: return range.highest;
    case StreamPriority::Training: return range.lowest - range.highest >= 2 ? range.highest + 1 : range.highest;
    case StreamPriority::Background: return range.lowest;
  }
  return range.lowest;
}

// A point on one context's timeline: the work enqueued there before record(). Other streams wait for
// it on the device (wait_on), the host only where it must (synchronize, counted as a host wait). On
// the CPU backend, whose work is synchronous, every call is a no-op. Not thread-safe for concurrent
// record() calls; wait_on and synchronize may run on any thread once it is recorded.
class StreamEvent {
 public:
  StreamEvent() = default;
  ~StreamEvent();
  StreamEvent(StreamEvent&& o) noexcept;
  StreamEvent& operator=(StreamEvent&& o) noexcept;
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;

  // Marks the end of the work enqueued on `on` so far (a CPU context records nothing).
  void record(const ComputeContext& on);
  // Later work on `reader` starts once the recorded work has run; the host does not wait. Nothing to
  // do when nothing was recorded.
  void wait_on(const ComputeContext& reader) const;
  // The host waits for the recorded work (`what` names the wait, kernels/host_waits.h).
  void synchronize(const char* what) const;

 private:
  void* event_ = nullptr;  // cudaEvent_t, created by the first record on CUDA
  int ordinal_ = 0;
};

}  // namespace splat::kernels
