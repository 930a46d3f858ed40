// Backward blending: one block per (camera, tile), heaviest tiles first, replays each pixel's
// composited Gaussians back to front (raster::PixelReplay), starting from the last contributor
// forward recorded. A long list is split into chunks of its own blocks (tile_chunks.cuh): a chunk
// replays its entries starting from the resume state forward kept at the next chunk's start, or
// from the pixel's end where the pixel stopped compositing inside the chunk. Each thread owns kP = 2
// pixels of one column and sums their gradients in registers, so a warp covers two 8 x 4 warp cells.
// A Gaussian's gradient values are then summed across the warp (add_warp_sums: halved between the
// warp's two halves, then a butterfly) down to four partial sums of each, added by eight lanes with
// vector atomics; warps where no pixel composited a Gaussian skip it entirely, and a warp walks only
// the Gaussians that reach its cell (warp_cells.cuh). The kernel is bound by issued instructions: the
// per-pixel replay and the shuffles per (warp, Gaussian). Measured alternatives that were slower on
// trained scenes (bench/RESULTS.md, bench/TRAINING.md): a shuffle reduce-scatter with scalar atomics,
// summing the block's warps in shared memory first (1.5 % faster on bonsai, slower on the synthetic
// scene), per-lane atomics when one or a few lanes composited, 4 pixels per thread.
#include <climits>
#include <utility>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/cuda/warp_cells.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

struct Background {
  float rgb[3];
};

// Pixels per thread. A composited (warp, Gaussian) costs the warp its shuffled sums, atomics, walk
// step and staged reads once for all its pixels, so two pixels a thread issue fewer instructions per
// pixel; a warp's footprint (two cells) then holds pixels that composite differently, and it replays
// until its last pixel is done. Before the warps walked their cells one pixel was faster on trained
// scenes. Now two are, with the long tiles' chunks planned for this kernel's occupancy (H100, against
// one pixel, bench/TRAINING.md "Two pixels a thread in the backward blend"): bonsai's first 10,000
// images at batch 4 1.648 -> 1.439 ms a step, batch 1 0.415 -> 0.395; the synthetic 1M-Gaussian
// case 1.279 -> 1.013 ms.
constexpr int kP = 2;
constexpr int kThreads = kBlockPixels / kP;  // also the entries per shared-memory batch

// Lanes that add each gradient value: the warp's values are summed down to this many partial sums per
// value (each the sum over the lanes of one class mod kSumLanes), added by as many lanes with atomics.
// Fewer shuffle levels for more atomics. Measured on an H100 with a butterfly over all values
// (bench/TRAINING.md, "Four lanes add a Gaussian's warp sums"): 1, 2, 4 and 8 lanes gave 1.56, 1.41,
// 1.29 and 1.75 ms on the synthetic scene (at 8, same-address atomics queue); with the halving first
// ("The backward's warp sums halved before they are summed") 1, 2 and 4 gave 1.05, 1.01 and 0.98 ms.
constexpr int kSumLanes = 4;
static_assert(kSumLanes >= 1 && kSumLanes <= 8 && (kSumLanes & (kSumLanes - 1)) == 0,
              "a power of two below the first level, the halving at lane distance 16");
constexpr unsigned kFullWarp = 0xffffffffu;

// Which values of a composited Gaussian's g[] (see ProjectedGrads: 0, 1 dmean; 2, 3 the AbsGS sums;
// 4-6 the conic's moments, raster::gaussian_alpha_vjp_moments; 7 dopacity; 8-10 dcolor; 11 ddepth) a
// lane keeps when the warp halves them between its two halves of 16 lanes: the lower half the conic
// and opacity, the upper the rest that is asked for.
template <bool kAbs, bool kDepthAlpha>
struct HalvedValues {
  static constexpr int kCount = 5 + (kAbs ? 2 : 0) + (kDepthAlpha ? 1 : 0);  // the upper half's, > 4
  static constexpr int lower(int i) { return i < 4 ? 4 + i : -1; }
  static constexpr int upper(int i) { return i < 2 ? i : i < 5 ? 6 + i : (kAbs && i < 7) ? i - 3 : 11; }
};

