// The CUDA backend of the Rasterizer contract: strings the stages of raster_stages.cuh together.
//
// project:   cameras (+ image layouts) -> device; dense [C,N] or packed (count, prefix sum,
//            compact: the packed slot count is read on the host, its one wait).
// rasterize: bin + sort the pairs' tile entries into capacities planned from earlier calls' counts
//            (kernels/capacity_plan.h: the room for tile entries and for the pairs that cover a tile;
//            the counts themselves go to the host asynchronously); blend.
// backward:  blend backward into per-pair gradients; project backward into the Gaussians.
// Everything else stays asynchronous on the caller's stream: a dense step makes the host wait only
// at the very first rasterization (no count has come back yet) and where the caller asks for the
// count (RasterSettings::count_entries); the workspace grows through the stream-ordered pool.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/capacity_plan.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cuda_workspace.cuh"
#include "kernels/cuda/raster_stages.cuh"
#include "kernels/cuda_util.h"
#include "kernels/host_copies.h"
#include "kernels/host_waits.h"
#include "kernels/phase_timer.h"

namespace splat::kernels {
namespace cuda {
namespace {

// Workspace slots (cuda_workspace.cuh); binning uses kBinningSlots from kBinning on.
enum Slot : int {
  kCameras,  // the projection's cameras, then their image layouts
  kGradientSources,  // project_backward_by_camera's sources
  kRasterLayouts,
  kMean2d,
  kConicOpacity,
  kColorDepth,
  kHalf,
  kTileCount,
  kCameraOf,
  kIdOf,
  kPairTiles,
  kPairSlotEnd,
  kScanTemp,
  kTotals,
  kFinalT,
  kContributors,
  kDepth,
  kSlotGrads,
  kBinning,
  kTileChunks = kBinning + kBinningSlots,
};

struct IsPositive {
  __host__ __device__ int32_t operator()(int32_t v) const { return v > 0 ? 1 : 0; }
};

// What a call's pairs need: tile entries (the sum of their tile counts, in int64 so that sums past
// 2^31 are seen, not wrapped) and places for the pairs that cover a tile (which a packed projection
// keeps as its slots). Two int64 values, as the host copies read them.
struct Totals {
  int64_t entries = 0, covering = 0;
};
struct TotalsOfPair {
  const int32_t* tile_count;
  __host__ __device__ Totals operator()(int64_t k) const {
    const int32_t c = tile_count[k];
    return {c, c > 0 ? 1 : 0};
  }
};
struct AddTotals {
  __host__ __device__ Totals operator()(const Totals& a, const Totals& b) const {
    return {a.entries + b.entries, a.covering + b.covering};
  }
};
static_assert(sizeof(Totals) == 2 * sizeof(int64_t));

// Zeroes the gradients of the pairs that cover a tile, the only ones the blend adds to: the others
// are never read (project_backward and the exchange skip them), so in a dense layout, where most pairs
// are culled, a few bytes per pair are read instead of 48 written.
__global__ void clear_covering_grads(const int32_t* tile_count, int64_t count, ProjectedGrads d) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < count; k += int64_t(gridDim.x) * blockDim.x)
    if (tile_count[k] > 0) d.mean2d[k] = d.conic_opacity[k] = d.color_depth[k] = make_float4(0.f, 0.f, 0.f, 0.f);
}

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("CUDA rasterizer: " + what); }

void validate_cameras(std::span<const Camera> cameras) {
  if (cameras.empty()) fail("no cameras");
  for (const Camera& c : cameras)
    if (c.width <= 0 || c.height <= 0)
      fail("a camera has an empty image (" + std::to_string(c.width) + "x" + std::to_string(c.height) + ")");
}

void validate_gaussians(const GaussiansView& g, const RasterSettings& s) {
  if (s.sh_degree < 0 || s.sh_degree > 3) fail("sh_degree must be 0..3, got " + std::to_string(s.sh_degree));
  if (sh_coeffs_for_degree(s.sh_degree) - 1 > g.sh_rest_coeffs)
    fail("sh_degree " + std::to_string(s.sh_degree) + " needs " + std::to_string(sh_coeffs_for_degree(s.sh_degree) - 1) +
         " SH rest coefficients, the Gaussians store " + std::to_string(g.sh_rest_coeffs));
  if (g.sh_rest_coeffs < 0 || g.sh_rest_coeffs > 15)
    fail("sh_rest_coeffs must be 0..15 (up to degree 3), got " + std::to_string(g.sh_rest_coeffs));
  if (g.n > 0 && (!g.means || !g.quats || !g.log_scales || !g.opacity_logits || !g.sh_dc))
    fail("GaussiansView has a null parameter array");
  if (!sh_rest_given(g)) fail("GaussiansView must give its SH rest rows as exactly one of sh_rest and sh_rest_bf16");
  if (g.n >= (int64_t(1) << 31)) fail("more than 2^31 Gaussians in one shard");
}

