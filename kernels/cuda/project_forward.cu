// Forward projection: world Gaussians -> per-(camera, Gaussian) screen attributes, with SH colour
// and the tile count fused into the same pass (one read of each Gaussian's parameters, including
// its 48 SH floats, for all cameras of the call).
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/raster_math.h"

namespace splat::kernels::cuda {
namespace {

// DenseToDestinations: the dense pass with each camera's pairs written to its destination
// (ProjectionSetup::destinations), a pass of its own so that the others compile as they would alone.
enum class Pass { Dense, DenseToDestinations, PackedCount, PackedWrite };

struct GaussianParams {
  Vec3f mean;
  raster::Quat<float> quat;
  Vec3f log_scale;
  float logit;
};

__device__ GaussianParams load_params(const GaussiansView& g, int64_t i) {
  GaussianParams p;
  p.mean = {g.means[3 * i], g.means[3 * i + 1], g.means[3 * i + 2]};
  const float4 q = reinterpret_cast<const float4*>(g.quats)[i];
  p.quat = {q.x, q.y, q.z, q.w};
  p.log_scale = {g.log_scales[3 * i], g.log_scales[3 * i + 1], g.log_scales[3 * i + 2]};
  p.logit = g.opacity_logits[i];
  return p;
}

// D = the SH degree as a compile-time constant: the SH loops unroll, so the basis stays in registers
// and a thread's rest coefficients are loaded together rather than one dependent load at a time.
// The columns a covering pair's screen attributes go to: the slots' own, or a camera's destination.
struct PairColumns {
  float2* mean2d;
  float4* conic_opacity;
  float4* color_depth;
};

template <int D>
__device__ void write_pair(const GaussiansView& g, const Camera& cam, int64_t i, const GaussianParams& p,
                           const raster::ProjectedGaussian<float>& pg, const PairColumns& to, int64_t at) {
  const Vec3f dir = p.mean - raster::camera_centre<float>(cam);
  const int64_t row = i * g.sh_rest_coeffs * 3;
  const Vec3f rgb = g.sh_rest_bf16 ? raster::sh_color<float, float>(D, dir, g.sh_dc + 3 * i, g.sh_rest_bf16 + row)
                                   : raster::sh_color<float, float>(D, dir, g.sh_dc + 3 * i,
                                                                    g.sh_rest ? g.sh_rest + row : nullptr);
  to.mean2d[at] = make_float2(pg.mean2d.x, pg.mean2d.y);
  to.conic_opacity[at] = make_float4(pg.conic.xx, pg.conic.xy, pg.conic.yy, pg.opacity);
  to.color_depth[at] = make_float4(rgb.x, rgb.y, rgb.z, pg.depth);
}

template <int D>
__device__ void write_slot(const GaussiansView& g, const Camera& cam, int64_t i, const GaussianParams& p,
                           const raster::ProjectedGaussian<float>& pg, ProjectedSlots& slots, int64_t slot) {
  write_pair<D>(g, cam, i, p, pg, {slots.mean2d, slots.conic_opacity, slots.color_depth}, slot);
  slots.half[slot] = make_int2(pg.half_x, pg.half_y);
}

// A dense pair written to its camera's destination (the receiving rank's columns: row i of the
// camera there), keeping here what project_backward reads: its tile count and screen box.
template <int D>
__device__ void write_to_destination(const GaussiansView& g, const Camera& cam, int c, int64_t i,
                                     const GaussianParams& p, const raster::ProjectedGaussian<float>& pg, int tiles,
                                     const PairDestination& to, ProjectedSlots& slots, int64_t pair) {
  to.tiles[i] = tiles;
  if (!tiles) return;
  to.camera[i] = c;
  write_pair<D>(g, cam, i, p, pg,
                {reinterpret_cast<float2*>(to.mean2d), reinterpret_cast<float4*>(to.conic_opacity),
                 reinterpret_cast<float4*>(to.color_depth)},
                i);
  slots.half[pair] = make_int2(pg.half_x, pg.half_y);
}

// One thread per Gaussian, looping over the cameras, so its parameters are read once per call.
template <Pass pass, int D>
__global__ void project_kernel(GaussiansView g, ProjectionSetup setup, ProjectedSlots slots, int32_t* pair_tiles,
                               const int32_t* pair_slot_end) {
  const int64_t n = g.n;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const GaussianParams p = load_params(g, i);
    for (int c = 0; c < setup.cameras_count; ++c) {
      const int64_t pair = c * n + i;
      if constexpr (pass == Pass::PackedWrite) {
        if (pair_tiles[pair] == 0) continue;  // culled in the counting pass
      }
      const Camera cam = setup.cameras[c];
      const raster::ProjectedGaussian<float> pg =
          raster::project_gaussian<float>(cam, p.mean, p.quat, p.log_scale, p.logit, setup.near_plane,
                                          setup.far_plane, setup.eps2d, setup.antialiased);
      const int tiles = pg.visible ? pg.tile_count : 0;
      if constexpr (pass == Pass::PackedCount) {
        pair_tiles[pair] = tiles;
      } else if constexpr (pass == Pass::DenseToDestinations) {
        slots.tile_count[pair] = tiles;
        write_to_destination<D>(g, cam, c, i, p, pg, tiles, setup.destinations[c], slots, pair);
      } else if constexpr (pass == Pass::Dense) {
        slots.tile_count[pair] = tiles;
        if (slots.camera_of) {  // public pairs name every pair explicitly
          slots.camera_of[pair] = c;
          slots.id_of[pair] = slots.first_id + i;
        }
        if (tiles) write_slot<D>(g, cam, i, p, pg, slots, pair);
      } else {
        // The slot keeps the counting pass's tile count: that is what the intersection buffer was
        // sized with (binning pads should this recomputation ever disagree).
        const int64_t slot = pair_slot_end[pair] - 1;
        slots.tile_count[slot] = pair_tiles[pair];
        slots.camera_of[slot] = c;
        slots.id_of[slot] = slots.first_id + i;
        write_slot<D>(g, cam, i, p, pg, slots, slot);
      }
    }
  }
}

constexpr int kThreads = 256;

// Launches the pass's kernel for the setup's SH degree (the counting pass reads no colour).
template <Pass pass>
void launch(const GaussiansView& g, const ProjectionSetup& setup, ProjectedSlots slots, int32_t* pair_tiles,
            const int32_t* pair_slot_end, cudaStream_t stream) {
  const int blocks = stride_blocks(g.n, kThreads);
  const auto go = [&]<int D>() {
    project_kernel<pass, D><<<blocks, kThreads, 0, stream>>>(g, setup, slots, pair_tiles, pair_slot_end);
  };
  if constexpr (pass == Pass::PackedCount) {
    go.template operator()<0>();
  } else {
    switch (setup.sh_degree) {
      case 0: go.template operator()<0>(); break;
      case 1: go.template operator()<1>(); break;
      case 2: go.template operator()<2>(); break;
      default: go.template operator()<3>();
    }
  }
}

}  // namespace

void project_dense(const GaussiansView& g, const ProjectionSetup& setup, ProjectedSlots& slots, cudaStream_t stream) {
  if (setup.destinations) launch<Pass::DenseToDestinations>(g, setup, slots, nullptr, nullptr, stream);
  else launch<Pass::Dense>(g, setup, slots, nullptr, nullptr, stream);
  check_launch("project (dense)");
}

void count_pair_tiles(const GaussiansView& g, const ProjectionSetup& setup, int32_t* pair_tiles, cudaStream_t stream) {
  launch<Pass::PackedCount>(g, setup, ProjectedSlots{}, pair_tiles, nullptr, stream);
  check_launch("project (packed count)");
}

void project_packed(const GaussiansView& g, const ProjectionSetup& setup, const int32_t* pair_tiles,
                    const int32_t* pair_slot_end, ProjectedSlots& slots, cudaStream_t stream) {
  launch<Pass::PackedWrite>(g, setup, slots, const_cast<int32_t*>(pair_tiles), pair_slot_end, stream);
  check_launch("project (packed write)");
}

}  // namespace splat::kernels::cuda
