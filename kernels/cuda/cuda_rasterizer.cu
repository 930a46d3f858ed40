// The CUDA backend of the Rasterizer contract: strings the stages of raster_stages.cuh together.
//
// forward:  cameras -> device; project (dense [C,N], or packed: count, prefix sum, compact);
//           ONE small device->host copy of the intersection (and packed slot) totals to size the
//           sort; bin + sort; blend. Everything else stays asynchronous on the caller's stream.
// backward: blend backward into per-slot gradients; project backward into the Gaussians.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cuda_rasterizer.h"
#include "kernels/cuda/cuda_workspace.cuh"
#include "kernels/cuda/device_scope.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/cuda/stage_clock.cuh"

namespace splat::kernels {
namespace cuda {
namespace {

// Workspace slots (cuda_workspace.cuh); binning uses kBinningSlots from kBinning on.
enum Slot : int {
  kCameras,
  kMean2d,
  kConicOpacity,
  kColorDepth,
  kHalf,
  kTileCount,
  kCameraOf,
  kGaussianOf,
  kPairTiles,
  kPairSlotEnd,
  kScanTemp,
  kTotals,
  kFinalT,
  kContributors,
  kDepth,
  kSlotGrads,
  kBinning,
};

struct ToInt64 {
  __host__ __device__ int64_t operator()(int32_t v) const { return v; }
};
struct IsPositive {
  __host__ __device__ int32_t operator()(int32_t v) const { return v > 0 ? 1 : 0; }
};

// totals[1] = number of packed slots, the last entry of the inclusive visibility scan.
__global__ void packed_slot_total(const int32_t* slot_end, int64_t last, int64_t* totals) {
  totals[1] = slot_end[last];
}

void validate(const GaussiansView& g, std::span<const Camera> cameras, const RasterSettings& s,
              const RenderOutputs& out) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("CUDA rasterizer: " + what); };
  if (cameras.empty()) fail("no cameras");
  for (const Camera& c : cameras)
    if (c.width != cameras[0].width || c.height != cameras[0].height)
      fail("all cameras of one call must share width and height");
  if (cameras[0].width <= 0 || cameras[0].height <= 0) fail("camera has an empty image");
  if (s.sh_degree < 0 || s.sh_degree > 3) fail("sh_degree must be 0..3, got " + std::to_string(s.sh_degree));
  if (sh_coeffs_for_degree(s.sh_degree) - 1 > g.sh_rest_coeffs)
    fail("sh_degree " + std::to_string(s.sh_degree) + " needs " + std::to_string(sh_coeffs_for_degree(s.sh_degree) - 1) +
         " SH rest coefficients, the Gaussians store " + std::to_string(g.sh_rest_coeffs));
  if (g.sh_rest_coeffs < 0 || g.sh_rest_coeffs > 15)
    fail("sh_rest_coeffs must be 0..15 (up to degree 3), got " + std::to_string(g.sh_rest_coeffs));
  if (!out.rgb) fail("RenderOutputs.rgb is required");
  if (g.n > 0 && (!g.means || !g.quats || !g.log_scales || !g.opacity_logits || !g.sh_dc ||
                  (g.sh_rest_coeffs > 0 && !g.sh_rest)))
    fail("GaussiansView has a null parameter array");
  if (g.n >= (int64_t(1) << 31)) fail("more than 2^31 Gaussians in one shard");
}

class CudaRasterizer final : public Rasterizer, public CudaRasterizerProbe {
 public:
  // Every entry point that touches the device opens a DeviceScope for where_.ordinal.
  explicit CudaRasterizer(const ComputeContext& where)
      : where_(where), stream_(static_cast<cudaStream_t>(where.stream)), ws_(where.ordinal), clock_(where.ordinal) {
    const DeviceScope scope(where_.ordinal);
    check(cudaMallocHost(&host_totals_, 2 * sizeof(int64_t)), "allocating pinned totals");
  }
  ~CudaRasterizer() override {
    const DeviceScope scope(where_.ordinal, std::nothrow);
    if (!scope.ok()) return;
    cudaFreeHost(host_totals_);
    cudaFreeHost(host_cameras_);
  }

