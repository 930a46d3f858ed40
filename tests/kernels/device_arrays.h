#pragma once
// Host <-> backend arrays for the rasterizer tests that run on either backend, and their inputs.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "kernels/buffer.h"

namespace splat::test {

// A buffer on `d` holding `host`.
template <class T>
kernels::Buffer<T> on(kernels::Device d, const std::vector<T>& host) {
  kernels::Buffer<T> b(d);
  b.upload(host);
  return b;
}
// n zeros on `d`.
template <class T>
kernels::Buffer<T> zeros(kernels::Device d, size_t n) {
  kernels::Buffer<T> b(d, n);
  b.zero();
  return b;
}
// n values at p (memory of `d`) on the host.
template <class T>
std::vector<T> from(kernels::Device d, const T* p, size_t n) {
  std::vector<T> h(n);
  if (n) kernels::copy_bytes(h.data(), kernels::Device::CPU, p, d, n * sizeof(T));
  return h;
}

// Upstream gradients of a fixed random linear loss of rgb, alpha and depth over `pixels` pixels.
struct OutputGrads {
  std::vector<float> rgb, alpha, depth;
  OutputGrads(int64_t pixels, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(-1, 1);
    for (int64_t i = 0; i < 3 * pixels; ++i) rgb.push_back(U(rng));
    for (int64_t i = 0; i < pixels; ++i) alpha.push_back(U(rng)), depth.push_back(0.1f * U(rng));
  }
};

}  // namespace splat::test
