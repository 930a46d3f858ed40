// The CUDA rasterizer against the CPU reference (make_cpu_rasterizer) on random scenes, and its own
// consistency: packed == dense, a batch of C cameras == C single-camera calls, DensifyStats.
// Relative errors are norm-wise: |a - b| / max(|b|, floor).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/capacity_plan.h"
#include "kernels/cuda/cuda_workspace.cuh"
#include "kernels/rasterizer.h"
#include "tests/kernels/device_arrays.h"
#include "tests/kernels/raster_test_scenes.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Buffer;
using kernels::Camera;
using kernels::Device;
using kernels::RasterSettings;
using Floats = std::vector<float>;
using test::from;
using test::on;
using test::OutputGrads;
using test::zeros;

namespace {

constexpr int kWidth = 60, kHeight = 44;

// A few hundred Gaussians around the origin, three 60x44 cameras (4x3 tiles, the last row and column
// of tiles cut by the image border). Some Gaussians sit behind every camera, some straddle the image borders,
// a few are large and nearly opaque so that pixels saturate and stop early, some are long and thin
// (their screen boxes hold many tiles the ellipse misses, which the CUDA binning leaves out).
struct Scene {
  int degree = 0;
  int64_t n = 0;
  Floats means, quats, log_scales, logits, dc, rest;
  std::vector<Camera> cameras;
  RasterSettings settings;
  int width = kWidth, height = kHeight;  // of every camera
  int rest_coeffs() const { return kernels::sh_coeffs_for_degree(degree) - 1; }
  int64_t pixels() const { return int64_t(cameras.size()) * width * height; }
};

Scene random_scene(unsigned seed, int n, int degree, bool antialiased, int width = kWidth, int height = kHeight) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  Scene s;
  s.degree = degree;
  s.n = n;
  s.width = width, s.height = height;
  s.cameras = {test::look_at_camera({0, 0, -4}, {0, 0, 0}, width, height, 60),
               test::look_at_camera({2.5, -0.5, -3.2}, {0, 0, 0}, width, height, 55),
               test::look_at_camera({-1.5, 1, -3.7}, {0.1, 0, 0}, width, height, 50)};
  s.settings.sh_degree = degree;
  s.settings.antialiased = antialiased;
  s.settings.background[0] = 0.3f;
  s.settings.background[1] = 0.5f;
  s.settings.background[2] = 0.7f;
  for (int i = 0; i < n; ++i) {
    const bool big = i % 8 == 7;  // near the centre, so that several overlap and saturate pixels
    const float spread = big ? 0.4f : 1.f;
    s.means.insert(s.means.end(), {1.6f * spread * U(rng), 1.2f * spread * U(rng), 1.2f * spread * U(rng)});
    s.quats.insert(s.quats.end(), {1 + 0.5f * U(rng), 0.6f * U(rng), 0.6f * U(rng), 0.6f * U(rng)});
    for (int k = 0; k < 3; ++k) s.log_scales.push_back(std::log((big ? 0.3f : 0.05f) + 0.04f * (1 + U(rng))));
    if (i % 13 == 5) s.log_scales[3 * i] += std::log(8.f);  // long thin tilted ones: boxes >> ellipses
    const float opacity = big ? 0.97f : 0.5f + 0.45f * U(rng);
    s.logits.push_back(std::log(opacity / (1 - opacity)));
    for (int k = 0; k < 3; ++k) s.dc.push_back(0.45f + 0.75f * U(rng));
    for (int k = 0; k < 3 * s.rest_coeffs(); ++k) s.rest.push_back(0.25f * U(rng));
  }
  for (int i = 0; i < 5; ++i) s.means[3 * i + 2] = -9.f - i;  // behind every camera
  s.means[15] = 2.4f, s.means[18] = -2.4f, s.means[22] = 1.9f;  // across the image borders
  return s;
}

// Everything one backend returns for a forward + backward of a scene.
struct Result {
  Floats rgb, alpha, depth;
  Floats d_means, d_quats, d_log_scales, d_logits, d_dc, d_rest;
  Floats grad2d, grad2d_abs, max_radius;
  std::vector<int32_t> visible;
};



