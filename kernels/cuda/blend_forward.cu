// Forward blending: one block per (camera, tile), heaviest tiles first, one thread per pixel
// (outputs laid out as RenderOutputs says: each camera at its own size, one after the other). The tile's depth-sorted
// Gaussians are staged through shared memory in batches of one per thread, so each is read from
// global memory once per tile instead of once per pixel; the block stops as soon as every pixel
// is saturated or the list is exhausted. Where the backward splits a tile's list into chunks
// (tile_chunks.cuh), each pixel keeps the compositor's state at every chunk start it passes, and
// its sums at the end. Each warp's pixels lie in one 8 x 4 warp cell of the tile, and its threads
// walk only the staged Gaussians that reach that cell (warp_cells.cuh).
//
// Lanes on long tiles. A tile the backward splits that would also outlast this kernel's even share
// of the call (its own slots) is a pixel's serial walk of thousands of entries, and with few images a
// call the kernel ends when that walk does (docs/ARCHITECTURE.md "Splitting long tile lists"). Its
// pixels are therefore shared by kLanes blocks, each with kLanes threads (lanes) per pixel: each lane
// composites its own segment of every staged batch from T = 1, keeping the product of (1 - α) and its
// sums; the lanes of a pixel then join their segments in order (the colour and depth sums scaled by
// the transmittance before each).
// Where the joined transmittance would drop below the floor, the lane whose segment it falls in
// composites that segment again from the true transmittance with the one-walk rule, so the pixel stops
// at the entry the walk stops at. The function is the walk's; only the float rounding of the products
// moves. Cost: each lane computes a quarter of the batch's α, the batch is staged once per block (four
// times per tile), and the lanes after a pixel's stop compute one batch for nothing.
#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/cuda/warp_cells.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

constexpr int kLanes = 4;                            // threads per pixel on a long tile
constexpr int kSegment = kBlockPixels / kLanes;      // entries of a batch per lane
constexpr int kLanePixels = kBlockPixels / kLanes;   // pixels of a long tile per block

struct Background {
  float rgb[3];
};

// One batch of a tile's list in shared memory: the staged Gaussians' screen attributes.
struct Staged {
  float2 mean[kBlockPixels];
  float4 exponent_opacity[kBlockPixels];  // raster::alpha_exponent of the conic, and the opacity
  float4 color_depth[kBlockPixels];
  WarpWalks walks;  // which of them reach each warp cell
};

// Everything a block needs to blend one tile.
struct Blend {
  ProjectedSlots slots;
  TileBins bins;
  TileChunks chunks;
  TileGrid grid;
  Background bg;
  RenderOutputs out;
  PixelState state;
  int at_once;  // blocks this kernel runs at once: a tile longer than the call's entries over these gets lanes
};

// A pixel of a tile: `p` its index in the tile (row-major), `pos` the tile's heavy-first position.
struct TilePixel {
  int64_t tile, pos, offset;  // offset: the pixel's place in the outputs (where inside)
  int p, px, py;
  bool inside;
  __device__ TilePixel(const Blend& b, int64_t position, int pixel) : pos(position), p(pixel) {
    tile = b.bins.heavy_first ? b.bins.heavy_first[pos] : pos;
    const TilePlace at = tile_place(b.grid, tile);
    const ImageLayout& im = b.grid.images[at.camera];
    px = at.x * raster::kTileSize + p % raster::kTileSize;
    py = at.y * raster::kTileSize + p / raster::kTileSize;
    inside = px < im.width && py < im.height;
    offset = im.pixel_offset + int64_t(py) * im.width + px;
  }
};

// Also finds the warp cells of tile x.tile the staged Gaussians reach.
__device__ inline void stage(const Blend& b, int base, int end, Staged& s, const TilePixel& x) {
  const int e = base + threadIdx.x;
  unsigned cells = 0;
  if (e < end) {
    const int32_t k = b.bins.slot_of_entry[e];
    const float2 mean = b.slots.mean2d[k];
    const float4 co = b.slots.conic_opacity[k];
    const raster::AlphaExponent<float> ex = raster::alpha_exponent(raster::Sym2<float>{co.x, co.y, co.z});
    s.mean[threadIdx.x] = mean;
    s.exponent_opacity[threadIdx.x] = make_float4(ex.a, ex.b, ex.c, co.w);
    s.color_depth[threadIdx.x] = b.slots.color_depth[k];
    cells = staged_cells(mean, co, x.px / raster::kTileSize, x.py / raster::kTileSize);
  }
  s.walks.publish(cells);
}

// At the start of a chunk after the first (`at`: entries of the list before this batch), the pixel keeps
// its compositor's state for the backward. The split is read again where it is needed rather than kept
// in registers, which the kernel has few of (see its launch bounds).
__device__ inline void keep_chunk_start(const Blend& b, const TilePixel& x, int at,
                                        const raster::PixelCompositor<float>& comp) {
  if (!b.chunks.per_tile || at == 0) return;
  const int entries = *b.chunks.entries;
  if (at % entries != 0) return;
  const int2 split = b.chunks.per_tile[x.pos];  // first record, chunks
  const int chunk = at / entries;
  if (chunk >= split.y) return;
  const int64_t r = int64_t(split.x + chunk - 1) * kBlockPixels + x.p;
  b.chunks.at_start[r] = make_float4(comp.transmittance, comp.rgb[0], comp.rgb[1], comp.rgb[2]);
  b.chunks.depth_at_start[r] = comp.depth_sum;
}

