#pragma once
// The --device option shared by train, eval and render.
#include <string>

#include "kernels/device_context.h"

namespace splat::app {

// "cpu", "cuda", or "" (CUDA when a device exists, else CPU). Throws std::invalid_argument otherwise
// and when "cuda" is asked for on a machine without one.
kernels::Device parse_device(const std::string& name);

}  // namespace splat::app
