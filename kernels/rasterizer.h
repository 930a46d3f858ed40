#pragma once
// The differentiable Gaussian rasterizer as seen by the trainer and the viewer.
//
// Two backends compute the same functions: a multi-threaded CPU reference and CUDA. All
// pointers handed to a backend live on that backend's device (host memory for the CPU
// backend, device memory for the CUDA backend). Parameters are structure-of-arrays fp32;
// a Gaussian shard is just a (pointer, count) view, so a rank of a multi-GPU run passes its
// own shard and nothing here assumes it sees every Gaussian.
//
// A call runs in stages, which are public so that the multi-GPU trainer can exchange projected
// Gaussians between them (shard -> project -> exchange -> rasterize -> loss -> rasterize_backward
// -> reverse exchange -> project_backward):
//   project            one shard's Gaussians x cameras -> ProjectedGaussians
//   rasterize          ProjectedGaussians (from any shards) -> images (bin + sort + blend)
//   rasterize_backward image gradients -> gradients of the rasterized pairs
//   project_backward   gradients of the projected pairs -> the shard's parameters and statistics
// forward/backward are the one-rank shortcut (project + rasterize, and back); they compute the
// same function. Each stage keeps what its backward needs until the same stage runs again.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device_context.h"
#include "kernels/storage_math.h"
#include "kernels/tile_chunk_math.h"