// Runs forward + backward of cameras [first, first + count) with rasterizer r on device d. The
// gradient and statistics buffers in `acc` (device d) are accumulated into, as the contract says.
struct Accumulators {
  Buffer<float> means, quats, log_scales, logits, dc, rest, grad2d, grad2d_abs, max_radius;
  Buffer<int32_t> visible;
  Accumulators(Device d, const Scene& s)
      : means(zeros<float>(d, s.means.size())), quats(zeros<float>(d, s.quats.size())),
        log_scales(zeros<float>(d, s.log_scales.size())), logits(zeros<float>(d, s.logits.size())),
        dc(zeros<float>(d, s.dc.size())), rest(zeros<float>(d, s.rest.size())), grad2d(zeros<float>(d, s.n)),
        grad2d_abs(zeros<float>(d, s.n)), max_radius(zeros<float>(d, s.n)), visible(zeros<int32_t>(d, s.n)) {}
};

// `lean`: no depth gradient and no AbsGS statistic (the kernels skip that work then).
void run_cameras(kernels::Rasterizer& r, Device d, const Scene& s, const OutputGrads& og, size_t first, size_t count,
                 bool packed, bool lean, Accumulators& acc, Result& out) {
  auto means = on(d, s.means), quats = on(d, s.quats), log_scales = on(d, s.log_scales), logits = on(d, s.logits),
       dc = on(d, s.dc), rest = on(d, s.rest);
  kernels::GaussiansView g{s.n,        means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(),
                           rest.data(), s.rest_coeffs()};
  const int64_t px = int64_t(count) * s.width * s.height, off = int64_t(first) * s.width * s.height;
  Buffer<float> rgb(d, 3 * px), alpha(d, px), depth(d, px);
  RasterSettings settings = s.settings;
  settings.packed = packed;
  r.forward(g, std::span<const Camera>(s.cameras).subspan(first, count), settings,
            {rgb.data(), alpha.data(), depth.data()});
  auto slice = [](const Floats& v, int64_t from, int64_t n) { return Floats(v.begin() + from, v.begin() + from + n); };
  auto drgb = on(d, slice(og.rgb, 3 * off, 3 * px)), dalpha = on(d, slice(og.alpha, off, px)),
       ddepth = on(d, slice(og.depth, off, px));
  r.backward({drgb.data(), dalpha.data(), lean ? nullptr : ddepth.data()},
             {acc.means.data(), acc.quats.data(), acc.log_scales.data(), acc.logits.data(), acc.dc.data(),
              acc.rest.data()},
             {acc.grad2d.data(), lean ? nullptr : acc.grad2d_abs.data(), acc.visible.data(), acc.max_radius.data()});
  auto append = [](Floats& to, const Floats& v) { to.insert(to.end(), v.begin(), v.end()); };
  append(out.rgb, rgb.download());
  append(out.alpha, alpha.download());
  append(out.depth, depth.download());
}

void collect(const Accumulators& acc, Result& out) {
  out.d_means = acc.means.download(), out.d_quats = acc.quats.download();
  out.d_log_scales = acc.log_scales.download(), out.d_logits = acc.logits.download();
  out.d_dc = acc.dc.download(), out.d_rest = acc.rest.download();
  out.grad2d = acc.grad2d.download(), out.grad2d_abs = acc.grad2d_abs.download();
  out.max_radius = acc.max_radius.download(), out.visible = acc.visible.download();
}

// Forward + backward of every camera of `s` in one call of the CUDA rasterizer `r`, whose plans carry over
// from call to call, downloaded.
Result render_on(kernels::Rasterizer& r, const Scene& s, const OutputGrads& og) {
  Accumulators acc(Device::CUDA, s);
  Result out;
  run_cameras(r, Device::CUDA, s, og, 0, s.cameras.size(), false, false, acc, out);  // downloads: in order
  collect(acc, out);
  return out;
}

// All cameras in one call (or one call per camera when `per_camera`).
Result render(Device d, const Scene& s, const OutputGrads& og, bool packed, bool per_camera = false,
              bool lean = false) {
  auto r = d == Device::CPU ? kernels::make_cpu_rasterizer(2) : kernels::make_cuda_rasterizer();
  Accumulators acc(d, s);
  Result out;
  if (per_camera)
    for (size_t c = 0; c < s.cameras.size(); ++c) run_cameras(*r, d, s, og, c, 1, packed, lean, acc, out);
  else
    run_cameras(*r, d, s, og, 0, s.cameras.size(), packed, lean, acc, out);
  collect(acc, out);
  return out;
}

