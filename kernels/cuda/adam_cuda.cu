// CUDA backend of the fused Adam step: four elements per thread (eight where every array is bf16),
// everything in registers (each element is read and written once: the step is bandwidth-bound, and
// 16-byte accesses keep more bytes in flight per thread than one float each). Several parameter groups
// share one launch: the blocks are split between the groups, and a block finds its group from the
// table of first blocks passed by value with the launch. The gradients of rows a backward call left
// unreached (GradArray::reached) are zeros, not read. Sparse Adam (AdamGroup::skip_zero_grads)
// reads a thread's gradients first: where all are zero the thread stops there, and otherwise the
// elements of zero gradient keep the values they were read with (stored back unchanged: an exact bf16
// value rounds to itself).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/adam.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;  // one float4 of each array (the narrow path: see GroupArgs::narrow)
constexpr int kMaxGroupsPerLaunch = 8;  // more groups take several launches

struct GroupArgs {
  StoredArray params;
  GradArray grads;
  StoredArray exp_avg, exp_avg_sq;
  int64_t n;
  AdamStepConstants<float> k;
  uint64_t seed;
  int64_t first;
  bool fp32;     // every array is plain fp32: the float path, no rounding
  bool aligned;  // fp32 and all four arrays start on 16 bytes: float4 accesses are allowed
  // Mixed precision's layout, vectorised (0: not): both moments bf16 encodings, the parameters and the
  // gradients bf16 encodings or plain fp32, every array aligned for one access of `narrow` elements.
  // Eight where all four arrays are bf16 (the SH rest group): 16-byte accesses, as the fp32 path makes.
  int narrow;
  int per_thread;  // elements per thread: 8 on that path, 4 otherwise
  bool skip_zero;  // sparse Adam
};

struct LaunchArgs {
  GroupArgs group[kMaxGroupsPerLaunch];
  int64_t first_block[kMaxGroupsPerLaunch + 1];  // group g owns blocks [first_block[g], first_block[g+1])
  int count;
};

// W bf16 encodings (one 8- or 16-byte access) or W floats (W / 4 16-byte accesses) <-> floats.
// Element i is the low half of each 32-bit word: little-endian.
template <int W>
using Bf16Words = std::conditional_t<W == 4, uint2, uint4>;
template <int W>
__device__ void load_bf16(const uint16_t* p, float (&f)[W]) {
  const Bf16Words<W> w = *reinterpret_cast<const Bf16Words<W>*>(p);
  const uint32_t* u = reinterpret_cast<const uint32_t*>(&w);
#pragma unroll
  for (int e = 0; e < W; e += 2) {
    f[e] = bf16_to_float(uint16_t(u[e / 2] & 0xffffu));
    f[e + 1] = bf16_to_float(uint16_t(u[e / 2] >> 16));
  }
}
template <int W>
__device__ void store_bf16(uint16_t* p, const uint16_t (&h)[W]) {
  Bf16Words<W> w;
  uint32_t* u = reinterpret_cast<uint32_t*>(&w);
#pragma unroll
  for (int e = 0; e < W; e += 2) u[e / 2] = uint32_t(h[e]) | uint32_t(h[e + 1]) << 16;
  *reinterpret_cast<Bf16Words<W>*>(p) = w;
}
template <int W>
__device__ void load_f32(const float* p, float (&f)[W]) {
#pragma unroll
  for (int e = 0; e < W; e += 4) {
    const float4 q = *reinterpret_cast<const float4*>(p + e);
    f[e] = q.x, f[e + 1] = q.y, f[e + 2] = q.z, f[e + 3] = q.w;
  }
}
template <int W>
__device__ bool all_zero(const float (&f)[W]) {
  bool zero = true;
#pragma unroll
  for (int e = 0; e < W; ++e) zero &= f[e] == 0.f;
  return zero;
}
// Row of element i of rows of `width` values: a 32-bit division where i allows.
__device__ int64_t row_of(int64_t i, int width) {
  return i < (int64_t(1) << 32) ? int64_t(uint32_t(i) / uint32_t(width)) : i / width;
}
// Gradients i..i+W-1 (one access of W values), zeros for the elements of unreached rows (GradArray::reached),
// which are not read where none of the W is reached.
template <int W>
__device__ void load_grads(const GradArray& g, int64_t i, float (&d)[W]) {
  bool reached[W], any = !g.reached, all = !g.reached;
  if (g.reached) {
    int64_t r = row_of(i, g.width);
    int at = int(i - r * g.width);
#pragma unroll
    for (int e = 0; e < W; ++e) {
      reached[e] = g.reached[r];
      any |= reached[e];
      if (++at == g.width) at = 0, ++r;
    }
    all = true;
#pragma unroll
    for (int e = 0; e < W; ++e) all &= reached[e];
  }
  if (!any) {
#pragma unroll
    for (int e = 0; e < W; ++e) d[e] = 0.f;
    return;
  }
  if (g.bf16) load_bf16<W>(g.bf16 + i, d);
  else load_f32<W>(g.f32 + i, d);
  if (!all)
#pragma unroll
    for (int e = 0; e < W; ++e) d[e] = reached[e] ? d[e] : 0.f;
}
template <int W>
__device__ void store_f32(float* p, const float (&f)[W]) {
#pragma unroll
  for (int e = 0; e < W; e += 4) *reinterpret_cast<float4*>(p + e) = make_float4(f[e], f[e + 1], f[e + 2], f[e + 3]);
}