// Whether staged Gaussian j counts at the pixel (α >= 1/255), and then its α.
__device__ inline bool staged_alpha(const Staged& s, int j, Vec2f pixel, float& alpha) {
  const float4 eo = s.exponent_opacity[j];
  const float2 mean = s.mean[j];
  float gauss;
  return raster::pixel_alpha(raster::AlphaExponent<float>{eo.x, eo.y, eo.z}, eo.w,
                             Vec2f{pixel.x - mean.x, pixel.y - mean.y}, alpha, gauss);
}

// The pixel's outputs and what the backward reads of it.
__device__ inline void finish_pixel(const Blend& b, const TilePixel& x, const raster::PixelCompositor<float>& comp,
                                    int contributors) {
  const int64_t pix = x.offset;
  // The end sums, where a chunk's backward resumes this pixel (it composited past the first chunk).
  if (b.chunks.per_tile && contributors > *b.chunks.entries && b.chunks.per_tile[x.pos].y > 1)
    b.chunks.at_end[pix] = make_float4(comp.rgb[0], comp.rgb[1], comp.rgb[2], comp.depth_sum);
  float rgb[3], alpha, depth;
  comp.finish(b.bg.rgb, rgb, alpha, depth);
  b.out.rgb[3 * pix] = rgb[0];
  b.out.rgb[3 * pix + 1] = rgb[1];
  b.out.rgb[3 * pix + 2] = rgb[2];
  if (b.out.alpha) b.out.alpha[pix] = alpha;
  if (b.out.depth) b.out.depth[pix] = depth;
  b.state.final_transmittance[pix] = comp.transmittance;
  b.state.contributors[pix] = contributors;
  b.state.depth[pix] = depth;
}

// One thread per pixel walks the list; a warp's pixels are its cell, and it walks the entries that
// reach it (warp_cells.cuh).
__device__ void blend_tile(const Blend& b, int64_t pos, Staged& s) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const TilePixel x(b, pos, warp_cell_y(warp, lane) * raster::kTileSize + warp_cell_x(warp, lane));
  const Vec2f pixel{x.px + 0.5f, x.py + 0.5f};
  const int2 range = b.bins.ranges[x.tile];
  raster::PixelCompositor<float> comp;
  bool done = !x.inside;
  int contributors = 0;
  for (int base = range.x; base < range.y; base += kBlockPixels) {
    if (__syncthreads_count(done) == kBlockPixels) break;  // also orders the previous batch's reads
    if (!done) keep_chunk_start(b, x, base - range.x, comp);
    stage(b, base, range.y, s, x);
    __syncthreads();
    if (done) continue;
    s.walks.walk(warp, 0, kBlockPixels, [&](int j) {
      float alpha;
      if (!staged_alpha(s, j, pixel, alpha)) return true;
      const float4 cd = s.color_depth[j];
      if (!comp.add(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w)) {
        done = true;
        return false;
      }
      contributors = base - range.x + j + 1;
      return true;
    });
  }
  if (x.inside) finish_pixel(b, x, comp, contributors);
}