// Sums a composited Gaussian's values over the warp and adds them to its gradients. The first level
// (lane distance 16) is a reduce-scatter: a lane sends only the values its partner keeps, so each
// lane then carries the values of its half (HalvedValues), 5 of the default's 9, where a butterfly
// would shuffle all of them at every level. The levels down to kSumLanes are a butterfly over those.
// Lanes 0 .. kSumLanes - 1 then add the conic (its gradient from the summed moments) and opacity with a
// float4 atomic, lanes 16 .. 15 + kSumLanes the rest with two. Splitting at lane distance 8 as well (11
// shuffles instead of 15) needs float2 atomics from four groups of lanes, which was slower
// (bench/TRAINING.md, "The backward's warp sums halved before they are summed").
template <bool kAbs, bool kDepthAlpha>
__device__ inline void add_warp_sums(const float (&g)[kGradValues], int lane, const int32_t* slot,
                                     const ProjectedGrads& d) {
  using Halves = HalvedValues<kAbs, kDepthAlpha>;
  constexpr int n = Halves::kCount;
  const bool up = lane & 16;
  float r[n];
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const float lo = Halves::lower(i) >= 0 ? g[max(Halves::lower(i), 0)] : 0.f;
    const float hi = g[Halves::upper(i)];
    r[i] = (up ? hi : lo) + __shfl_xor_sync(kFullWarp, up ? lo : hi, 16);
  }
#pragma unroll
  for (int i = 0; i < n; ++i)
#pragma unroll
    for (int off = 8; off >= kSumLanes; off >>= 1) r[i] += __shfl_xor_sync(kFullWarp, r[i], off);
  if (lane % 16 >= kSumLanes) return;
  const int32_t s = *slot;
  if (!up) {
    const raster::Sym2<float> dconic = raster::conic_gradient(raster::Sym2<float>{r[0], r[1], r[2]});
    atomicAdd(&d.conic_opacity[s], make_float4(dconic.xx, dconic.xy, dconic.yy, r[3]));
    return;
  }
  if constexpr (kAbs) atomicAdd(&d.mean2d[s], make_float4(r[0], r[1], r[5], r[6]));
  else atomicAdd(reinterpret_cast<float2*>(&d.mean2d[s]), make_float2(r[0], r[1]));
  atomicAdd(&d.color_depth[s], make_float4(r[2], r[3], r[4], kDepthAlpha ? r[n - 1] : 0.f));
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

