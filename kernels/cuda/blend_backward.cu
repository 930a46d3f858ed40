// Backward blending: one block per (camera, tile), heaviest tiles first, replays each pixel's
// composited Gaussians back to front (raster::PixelReplay), starting from the last contributor
// forward recorded. A long list is split into chunks of its own blocks (tile_chunks.cuh): a chunk
// replays its entries starting from the resume state forward kept at the next chunk's start, or
// from the pixel's end where the pixel stopped compositing inside the chunk. Each thread owns kP pixels of one column and sums their gradients in registers,
// so a warp covers 8 x 4kP pixels.
// A Gaussian's gradient values are then summed across the warp with butterfly shuffles and added by
// one lane with three float4 atomics; warps where no pixel composited a Gaussian skip it entirely.
// The kernel is bound by issued instructions: the per-pixel replay and the shuffles per (warp,
// Gaussian). Measured alternatives that were slower on trained scenes (bench/RESULTS.md,
// bench/TRAINING.md): a shuffle reduce-scatter with scalar atomics, summing the block's warps in
// shared memory first (1.5 % faster on bonsai, slower on the synthetic scene), per-lane atomics when
// one or a few lanes composited, 2 or 4 pixels per thread.
#include <climits>
#include <utility>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

struct Background {
  float rgb[3];
};

// Pixels per thread. On the synthetic benchmark scene 2 is faster (H200, 1M Gaussians: 1.17 ms
// against 1.56), but on trained scenes 1 is: late bonsai steps 1.75 -> 1.40 ms, cup 1.35 -> 1.11 ms
// (bench/TRAINING.md). Trained scenes' pixels differ widely in how many Gaussians they composite,
// and a warp replays until its last pixel is done, so smaller warp footprints waste less.
constexpr int kP = 1;
constexpr int kThreads = kBlockPixels / kP;  // also the entries per shared-memory batch

// Sums the values over the warp; the AbsGS sums (2, 3) and the depth gradient (11) only when asked
// for, since the shuffles are much of this kernel's cost.
template <bool kAbs, bool kDepthAlpha>
__device__ inline void warp_sum(float (&v)[kGradValues]) {
#pragma unroll
  for (int k = 0; k < kGradValues; ++k) {
    if ((k == 2 || k == 3) && !kAbs) continue;
    if (k == 11 && !kDepthAlpha) continue;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_xor_sync(0xffffffffu, v[k], off);
  }
}

// One pixel's replay state, read from what forward kept and the output gradients.
struct PixelBackward {
  int contributors;  // 0 outside the image
  Vec2f centre;
  raster::PixelReplay<float> replay;
};

// `resume_at`: the chunk's resume records for the tile's pixels (null for the list's last chunk); a
// pixel that composited past `chunk_end` (entries of the tile's list) starts from its record.
__device__ inline PixelBackward load_pixel(int px, int py, const ImageLayout& im, const Background& bg,
                                           const PixelState& state, const RenderOutputGrads& dout,
                                           const TileChunks& chunks, int64_t resume_at, int chunk_end) {
  int contributors = 0;
  float t_final = 1.f, depth_out = 0.f, dalpha = 0.f, ddepth = 0.f;
  float drgb[3] = {0.f, 0.f, 0.f};
  if (px < im.width && py < im.height) {
    const int64_t pix = im.pixel_offset + int64_t(py) * im.width + px;
    contributors = state.contributors[pix];
    t_final = state.final_transmittance[pix];
    depth_out = state.depth[pix];
    if (dout.rgb)
      for (int c = 0; c < 3; ++c) drgb[c] = dout.rgb[3 * pix + c];
    if (dout.alpha) dalpha = dout.alpha[pix];
    if (dout.depth) ddepth = dout.depth[pix];
  }
  PixelBackward p{contributors, Vec2f{px + 0.5f, py + 0.5f},
                  raster::PixelReplay<float>(bg.rgb, t_final, depth_out, drgb, dalpha, ddepth)};
  if (contributors > chunk_end) {  // forward kept this pixel's state at the next chunk's start
    const int64_t r = resume_at + (py % raster::kTileSize) * raster::kTileSize + px % raster::kTileSize;
    const float4 start = chunks.at_start[r];
    const float4 end = chunks.at_end[im.pixel_offset + int64_t(py) * im.width + px];
    raster::PixelCompositor<float> at, last;
    at.transmittance = start.x, at.rgb[0] = start.y, at.rgb[1] = start.z, at.rgb[2] = start.w;
    at.depth_sum = chunks.depth_at_start[r];
    last.transmittance = t_final, last.rgb[0] = end.x, last.rgb[1] = end.y, last.rgb[2] = end.z;
    last.depth_sum = end.w;
    p.replay.resume(raster::replay_resume(at, last, bg.rgb));
  }
  return p;
}

