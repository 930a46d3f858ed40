#include "app/device_arg.h"

#include <stdexcept>

#include "app/usage_error.h"
#include "kernels/device.h"

namespace splat::app {

kernels::Device parse_device(const std::string& name) {
  const bool have_cuda = kernels::cuda_device_count() > 0;
  if (name.empty()) return have_cuda ? kernels::Device::CUDA : kernels::Device::CPU;
  if (name == "cpu") return kernels::Device::CPU;
  if (name == "cuda") {
    if (!have_cuda) throw UsageError("--device cuda: no CUDA device is available here (use --device cpu)");
    return kernels::Device::CUDA;
  }
  throw UsageError("--device must be cpu or cuda, got '" + name + "'");
}

}  // namespace splat::app
