// Backward projection: gradients w.r.t. each pair's screen attributes -> the Gaussians' parameter
// gradients (through SH, EWA projection, covariance, sigmoid) and the densification statistics.
// Dense layout: one thread per Gaussian sums over the cameras in registers and adds once, or with
// GaussiansGrad::overwrite stores once (every row: no zeroing pass before, no read of the old value);
// the block stages its Gaussians' SH rest coefficients and their gradients through shared memory, so
// that the 45 values per Gaussian move with coalesced loads and stores (bf16 ones under mixed precision).
// Packed layout: one thread per slot, atomics into the Gaussian (its cameras are in other slots); an
// overwriting call zeroes the arrays first.
#include <cstdint>
#include <cuda_pipeline.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

constexpr int kMaxRest = (raster::kMaxShCoeffs - 1) * 3;

// Gradients of one Gaussian, summed over the pairs one thread handles.
struct GaussianGradSum {
  Vec3f mean{};
  raster::Quat<float> quat{};
  Vec3f log_scale{};
  float logit = 0.f;
  float dc[3] = {0.f, 0.f, 0.f};
  float grad2d = 0.f, grad2d_abs = 0.f, max_radius = 0.f;
  int visible = 0;
};

// D = the SH degree as a compile-time constant: the SH loops unroll (no local-memory arrays).
// `rest` / `drest`: this Gaussian's SH rest coefficients (float, or Bf16 decoded as read) and where
// their gradients accumulate.
// `dslots`' row `at` holds the pair's gradients (its slot, or row i of its camera's source).
template <int D, class R>
__device__ void add_pair(const GaussiansView& g, const ProjectionSetup& setup, int camera, int64_t i, int64_t slot,
                         const ProjectedSlots& slots, const ProjectedGrads& dslots, int64_t at, const R* rest,
                         float* drest, GaussianGradSum& acc) {
  const Camera cam = setup.cameras[camera];
  const Vec3f mean{g.means[3 * i], g.means[3 * i + 1], g.means[3 * i + 2]};
  const float4 q = reinterpret_cast<const float4*>(g.quats)[i];
  const raster::Quat<float> quat{q.x, q.y, q.z, q.w};
  const Vec3f log_scale{g.log_scales[3 * i], g.log_scales[3 * i + 1], g.log_scales[3 * i + 2]};
  const float4 dmean2d = dslots.mean2d[at];
  const float2 dm{dmean2d.x, dmean2d.y}, dm_abs{dmean2d.z, dmean2d.w};
  const float4 dco = dslots.conic_opacity[at];
  const float4 dcd = dslots.color_depth[at];

  raster::project_gaussian_vjp<float>(cam, mean, quat, log_scale, g.opacity_logits[i], setup.eps2d,
                                      setup.antialiased, Vec2f{dm.x, dm.y}, raster::Sym2<float>{dco.x, dco.y, dco.z},
                                      dco.w, dcd.w, acc.mean, acc.quat, acc.log_scale, acc.logit);
  const Vec3f dir = mean - raster::camera_centre<float>(cam);
  raster::sh_color_vjp<float, float>(D, dir, g.sh_dc + 3 * i, rest, Vec3f{dcd.x, dcd.y, dcd.z}, acc.dc, drest,
                                     acc.mean);

  const int w = cam.width, h = cam.height;
  acc.grad2d += raster::ndc_grad_norm(Vec2f{dm.x, dm.y}, w, h);
  acc.grad2d_abs += raster::ndc_grad_norm(Vec2f{dm_abs.x, dm_abs.y}, w, h);
  const int2 half = slots.half[slot];
  acc.max_radius = fmaxf(acc.max_radius, raster::screen_radius_fraction<float>(half.x, half.y, w, h));
  acc.visible += 1;
}

// atomicMax on non-negative floats through their bit patterns, which order like the values.
__device__ void atomic_max_nonneg(float* p, float v) { atomicMax(reinterpret_cast<int*>(p), __float_as_int(v)); }

// Adds (atomics) or, overwriting, stores one gradient value.
__device__ void put(float* p, float v, bool overwrite) {
  if (overwrite) *p = v;
  else atomicAdd(p, v);
}