namespace splat::kernels {

// A pinhole camera, world-to-camera in the COLMAP convention (x right, y down, z forward):
// x_cam = R * x_world + t. Pixel centres are at integer + 0.5.
struct Camera {
  float R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major
  float t[3] = {0, 0, 0};
  float fx = 1, fy = 1, cx = 0, cy = 0;
  int width = 0, height = 0;
};

// Number of SH coefficients per colour channel for a degree (0..3): (d+1)^2.
constexpr int sh_coeffs_for_degree(int degree) { return (degree + 1) * (degree + 1); }

// The arrays below are templated on the scalar so that the CPU reference can run in double for
// the finite-difference tests; the backends take the float instantiations (GaussiansView, ...).

// Read-only view of N Gaussians (one shard). A shard holds the Gaussians with global ids
// first_id .. first_id + n - 1: the whole model is the shards concatenated in rank order, so a
// Gaussian's global id is its row in the gathered model.
template <class T>
struct BasicGaussiansView {
  int64_t n = 0;
  const T* means = nullptr;           // [n,3] world space
  const T* quats = nullptr;           // [n,4] (w,x,y,z); normalised inside the rasterizer
  const T* log_scales = nullptr;      // [n,3]
  const T* opacity_logits = nullptr;  // [n]; opacity = sigmoid(logit)
  const T* sh_dc = nullptr;           // [n,3]
  const T* sh_rest = nullptr;         // [n, sh_rest_coeffs, 3]; may be null when sh_rest_coeffs == 0
  int sh_rest_coeffs = 0;             // coefficients stored per channel beyond DC (15 for degree 3)
  int64_t first_id = 0;               // global id of row 0
  // The SH rest rows stored in bf16 (mixed precision), given instead of sh_rest: at most one is set.
  // Only the SH rest coefficients may be narrow: they are 45 of a Gaussian's 59 values, and the
  // projection reads them once per Gaussian, so decoding them costs next to nothing.
  const Bf16* sh_rest_bf16 = nullptr;
};
using GaussiansView = BasicGaussiansView<float>;

// Whether a view gives its SH rest rows, in exactly one of the two storages, where it needs them.
template <class T>
bool sh_rest_given(const BasicGaussiansView<T>& g) {
  if (g.sh_rest && g.sh_rest_bf16) return false;
  return g.sh_rest_coeffs == 0 || g.n == 0 || g.sh_rest || g.sh_rest_bf16;
}

// Gradient buffers with the same shapes as GaussiansView. A backward call ACCUMULATES (+=) into
// them, or with `overwrite` replaces what they hold (rows no pair reaches get 0): a step's first
// call overwrites, so no pass zeroes them, and later calls (a batch split into calls) add.
// A null pointer skips that parameter.
template <class T>
struct BasicGaussiansGrad {
  T* means = nullptr;
  T* quats = nullptr;
  T* log_scales = nullptr;
  T* opacity_logits = nullptr;
  T* sh_dc = nullptr;
  T* sh_rest = nullptr;
  // Mixed precision: the SH rest gradients stored in bf16 (to nearest), given instead of sh_rest.
  // They are summed in fp32 and stored once, never added to: only an overwriting call of the dense
  // layout (one thread per Gaussian sums its cameras in registers) may write them; packed pairs
  // meet in atomics. check_gradient_targets says so.
  Bf16* sh_rest_bf16 = nullptr;
  bool overwrite = false;
  // Rows reached, given to an overwriting call of the dense layout only: the call writes reached[i] = 1
  // where a pair of the call covers a tile and 0 elsewhere, and need not store an unreached row's
  // gradients (they keep what they held, or some are zeros): they stand for zeros, and every reader of
  // the arrays takes them so (kernels::GradArray::reached for Adam, the regularisers). At batch 1 most
  // rows are unreached, and storing their zeros (and Adam reading them) was a large share of a step's bytes.
  uint8_t* reached = nullptr;
};
using GaussiansGrad = BasicGaussiansGrad<float>;

// Throws std::invalid_argument, naming the rasterizer `who`, for gradient targets a backward call
// of the given layout cannot write: both SH rest storages, or bf16 ones that would be accumulated into.
template <class T>
void check_gradient_targets(const BasicGaussiansGrad<T>& grad, bool packed, const char* who) {
  if (grad.sh_rest && grad.sh_rest_bf16)
    throw std::invalid_argument(std::string(who) + ": give the SH rest gradients as sh_rest or sh_rest_bf16, not both");
  if (grad.sh_rest_bf16 && (!grad.overwrite || packed))
    throw std::invalid_argument(std::string(who) + ": bf16 SH rest gradients are stored once, by an overwriting "
                                "call of the dense layout (they are never accumulated in bf16)");
  if (grad.reached && (!grad.overwrite || packed))
    throw std::invalid_argument(std::string(who) + ": the rows reached are written by an overwriting call of the "
                                "dense layout only");
}

// Statistics the densification strategies read; backward ACCUMULATES into them as well.
// Any pointer may be null to skip that statistic. Exact definitions (shared by both backends):
// kernels/raster_math.h, "DensifyStats".
template <class T>
struct BasicDensifyStats {
  T* grad2d_norm = nullptr;          // [n] sum over (camera, step) of |dL/dmean2d| in NDC-scaled pixels
  T* grad2d_abs_norm = nullptr;      // [n] sum of |per-pixel absolute 2D gradient| (AbsGS criterion)
  int32_t* visible_count = nullptr;  // [n] number of (camera, step) pairs where the Gaussian was visible
  T* max_radius = nullptr;           // [n] max screen radius / max(width, height), over the calls
};
using DensifyStats = BasicDensifyStats<float>;

// Projected (camera, Gaussian) pairs: what the project stage produces and the rasterize stage
// consumes, the unit the multi-GPU exchange sends. One entry per pair, structure of arrays; the
// vector attributes are 16-byte rows so a GPU thread reads each with one load.
//  - Order: within a camera, ascending global id, among the pairs that cover a tile. The project stage emits pairs ordered by
//    (camera, id), and pairs received from shards in rank order keep the order within each camera
//    (cameras may interleave); the rasterize stage relies on it (depth ties break by global id, so
//    a sharded render equals the unsharded one).
//  - Dense (RasterSettings::packed false): every (camera, Gaussian) pair, culled ones with
//    tiles 0 and every other attribute undefined (camera and id included: the rasterize stage reads
//    only the tile count of a culled pair). Packed: only the visible pairs.
template <class T>
struct BasicProjected {
  int64_t count = 0;
  const int32_t* camera = nullptr;   // [count] index of the camera in the batch
  const int64_t* id = nullptr;       // [count] global Gaussian id, as the project stage names it; rasterize
                                     // needs none (may be null: it relies on the order above; the CPU
                                     // backend checks that order where ids are given)
  const T* mean2d = nullptr;         // [count,2] pixel coordinates
  const T* conic_opacity = nullptr;  // [count,4] conic (xx, xy, yy) of the inverse 2D covariance, opacity
  const T* color_depth = nullptr;    // [count,4] rgb after SH, camera-space depth
  const int32_t* half = nullptr;     // [count,2] half sizes of the screen box in pixels: project_backward's
                                     // screen radius (DensifyStats); rasterize does not read it (may be null)
  const int32_t* tiles = nullptr;    // [count] tiles the box covers in its camera (0: culled)
};
using ProjectedGaussians = BasicProjected<float>;

// Where a projection writes one camera's pairs instead of its own columns: the BasicProjected columns
// of another buffer at the shard's row 0 for that camera (pair i of the camera lands at index i). The
// multi-GPU step points them into the receiving rank's columns, which may lie in a peer GPU's memory,
// so the projection itself is the exchange (docs/ARCHITECTURE.md "One training step at R ranks").
// `tiles` is written for every pair (0: culled); the others only for the pairs that cover a tile.
template <class T>
struct BasicPairDestination {
  T* mean2d = nullptr;         // [n,2]
  T* conic_opacity = nullptr;  // [n,4]
  T* color_depth = nullptr;    // [n,4]
  int32_t* camera = nullptr;   // [n] the camera's index in the batch
  int32_t* tiles = nullptr;    // [n]
};
using PairDestination = BasicPairDestination<float>;

// Throws std::invalid_argument, naming the rasterizer `who`, unless `destinations` (project) is empty
// or names one destination per camera of a dense projection, each with every column.
template <class T>
void check_destinations(std::span<const BasicPairDestination<T>> destinations, size_t cameras, bool packed,
                        const char* who) {
  if (destinations.empty()) return;
  if (packed) throw std::invalid_argument(std::string(who) + ": a packed projection writes no pair destinations");
  if (destinations.size() != cameras)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(destinations.size()) +
                                " pair destinations for " + std::to_string(cameras) + " cameras");
  for (const BasicPairDestination<T>& d : destinations)
    if (!d.mean2d || !d.conic_opacity || !d.color_depth || !d.camera || !d.tiles)
      throw std::invalid_argument(std::string(who) + ": a pair destination without all its columns");
}