void validate_settings(const RasterSettings& s) {
  if (s.backward_chunk_entries != kChunksByShare &&
      (s.backward_chunk_entries < 0 || s.backward_chunk_entries % kBlockPixels != 0))
    fail("backward_chunk_entries must be kChunksByShare, 0 or a multiple of " + std::to_string(kBlockPixels) +
         ", got " + std::to_string(s.backward_chunk_entries));
}

void validate_outputs(const RenderOutputs& out) {
  if (!out.rgb) fail("RenderOutputs.rgb is required");
}

class CudaRasterizer final : public Rasterizer {
 public:
  // Every entry point that touches the device opens a DeviceScope for where_.ordinal.
  explicit CudaRasterizer(const ComputeContext& where)
      : where_(where), stream_(static_cast<cudaStream_t>(where.stream)), ws_(where.ordinal, stream_) {
    const DeviceScope scope(where_.ordinal);
    check(cudaMallocHost(&host_totals_, 2 * sizeof(int64_t)), "allocating pinned totals");
    for (Staging& st : staging_) check(cudaEventCreateWithFlags(&st.copied, cudaEventDisableTiming), "creating a staging event");
    counts_ = std::make_unique<HostCopies>(where_);
    backward_slots_ = blend_backward_slots(where_.ordinal);
    forward_slots_ = blend_forward_slots(where_.ordinal);
  }
  ~CudaRasterizer() override {
    const DeviceScope scope(where_.ordinal, std::nothrow);
    if (!scope.ok()) return;
    counts_.reset();
    cudaFreeHost(host_totals_);
    for (Staging& st : staging_) {
      cudaFreeHost(st.host);
      cudaEventDestroy(st.copied);
    }
  }

  ComputeContext context() const override { return where_; }
  size_t workspace_peak_bytes() const override { return ws_.peak_bytes(); }
  size_t workspace_bytes() const override { return ws_.held_bytes(); }
  long long last_intersections() const override { return last_needed_; }
  unsigned long long intersection_overflows() const override { return plan_.overflows(); }
  unsigned long long covering_overflows() const override { return covering_plan_.overflows(); }
  void set_stage_timing(bool on) override { timer_ = on ? std::make_unique<PhaseTimer>(where_) : nullptr; }
  std::vector<StageTime> stage_times() override {
    std::vector<StageTime> out;
    if (!timer_) return out;
    PhaseTotals last;
    timer_->collect(last);  // the stages of the last forward and backward, waiting for them
    for (const PhaseTotals::Phase& p : last.phases()) out.push_back({p.name, float(p.total_ms)});
    return out;
  }

  void forward(const GaussiansView& g, std::span<const Camera> cameras, const RasterSettings& settings,
               const RenderOutputs& out) override {
    validate_gaussians(g, settings);
    validate_settings(settings);
    validate_cameras(cameras);
    validate_outputs(out);
    const DeviceScope scope(where_.ordinal);
    ws_.trim();  // a forward overwrites both stages' kept state: nothing in the workspace is live
    if (timer_) timer_->start();
    const std::vector<ImageLayout> layouts = image_layouts(cameras);
    const ImageLayout* images = upload_cameras(cameras, layouts);
    const std::optional<int64_t> intersections = project_pairs(g, settings, /*public_pairs=*/false);
    rasterize_pairs(slots_, tile_grid(layouts, images), intersections, settings, out);
  }

  void backward(const RenderOutputGrads& dout, const GaussiansGrad& grad, const DensifyStats& stats) override {
    if (!have_project_ || !have_raster_)
      throw std::logic_error("CUDA rasterizer: backward called without a successful forward");
    check_gradient_targets(grad, slots_.packed, "CUDA rasterizer");
    const DeviceScope scope(where_.ordinal);
    if (timer_ && timer_->started()) timer_->skip();  // the caller's work since the last stage
    if (slots_.count == 0) return cuda::project_backward(g_, setup_, slots_, {}, grad, stats, stream_);  // zeros
    const size_t n = static_cast<size_t>(slots_.count);
    float4* all = ws_.get<float4>(kSlotGrads, 3 * n);
    const ProjectedGrads d{all, all + n, all + 2 * n};
    blend_covering(dout, d, stats.grad2d_abs_norm != nullptr);
    cuda::project_backward(g_, setup_, slots_, d, grad, stats, stream_);
    stage("project backward");
  }