// Elements i..i+W-1 of a vectorised narrow group: the arithmetic and the rounding of adam_update_stored
// (so the bits are the CPU reference's), with 8- and 16-byte accesses where the generic path reads
// 2 bytes at a time. W = 8 is the all-bf16 group, known at compile time: no per-array branches.
template <int W>
__device__ void adam_narrow(const GroupArgs& x, int64_t i) {
  constexpr bool all_bf16 = W == 8;
  float p[W], d[W], m[W], v[W];
  load_grads<W>(x.grads, i, d);
  if (x.skip_zero && all_zero(d)) return;
  if (all_bf16 || x.params.bf16) load_bf16<W>(x.params.bf16 + i, p);
  else load_f32<W>(x.params.f32 + i, p);
  load_bf16<W>(x.exp_avg.bf16 + i, m);
  load_bf16<W>(x.exp_avg_sq.bf16 + i, v);
  uint16_t ph[W], mh[W], vh[W];
#pragma unroll
  for (int e = 0; e < W; ++e) {
    if (!x.skip_zero || d[e] != 0.f) adam_update(p[e], d[e], m[e], v[e], x.k);
    const ElementRoundingBits r = element_rounding_bits(x.seed, x.first, i + e);
    ph[e] = bf16_stochastic(p[e], r.param);
    mh[e] = bf16_stochastic(m[e], r.exp_avg);
    vh[e] = bf16_stochastic(v[e], r.exp_avg_sq);
  }
  if (all_bf16 || x.params.bf16) store_bf16<W>(x.params.bf16 + i, ph);
  else store_f32<W>(x.params.f32 + i, p);
  store_bf16<W>(x.exp_avg.bf16 + i, mh);
  store_bf16<W>(x.exp_avg_sq.bf16 + i, vh);
}

__global__ void adam_groups_kernel(const __grid_constant__ LaunchArgs a) {
  const int64_t block = blockIdx.x;
  int g = 0;
  while (g + 1 < a.count && block >= a.first_block[g + 1]) ++g;
  const GroupArgs x = a.group[g];  // a copy: the fields in registers, not read from the parameter space each time
  const int64_t i = ((block - a.first_block[g]) * kThreads + threadIdx.x) * x.per_thread;
  if (x.narrow == 8 && i + 8 <= x.n) return adam_narrow<8>(x, i);
  if (x.narrow == 4 && i + 4 <= x.n) return adam_narrow<4>(x, i);
  if (!x.fp32) {  // other narrow storage, and the tails: the shared per-element body, which rounds what it writes
    for (int64_t j = i; j < i + x.per_thread && j < x.n; ++j)
      adam_update_stored(x.params, x.grads, x.exp_avg, x.exp_avg_sq, j, x.seed, x.first, x.k, x.skip_zero);
    return;
  }
  float* const params = x.params.f32;
  float* const exp_avg = x.exp_avg.f32;
  float* const exp_avg_sq = x.exp_avg_sq.f32;
  if (x.aligned && i + kPerThread <= x.n) {
    float d[4];
    load_grads<4>(x.grads, i, d);
    if (x.skip_zero && all_zero(d)) return;
    float p[4], m[4], v[4];
    load_f32<4>(params + i, p);
    load_f32<4>(exp_avg + i, m);
    load_f32<4>(exp_avg_sq + i, v);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (!x.skip_zero || d[e] != 0.f) adam_update(p[e], d[e], m[e], v[e], x.k);
    store_f32<4>(params + i, p);
    store_f32<4>(exp_avg + i, m);
    store_f32<4>(exp_avg_sq + i, v);
    return;
  }
  for (int64_t j = i; j < i + kPerThread && j < x.n; ++j) {
    const float d = load_grad(x.grads, j);
    if (!x.skip_zero || d != 0.f) adam_update(params[j], d, exp_avg[j], exp_avg_sq[j], x.k);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }
bool aligned8(const void* p) { return reinterpret_cast<uintptr_t>(p) % 8 == 0; }
bool is_fp32(const StoredArray& a) { return !a.bf16 && a.precision == Precision::F32; }
// Every array of the group plain fp32: the float path, no rounding.
bool all_fp32(const AdamGroup& g) {
  return is_fp32(g.params) && is_fp32(g.exp_avg) && is_fp32(g.exp_avg_sq) && !g.grads.bf16;
}
// The elements per access of a group's vectorised narrow path (mixed precision's layout, every array
// aligned for it), or 0.
int narrow_width(const AdamGroup& g) {
  const bool moments = g.exp_avg.bf16 && g.exp_avg_sq.bf16;
  if (moments && g.params.bf16 && g.grads.bf16 &&
      aligned16(g.params.bf16) && aligned16(g.grads.bf16) && aligned16(g.exp_avg.bf16) && aligned16(g.exp_avg_sq.bf16))
    return 8;
  const bool params = g.params.bf16 ? aligned8(g.params.bf16) : is_fp32(g.params) && aligned16(g.params.f32);
  const bool grads = g.grads.bf16 ? aligned8(g.grads.bf16) : aligned16(g.grads.f32);
  return moments && params && grads && aligned8(g.exp_avg.bf16) && aligned8(g.exp_avg_sq.bf16) ? 4 : 0;
}

// A StoredArray names one array: fp32 elements, or bf16 encodings of a BF16 array.
void check_array(const StoredArray& a, int64_t n, const char* what) {
  if (n == 0) return;
  if (!a.f32 == !a.bf16 || (a.bf16 && a.precision != Precision::BF16))
    throw std::invalid_argument(std::string("Adam step: the ") + what + " array (" + precision_name(a.precision) +
                                ") must be one array, fp32 elements or (bf16 only) 2-byte encodings");
}

void launch(const LaunchArgs& a, cudaStream_t stream) {
  const int64_t blocks = a.first_block[a.count];
  if (blocks == 0) return;
  if (blocks >= (int64_t(1) << 31)) throw std::invalid_argument("Adam step: too many elements for one launch");
  adam_groups_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(a);
  cuda::check_launch("Adam step");
}

}  // namespace