// The kP pixels of one thread: column px, rows py0 + 4i (PixelReplay has no default constructor,
// hence the aggregate built from an index pack).
struct ThreadPixels {
  PixelBackward p[kP];
};
template <size_t... I>
__device__ inline ThreadPixels load_pixels(std::index_sequence<I...>, int px, int py0, const ImageLayout& im,
                                           const Background& bg, const PixelState& state,
                                           const RenderOutputGrads& dout, const TileChunks& chunks,
                                           int64_t resume_at, int chunk_end) {
  return {{load_pixel(px, py0 + 4 * int(I), im, bg, state, dout, chunks, resume_at, chunk_end)...}};
}

// kAbs: the AbsGS statistic is wanted; kDepthAlpha: a depth or an alpha gradient is given.
// A ring per warp: lane k holds the warp's Gaussians k, k + 32, ... of its walk (back to front) in
// registers with their gradient sums, and the 32 pixels' replay states travel round the lanes, one
// lane a step: pixel j meets Gaussian i at step i + j on lane i % 32. A lane takes its next Gaussian
// from shared memory at the step its previous one has met every pixel, adding that one's sums to
// global memory (three float4 atomics) if any pixel composited it. No sums across the warp.
template <bool kAbs, bool kDepthAlpha>
__global__ void __launch_bounds__(kThreads, 4)
    blend_backward_kernel(ProjectedSlots slots, TileBins bins, TileChunks chunks, TileGrid grid, Background bg,
                          PixelState state, RenderOutputGrads dout, ProjectedGrads dslots) {
  __shared__ int32_t s_slot[kThreads];
  __shared__ float2 s_mean[kThreads];
  __shared__ float4 s_conic_opacity[kThreads];
  __shared__ float4 s_color_depth[kThreads];
  __shared__ float4 s_pixel[kThreads];        // per pixel: d rgb, contributors (as int bits)
  __shared__ float4 s_pixel_depth[kDepthAlpha ? kThreads : 1];  // t_final, d depth sum, d alpha out
  __shared__ int s_max_contributors;

  int position = blockIdx.x, chunk = 0;
  if (chunks.work) {
    const int2 w = chunks.work[blockIdx.x];
    if (w.x < 0) return;
    position = w.x, chunk = w.y;
  }
  const int2 split = chunks.per_tile ? chunks.per_tile[position] : make_int2(0, 1);
  const int64_t tile = bins.heavy_first ? bins.heavy_first[position] : position;
  const int2 range = bins.ranges[tile];
  const int chunk_begin = range.x + chunk * chunks.entries;
  const bool last_chunk = chunk + 1 == split.y;
  const int chunk_end = last_chunk ? range.y : chunk_begin + chunks.entries;
  const int64_t resume_at = last_chunk ? -1 : int64_t(split.x + chunk) * kBlockPixels;
  const TilePlace at = tile_place(grid, tile);
  const ImageLayout im = grid.images[at.camera];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int px0 = at.x * raster::kTileSize + (warp % 2) * 8, py0 = at.y * raster::kTileSize + (warp / 2) * 4;
  // Lane k starts with pixel -k mod 32, so that pixel j reaches lane 0 at step j.
  const int j0 = (32 - lane) & 31;
  PixelBackward p = load_pixel(px0 + j0 % 8, py0 + j0 / 8, im, bg, state, dout, chunks, resume_at,
                               last_chunk ? INT_MAX : chunk_end - range.x);
  s_pixel[warp * 32 + j0] = make_float4(p.replay.drgb[0], p.replay.drgb[1], p.replay.drgb[2],
                                        __int_as_float(p.contributors));
  if constexpr (kDepthAlpha)
    s_pixel_depth[warp * 32 + j0] = make_float4(p.replay.t_final, p.replay.ddepth_sum, p.replay.dalpha_out, 0.f);

  if (threadIdx.x == 0) s_max_contributors = 0;
  __syncthreads();
  const int warp_max = __reduce_max_sync(0xffffffffu, p.contributors);
  if (lane == 0) atomicMax(&s_max_contributors, warp_max);
  __syncthreads();
  const int first = chunk_begin - range.x;
  const int last = min(s_max_contributors, chunk_end - range.x);
  // This warp's walk: positions wlast - 1 down to first, n of them.
  const int wlast = min(warp_max, last);
  const int n = max(0, wlast - first);

  // The Gaussian this lane holds (its walk index, -1: none) and its sums.
  int held = -1;
  int32_t held_slot = 0;
  Vec2f mean{};
  raster::Sym2<float> conic{};
  float opacity = 0.f;
  float4 cd{};
  bool touched = false;
  float g[kGradValues] = {};
  auto flush = [&] {
    if (held >= 0 && touched) {
      atomicAdd(&dslots.mean2d[held_slot], make_float4(g[0], g[1], g[2], g[3]));
      atomicAdd(&dslots.conic_opacity[held_slot], make_float4(g[4], g[5], g[6], g[7]));
      atomicAdd(&dslots.color_depth[held_slot], make_float4(g[8], g[9], g[10], g[11]));
    }
#pragma unroll
    for (int k = 0; k < kGradValues; ++k) g[k] = 0.f;
    touched = false;
  };
  // One step of the ring; `entry`: the shared index of walk entry t where this is the step that takes
  // it (-1: past the walk's end).
  auto step = [&](int t, int entry) {
    if (entry >= 0 && lane == (t & 31)) {
      flush();
      held = t;
      held_slot = s_slot[entry];
      mean = Vec2f{s_mean[entry].x, s_mean[entry].y};
      const float4 co = s_conic_opacity[entry];
      conic = raster::Sym2<float>{co.x, co.y, co.z};
      opacity = co.w;
      cd = s_color_depth[entry];
    }
    const int j = (t - lane) & 31, i = t - j;
    const float4 px = s_pixel[warp * 32 + j];
    const int contributors = __float_as_int(px.w);
    if (i >= 0 && i < n && wlast - 1 - i < contributors) {
      const Vec2f centre{px0 + (j % 8) + 0.5f, py0 + (j / 8) + 0.5f};
      float gauss;
      const float alpha = raster::gaussian_alpha(mean, conic, opacity, centre, gauss);
      if (alpha != 0.f) {
        touched = true;
        p.replay.drgb[0] = px.x, p.replay.drgb[1] = px.y, p.replay.drgb[2] = px.z;
        if constexpr (kDepthAlpha) {
          const float4 pd = s_pixel_depth[warp * 32 + j];
          p.replay.t_final = pd.x, p.replay.ddepth_sum = pd.y, p.replay.dalpha_out = pd.z;
        }
        float da, dz = 0.f;
        Vec3f dcolor;
        p.replay.template step<kDepthAlpha>(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w, da, dcolor, dz);
        Vec2f dmean{};
        raster::Sym2<float> dconic{};
        float dopacity = 0.f;
        raster::gaussian_alpha_vjp(mean, conic, opacity, centre, gauss, da, dmean, dconic, dopacity);
        g[0] += dmean.x, g[1] += dmean.y;
        if constexpr (kAbs) g[2] += fabsf(dmean.x), g[3] += fabsf(dmean.y);
        g[4] += dconic.xx, g[5] += dconic.xy, g[6] += dconic.yy, g[7] += dopacity;
        g[8] += dcolor.x, g[9] += dcolor.y, g[10] += dcolor.z;
        if constexpr (kDepthAlpha) g[11] += dz;
      }
    }
    // The pixel moves on to the next lane (lane 0 takes lane 31's).
    const int from = (lane + 31) & 31;
    p.replay.transmittance = __shfl_sync(0xffffffffu, p.replay.transmittance, from);
#pragma unroll
    for (int c = 0; c < 3; ++c) p.replay.acc_rgb[c] = __shfl_sync(0xffffffffu, p.replay.acc_rgb[c], from);
    if constexpr (kDepthAlpha) p.replay.acc_depth = __shfl_sync(0xffffffffu, p.replay.acc_depth, from);
  };

  int t = 0;
  for (int batch_end = last; batch_end > first; batch_end -= kThreads) {
    __syncthreads();  // the previous batch is fully consumed before it is overwritten
    const int batch_begin = max(first, batch_end - kThreads);
    const int e = batch_end - 1 - threadIdx.x;  // shared index j holds position batch_end - 1 - j
    if (e >= batch_begin) {
      const int32_t s = bins.slot_of_entry[range.x + e];
      s_slot[threadIdx.x] = s;
      s_mean[threadIdx.x] = slots.mean2d[s];
      s_conic_opacity[threadIdx.x] = slots.conic_opacity[s];
      s_color_depth[threadIdx.x] = slots.color_depth[s];
    }
    __syncthreads();
    // Steps whose entry lies in this batch: walk entry t is position wlast - 1 - t.
    const int t_stop = min(n, wlast - batch_begin);
    for (; t < t_stop; ++t) step(t, batch_end - wlast + t);
  }
  for (; t < n + 31; ++t) step(t, -1);
  flush();
}

}  // namespace