double norm(const Floats& v) {
  double s = 0;
  for (float x : v) s += double(x) * x;
  return std::sqrt(s);
}
double rel_err(const Floats& a, const Floats& b, double floor = 1e-6) {
  REQUIRE(a.size() == b.size());
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return std::sqrt(d) / std::max(norm(b), floor);
}

void check_close(const Result& got, const Result& want, double image_tol, double grad_tol, const std::string& what) {
  INFO(what);
  CHECK(rel_err(got.rgb, want.rgb) < image_tol);
  CHECK(rel_err(got.alpha, want.alpha) < image_tol);
  CHECK(rel_err(got.depth, want.depth) < image_tol);
  const std::pair<const char*, std::pair<const Floats*, const Floats*>> grads[] = {
      {"means", {&got.d_means, &want.d_means}},       {"quats", {&got.d_quats, &want.d_quats}},
      {"log_scales", {&got.d_log_scales, &want.d_log_scales}}, {"opacity_logits", {&got.d_logits, &want.d_logits}},
      {"sh_dc", {&got.d_dc, &want.d_dc}},             {"sh_rest", {&got.d_rest, &want.d_rest}},
      {"grad2d_norm", {&got.grad2d, &want.grad2d}},   {"grad2d_abs_norm", {&got.grad2d_abs, &want.grad2d_abs}}};
  for (const auto& [name, pair] : grads) {
    INFO(name);
    CHECK(rel_err(*pair.first, *pair.second) < grad_tol);
  }
  CHECK(got.visible == want.visible);
  CHECK(rel_err(got.max_radius, want.max_radius) < 1e-6);
}

}  // namespace

TEST_CASE("CUDA rasterizer matches the CPU reference on random scenes", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer vs CPU reference")) return;
  for (int degree = 0; degree <= 3; ++degree)
    for (bool aa : {false, true}) {
      const unsigned seed = 100 + 10 * degree + aa;
      const Scene s = random_scene(seed, 300, degree, aa);
      const OutputGrads og(s.pixels(), seed + 1);
      const Result cpu = render(Device::CPU, s, og, false);
      const Result gpu = render(Device::CUDA, s, og, false);
      // The scene must exercise what it claims: saturated pixels and culled Gaussians.
      REQUIRE(*std::max_element(cpu.alpha.begin(), cpu.alpha.end()) > 0.999f);
      REQUIRE(std::count(cpu.visible.begin(), cpu.visible.end(), 0) >= 5);
      check_close(gpu, cpu, 1e-4, 1e-3, "degree " + std::to_string(degree) + (aa ? " antialiased" : ""));
    }
}

TEST_CASE("CUDA rasterizer matches the CPU reference without depth gradient and AbsGS", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer vs CPU reference, lean backward")) return;
  for (bool packed : {false, true}) {
    const Scene s = random_scene(61 + packed, 300, 3, false);
    const OutputGrads og(s.pixels(), 62);
    const Result cpu = render(Device::CPU, s, og, false, false, /*lean=*/true);
    const Result gpu = render(Device::CUDA, s, og, packed, false, /*lean=*/true);
    CHECK(norm(gpu.grad2d_abs) == 0.0);
    check_close(gpu, cpu, 1e-4, 1e-3, packed ? "packed" : "dense");
  }
}