// The device-agnostic entry points live here because this file sees both backends.
void adam_step_groups(const ComputeContext& where, std::span<const AdamGroup> groups, int64_t step) {
  // Every group is checked before any is updated, so that a bad one leaves all unchanged.
  for (const AdamGroup& g : groups) {
    if (g.n < 0) throw std::invalid_argument("Adam element count must be >= 0, got " + std::to_string(g.n));
    adam_step_constants<float>(g.h, step);
    check_array(g.params, g.n, "parameter");
    check_array(g.exp_avg, g.n, "first moment");
    check_array(g.exp_avg_sq, g.n, "second moment");
    if (g.n > 0 && !g.grads.f32 == !g.grads.bf16)
      throw std::invalid_argument("Adam step: the gradient array must be one array, fp32 or bf16 encodings");
    if (g.grads.reached && (g.grads.width < 1 || g.n % g.grads.width != 0))
      throw std::invalid_argument("Adam step: rows reached given with rows of " + std::to_string(g.grads.width) +
                                  " values for " + std::to_string(g.n) + " elements");
  }
  if (where.device == Device::CPU) {
    for (const AdamGroup& g : groups) {
      if (all_fp32(g) && !g.grads.reached)
        adam_step_reference<float>(g.params.f32, g.grads.f32, g.exp_avg.f32, g.exp_avg_sq.f32, g.n, g.h, step,
                                   g.skip_zero_grads);
      else
        adam_step_stored_reference(g, step);
    }
    return;
  }
  const cuda::DeviceScope scope(where.ordinal);
  LaunchArgs a{};
  auto flush = [&] {
    launch(a, static_cast<cudaStream_t>(where.stream));
    a = LaunchArgs{};
  };
  for (const AdamGroup& g : groups) {
    const AdamStepConstants<float> k = adam_step_constants<float>(g.h, step);
    if (a.count == kMaxGroupsPerLaunch) flush();
    const bool fp32 = all_fp32(g);
    const bool aligned = fp32 && aligned16(g.params.f32) && aligned16(g.grads.f32) && aligned16(g.exp_avg.f32) &&
                         aligned16(g.exp_avg_sq.f32);
    const int narrow = narrow_width(g), per_thread = narrow == 8 ? 8 : kPerThread;
    a.group[a.count] = GroupArgs{g.params, g.grads, g.exp_avg, g.exp_avg_sq, g.n,        k,
                                 g.seed,   g.first, fp32,      aligned,      narrow, per_thread,
                                 g.skip_zero_grads};
    const int64_t per_block = int64_t(kThreads) * per_thread;
    a.first_block[a.count + 1] = a.first_block[a.count] + (g.n + per_block - 1) / per_block;
    ++a.count;
  }
  if (a.count > 0) flush();
}

void adam_step(const ComputeContext& where, float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
               int64_t n, const AdamHyperParams& h, int64_t step) {
  const AdamGroup g{fp32_array(params), grads, fp32_array(exp_avg), fp32_array(exp_avg_sq), n, h};
  adam_step_groups(where, std::span<const AdamGroup>(&g, 1), step);
}

}  // namespace splat::kernels