int blend_backward_slots(int device) {
  int sms = 0, per_sm = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "asking for the SM count");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, blend_backward_kernel<true, false>, kThreads, 0),
        "asking for the backward blend's occupancy");
  return sms * per_sm;
}

void blend_backward(const ProjectedSlots& slots, const TileBins& bins, const TileChunks& chunks, const TileGrid& grid,
                    const float* background, const PixelState& state, const RenderOutputGrads& dout,
                    const ProjectedGrads& dslots, bool abs_stats, cudaStream_t stream) {
  if (grid.total_tiles == 0) return;
  // One per work item (a tile, or a chunk of one), in bins.heavy_first order.
  const auto blocks = static_cast<unsigned>(chunks.work ? chunks.blocks : grid.total_tiles);
  Background bg{{background[0], background[1], background[2]}};
  const bool depth_alpha = dout.depth || dout.alpha;
  auto kernel = abs_stats ? (depth_alpha ? blend_backward_kernel<true, true> : blend_backward_kernel<true, false>)
                          : (depth_alpha ? blend_backward_kernel<false, true> : blend_backward_kernel<false, false>);
  kernel<<<blocks, kThreads, 0, stream>>>(slots, bins, chunks, grid, bg, state, dout, dslots);
  check_launch("blend backward");
}

}  // namespace splat::kernels::cuda