TEST_CASE("CUDA backward in chunks of long tile lists matches the CPU reference", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer, long tile lists in chunks")) return;
  // 6000 Gaussians over 3 x 12 tiles: lists of hundreds to thousands of entries. Chunks of 256 want
  // more resume records than the budget of one per tile, so the heaviest tiles are split and the
  // lighter long ones are not. Opaque, most pixels stop early in their list; faint (a tenth of the
  // opacity), most composite through every chunk and resume from every record.
  for (const double faint : {1.0, 0.1}) {
    Scene s = random_scene(71, 6000, 1, false);
    for (float& logit : s.logits) {
      const double opacity = faint / (1 + std::exp(-double(logit)));
      logit = float(std::log(opacity / (1 - opacity)));
    }
    s.settings.count_entries = true;
    const OutputGrads og(s.pixels(), 72);
    const Result cpu = render(Device::CPU, s, og, false), cpu_lean = render(Device::CPU, s, og, false, false, true);
    const auto saturated = std::count_if(cpu.alpha.begin(), cpu.alpha.end(), [](float a) { return a > 0.999f; });
    INFO("opacity x " << faint << ", saturated pixels " << saturated << " of " << cpu.alpha.size());
    if (faint == 1.0) REQUIRE(saturated > int64_t(cpu.alpha.size()) / 2);
    else REQUIRE(saturated < int64_t(cpu.alpha.size()) / 2);
    auto r = kernels::make_cuda_rasterizer();
    Buffer<float> probe(Device::CUDA, 3 * s.pixels());
    {
      auto means = on(Device::CUDA, s.means), quats = on(Device::CUDA, s.quats),
           scales = on(Device::CUDA, s.log_scales), logits = on(Device::CUDA, s.logits),
           dc = on(Device::CUDA, s.dc), rest = on(Device::CUDA, s.rest);
      r->forward({s.n, means.data(), quats.data(), scales.data(), logits.data(), dc.data(), rest.data(),
                  s.rest_coeffs()},
                 s.cameras, s.settings, {probe.data(), nullptr, nullptr});
    }
    const int64_t tiles = int64_t(s.cameras.size()) * 4 * 3;
    REQUIRE(r->last_intersections() > 2 * 256 * tiles);  // on average two chunks a tile: the budget binds
    for (int entries : {256, 512, 0, kernels::kChunksByShare}) {
      s.settings.backward_chunk_entries = entries;
      for (bool lean : {false, true}) {
        const Result gpu = render(Device::CUDA, s, og, false, false, lean);
        check_close(gpu, lean ? cpu_lean : cpu, 1e-4, 1e-3,
                    "chunks of " + std::to_string(entries) + " entries" + (lean ? ", lean backward" : ""));
      }
    }
  }
}

TEST_CASE("CUDA tile entries staged per warp or stored where they belong match the CPU reference", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer, tile entries staged or stored directly")) return;
  // Three 320 x 240 cameras (20 x 15 tiles) and large Gaussians: pairs of tens to hundreds of tiles, so
  // that a warp's 32 pairs own more entries than one staged window (1,024) holds.
  Scene s = random_scene(83, 400, 1, false, 320, 240);
  for (float& log_scale : s.log_scales) log_scale += std::log(12.f);
  s.settings.count_entries = true;
  const OutputGrads og(s.pixels(), 84);
  const Result cpu = render(Device::CPU, s, og, false);
  auto r = kernels::make_cuda_rasterizer();
  (void)render_on(*r, s, og);
  const int64_t pairs = s.n * int64_t(s.cameras.size());
  INFO("tile entries " << r->last_intersections() << " over " << pairs << " pairs");
  REQUIRE(r->last_intersections() > 40 * pairs);  // a warp's 32 pairs: 1,280 entries on average
  using Stores = RasterSettings::EntryStores;
  for (const auto stores : {Stores::Staged, Stores::Direct, Stores::Automatic}) {
    s.settings.entry_stores = stores;
    for (const bool packed : {false, true})
      check_close(render(Device::CUDA, s, og, packed), cpu, 1e-4, 1e-3,
                  std::string(stores == Stores::Staged ? "staged" : stores == Stores::Direct ? "direct" : "automatic") +
                      (packed ? ", packed" : ", dense"));
  }
}

TEST_CASE("CUDA packed layout computes the dense layout's function", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA packed vs dense")) return;
  for (bool aa : {false, true}) {
    const Scene s = random_scene(7 + aa, 400, 3, aa);
    const OutputGrads og(s.pixels(), 8);
    const Result dense = render(Device::CUDA, s, og, false);
    const Result packed = render(Device::CUDA, s, og, true);
    // Same slots in the same order: the images are the same computation, bit for bit; gradients
    // differ only in the order of atomic additions.
    CHECK(packed.rgb == dense.rgb);
    CHECK(packed.alpha == dense.alpha);
    check_close(packed, dense, 1e-7, 1e-5, aa ? "antialiased" : "plain");
  }
}

TEST_CASE("CUDA batch of cameras equals one call per camera", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA batch vs single cameras")) return;
  for (bool packed : {false, true}) {
    const Scene s = random_scene(21, 300, 2, false);
    const OutputGrads og(s.pixels(), 22);
    const Result batch = render(Device::CUDA, s, og, packed);
    const Result singles = render(Device::CUDA, s, og, packed, /*per_camera=*/true);
    CHECK(batch.rgb == singles.rgb);
    check_close(batch, singles, 1e-7, 1e-5, packed ? "packed" : "dense");
  }
}

