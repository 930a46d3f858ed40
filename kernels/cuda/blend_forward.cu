// Forward blending: one block per (camera, tile), heaviest tiles first, one thread per pixel
// (outputs laid out as RenderOutputs says: each camera at its own size, one after the other). The tile's depth-sorted
// Gaussians are staged through shared memory in batches of one per thread, so each is read from
// global memory once per tile instead of once per pixel; the block stops as soon as every pixel
// is saturated or the list is exhausted. Where the backward splits a tile's list into chunks
// (tile_chunks.cuh), each pixel keeps the compositor's state at every chunk start it passes, and
// its sums at the end.
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

struct Background {
  float rgb[3];
};

__global__ void __launch_bounds__(kBlockPixels)
    blend_forward_kernel(ProjectedSlots slots, TileBins bins, TileChunks chunks, TileGrid grid, Background bg,
                         RenderOutputs out, PixelState state) {
  __shared__ float2 s_mean[kBlockPixels];
  __shared__ float4 s_conic_opacity[kBlockPixels];
  __shared__ float4 s_color_depth[kBlockPixels];

  const int64_t tile = bins.heavy_first ? bins.heavy_first[blockIdx.x] : blockIdx.x;
  const TilePlace at = tile_place(grid, tile);
  const ImageLayout im = grid.images[at.camera];
  const int px = at.x * raster::kTileSize + threadIdx.x % raster::kTileSize;
  const int py = at.y * raster::kTileSize + threadIdx.x / raster::kTileSize;
  const bool inside = px < im.width && py < im.height;
  const Vec2f pixel{px + 0.5f, py + 0.5f};

  const int2 range = bins.ranges[tile];
  raster::PixelCompositor<float> comp;
  bool done = !inside;
  int contributors = 0;
  // At each start of a chunk after the first, the pixel keeps a record while it still composites.
  // The split is read again where it is needed rather than kept in registers: the kernel runs 8
  // blocks an SM at 32 registers a thread, and fewer blocks would cost more than the records.
  for (int base = range.x; base < range.y; base += kBlockPixels) {
    if (__syncthreads_count(done) == kBlockPixels) break;  // also orders the previous batch's reads
    if (!done && chunks.per_tile && base > range.x && (base - range.x) % chunks.entries == 0) {
      const int2 split = chunks.per_tile[blockIdx.x];  // first record, chunks
      const int chunk = (base - range.x) / chunks.entries;
      if (chunk < split.y) {
        const int64_t r = int64_t(split.x + chunk - 1) * kBlockPixels + threadIdx.x;
        chunks.at_start[r] = make_float4(comp.transmittance, comp.rgb[0], comp.rgb[1], comp.rgb[2]);
        chunks.depth_at_start[r] = comp.depth_sum;
      }
    }
    const int e = base + threadIdx.x;
    if (e < range.y) {
      const int32_t s = bins.slot_of_entry[e];
      s_mean[threadIdx.x] = slots.mean2d[s];
      s_conic_opacity[threadIdx.x] = slots.conic_opacity[s];
      s_color_depth[threadIdx.x] = slots.color_depth[s];
    }
    __syncthreads();
    const int n = min(kBlockPixels, range.y - base);
    for (int j = 0; j < n && !done; ++j) {
      const float4 co = s_conic_opacity[j];
      float gauss;
      const float alpha = raster::gaussian_alpha(Vec2f{s_mean[j].x, s_mean[j].y}, raster::Sym2<float>{co.x, co.y, co.z},
                                                 co.w, pixel, gauss);
      if (alpha == 0.f) continue;
      const float4 cd = s_color_depth[j];
      if (!comp.add(alpha, Vec3f{cd.x, cd.y, cd.z}, cd.w)) {
        done = true;
        break;
      }
      contributors = base - range.x + j + 1;
    }
  }
  if (!inside) return;
  const int64_t pix = im.pixel_offset + int64_t(py) * im.width + px;
  // The end sums, where a chunk's backward resumes this pixel (it composited past the first chunk).
  if (chunks.per_tile && contributors > chunks.entries && chunks.per_tile[blockIdx.x].y > 1)
    chunks.at_end[pix] = make_float4(comp.rgb[0], comp.rgb[1], comp.rgb[2], comp.depth_sum);
  float rgb[3], alpha, depth;
  comp.finish(bg.rgb, rgb, alpha, depth);
  out.rgb[3 * pix] = rgb[0];
  out.rgb[3 * pix + 1] = rgb[1];
  out.rgb[3 * pix + 2] = rgb[2];
  if (out.alpha) out.alpha[pix] = alpha;
  if (out.depth) out.depth[pix] = depth;
  state.final_transmittance[pix] = comp.transmittance;
  state.contributors[pix] = contributors;
  state.depth[pix] = depth;
}

}  // namespace

void blend_forward(const ProjectedSlots& slots, const TileBins& bins, const TileChunks& chunks, const TileGrid& grid,
                   const float* background, const RenderOutputs& out, const PixelState& state, cudaStream_t stream) {
  if (grid.total_tiles == 0) return;
  const auto blocks = static_cast<unsigned>(grid.total_tiles);  // one per tile, in bins.heavy_first order
  Background bg{{background[0], background[1], background[2]}};
  blend_forward_kernel<<<blocks, kBlockPixels, 0, stream>>>(slots, bins, chunks, grid, bg, out, state);
  check_launch("blend forward");
}

}  // namespace splat::kernels::cuda
