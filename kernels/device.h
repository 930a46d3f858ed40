#pragma once
// Which compute devices exist. Safe to call where no driver is installed (CI): returns 0.
namespace splat::kernels {

// Number of usable CUDA devices; 0 when there is no driver or no GPU.
int cuda_device_count();

}  // namespace splat::kernels