  kernels::ProjectedGaussians project(const GaussiansView& g, std::span<const Camera> cameras,
                                      const RasterSettings& settings,
                                      std::span<const PairDestination> destinations = {}) override {
    validate_gaussians(g, settings);
    validate_cameras(cameras);
    check_destinations(destinations, cameras.size(), settings.packed, "CUDA rasterizer");
    const DeviceScope scope(where_.ordinal);
    if (timer_) timer_->start();
    have_raster_ = false;  // forward's rasterization read the projection this call replaces
    upload_cameras(cameras, image_layouts(cameras), destinations);
    project_pairs(g, settings, /*public_pairs=*/true);
    return slots_.view();
  }

  void project_backward(const ConstProjectedGrads& d, const GaussiansGrad& grad, const DensifyStats& stats) override {
    if (!have_project_) throw std::logic_error("CUDA rasterizer: project_backward called without a successful project");
    check_gradient_targets(grad, slots_.packed, "CUDA rasterizer");
    const DeviceScope scope(where_.ordinal);
    if (timer_ && timer_->started()) timer_->skip();  // the caller's work since the last stage (the return)
    const ProjectedGrads dslots{reinterpret_cast<float4*>(const_cast<float*>(d.mean2d)),
                                reinterpret_cast<float4*>(const_cast<float*>(d.conic_opacity)),
                                reinterpret_cast<float4*>(const_cast<float*>(d.color_depth))};
    cuda::project_backward(g_, setup_, slots_, dslots, grad, stats, stream_);
    stage("project backward");
  }

  void project_backward_by_camera(std::span<const ConstProjectedGrads> sources, const GaussiansGrad& grad,
                                  const DensifyStats& stats) override {
    if (!have_project_) throw std::logic_error("CUDA rasterizer: project_backward called without a successful project");
    check_gradient_sources(sources, size_t(setup_.cameras_count), slots_.packed, "CUDA rasterizer");
    check_gradient_targets(grad, slots_.packed, "CUDA rasterizer");
    const DeviceScope scope(where_.ordinal);
    if (timer_ && timer_->started()) timer_->skip();  // the caller's work since the last stage (the return)
    // ConstProjectedGrads and ProjectedGrads are three pointers each, alike.
    static_assert(sizeof(ConstProjectedGrads) == sizeof(ProjectedGrads));
    ProjectionSetup by_camera = setup_;
    by_camera.gradient_sources =
        upload(kGradientSources, reinterpret_cast<const ProjectedGrads*>(sources.data()), sources.size_bytes());
    cuda::project_backward(g_, by_camera, slots_, {}, grad, stats, stream_);
    stage("project backward");
  }

  void rasterize(const kernels::ProjectedGaussians& pairs, std::span<const Camera> cameras, int first_camera,
                 const RasterSettings& settings, const RenderOutputs& out) override {
    validate_settings(settings);
    validate_cameras(cameras);
    validate_outputs(out);
    if (pairs.count >= (int64_t(1) << 31)) fail("more than 2^31 projected pairs in one call");
    const ProjectedSlots input = ProjectedSlots::over(pairs);
    const DeviceScope scope(where_.ordinal);
    if (timer_ && timer_->started()) timer_->skip();  // the caller's work since the last stage
    const std::vector<ImageLayout> layouts = image_layouts(cameras);
    const ImageLayout* images = upload(kRasterLayouts, layouts.data(), layouts.size() * sizeof(ImageLayout));
    TileGrid grid = tile_grid(layouts, images);
    grid.first_camera = first_camera;
    rasterize_pairs(input, grid, std::nullopt, settings, out);
  }

  void rasterize_backward(const RenderOutputGrads& dout, const kernels::ProjectedGrads& d, bool abs_sums) override {
    if (!have_raster_) throw std::logic_error("CUDA rasterizer: rasterize_backward called without a successful rasterize");
    const DeviceScope scope(where_.ordinal);
    if (raster_slots_.count == 0) return;
    if (timer_ && timer_->started()) timer_->skip();  // the caller's work since the last stage (the loss)
    blend_covering(dout,
                   {reinterpret_cast<float4*>(d.mean2d), reinterpret_cast<float4*>(d.conic_opacity),
                    reinterpret_cast<float4*>(d.color_depth)},
                   abs_sums);
  }