// Gradients of the loss with respect to projected pairs, aligned with a BasicProjected's entries:
//   mean2d        [count,4] dL/dmean2d (x, y), then the sums over pixels of |per-pixel dL/dmean2d|
//                 (x, y), the AbsGS statistic
//   conic_opacity [count,4] dL/dconic (Sym2 convention, raster_math.h), dL/dopacity
//   color_depth   [count,4] dL/dcolor, dL/ddepth
// P is T* (written by rasterize_backward) or const T* (read by project_backward).
template <class P>
struct ProjectedGradArrays {
  P mean2d = nullptr, conic_opacity = nullptr, color_depth = nullptr;
};
template <class T> using BasicProjectedGrads = ProjectedGradArrays<T*>;
template <class T> using BasicConstProjectedGrads = ProjectedGradArrays<const T*>;
using ProjectedGrads = BasicProjectedGrads<float>;
using ConstProjectedGrads = BasicConstProjectedGrads<float>;
inline constexpr int kProjectedGradFloats = 12;  // per pair

// Throws std::invalid_argument, naming the rasterizer `who`, unless project_backward_by_camera may read
// `sources` after a projection into `cameras` cameras of the given layout.
template <class T>
void check_gradient_sources(std::span<const BasicConstProjectedGrads<T>> sources, size_t cameras, bool packed,
                            const char* who) {
  if (packed) throw std::invalid_argument(std::string(who) + ": gradients by camera need a dense projection");
  if (sources.size() != cameras)
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(sources.size()) + " gradient sources for " +
                                std::to_string(cameras) + " cameras");
}