// Writes the sums into the Gaussian's gradients and adds them to its statistics; a null array is
// skipped (as the CPU reference does), so callers may leave out what they do not train. Adding uses
// atomics even where one thread owns the Gaussian (dense layout): a fire-and-forget atomic add beats
// a load + store for these scattered addresses (measured, bench/RESULTS.md). Overwriting stores every
// row, zeros where no pair reached it, or with `reached` flags the row and stores it only where reached.
// (The SH rest gradients are written by the kernels: every row of a block, zeros where unreached, since
// leaving unreached rows out of their coalesced loads and stores was slower; bench/TRAINING.md "The rows
// a step reached".)
__device__ void flush(const GaussiansGrad& grad, const DensifyStats& stats, int64_t i, const GaussianGradSum& a) {
  const bool ow = grad.overwrite;
  if (grad.reached) grad.reached[i] = a.visible > 0;
  if (a.visible == 0 && (!ow || grad.reached)) return;
  if (grad.means)
    for (int k = 0; k < 3; ++k) put(&grad.means[3 * i + k], a.mean[k], ow);
  if (grad.quats) {
    const float q[4] = {a.quat.w, a.quat.x, a.quat.y, a.quat.z};
    for (int k = 0; k < 4; ++k) put(&grad.quats[4 * i + k], q[k], ow);
  }
  if (grad.log_scales)
    for (int k = 0; k < 3; ++k) put(&grad.log_scales[3 * i + k], a.log_scale[k], ow);
  if (grad.opacity_logits) put(&grad.opacity_logits[i], a.logit, ow);
  if (grad.sh_dc)
    for (int k = 0; k < 3; ++k) put(&grad.sh_dc[3 * i + k], a.dc[k], ow);
  if (a.visible == 0) return;
  if (stats.grad2d_norm) atomicAdd(&stats.grad2d_norm[i], a.grad2d);
  if (stats.grad2d_abs_norm) atomicAdd(&stats.grad2d_abs_norm[i], a.grad2d_abs);
  if (stats.visible_count) atomicAdd(&stats.visible_count[i], a.visible);
  if (stats.max_radius) atomic_max_nonneg(&stats.max_radius[i], a.max_radius);
}

constexpr int kThreads = 128;

// The block's SH rest rows move between global and shared memory in 16-byte accesses (4 floats or 8 bf16
// values) where the global address allows, as the fp32 rows' coalesced 4-byte accesses already move full
// lines; a 2-byte access per thread would move half a line per instruction. `n` values from k = 0.
__device__ bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// The rows go from global to shared memory as asynchronous copies (cp.async), all of a thread's issued
// before it waits for them: a loop that loaded a value into a register and stored it waited a memory
// round trip for each of its 16-byte accesses, and holding them all in registers first spilled.
__device__ void copy_async(void* shared, const void* global) { __pipeline_memcpy_async(shared, global, 16); }