 private:
  // The blend backward into the pair gradients `d`: only the pairs that cover a tile get any (the
  // others are never read: project_backward skips them), so only theirs are cleared first.
  void blend_covering(const RenderOutputGrads& dout, const ProjectedGrads& d, bool abs_sums) {
    clear_covering_grads<<<stride_blocks(raster_slots_.count, 256), 256, 0, stream_>>>(raster_slots_.tile_count,
                                                                                      raster_slots_.count, d);
    check_launch("clear_covering_grads");
    blend_backward(raster_slots_, bins_, chunks_, grid_, background_, state_, dout, d, abs_sums, stream_);
    stage("blend backward");
  }

  // Copies `bytes` from the host into workspace slot `slot` through a ring of pinned staging
  // buffers. A buffer is rewritten only once its previous copy has run (its event): that copy was
  // queued kStagings uploads ago, so the host waits there only when it has run that far ahead of the
  // device, which then still has all those calls to run (a limit on running ahead, not a drain).
  template <class T>
  const T* upload(int slot, const T* host, size_t bytes) {
    Staging& st = staging_[next_staging_];
    next_staging_ = (next_staging_ + 1) % kStagings;
    check(cudaEventSynchronize(st.copied), "waiting for a staged upload");
    if (bytes > st.capacity) {
      cudaFreeHost(st.host);
      st.host = nullptr;
      st.capacity = 0;
      check(cudaMallocHost(&st.host, bytes), "allocating pinned staging");
      st.capacity = bytes;
    }
    std::memcpy(st.host, host, bytes);
    void* dev = ws_.bytes(slot, bytes);
    check(cudaMemcpyAsync(dev, st.host, bytes, cudaMemcpyHostToDevice, stream_), "uploading cameras");
    check(cudaEventRecord(st.copied, stream_), "recording the staged upload");
    return static_cast<const T*>(dev);
  }

  // The projection's cameras, followed by their image layouts and pair destinations (one copy): sets
  // setup_'s cameras and destinations (null without any) and returns the device layouts.
  const ImageLayout* upload_cameras(std::span<const Camera> cameras, const std::vector<ImageLayout>& layouts,
                                    std::span<const PairDestination> destinations = {}) {
    const auto rounded = [](size_t bytes) { return (bytes + 15) / 16 * 16; };
    const size_t camera_bytes = rounded(cameras.size() * sizeof(Camera));
    const size_t layout_bytes = rounded(layouts.size() * sizeof(ImageLayout));
    std::vector<unsigned char> blob(camera_bytes + layout_bytes + destinations.size() * sizeof(PairDestination));
    std::memcpy(blob.data(), cameras.data(), cameras.size() * sizeof(Camera));
    std::memcpy(blob.data() + camera_bytes, layouts.data(), layouts.size() * sizeof(ImageLayout));
    if (!destinations.empty())
      std::memcpy(blob.data() + camera_bytes + layout_bytes, destinations.data(),
                  destinations.size() * sizeof(PairDestination));
    const unsigned char* dev = upload(kCameras, blob.data(), blob.size());
    setup_.cameras = reinterpret_cast<const Camera*>(dev);
    setup_.cameras_count = static_cast<int>(cameras.size());
    setup_.destinations =
        destinations.empty() ? nullptr : reinterpret_cast<const PairDestination*>(dev + camera_bytes + layout_bytes);
    return reinterpret_cast<const ImageLayout*>(dev + camera_bytes);
  }