TEST_CASE("CUDA densification statistics agree with the CPU reference", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA DensifyStats")) return;
  const Scene s = random_scene(33, 300, 1, true);
  const OutputGrads og(s.pixels(), 34);
  const Result cpu = render(Device::CPU, s, og, false, /*per_camera=*/true);
  for (bool packed : {false, true}) {
    INFO((packed ? "packed" : "dense"));
    const Result gpu = render(Device::CUDA, s, og, packed, /*per_camera=*/true);
    CHECK(gpu.visible == cpu.visible);
    CHECK(*std::max_element(gpu.visible.begin(), gpu.visible.end()) == int(s.cameras.size()));
    CHECK(rel_err(gpu.grad2d, cpu.grad2d) < 1e-3);
    CHECK(rel_err(gpu.grad2d_abs, cpu.grad2d_abs) < 1e-3);
    CHECK(rel_err(gpu.max_radius, cpu.max_radius) < 1e-6);
    // AbsGS sums absolute per-pixel gradients, so it bounds the plain norm from above.
    for (int64_t i = 0; i < s.n; ++i) CHECK(gpu.grad2d_abs[i] >= gpu.grad2d[i] * (1 - 1e-5f));
  }
}

TEST_CASE("CUDA rasterizer renders the background where nothing is visible", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA empty view")) return;
  Scene s = random_scene(5, 50, 0, false);
  for (int64_t i = 0; i < s.n; ++i) s.means[3 * i + 2] = -20.f;  // behind camera 0, the one kept
  s.cameras.resize(1);
  const OutputGrads og(s.pixels(), 6);
  for (bool packed : {false, true}) {
    const Result gpu = render(Device::CUDA, s, og, packed);
    for (int64_t p = 0; p < s.pixels(); ++p) {
      CHECK(gpu.rgb[3 * p] == 0.3f);
      CHECK(gpu.alpha[p] == 0.f);
    }
    CHECK(norm(gpu.d_means) == 0.0);
    CHECK(std::count(gpu.visible.begin(), gpu.visible.end(), 0) == s.n);
  }
}

TEST_CASE("CUDA rasterizer rejects bad input with a message naming the problem", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer input checks")) return;
  Scene s = random_scene(9, 20, 1, false);
  const OutputGrads og(s.pixels(), 10);
  auto means = on(Device::CUDA, s.means), quats = on(Device::CUDA, s.quats), scales = on(Device::CUDA, s.log_scales),
       logits = on(Device::CUDA, s.logits), dc = on(Device::CUDA, s.dc), rest = on(Device::CUDA, s.rest);
  const kernels::GaussiansView g{s.n,       means.data(), quats.data(), scales.data(), logits.data(), dc.data(),
                                 rest.data(), s.rest_coeffs()};
  Buffer<float> rgb(Device::CUDA, 3 * s.pixels());
  auto r = kernels::make_cuda_rasterizer();
  RasterSettings settings = s.settings;
  settings.sh_degree = 2;  // the scene stores degree 1
  CHECK_THROWS_WITH(r->forward(g, s.cameras, settings, {rgb.data(), nullptr, nullptr}),
                    Catch::Contains("sh_degree 2 needs 8 SH rest coefficients"));
  std::vector<Camera> empty = s.cameras;
  empty[1].width = 0;
  CHECK_THROWS_WITH(r->forward(g, empty, s.settings, {rgb.data(), nullptr, nullptr}),
                    Catch::Contains("a camera has an empty image (0x44)"));
  CHECK_THROWS_WITH(r->backward({}, {}, {}), Catch::Contains("without a successful forward"));
  settings = s.settings;
  settings.backward_chunk_entries = 300;
  CHECK_THROWS_WITH(r->forward(g, s.cameras, settings, {rgb.data(), nullptr, nullptr}),
                    Catch::Contains("backward_chunk_entries must be kChunksByShare, 0 or a multiple of 256, got 300"));
}

TEST_CASE("CUDA workspace reuses its blocks and reports impossible sizes as OutOfMemory", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA workspace")) return;
  kernels::cuda::CudaWorkspace ws;
  float* a = ws.get<float>(0, 1000);
  CHECK(ws.get<float>(0, 800) == a);  // smaller requests reuse the block
  CHECK(ws.held_bytes() >= 4000);
  const size_t peak = ws.peak_bytes();
  CHECK_THROWS_AS(ws.bytes(1, size_t(1) << 50), kernels::OutOfMemory);
  CHECK(ws.peak_bytes() == peak);
  CHECK(ws.get<float>(1, 10) != nullptr);  // usable after the failure
}

