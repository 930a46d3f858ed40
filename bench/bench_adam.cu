// Where the mixed-precision Adam step's time goes: the step over one all-bf16 group (SH rest
// under --amp: bf16 values, moments and gradients) and over the same elements in fp32, through the
// production entry point (kernels::adam_step_groups), against variants of the bf16 kernel that each
// drop one part of the work, and a kernel that only moves the same bytes (the bandwidth ceiling).
//   bench_adam [elements (default 56000000: bonsai's SH rest)] [repeats (default 50)]
// Prints ms per step and the bytes moved per second of each.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "kernels/adam.h"
#include "kernels/buffer.h"

using namespace splat;
using namespace splat::kernels;

namespace {

enum class Drop { Nothing, Hash, Rounding, IeeeMath, Everything, Hash32 };

// A candidate cheaper draw: one 32-bit hash (lowbias32) of the index, 16 bits for the parameter, 8 for each moment.
__device__ ElementRoundingBits bits32(uint32_t seed, int64_t index) {
  uint32_t x = uint32_t(index) * 0x9E3779B9u + seed;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return {x & 0xffffu, ((x >> 16) & 0xffu) << 8 | 0x80u, (x >> 24) << 8 | 0x80u};
}

// Eight elements per thread, 16-byte accesses: the production narrow path's shape, with parts left out.
template <Drop D>
__global__ void bf16_variant(uint16_t* p, const uint16_t* g, uint16_t* m, uint16_t* v, int64_t n,
                             AdamStepConstants<float> k, uint64_t seed) {
  const int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (i + 8 > n) return;
  uint4 w[4] = {*reinterpret_cast<const uint4*>(p + i), *reinterpret_cast<const uint4*>(g + i),
                *reinterpret_cast<const uint4*>(m + i), *reinterpret_cast<const uint4*>(v + i)};
  uint16_t out[3][8];
  for (int e = 0; e < 8; ++e) {
    float x[4];
    for (int a = 0; a < 4; ++a) {
      const uint32_t word = reinterpret_cast<const uint32_t*>(&w[a])[e / 2];
      x[a] = bf16_to_float(uint16_t(e % 2 ? word >> 16 : word & 0xffffu));
    }
    if constexpr (D == Drop::Everything) {
      for (int a = 0; a < 3; ++a) out[a][e] = uint16_t(float_bits(x[a == 0 ? 0 : a + 1] + x[1]) >> 16);
      continue;
    }
    if constexpr (D == Drop::IeeeMath) {
      x[2] = k.beta1 * x[2] + (1 - k.beta1) * x[1];
      x[3] = k.beta2 * x[3] + (1 - k.beta2) * x[1] * x[1];
      x[0] -= __fdividef(k.step_size * x[2], __fsqrt_rn(x[3]) * k.inv_sqrt_bias2 + k.eps);
    } else {
      adam_update(x[0], x[1], x[2], x[3], k);
    }
    const uint32_t j = uint32_t(i + e);
    const ElementRoundingBits r = D == Drop::Hash     ? ElementRoundingBits{j * 2654435761u, j, j * 40503u}
                                  : D == Drop::Hash32 ? bits32(uint32_t(seed), i + e)
                                                      : element_rounding_bits(seed, 0, i + e);
    const float keep[3] = {x[0], x[2], x[3]};
    for (int a = 0; a < 3; ++a)
      out[a][e] = D == Drop::Rounding ? uint16_t(float_bits(keep[a]) >> 16)
                                      : bf16_stochastic(keep[a], a == 0 ? r.param : a == 1 ? r.exp_avg : r.exp_avg_sq);
  }
  uint16_t* dst[3] = {p, m, v};
  for (int a = 0; a < 3; ++a) {
    uint4 o;
    uint32_t* u = reinterpret_cast<uint32_t*>(&o);
    for (int e = 0; e < 8; e += 2) u[e / 2] = uint32_t(out[a][e]) | uint32_t(out[a][e + 1]) << 16;
    *reinterpret_cast<uint4*>(dst[a] + i) = o;
  }
}

float time_ms(int repeats, const std::function<void()>& step) {
  step();  // warm-up
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int r = 0; r < repeats; ++r) step();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (cudaGetLastError() != cudaSuccess) {
    std::fprintf(stderr, "CUDA error\n");
    std::exit(1);
  }
  return ms / float(repeats);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) / 8 * 8 : 56000000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 50;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s; %lld elements, %d repeats\n", prop.name, static_cast<long long>(n), repeats);
  Buffer<uint16_t> p16(Device::CUDA, size_t(n)), g16(Device::CUDA, size_t(n)), m16(Device::CUDA, size_t(n)),
      v16(Device::CUDA, size_t(n));
  Buffer<float> p32(Device::CUDA, size_t(n)), g32(Device::CUDA, size_t(n)), m32(Device::CUDA, size_t(n)),
      v32(Device::CUDA, size_t(n));
  for (auto* b : {&p16, &g16, &m16, &v16}) b->zero();
  for (auto* b : {&p32, &g32, &m32, &v32}) b->zero();
  AdamHyperParams h;
  h.lr = 1e-3f;
  const AdamStepConstants<float> k = adam_step_constants<float>(h, 10);
  const auto report = [&](const char* what, float ms, double bytes_per_element) {
    std::printf("  %-58s %8.3f ms  %6.2f TB/s\n", what, ms, bytes_per_element * double(n) / (ms * 1e-3) / 1e12);
  };
  AdamGroup bf16_group;
  bf16_group.params = {nullptr, p16.data(), Precision::BF16};
  bf16_group.grads = GradArray::narrow(g16.data());
  bf16_group.exp_avg = {nullptr, m16.data(), Precision::BF16};
  bf16_group.exp_avg_sq = {nullptr, v16.data(), Precision::BF16};
  bf16_group.n = n;
  bf16_group.h = h;
  AdamGroup fp32_group{fp32_array(p32.data()), GradArray(g32.data()), fp32_array(m32.data()), fp32_array(v32.data()),
                       n, h};
  report("adam_step_groups, fp32 (28 bytes per element)",
         time_ms(repeats, [&] { adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&fp32_group, 1), 10); }), 28);
  report("adam_step_groups, all bf16 (14 bytes per element)",
         time_ms(repeats, [&] { adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&bf16_group, 1), 10); }), 14);
  const unsigned blocks = unsigned((n / 8 + 255) / 256);
  const auto variant = [&](const char* what, auto kernel) {
    const auto step = [&] { kernel<<<blocks, 256>>>(p16.data(), g16.data(), m16.data(), v16.data(), n, k, 7); };
    report(what, time_ms(repeats, step), 14);
  };
  variant("bf16 variant: everything (as adam_step_groups)", bf16_variant<Drop::Nothing>);
  variant("bf16 variant: no hash (bits from the index)", bf16_variant<Drop::Hash>);
  variant("bf16 variant: one 32-bit hash (16 + 8 + 8 bits)", bf16_variant<Drop::Hash32>);
  variant("bf16 variant: no stochastic rounding (truncation)", bf16_variant<Drop::Rounding>);
  variant("bf16 variant: fast division, no mul_rn", bf16_variant<Drop::IeeeMath>);
  variant("bf16 variant: bytes only (no Adam, no rounding)", bf16_variant<Drop::Everything>);
  return 0;
}