  // The project stage into slots_ (cameras uploaded already). public_pairs: name every pair with its
  // camera and global id also in the dense layout. The packed layout reads its slot count on the host
  // and returns the intersections it read with it; a dense projection reads nothing (nullopt).
  std::optional<int64_t> project_pairs(const GaussiansView& g, const RasterSettings& settings, bool public_pairs) {
    have_project_ = false;
    g_ = g;
    setup_.sh_degree = settings.sh_degree;
    setup_.near_plane = settings.near_plane;
    setup_.far_plane = settings.far_plane;
    setup_.eps2d = settings.eps2d;
    setup_.antialiased = settings.antialiased;
    const int64_t pairs = int64_t(setup_.cameras_count) * g.n;
    std::optional<int64_t> intersections;
    slots_ = ProjectedSlots{};
    slots_.gaussians = g.n;
    slots_.packed = settings.packed;
    slots_.first_id = g.first_id;
    if (pairs == 0) {
      slots_.count = 0;
    } else if (!settings.packed && setup_.destinations) {
      // The pairs go to their destinations: only what project_backward reads stays here.
      slots_.count = pairs;
      slots_.half = ws_.get<int2>(kHalf, size_t(pairs));
      slots_.tile_count = ws_.get<int32_t>(kTileCount, size_t(pairs));
      project_dense(g, setup_, slots_, stream_);
      stage("project");
    } else if (!settings.packed) {
      slots_.count = pairs;
      allocate_slot_arrays(pairs);
      if (public_pairs) {
        slots_.camera_of = ws_.get<int32_t>(kCameraOf, pairs);
        slots_.id_of = ws_.get<int64_t>(kIdOf, pairs);
      }
      project_dense(g, setup_, slots_, stream_);
      stage("project");
    } else {
      int32_t* pair_tiles = ws_.get<int32_t>(kPairTiles, pairs);
      int32_t* pair_slot_end = ws_.get<int32_t>(kPairSlotEnd, pairs);
      count_pair_tiles(g, setup_, pair_tiles, stream_);
      stage("project (count)");
      inclusive_flag_scan(pair_tiles, pair_slot_end, pairs);
      const Totals totals = read_totals(pair_tiles, pairs);
      intersections = totals.entries;
      slots_.count = totals.covering;
      stage("scan + count copy");
      if (slots_.count > 0) {
        allocate_slot_arrays(slots_.count);
        slots_.camera_of = ws_.get<int32_t>(kCameraOf, slots_.count);
        slots_.id_of = ws_.get<int64_t>(kIdOf, slots_.count);
        project_packed(g, setup_, pair_tiles, pair_slot_end, slots_, stream_);
      }
      stage("project (packed write)");
    }
    have_project_ = true;
    return intersections;
  }