struct RasterSettings {
  int sh_degree = 3;            // active degree, <= the degree the storage holds
  bool packed = false;          // only visible (camera, Gaussian) pairs, compacted by prefix sum
  bool antialiased = false;     // opacity compensation for the 0.3 px dilation (Mip-Splatting style)
  float background[3] = {0, 0, 0};
  float near_plane = 0.01f;
  float far_plane = 1e10f;
  float eps2d = 0.3f;           // dilation added to the 2D covariance, px^2
  // Read this call's tile intersection count before sorting (a host wait) instead of sizing the room
  // from earlier calls' counts (CUDA; kernels/capacity_plan.h): for renders that must be whole when
  // they return (evaluation, the viewer, renders to files), where a planned room that proved too small
  // would leave entries out. Training steps leave it off.
  bool count_entries = false;
  // CUDA: the backward blend takes a tile's list in chunks of this many entries, each a block of its
  // own, so that the heaviest tile of a call does not end the kernel alone (kernels/cuda/tile_chunks.cuh).
  // kChunksByShare (the default) sizes them per call from the call's entries (chunk_entries_by_share in
  // kernels/tile_chunk_math.h): the best fixed length grows with them, so one length cannot fit one
  // image a call and four, or a sparse model and a dense one. A positive multiple of 256 fixes the
  // length; 0 keeps one block per tile. The result is the same function either way.
  int backward_chunk_entries = kChunksByShare;
  // CUDA: how the tile entries are written (kernels/cuda/binning.cu, stage_entries): Automatic chooses
  // per call between staging a warp's entries in shared memory and storing each where it belongs;
  // Staged and Direct force one way. The entries are the same either way.
  enum class EntryStores { Automatic, Staged, Direct };
  EntryStores entry_stores = EntryStores::Automatic;
};

// Images of the C cameras of one call, concatenated in camera order: camera c's pixels start at
// image_offsets(cameras)[c] (row-major, W_c x H_c). Cameras of one call may differ in size; for
// cameras of one size this is the usual [C,H,W] layout.
template <class T>
struct BasicRenderOutputs {
  T* rgb = nullptr;    // [pixels,3]
  T* alpha = nullptr;  // [pixels]
  T* depth = nullptr;  // [pixels] sum(w_i z_i) / max(alpha, 1e-10) (0 where nothing is drawn); optional
};
using RenderOutputs = BasicRenderOutputs<float>;

// Upstream gradients of the loss with respect to the outputs (null means zero).
template <class T>
struct BasicRenderOutputGrads {
  const T* rgb = nullptr;
  const T* alpha = nullptr;
  const T* depth = nullptr;
};
using RenderOutputGrads = BasicRenderOutputGrads<float>;

// Pixel offset of each camera's image in the outputs, and the total as the last entry.
inline std::vector<int64_t> image_offsets(std::span<const Camera> cameras) {
  std::vector<int64_t> offsets(cameras.size() + 1, 0);
  for (size_t c = 0; c < cameras.size(); ++c)
    offsets[c + 1] = offsets[c] + int64_t(cameras[c].width) * cameras[c].height;
  return offsets;
}

// Duration of one stage of the last forward or backward call (Rasterizer::stage_times).
struct StageTime {
  std::string stage;
  float ms = 0.f;
};

class Rasterizer {
 public:
  virtual ~Rasterizer() = default;
  // Where the rasterizer works: its arrays live there and its CUDA work runs on that stream.
  virtual ComputeContext context() const = 0;
  Device device() const { return context().device; }

  // Opt-in timing of the stages inside forward and backward, for profiling: while on, a backend
  // that times its stages (CUDA: events between them, no host waits) records them, and
  // stage_times() returns those of the last forward and backward, waiting for them. The CPU
  // backend does not time its stages: it ignores the switch and returns none.
  virtual void set_stage_timing(bool /*on*/) {}
  virtual std::vector<StageTime> stage_times() { return {}; }
  // Device memory the rasterizer's cached workspace holds now (bytes; the memory breakdown). The CPU
  // backend's scratch is ordinary host memory, not counted: 0.
  virtual size_t workspace_bytes() const { return 0; }
  // The most device memory that workspace has held (bytes; benchmarks report it), and the (camera,
  // tile, Gaussian) intersections of the latest rasterization whose count has reached the host (the
  // CUDA backend reads counts without waiting, a few calls late); 0 where a backend does not count
  // them (CPU).
  virtual size_t workspace_peak_bytes() const { return 0; }
  virtual long long last_intersections() const { return 0; }
  // Rasterizations whose intersections outgrew the room planned for them from earlier calls
  // (kernels/capacity_plan.h): each left out its deepest entries. Counted as their counts come back.
  virtual unsigned long long intersection_overflows() const { return 0; }
  // Rasterizations whose pairs that cover a tile outgrew the room planned for them: each left out the
  // covering pairs past that room (in pair order). Counted likewise.
  virtual unsigned long long covering_overflows() const { return 0; }