__device__ void stage_rest(const float* src, float* dst, int n) {
  const int vectors = aligned16(src) ? n / 4 : 0;
  for (int k = threadIdx.x; k < vectors; k += kThreads)
    copy_async(reinterpret_cast<float4*>(dst) + k, reinterpret_cast<const float4*>(src) + k);
  __pipeline_commit();
  for (int k = 4 * vectors + threadIdx.x; k < n; k += kThreads) dst[k] = src[k];
  __pipeline_wait_prior(0);
}
// bf16 rows: copied as they are into `room` (half their size in floats), then widened into dst by the
// thread that copied them. The caller waits for the block before it reuses `room`.
__device__ void stage_rest(const Bf16* src, float* dst, float* room, int n) {
  const int vectors = aligned16(src) ? n / 8 : 0;
  uint4* raw = reinterpret_cast<uint4*>(room);
  for (int k = threadIdx.x; k < vectors; k += kThreads) copy_async(raw + k, reinterpret_cast<const uint4*>(src) + k);
  __pipeline_commit();
  for (int k = 8 * vectors + threadIdx.x; k < n; k += kThreads) dst[k] = float(src[k]);
  __pipeline_wait_prior(0);
  for (int k = threadIdx.x; k < vectors; k += kThreads) {
    const uint4 w = raw[k];
    const uint32_t u[4] = {w.x, w.y, w.z, w.w};
    float f[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) f[e] = bf16_to_float(uint16_t(e % 2 ? u[e / 2] >> 16 : u[e / 2] & 0xffffu));
    reinterpret_cast<float4*>(dst)[2 * k] = make_float4(f[0], f[1], f[2], f[3]);
    reinterpret_cast<float4*>(dst)[2 * k + 1] = make_float4(f[4], f[5], f[6], f[7]);
  }
}
// The block's SH rest gradients out: fp32 stored or added, bf16 stored (to nearest).
__device__ void write_rest(const float* src, float* dst, int n, bool overwrite) {
  const int vectors = aligned16(dst) ? n / 4 : 0;
  for (int k = threadIdx.x; k < vectors; k += kThreads) {
    float4 v = reinterpret_cast<const float4*>(src)[k];
    if (!overwrite) {
      const float4 old = reinterpret_cast<const float4*>(dst)[k];
      v = make_float4(old.x + v.x, old.y + v.y, old.z + v.z, old.w + v.w);
    }
    reinterpret_cast<float4*>(dst)[k] = v;
  }
  for (int k = 4 * vectors + threadIdx.x; k < n; k += kThreads) dst[k] = overwrite ? src[k] : dst[k] + src[k];
}
__device__ void write_rest(const float* src, Bf16* dst, int n) {
  const int vectors = aligned16(dst) ? n / 8 : 0;
  for (int k = threadIdx.x; k < vectors; k += kThreads) {
    const float4 a = reinterpret_cast<const float4*>(src)[2 * k], b = reinterpret_cast<const float4*>(src)[2 * k + 1];
    const float f[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    uint32_t u[4];
#pragma unroll
    for (int e = 0; e < 8; e += 2) u[e / 2] = uint32_t(bf16_nearest(f[e])) | uint32_t(bf16_nearest(f[e + 1])) << 16;
    reinterpret_cast<uint4*>(dst)[k] = make_uint4(u[0], u[1], u[2], u[3]);
  }
  for (int k = 8 * vectors + threadIdx.x; k < n; k += kThreads) dst[k] = Bf16{bf16_nearest(src[k])};
}

// ByCamera: the pair gradients are read from each camera's source (ProjectionSetup::gradient_sources)
// rather than by slot; a parameter of its own so that the slot kernel compiles as it would alone.
template <int D, bool ByCamera>
__global__ void __launch_bounds__(kThreads) project_backward_dense(GaussiansView g, ProjectionSetup setup,
                                                                  ProjectedSlots slots, ProjectedGrads dslots,
                                                                  GaussiansGrad grad, DensifyStats stats) {
  // Rows of sh_rest_coeffs * 3 floats (validated <= kMaxRest), contiguous for the block's Gaussians.
  __shared__ __align__(16) float s_rest[D > 0 ? kThreads * kMaxRest : 1];
  __shared__ __align__(16) float s_drest[D > 0 ? kThreads * kMaxRest : 1];
  const int row = g.sh_rest_coeffs * 3;
  for (int64_t first = blockIdx.x * int64_t(kThreads); first < g.n; first += int64_t(gridDim.x) * kThreads) {
    const int count = static_cast<int>(min(int64_t(kThreads), g.n - first));
    if constexpr (D > 0) {
      __syncthreads();  // the previous round's gradients are written out
      if (g.sh_rest_bf16) {
        stage_rest(g.sh_rest_bf16 + first * row, s_rest, s_drest, count * row);
        __syncthreads();  // every thread has widened its raw rows out of s_drest
      } else {
        stage_rest(g.sh_rest + first * row, s_rest, count * row);
      }
      for (int k = threadIdx.x; k < count * row; k += kThreads) s_drest[k] = 0.f;
      __syncthreads();
    }
    const int64_t i = first + threadIdx.x;
    if (threadIdx.x < count) {
      GaussianGradSum acc;
      for (int c = 0; c < setup.cameras_count; ++c) {
        const int64_t slot = c * g.n + i;
        if (slots.tile_count[slot] == 0) continue;
        if constexpr (ByCamera)
          add_pair<D>(g, setup, c, i, slot, slots, setup.gradient_sources[c], i, s_rest + threadIdx.x * row,
                      s_drest + threadIdx.x * row, acc);
        else
          add_pair<D>(g, setup, c, i, slot, slots, dslots, slot, s_rest + threadIdx.x * row,
                      s_drest + threadIdx.x * row, acc);
      }
      flush(grad, stats, i, acc);
    }
    if constexpr (D > 0) {
      __syncthreads();
      const int64_t at = first * row;
      if (grad.sh_rest_bf16) write_rest(s_drest, grad.sh_rest_bf16 + at, count * row);
      else if (grad.sh_rest) write_rest(s_drest, grad.sh_rest + at, count * row, grad.overwrite);
    }
  }
}

template <int D>
__global__ void project_backward_packed(GaussiansView g, ProjectionSetup setup, ProjectedSlots slots,
                                        ProjectedGrads dslots, GaussiansGrad grad, DensifyStats stats) {
  constexpr int active = 3 * (sh_coeffs_for_degree(D) - 1);
  for (int64_t s = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; s < slots.count;
       s += int64_t(gridDim.x) * blockDim.x) {
    GaussianGradSum acc;
    float drest[active > 0 ? active : 1] = {};
    const int64_t i = slots.id_of[s] - slots.first_id;
    const int64_t row = i * g.sh_rest_coeffs * 3;
    if (g.sh_rest_bf16)
      add_pair<D>(g, setup, slots.camera_of[s], i, s, slots, dslots, s, g.sh_rest_bf16 + row, drest, acc);
    else
      add_pair<D>(g, setup, slots.camera_of[s], i, s, slots, dslots, s, g.sh_rest ? g.sh_rest + row : nullptr,
                  drest, acc);
    flush(grad, stats, i, acc);
    if (grad.sh_rest && acc.visible)
      for (int k = 0; k < active; ++k) atomicAdd(&grad.sh_rest[i * g.sh_rest_coeffs * 3 + k], drest[k]);
  }
}

// Zeroes the SH rest gradients (`all`: and every other gradient array) of n Gaussians, for an
// overwriting call whose kernel does not store every value itself.
void zero_gradients(const GaussiansGrad& grad, const GaussiansView& g, bool all, cudaStream_t stream) {
  const size_t n = size_t(g.n), rest = n * size_t(3 * g.sh_rest_coeffs);
  const auto zero = [&](void* p, size_t bytes) {
    if (p && bytes) check(cudaMemsetAsync(p, 0, bytes, stream), "zeroing gradients");
  };
  zero(grad.sh_rest, rest * sizeof(float));
  zero(grad.sh_rest_bf16, rest * sizeof(Bf16));
  if (!all) return;
  zero(grad.means, 3 * n * sizeof(float));
  zero(grad.quats, 4 * n * sizeof(float));
  zero(grad.log_scales, 3 * n * sizeof(float));
  zero(grad.opacity_logits, n * sizeof(float));
  zero(grad.sh_dc, 3 * n * sizeof(float));
}

template <int D>
void launch(const GaussiansView& g, const ProjectionSetup& setup, const ProjectedSlots& slots,
            const ProjectedGrads& dslots, GaussiansGrad grad, const DensifyStats& stats, cudaStream_t stream) {
  // No pairs at all with `reached`: no row is reached, and no gradient needs storing.
  if (grad.reached && slots.count == 0) {
    if (g.n > 0) check(cudaMemsetAsync(grad.reached, 0, size_t(g.n), stream), "clearing the rows reached");
    return;
  }
  // Overwriting where no thread owns a Gaussian (packed slots, or no pairs at all): zero, then add.
  if (grad.overwrite && (slots.packed || slots.count == 0)) {
    zero_gradients(grad, g, /*all=*/true, stream);
    grad.overwrite = false;
  } else if (grad.overwrite && D == 0) {
    zero_gradients(grad, g, /*all=*/false, stream);  // degree 0 stores no SH rest gradients
  }
  if (slots.count == 0) return;
  if (slots.packed) {
    project_backward_packed<D><<<stride_blocks(slots.count, kThreads), kThreads, 0, stream>>>(g, setup, slots, dslots,
                                                                                              grad, stats);
    check_launch("project backward (packed)");
  } else {
    const unsigned blocks = stride_blocks(g.n, kThreads);
    if (setup.gradient_sources)
      project_backward_dense<D, true><<<blocks, kThreads, 0, stream>>>(g, setup, slots, dslots, grad, stats);
    else
      project_backward_dense<D, false><<<blocks, kThreads, 0, stream>>>(g, setup, slots, dslots, grad, stats);
    check_launch("project backward (dense)");
  }
}

}  // namespace

void project_backward(const GaussiansView& g, const ProjectionSetup& setup, const ProjectedSlots& slots,
                      const ProjectedGrads& dslots, const GaussiansGrad& grad, const DensifyStats& stats,
                      cudaStream_t stream) {
  switch (setup.sh_degree) {
    case 0: return launch<0>(g, setup, slots, dslots, grad, stats, stream);
    case 1: return launch<1>(g, setup, slots, dslots, grad, stats, stream);
    case 2: return launch<2>(g, setup, slots, dslots, grad, stats, stream);
    default: return launch<3>(g, setup, slots, dslots, grad, stats, stream);
  }
}

}  // namespace splat::kernels::cuda
