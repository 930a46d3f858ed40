#pragma once
// Which compute devices exist and how full they are. Safe to call where no driver is installed (CI).
#include <cstddef>
#include <optional>

namespace splat::kernels {

// Number of usable CUDA devices; 0 when there is no driver or no GPU.
int cuda_device_count();

struct DeviceMemory {
  size_t used_bytes = 0, total_bytes = 0;
};
// Memory in use on CUDA device `device` (all processes, as cudaMemGetInfo reports it); nullopt when
// the device does not exist or cannot be queried. The calling thread's current device is restored.
// Querying a device creates its primary context when none exists yet, so callers should poll only
// occasionally (the GUI does at 2 Hz).
std::optional<DeviceMemory> device_memory(int device);

}  // namespace splat::kernels
