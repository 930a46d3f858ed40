#pragma once
// Where kernel work runs: the backend, the CUDA device and the CUDA stream.
//
// Several ranks of one training run may share a GPU (each with its own stream) or own one each
// (each on its own device, driven from its own host thread). So every Buffer and every backend
// object (rasterizer, loss, phase timer) carries a ComputeContext, and the free functions (Adam,
// row ops, MCMC, image metrics) take one. The rules every CUDA entry point follows:
//   - it makes `ordinal` the calling thread's current device for the duration of the call and
//     restores the previous one after (DeviceScope, kernels/cuda_util.h), so one host thread may drive
//     objects on several devices and two threads may drive two devices at the same time;
//   - it enqueues its work on `stream` and does not wait for it unless its contract says so
//     (Buffer::download, reading a loss, a copy that involves the host);
//   - a device that does not exist is reported as std::invalid_argument naming the ordinal.
//
// Device stays the plain "which backend" enum that code dispatches on (`if (d == Device::CPU)`);
// ComputeContext adds the place on that backend. A ComputeContext converts implicitly from a
// Device (ordinal 0, the legacy default stream), which is what the single-GPU code paths mean, so
// they pass a Device where a context is taken.
//
// stream is a cudaStream_t kept as void* so that this header (and everything above kernels/) stays
// free of the CUDA headers. The caller that creates a stream owns it and keeps it alive for as long
// as the objects that carry it; null means the legacy default stream of `ordinal`, which orders
// itself with every other blocking stream of that device (the behaviour before contexts existed).
// The CPU backend ignores ordinal and stream: its work is synchronous. Training ranks and the viewer get
// their streams from kernels/stream.h (PriorityStream: non-blocking, training first), and hand data
// between streams with its StreamEvent.

namespace splat::kernels {

enum class Device { CPU, CUDA };

struct ComputeContext {
  Device device = Device::CPU;
  int ordinal = 0;          // CUDA device index (as cudaSetDevice counts them); ignored on the CPU
  void* stream = nullptr;   // cudaStream_t on `ordinal`; null: its legacy default stream

  ComputeContext() = default;
  // Implicit from a Device on purpose (see above).
  ComputeContext(Device d, int cuda_ordinal = 0, void* cuda_stream = nullptr)
      : device(d), ordinal(cuda_ordinal), stream(cuda_stream) {}

  bool operator==(const ComputeContext&) const = default;
};

}  // namespace splat::kernels