  // Renders C = cameras.size() views of the Gaussians. Keeps what backward needs until the
  // next forward call on this object; the arrays of `g` must stay valid and unchanged until
  // backward (they are read again there, not copied).
  virtual void forward(const GaussiansView& g, std::span<const Camera> cameras,
                       const RasterSettings& settings, const RenderOutputs& out) = 0;

  // Back-propagates the last forward into `grad` (added, or overwritten: BasicGaussiansGrad) and
  // `stats` (accumulated into).
  virtual void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad,
                        const DensifyStats& stats) = 0;

  // Stage 1: projects the shard `g` into every camera (settings.packed chooses the layout).
  // The result lives in this object's memory until the next project call; `g` must stay valid
  // and unchanged until project_backward. With `destinations` (dense layout only; one per camera)
  // camera c's pairs are written to destinations[c] (PairDestination) rather than kept: the result
  // then holds each pair's tile count and screen box (what project_backward reads) and no other
  // column (null). Throws std::invalid_argument for a packed layout or a count other than the cameras'.
  virtual ProjectedGaussians project(const GaussiansView& g, std::span<const Camera> cameras,
                                     const RasterSettings& settings,
                                     std::span<const PairDestination> destinations = {}) = 0;
  // Back-propagates the last project: `d` is aligned with its pairs. Writes `grad` as backward
  // does and accumulates into `stats` (both indexed by row of the shard).
  virtual void project_backward(const ConstProjectedGrads& d, const GaussiansGrad& grad,
                                const DensifyStats& stats) = 0;
  // project_backward of a dense projection with camera c's pair gradients read from sources[c] (pair i
  // of the camera at row i of its arrays), which may lie in a peer GPU's memory: the multi-GPU step
  // reads them where the rendering rank computed them. Throws std::invalid_argument unless there is
  // one source per camera of the last project call, and it was dense.
  virtual void project_backward_by_camera(std::span<const ConstProjectedGrads> sources, const GaussiansGrad& grad,
                                          const DensifyStats& stats) = 0;

  // Stage 2: renders pairs (in the order BasicProjected describes) into the images of `cameras`,
  // which are the batch's cameras first_camera .. first_camera + cameras.size() - 1 (a rank
  // renders its block of the batch; pairs name cameras by their index in the batch). `pairs`
  // must stay valid and unchanged until rasterize_backward.
  virtual void rasterize(const ProjectedGaussians& pairs, std::span<const Camera> cameras, int first_camera,
                         const RasterSettings& settings, const RenderOutputs& out) = 0;
  // Back-propagates the last rasterize into `d`, aligned with its pairs: overwritten for the pairs
  // that cover a tile; a culled pair's (tiles 0) rows are not written (nothing reads them). The AbsGS
  // sums (mean2d's last two values) only when `abs_sums`, zeros otherwise: they cost the CUDA backward
  // a sixth of its cross-lane sums, and only a strategy growing by AbsGS reads them.
  virtual void rasterize_backward(const RenderOutputGrads& dout, const ProjectedGrads& d, bool abs_sums) = 0;
};

// threads = 0 uses every hardware thread.
std::unique_ptr<Rasterizer> make_cpu_rasterizer(int threads = 0);
// Works on `where`'s device and stream (default: device 0, its default stream); throws
// std::invalid_argument for a CPU context or a device that does not exist.
std::unique_ptr<Rasterizer> make_cuda_rasterizer(const ComputeContext& where = Device::CUDA);

}  // namespace splat::kernels