  ComputeContext context() const override { return where_; }
  size_t workspace_peak_bytes() const override { return ws_.peak_bytes(); }
  long long last_intersections() const override { return bins_.intersections; }
  void set_stage_timing(bool on) override { clock_.enable(on); }
  std::vector<StageTime> stage_times() override {
    const DeviceScope scope(where_.ordinal);
    return clock_.read();
  }

  void forward(const GaussiansView& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const RenderOutputs& out) override {
    validate(g, cameras, settings, out);
    const DeviceScope scope(where_.ordinal);
    clock_.restart();
    clock_.mark("start", stream_);
    have_forward_ = false;
    g_ = g;
    for (int c = 0; c < 3; ++c) background_[c] = settings.background[c];
    const int C = static_cast<int>(cameras.size());
    grid_ = TileGrid::of(cameras[0].width, cameras[0].height, C);
    setup_.cameras = upload_cameras(cameras);
    setup_.grid = grid_;
    setup_.sh_degree = settings.sh_degree;
    setup_.near_plane = settings.near_plane;
    setup_.far_plane = settings.far_plane;
    setup_.eps2d = settings.eps2d;
    setup_.antialiased = settings.antialiased;

    const int64_t pairs = int64_t(C) * g.n;
    int64_t intersections = 0;
    slots_ = ProjectedSlots{};
    slots_.gaussians = g.n;
    slots_.packed = settings.packed;
    if (pairs == 0) {
      slots_.count = 0;
      // No totals copy synchronises this call; do it here so the camera staging is free next time.
      check(cudaStreamSynchronize(stream_), "uploading cameras");
    } else if (!settings.packed) {
      slots_.count = pairs;
      allocate_slot_arrays(pairs);
      project_dense(g, setup_, slots_, stream_);
      clock_.mark("project", stream_);
      intersections = read_totals(slots_.tile_count, nullptr, pairs)[0];
      clock_.mark("count copy", stream_);
    } else {
      int32_t* pair_tiles = ws_.get<int32_t>(kPairTiles, pairs);
      int32_t* pair_slot_end = ws_.get<int32_t>(kPairSlotEnd, pairs);
      count_pair_tiles(g, setup_, pair_tiles, stream_);
      clock_.mark("project (count)", stream_);
      inclusive_flag_scan(pair_tiles, pair_slot_end, pairs);
      const auto totals = read_totals(pair_tiles, pair_slot_end, pairs);
      intersections = totals[0];
      slots_.count = totals[1];
      clock_.mark("scan + count copy", stream_);
      if (slots_.count > 0) {
        allocate_slot_arrays(slots_.count);
        slots_.camera_of = ws_.get<int32_t>(kCameraOf, slots_.count);
        slots_.gaussian_of = ws_.get<int32_t>(kGaussianOf, slots_.count);
        project_packed(g, setup_, pair_tiles, pair_slot_end, slots_, stream_);
      }
      clock_.mark("project (packed write)", stream_);
    }

    bins_ = bin_and_sort(slots_, grid_, intersections, ws_, kBinning, clock_, stream_);

    const int64_t pixels = int64_t(C) * grid_.width * grid_.height;
    state_.final_transmittance = ws_.get<float>(kFinalT, pixels);
    state_.contributors = ws_.get<int32_t>(kContributors, pixels);
    state_.depth = ws_.get<float>(kDepth, pixels);
    blend_forward(slots_, bins_, grid_, background_, out, state_, stream_);
    clock_.mark("blend forward", stream_);
    have_forward_ = true;
  }

  void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad, const DensifyStats& stats) override {
    if (!have_forward_) throw std::logic_error("CUDA rasterizer: backward called without a successful forward");
    const DeviceScope scope(where_.ordinal);
    clock_.mark("backward start", stream_);
    if (slots_.count == 0) return;
    const size_t n = static_cast<size_t>(slots_.count);
    float4* all = ws_.get<float4>(kSlotGrads, 3 * n);
    check(cudaMemsetAsync(all, 0, 3 * n * sizeof(float4), stream_), "clearing gradients");
    const ProjectedGrads d{all, all + n, all + 2 * n};
    blend_backward(slots_, bins_, grid_, background_, state_, dout, d, stats.grad2d_abs_norm != nullptr, stream_);
    clock_.mark("blend backward", stream_);
    project_backward(g_, setup_, slots_, d, grad, stats, stream_);
    clock_.mark("project backward", stream_);
  }