// kAbs: the AbsGS statistic is wanted; kDepthAlpha: a depth or an alpha gradient is given (the
// replay's terms for them are skipped otherwise).
// Every variant runs 8 blocks of 128 threads an SM (64 registers; those with the AbsGS sums or the
// depth terms spill a few bytes). At 9 (56 registers) more of the state spilled, and that was slower:
// bonsai's backward blend 0.419 against 0.395 ms a step at batch 1 (bench/TRAINING.md, "Two pixels a
// thread in the backward blend"). Without the AbsGS sums a composited (warp, Gaussian) costs 27
// shuffles instead of 33.
template <bool kAbs, bool kDepthAlpha>
__global__ void __launch_bounds__(kThreads, 8)
    blend_backward_kernel(ProjectedSlots slots, TileBins bins, TileChunks chunks, TileGrid grid, Background bg,
                          PixelState state, RenderOutputGrads dout, ProjectedGrads dslots) {
  __shared__ int32_t s_slot[kThreads];
  __shared__ float2 s_mean[kThreads];
  __shared__ float4 s_conic_opacity[kThreads];
  __shared__ float4 s_exponent[kThreads];  // raster::alpha_exponent of the conic (w unused)
  __shared__ float4 s_color_depth[kThreads];
  __shared__ CellWalks<kThreads> s_walks;
  __shared__ int s_max_contributors;
  __shared__ int s_list_begin;

  // This block's work: a heavy-first position and a chunk of its tile's list (the whole list unsplit).
  int position = blockIdx.x, chunk = 0;
  if (chunks.work) {
    const int2 w = chunks.work[blockIdx.x];
    if (w.x < 0) return;  // past the call's work items (the launch is an upper bound)
    position = w.x, chunk = w.y;
  }
  const int2 split = chunks.per_tile ? chunks.per_tile[position] : make_int2(0, 1);
  const int64_t tile = bins.heavy_first ? bins.heavy_first[position] : position;
  const int2 range = bins.ranges[tile];
  const int entries = chunks.per_tile ? *chunks.entries : 0;  // per chunk
  const int chunk_begin = range.x + chunk * entries;        // entries of slot_of_entry
  const bool last_chunk = chunk + 1 == split.y;
  const int chunk_end = last_chunk ? range.y : chunk_begin + entries;
  const int64_t resume_at = last_chunk ? -1 : int64_t(split.x + chunk) * kBlockPixels;
  const TilePlace at = tile_place(grid, tile);
  const ImageLayout im = grid.images[at.camera];
  // Each warp covers kP warp cells stacked in a column, lane l the column l % 8 of each at row l / 8: a
  // compact footprint leaves more warps with no pixel touched by a small Gaussian, and those skip it.
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int cell = first_cell_of_warp<kP>(warp);
  const int px = at.x * raster::kTileSize + warp_cell_x(cell, lane);
  const int py0 = at.y * raster::kTileSize + warp_cell_y(cell, lane);
  ThreadPixels t = load_pixels(std::make_index_sequence<kP>{}, px, py0, im, bg, state, dout, chunks, resume_at,
                               last_chunk ? INT_MAX : chunk_end - range.x);
  auto& pixels = t.p;
  int thread_max = 0;
#pragma unroll
  for (int i = 0; i < kP; ++i) thread_max = max(thread_max, pixels[i].contributors);

  if (threadIdx.x == 0) s_max_contributors = 0;
  __syncthreads();
  const int warp_max = __reduce_max_sync(0xffffffffu, thread_max);  // uniform skip bound of the warp
  if (lane == 0) atomicMax(&s_max_contributors, warp_max);
  __syncthreads();
  // The replay walks positions in the tile's list; its start comes from shared memory where a batch
  // is loaded (see the register note above the kernel).
  if (threadIdx.x == 0) s_list_begin = range.x;  // read after the loop's first barrier
  const int first = chunk_begin - range.x;
  // One past the last position of the chunk any pixel composited.
  const int last = min(s_max_contributors, chunk_end - range.x);

  for (int batch_end = last; batch_end > first; batch_end -= kThreads) {
    __syncthreads();  // the previous batch is fully consumed before it is overwritten
    const int batch_begin = max(first, batch_end - kThreads);
    const int e = batch_end - 1 - threadIdx.x;  // shared index j holds position batch_end - 1 - j
    unsigned cells = 0;  // none past the batch
    if (e >= batch_begin) {
      const int32_t s = bins.slot_of_entry[s_list_begin + e];
      const float2 mean = slots.mean2d[s];
      const float4 co = slots.conic_opacity[s];
      s_slot[threadIdx.x] = s;
      s_mean[threadIdx.x] = mean;
      s_conic_opacity[threadIdx.x] = co;
      const raster::AlphaExponent<float> ex = raster::alpha_exponent(raster::Sym2<float>{co.x, co.y, co.z});
      s_exponent[threadIdx.x] = make_float4(ex.a, ex.b, ex.c, 0.f);
      s_color_depth[threadIdx.x] = slots.color_depth[s];
      cells = staged_cells(mean, co, at.x, at.y);
    }
    s_walks.publish(cells);
    __syncthreads();
    // The entries that reach this warp's cell, from shared index batch_end - warp_max on (before the
    // warp's last contributor), in order.
    s_walks.template walk<kP>(cell, max(0, batch_end - warp_max), kThreads, [&](int j) {
      const int index = batch_end - 1 - j;  // position in the tile's list
      float g[kGradValues] = {};
      bool composited = false;
      const float4 co = s_conic_opacity[j];
      const float4 ex = s_exponent[j];
      const Vec2f mean{s_mean[j].x, s_mean[j].y};
      const raster::Sym2<float> conic{co.x, co.y, co.z};
#pragma unroll
      for (int i = 0; i < kP; ++i) {
        if (index >= pixels[i].contributors) continue;
        float alpha, gauss;
        if (!raster::pixel_alpha(raster::AlphaExponent<float>{ex.x, ex.y, ex.z}, co.w, pixels[i].centre - mean,
                                 alpha, gauss))
          continue;
        composited = true;
        const float4 cd = s_color_depth[j];
        float da, dz = 0.f;
        Vec3f dcolor;
        pixels[i].replay.template step<kDepthAlpha>(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w, da, dcolor, dz);
        Vec2f dmean{};
        raster::Sym2<float> moments{g[4], g[5], g[6]};
        raster::gaussian_alpha_vjp_moments(mean, conic, co.w, pixels[i].centre, gauss, da, dmean, moments, g[7]);
        g[0] += dmean.x, g[1] += dmean.y;
        if constexpr (kAbs) g[2] += fabsf(dmean.x), g[3] += fabsf(dmean.y);
        g[4] = moments.xx, g[5] = moments.xy, g[6] = moments.yy;
        g[8] += dcolor.x, g[9] += dcolor.y, g[10] += dcolor.z;
        if constexpr (kDepthAlpha) g[11] += dz;
      }
      if (!__any_sync(0xffffffffu, composited)) return true;
      add_warp_sums<kAbs, kDepthAlpha>(g, lane, &s_slot[j], dslots);
      return true;
    });
  }
}

}  // namespace

int blend_backward_slots(int device) {
  return blocks_at_once(device, blend_backward_kernel<false, false>, kThreads,
                        "asking for the backward blend's occupancy");
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
