#pragma once
// The differentiable Gaussian rasterizer as seen by the trainer and the viewer.
//
// Two backends compute the same functions: a multi-threaded CPU reference and CUDA. All
// pointers handed to a backend live on that backend's device (host memory for the CPU
// backend, device memory for the CUDA backend). Parameters are structure-of-arrays fp32;
// a Gaussian shard is just a (pointer, count) view, so a rank of a multi-GPU run passes its
// own shard and nothing here assumes it sees every Gaussian.
//
// Internally a call runs in stages: project (cameras x Gaussians -> ProjectedGaussians),
// bin + sort, rasterize; backward replays them in reverse. The stages are separate so that
// the distributed trainer can exchange projected Gaussians between ranks between them.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/device_context.h"

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

// Read-only view of N Gaussians (one shard).
struct GaussiansView {
  int64_t n = 0;
  const float* means = nullptr;           // [n,3] world space
  const float* quats = nullptr;           // [n,4] (w,x,y,z); normalised inside the rasterizer
  const float* log_scales = nullptr;      // [n,3]
  const float* opacity_logits = nullptr;  // [n]; opacity = sigmoid(logit)
  const float* sh_dc = nullptr;           // [n,3]
  const float* sh_rest = nullptr;         // [n, sh_rest_coeffs, 3]; may be null when sh_rest_coeffs == 0
  int sh_rest_coeffs = 0;                 // coefficients stored per channel beyond DC (15 for degree 3)
};

// Gradient buffers with the same shapes as GaussiansView; backward ACCUMULATES (+=) into them,
// so the caller zeroes them once per optimisation step (this lets a batch be split into calls).
struct GaussiansGrad {
  float* means = nullptr;
  float* quats = nullptr;
  float* log_scales = nullptr;
  float* opacity_logits = nullptr;
  float* sh_dc = nullptr;
  float* sh_rest = nullptr;
};

// Statistics the densification strategies read; backward ACCUMULATES into them as well.
// Any pointer may be null to skip that statistic. Exact definitions (shared by both backends):
// kernels/raster_math.h, "DensifyStats".
struct DensifyStats {
  float* grad2d_norm = nullptr;      // [n] sum over (camera, step) of |dL/dmean2d| in NDC-scaled pixels
  float* grad2d_abs_norm = nullptr;  // [n] sum of |per-pixel absolute 2D gradient| (AbsGS criterion)
  int32_t* visible_count = nullptr;  // [n] number of (camera, step) pairs where the Gaussian was visible
  float* max_radius = nullptr;       // [n] max screen radius / max(width, height), over the calls
};

struct RasterSettings {
  int sh_degree = 3;            // active degree, <= the degree the storage holds
  bool packed = false;          // only visible (camera, Gaussian) pairs, compacted by prefix sum
  bool antialiased = false;     // opacity compensation for the 0.3 px dilation (Mip-Splatting style)
  float background[3] = {0, 0, 0};
  float near_plane = 0.01f;
  float far_plane = 1e10f;
  float eps2d = 0.3f;           // dilation added to the 2D covariance, px^2
};

// Outputs for C cameras of one size (all cameras of one call share width and height).
struct RenderOutputs {
  float* rgb = nullptr;    // [C,H,W,3]
  float* alpha = nullptr;  // [C,H,W]
  float* depth = nullptr;  // [C,H,W] sum(w_i z_i) / max(alpha, 1e-10) (0 where nothing is drawn); optional
};

// Upstream gradients of the loss with respect to the outputs (null means zero).
struct RenderOutputGrads {
  const float* rgb = nullptr;
  const float* alpha = nullptr;
  const float* depth = nullptr;
};

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

  // Renders C = cameras.size() views of the Gaussians. Keeps what backward needs until the
  // next forward call on this object; the arrays of `g` must stay valid and unchanged until
  // backward (they are read again there, not copied).
  virtual void forward(const GaussiansView& g, std::span<const Camera> cameras,
                       const RasterSettings& settings, const RenderOutputs& out) = 0;

  // Back-propagates the last forward. `grad` and `stats` are accumulated into.
  virtual void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad,
                        const DensifyStats& stats) = 0;
};

// threads = 0 uses every hardware thread.
std::unique_ptr<Rasterizer> make_cpu_rasterizer(int threads = 0);
// Works on `where`'s device and stream (default: device 0, its default stream); throws
// std::invalid_argument for a CPU context or a device that does not exist.
std::unique_ptr<Rasterizer> make_cuda_rasterizer(const ComputeContext& where = Device::CUDA);

}  // namespace splat::kernels