 private:
  const Camera* upload_cameras(std::span<const Camera> cameras) {
    // Pinned staging: the previous forward's copy has completed (its totals copy synchronised
    // after it), so the staging buffer is free to overwrite.
    if (cameras.size() > host_camera_capacity_) {
      cudaFreeHost(host_cameras_);
      host_cameras_ = nullptr;
      check(cudaMallocHost(&host_cameras_, cameras.size() * sizeof(Camera)), "allocating pinned cameras");
      host_camera_capacity_ = cameras.size();
    }
    std::copy(cameras.begin(), cameras.end(), host_cameras_);
    Camera* dev = ws_.get<Camera>(kCameras, cameras.size());
    check(cudaMemcpyAsync(dev, host_cameras_, cameras.size() * sizeof(Camera), cudaMemcpyHostToDevice, stream_),
          "uploading cameras");
    return dev;
  }

  void allocate_slot_arrays(int64_t count) {
    const size_t n = static_cast<size_t>(count);
    slots_.mean2d = ws_.get<float2>(kMean2d, n);
    slots_.conic_opacity = ws_.get<float4>(kConicOpacity, n);
    slots_.color_depth = ws_.get<float4>(kColorDepth, n);
    slots_.half = ws_.get<int2>(kHalf, n);
    slots_.tile_count = ws_.get<int32_t>(kTileCount, n);
  }

  // Inclusive prefix sum of (count > 0): the packed slot of a visible pair is its value - 1.
  void inclusive_flag_scan(const int32_t* counts, int32_t* out, int64_t n) {
    auto it = thrust::make_transform_iterator(counts, IsPositive{});
    size_t bytes = 0;
    check(cub::DeviceScan::InclusiveSum(nullptr, bytes, it, out, n, stream_), "sizing a prefix sum");
    void* temp = ws_.bytes(kScanTemp, bytes);
    check(cub::DeviceScan::InclusiveSum(temp, bytes, it, out, n, stream_), "prefix sum of visibility");
  }

  // The one host synchronisation of forward: the totals that size the sort and the packed slots.
  // totals[0]: intersections, the sum of the tile counts (in int64, so that sums past 2^31 are seen,
  // not wrapped); totals[1]: packed slots (when slot_end is given).
  std::array<int64_t, 2> read_totals(const int32_t* count, const int32_t* slot_end, int64_t pairs) {
    int64_t* dev = ws_.get<int64_t>(kTotals, 2);
    auto it = thrust::make_transform_iterator(count, ToInt64{});
    size_t bytes = 0;
    check(cub::DeviceReduce::Sum(nullptr, bytes, it, dev, pairs, stream_), "sizing the tile count sum");
    check(cub::DeviceReduce::Sum(ws_.bytes(kScanTemp, bytes), bytes, it, dev, pairs, stream_), "summing tile counts");
    if (slot_end) {
      packed_slot_total<<<1, 1, 0, stream_>>>(slot_end, pairs - 1, dev);
      check_launch("packed slot total");
    }
    check(cudaMemcpyAsync(host_totals_, dev, 2 * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_),
          "copying the intersection count");
    check(cudaStreamSynchronize(stream_), "forward projection");
    return {host_totals_[0], slot_end ? host_totals_[1] : 0};
  }

  ComputeContext where_;
  cudaStream_t stream_;
  CudaWorkspace ws_;
  StageClock clock_;
  int64_t* host_totals_ = nullptr;
  Camera* host_cameras_ = nullptr;
  size_t host_camera_capacity_ = 0;

  // What forward keeps for backward.
  bool have_forward_ = false;
  GaussiansView g_;
  float background_[3] = {0, 0, 0};
  TileGrid grid_;
  ProjectionSetup setup_;
  ProjectedSlots slots_;
  TileBins bins_;
  PixelState state_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Rasterizer> make_cuda_rasterizer(const ComputeContext& where) {
  if (where.device != Device::CUDA) throw std::invalid_argument("make_cuda_rasterizer: not a CUDA context");
  return std::make_unique<cuda::CudaRasterizer>(where);
}

}  // namespace splat::kernels