TEST_CASE("CUDA workspace gives back a block far larger than its slot's recent need", "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA workspace trim")) return;
  kernels::cuda::CudaWorkspace ws;
  constexpr size_t kBig = size_t(64) << 20, kSmall = size_t(4) << 20;
  ws.bytes(0, kBig);  // a burst (a close-up view, a densification peak)
  ws.bytes(1, kSmall);
  for (int call = 1; call < kernels::cuda::CudaWorkspace::kTrimWindow; ++call) ws.trim();
  CHECK(ws.held_bytes() >= kBig);  // within the window that saw the burst: kept
  for (int call = 0; call < kernels::cuda::CudaWorkspace::kTrimWindow; ++call) {
    ws.trim();
    ws.bytes(0, kSmall);  // the need afterwards: 1/16 of the block
    ws.bytes(1, kSmall);
  }
  ws.trim();  // ends a window in which slot 0 needed only kSmall
  CHECK(ws.held_bytes() < kBig);
  CHECK(ws.held_bytes() >= kSmall);  // slot 1, whose block fits its need, keeps it
  CHECK(ws.bytes(0, kSmall) != nullptr);
  CHECK(ws.peak_bytes() >= kBig + kSmall);
}

TEST_CASE("CUDA rasterizer plans its tile entries ahead; an overflow is counted and the next call has room",
          "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer, planned tile entries")) return;
  const Scene small = random_scene(71, 1000, 0, false);
  Scene big = small;  // the same pairs, each covering many more tiles than the plan learned from `small`
  for (float& l : big.log_scales) l += std::log(12.f);
  const OutputGrads og(small.pixels(), 72);
  auto r = kernels::make_cuda_rasterizer();
  auto run = [&](const Scene& s) { return render_on(*r, s, og); };
  run(small);  // the first call reads its count: the plan learns from it
  const long long learned = r->last_intersections();
  run(big);  // planned from `small`: too little room, and no wait to find out
  CHECK(r->intersection_overflows() == 0);  // its count has not been taken in yet
  const Result third = run(big);  // takes in the overflow, plans from it
  CHECK(r->intersection_overflows() == 1);
  REQUIRE(r->last_intersections() > learned * kernels::CapacityPlan::kFirstMargin + kernels::CapacityPlan::kSlack);
  check_close(third, render(Device::CPU, big, og, false), 1e-4, 1e-3, "the call after the overflow");
  run(big);
  CHECK(r->intersection_overflows() == 1);

  // A call that counts its entries first is whole however far it is from what the plan learned.
  r = kernels::make_cuda_rasterizer();
  run(small);
  Scene counted = big;
  counted.settings.count_entries = true;
  check_close(run(counted), render(Device::CPU, big, og, false), 1e-4, 1e-3, "a call that counts its entries");
  run(small);  // takes in the counted call's count, with nothing to report
  CHECK(r->intersection_overflows() == 0);
}

TEST_CASE("CUDA rasterizer plans room for the pairs that cover a tile; an overflow is counted and the next call has room",
          "[raster][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer, planned covering pairs")) return;
  const Scene full = random_scene(73, 20000, 0, false);
  Scene sparse = full;  // one Gaussian in twenty in view: the plan learns that few pairs cover a tile
  for (int64_t i = 0; i < sparse.n; ++i)
    if (i % 20 != 0) sparse.means[size_t(3 * i + 2)] = -9.f;  // behind every camera
  const OutputGrads og(full.pixels(), 74);
  auto r = kernels::make_cuda_rasterizer();
  auto run = [&](const Scene& s) { return render_on(*r, s, og); };
  run(sparse);  // the first call reads its counts: the plans learn from it
  run(full);    // planned from `sparse`: too little room, and no wait to find out
  CHECK(r->covering_overflows() == 0);  // its counts have not been taken in yet
  const Result third = run(full);       // takes in the overflow, plans from it
  CHECK(r->covering_overflows() == 1);
  check_close(third, render(Device::CPU, full, og, false), 1e-4, 1e-3, "the call after the overflow");
  run(full);
  CHECK(r->covering_overflows() == 1);
}
