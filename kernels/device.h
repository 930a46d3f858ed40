#pragma once
// Which compute devices exist and how full they are. Safe to call where no driver is installed (CI).
#include <cstddef>
#include <optional>

namespace splat::kernels {

// Number of usable CUDA devices; 0 when there is no driver or no GPU.
int cuda_device_count();

// Makes CUDA device `ordinal` the calling thread's current device from now on. A process that trains
// on one GPU of several (a rank of an mpirun job) calls it first, so that every DeviceScope returns to
// its own GPU: cudaSetDevice creates a device's context, and returning to device 0 would give every
// such process a context (hundreds of MB) on GPU 0. Throws like every CUDA call that fails.
void use_cuda_device(int ordinal);

// Whether CUDA device `from` can reach device `to`'s memory directly (NVLink or PCIe peer to peer).
bool can_access_peer(int from, int to);

// Lets CUDA device `from` reach device `to`'s memory directly, its stream-ordered pool's allocations
// included, so that copies between ranks of one process on two GPUs take the direct path instead of
// being staged through host memory. Returns can_access_peer(from, to); enabling it again is harmless.
// The calling thread's current device is restored.
bool enable_peer_access(int from, int to);

struct DeviceMemory {
  size_t used_bytes = 0, total_bytes = 0;
};
// Memory in use on CUDA device `device` (all processes, as cudaMemGetInfo reports it); nullopt when
// the device does not exist or cannot be queried. The calling thread's current device is restored.
// Querying a device creates its primary context when none exists yet, so callers should poll only
// occasionally (the GUI does at 2 Hz).
std::optional<DeviceMemory> device_memory(int device);

}  // namespace splat::kernels