  // The rasterize stage: bins `input` (which must stay valid until backward) and blends it.
  // `intersections`: their count where the projection read it on the host (packed: every slot covers
  // a tile), else planned.
  void rasterize_pairs(const ProjectedSlots& input, const TileGrid& grid, std::optional<int64_t> intersections,
                       const RasterSettings& settings, const RenderOutputs& out) {
    have_raster_ = false;
    raster_slots_ = input;
    grid_ = grid;
    for (int c = 0; c < 3; ++c) background_[c] = settings.background[c];
    if (intersections) last_needed_ = *intersections;
    const Room room = intersections ? Room{*intersections, input.count} : plan_room(input, settings.count_entries);
    PhaseTimer* const timer = timer_ && timer_->started() ? timer_.get() : nullptr;
    bins_ = bin_and_sort(raster_slots_, grid_, room.entries, room.covering, settings.entry_stores, ws_, kBinning, timer,
                         stream_);
    // The call's Totals are in the workspace: summed by plan_room, or by the packed projection.
    const int64_t* needed = ws_.get<int64_t>(kTotals, 2);
    chunks_ = plan_tile_dispatch(bins_, grid_, settings.backward_chunk_entries, needed, backward_slots_, ws_,
                                 kTileChunks, stream_);
    if (timer) timer->mark("tile order");
    const int64_t pixels = grid_.total_pixels;
    state_.final_transmittance = ws_.get<float>(kFinalT, pixels);
    state_.contributors = ws_.get<int32_t>(kContributors, pixels);
    state_.depth = ws_.get<float>(kDepth, pixels);
    blend_forward(raster_slots_, bins_, chunks_, grid_, background_, out, state_, forward_slots_, stream_);
    stage("blend forward");
    have_raster_ = true;
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

  // The device totals of `pairs` pairs (Totals, two int64 values in the workspace).
  const Totals* sum_totals(const int32_t* tile_count, int64_t pairs) {
    auto* dev = reinterpret_cast<Totals*>(ws_.get<int64_t>(kTotals, 2));
    auto it = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), TotalsOfPair{tile_count});
    size_t bytes = 0;
    check(cub::DeviceReduce::Reduce(nullptr, bytes, it, dev, pairs, AddTotals{}, Totals{}, stream_),
          "sizing the pair totals");
    check(cub::DeviceReduce::Reduce(ws_.bytes(kScanTemp, bytes), bytes, it, dev, pairs, AddTotals{}, Totals{}, stream_),
          "summing the pair totals");
    return dev;
  }

  // The totals read on the host: a host wait.
  Totals read_totals(const int32_t* tile_count, int64_t pairs) {
    const Totals* dev = sum_totals(tile_count, pairs);
    check(cudaMemcpyAsync(host_totals_, dev, sizeof(Totals), cudaMemcpyDeviceToHost, stream_),
          "copying the pair totals");
    note_host_wait("rasterizer: reading the projection's totals");
    check(cudaStreamSynchronize(stream_), "forward projection");
    return {host_totals_[0], host_totals_[1]};
  }

  // Room for the entries of `input` and for its pairs that cover a tile: the plans' capacities from the
  // counts that came back, this call's counts queued to come back later. Before any came back (the
  // first call), or when the caller asks (`count_now`), this call's counts are read on the host.
  struct Room {
    int64_t entries = 0, covering = 0;
  };
  Room plan_room(const ProjectedSlots& input, bool count_now) {
    if (input.count == 0) return {};
    // Counts that landed; where every slot is in flight, the oldest (the device has the rest queued).
    while (!pending_.empty() && (pending_.size() == HostCopies::kSlots || counts_->landed(pending_.front().copy))) {
      const Pending p = pending_.front();
      pending_.pop_front();
      const std::vector<int64_t> v = counts_->values(p.copy);
      learn(p.pairs, {v[0], v[1]}, p.room);
    }
    const int64_t limit = (int64_t(1) << 31) - 1;
    const std::optional<int64_t> entries = count_now ? std::nullopt : plan_.capacity(input.count, limit);
    const std::optional<int64_t> covering = count_now ? std::nullopt : covering_plan_.capacity(input.count, input.count);
    if (entries && covering) {
      const Room room{*entries, *covering};
      pending_.push_back({counts_->queue(&sum_totals(input.tile_count, input.count)->entries, 2), input.count, room});
      return room;
    }
    const Totals t = read_totals(input.tile_count, input.count);
    learn(input.count, t, {t.entries, t.covering});
    return {t.entries, t.covering};
  }
  void learn(int64_t pairs, const Totals& t, const Room& room) {
    last_needed_ = t.entries;
    if (t.entries >= (int64_t(1) << 31))
      throw std::runtime_error("CUDA rasterizer: " + std::to_string(t.entries) +
                               " tile intersections in one call exceed the 2^31 the sorted index supports "
                               "(render fewer cameras at once, or fewer Gaussians)");
    plan_.record(pairs, t.entries, room.entries);
    covering_plan_.record(pairs, t.covering, room.covering);
  }

  ComputeContext where_;
  cudaStream_t stream_;
  CudaWorkspace ws_;
  std::unique_ptr<PhaseTimer> timer_;  // while stage timing is on

  // Ends a stage of the current forward or backward (nothing while timing is off).
  void stage(const char* name) {
    if (timer_ && timer_->started()) timer_->mark(name);
  }
  int64_t* host_totals_ = nullptr;
  struct Staging {
    void* host = nullptr;  // pinned
    size_t capacity = 0;
    cudaEvent_t copied = nullptr;  // recorded after the buffer's last copy
  };
  static constexpr int kStagings = 4;
  std::array<Staging, kStagings> staging_{};
  int next_staging_ = 0;
  CapacityPlan plan_;           // the room for tile entries
  CapacityPlan covering_plan_;  // the room for the pairs that cover a tile
  std::unique_ptr<HostCopies> counts_;  // Totals on their way to the plans
  struct Pending {
    uint64_t copy = 0;
    int64_t pairs = 0;
    Room room;
  };
  std::deque<Pending> pending_;
  int64_t last_needed_ = 0;  // the latest call's intersections that came back

  // What the project stage keeps for its backward.
  bool have_project_ = false;
  GaussiansView g_;
  ProjectionSetup setup_;
  ProjectedSlots slots_;

  // What the rasterize stage keeps for its backward (forward: raster_slots_ is slots_).
  bool have_raster_ = false;
  ProjectedSlots raster_slots_;
  TileGrid grid_;
  float background_[3] = {0, 0, 0};
  TileBins bins_;
  int backward_slots_ = 0;  // blend_backward_slots of the device
  int forward_slots_ = 0;   // blend_forward_slots of the device
  TileChunks chunks_;
  PixelState state_;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Rasterizer> make_cuda_rasterizer(const ComputeContext& where) {
  if (where.device != Device::CUDA) throw std::invalid_argument("make_cuda_rasterizer: not a CUDA context");
  return std::make_unique<cuda::CudaRasterizer>(where);
}

}  // namespace splat::kernels