// kLanes threads per pixel walk the list, each a segment of every batch; this block takes the pixels
// [part * kLanePixels, +kLanePixels) of the tile.
__device__ void blend_tile_lanes(const Blend& b, int64_t pos, int part, Staged& s) {
  const int lane = int(threadIdx.x) % kLanes;
  const TilePixel x(b, pos, part * kLanePixels + int(threadIdx.x) / kLanes);
  // A warp's pixels are one row of a warp cell (a block's 64 pixels are a row of two cells): its lanes
  // walk the entries that reach that cell.
  static_assert(kLanePixels == raster::kWarpCellsX * 32 && 32 / kLanes == raster::kWarpCellW, "a warp in a cell");
  const int cell = x.py % raster::kTileSize / raster::kWarpCellH * raster::kWarpCellsX +
                   x.px % raster::kTileSize / raster::kWarpCellW;
  const Vec2f pixel{x.px + 0.5f, x.py + 0.5f};
  const int2 range = b.bins.ranges[x.tile];
  raster::PixelCompositor<float> comp;  // the same on every lane of the pixel
  bool done = !x.inside;
  int contributors = 0;
  for (int base = range.x; base < range.y; base += kBlockPixels) {
    if (__syncthreads_count(done) == kBlockPixels) break;
    if (!done && lane == 0) keep_chunk_start(b, x, base - range.x, comp);
    stage(b, base, range.y, s, x);
    __syncthreads();
    const int from = lane * kSegment, to = min(from + kSegment, range.y - base);
    raster::SegmentSums<float> seg;  // this lane's segment of the batch, from T = 1
    int last = -1;
    if (!done)
      s.walks.walk(cell, from, to, [&](int j) {
        float alpha;
        if (!staged_alpha(s, j, pixel, alpha)) return true;
        const float4 cd = s.color_depth[j];
        seg.add(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w);
        last = j;
        return true;
      });
    // The segments joined in order: the transmittance before this lane's, and the first segment the
    // pixel stops in (kLanes: none).
    float t = comp.transmittance, before = t;
    int stop = kLanes;
#pragma unroll
    for (int k = 0; k < kLanes; ++k) {
      raster::SegmentSums<float> other;
      other.kept = __shfl_sync(0xffffffffu, seg.kept, k, kLanes);
      if (k == lane) before = t;
      if (stop == kLanes && other.stops_after(t)) stop = k;
      if (stop == kLanes) t *= other.kept;
    }
    if (lane < stop) {
      seg.scale(before);
    } else if (lane == stop) {  // one by one from the true transmittance, to the entry the walk stops at
      raster::PixelCompositor<float> walk;
      walk.transmittance = before;
      last = -1;
      s.walks.walk(cell, from, to, [&](int j) {
        float alpha;
        if (!staged_alpha(s, j, pixel, alpha)) return true;
        const float4 cd = s.color_depth[j];
        if (!walk.add(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w)) return false;
        last = j;
        return true;
      });
      seg.rgb[0] = walk.rgb[0], seg.rgb[1] = walk.rgb[1], seg.rgb[2] = walk.rgb[2], seg.depth_sum = walk.depth_sum;
      t = walk.transmittance;
    } else {
      seg = raster::SegmentSums<float>{};
      last = -1;
    }
#pragma unroll
    for (int off = 1; off < kLanes; off <<= 1) {
#pragma unroll
      for (float& v : seg.rgb) v += __shfl_xor_sync(0xffffffffu, v, off, kLanes);
      seg.depth_sum += __shfl_xor_sync(0xffffffffu, seg.depth_sum, off, kLanes);
      last = max(last, __shfl_xor_sync(0xffffffffu, last, off, kLanes));
    }
    t = __shfl_sync(0xffffffffu, t, min(stop, kLanes - 1), kLanes);  // where it stopped: that lane's walk
    if (!done) {
      seg.add_to(comp, t);
      done = stop < kLanes;
      if (last >= 0) contributors = base - range.x + last + 1;
    }
  }
  if (x.inside && lane == 0) finish_pixel(b, x, comp, contributors);
}

// Blocks [0, kLanes * lanes_most) take the first lanes_most heavy-first positions, kLanes blocks each:
// a long tile's parts with lanes, another tile whole on its first block (the others return). The
// blocks after them take the remaining positions, one each. A long tile is one the backward splits
// that also outlasts this kernel's even share: the backward runs more blocks at once and splits more,
// and giving those lanes too made this kernel 10 % slower at batch 1 (bonsai 0.181 against 0.169 ms a
// step; bench/TRAINING.md, "The forward's lanes by its own even share"). The others are blended whole
// here, which keeps their chunks' records as well.
// 6 blocks an SM (40 registers). At 8 (32 registers) the walk over the warp's cell spilled more and was
// slower at batch 1 (bonsai 0.246 against 0.213 ms a step), at 5 (48, no spills) slower at batch 4
// (0.516 against 0.497; bench/TRAINING.md, "Warps walk their cells").
__global__ void __launch_bounds__(kBlockPixels, 6) blend_forward_kernel(Blend b, int64_t lanes_most) {
  __shared__ Staged s;
  const int64_t block = blockIdx.x;
  if (block >= kLanes * lanes_most) return blend_tile(b, block - (kLanes - 1) * lanes_most, s);
  const int64_t pos = block / kLanes;
  const int part = int(block % kLanes);
  if (b.chunks.per_tile[pos].y > 1 && outlasts_share(b.bins.heavy_entries[pos], b.at_once, *b.chunks.needed))
    return blend_tile_lanes(b, pos, part, s);
  if (part == 0) blend_tile(b, pos, s);
}

}  // namespace

int blend_forward_slots(int device) {
  return blocks_at_once(device, blend_forward_kernel, kBlockPixels, "asking for the forward blend's occupancy");
}

void blend_forward(const ProjectedSlots& slots, const TileBins& bins, const TileChunks& chunks, const TileGrid& grid,
                   const float* background, const RenderOutputs& out, const PixelState& state, int at_once,
                   cudaStream_t stream) {
  if (grid.total_tiles == 0) return;
  // A tile with lanes outlasts this kernel's even share, so fewer than at_once tiles do; the tiles before
  // it in the order are within a class of it or above (at most 1.25x apart), so it lies among the first
  // 1.25 at_once positions.
  const int64_t lanes_most = chunks.per_tile ? std::min<int64_t>(grid.total_tiles, at_once + at_once / 4 + 1) : 0;
  const auto blocks = static_cast<unsigned>(grid.total_tiles + (kLanes - 1) * lanes_most);
  const Blend b{slots, bins, chunks, grid, Background{{background[0], background[1], background[2]}}, out, state,
                at_once};
  blend_forward_kernel<<<blocks, kBlockPixels, 0, stream>>>(b, lanes_most);
  check_launch("blend forward");
}

}  // namespace splat::kernels::cuda
