// The public rasterizer stages (project, rasterize and their backward) on both backends:
//  - shards projected separately, each rank's pairs sent to the rank that renders their camera
//    (what the multi-GPU exchange does) and rasterized there, render and differentiate like the
//    whole model in one forward/backward;
//  - depth ties break by global id, whatever shard the Gaussians come from;
//  - cameras of different sizes in one call render like one call per camera;
//  - [gpu] the CUDA stages against the CPU reference, stage by stage, fed the same inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/rasterizer.h"
#include "tests/kernels/device_arrays.h"
#include "tests/kernels/raster_test_scenes.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace splat::kernels;
using Floats = std::vector<float>;
using test::from;
using test::on;
using test::OutputGrads;

namespace {


// Random Gaussians around the origin (SH degree 1), seen by three cameras.
struct Scene {
  int64_t n = 0;
  Floats means, quats, log_scales, logits, dc, rest;
  std::vector<Camera> cameras;
  RasterSettings settings;
  int64_t pixels() const { return kernels::image_offsets(cameras).back(); }
};

Scene random_scene(unsigned seed, int n, bool mixed_sizes) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  Scene s;
  s.n = n;
  s.cameras = {test::look_at_camera({0, 0, -4}, {0, 0, 0}, 48, 40, 45),
               test::look_at_camera({2.5, -0.5, -3.2}, {0, 0, 0}, mixed_sizes ? 70 : 48, mixed_sizes ? 21 : 40, 50),
               test::look_at_camera({-1.5, 1, -3.7}, {0.1, 0, 0}, mixed_sizes ? 33 : 48, mixed_sizes ? 58 : 40, 40)};
  s.settings.sh_degree = 1;
  s.settings.background[0] = 0.3f, s.settings.background[1] = 0.5f, s.settings.background[2] = 0.7f;
  for (int i = 0; i < n; ++i) {
    s.means.insert(s.means.end(), {1.4f * U(rng), 1.0f * U(rng), 1.0f * U(rng)});
    s.quats.insert(s.quats.end(), {1 + 0.5f * U(rng), 0.6f * U(rng), 0.6f * U(rng), 0.6f * U(rng)});
    for (int k = 0; k < 3; ++k) s.log_scales.push_back(std::log(0.08f + 0.05f * (1 + U(rng))));
    const float opacity = 0.5f + 0.4f * U(rng);
    s.logits.push_back(std::log(opacity / (1 - opacity)));
    for (int k = 0; k < 3; ++k) s.dc.push_back(0.45f + 0.75f * U(rng));
    for (int k = 0; k < 9; ++k) s.rest.push_back(0.25f * U(rng));
  }
  for (int i = 0; i < 3; ++i) s.means[3 * i + 2] = -9.f - i;  // behind every camera
  return s;
}

// Rows [first, first + count) of a scene on device d, as one rank's shard.
struct Shard {
  int64_t first = 0, n = 0;
  Buffer<float> means, quats, log_scales, logits, dc, rest;
  Shard(Device d, const Scene& s, int64_t first_row, int64_t count) : first(first_row), n(count) {
    auto rows = [&](const Floats& v, int width) {
      return on(d, Floats(v.begin() + first * width, v.begin() + (first + n) * width));
    };
    means = rows(s.means, 3), quats = rows(s.quats, 4), log_scales = rows(s.log_scales, 3);
    logits = rows(s.logits, 1), dc = rows(s.dc, 3), rest = rows(s.rest, 9);
  }
  kernels::GaussiansView view() const {
    return {n, means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data(), 3, first};
  }
};

// Gradients and statistics of n Gaussians; the gradients start at `fill` (statistics at zero). With
// `narrow`, the SH rest gradients are bf16 (rest16), as mixed precision stores them.
struct Grads {
  Buffer<float> means, quats, log_scales, logits, dc, rest, grad2d, grad2d_abs, max_radius;
  Buffer<int32_t> visible;
  Buffer<uint16_t> rest16;
  Buffer<uint8_t> reached;  // the rows reached, where a call is given them
  bool narrow = false;
  Grads(Device d, int64_t n, float fill = 0.f, bool narrow_rest = false)
      : rest16(d), reached(d, size_t(n)), narrow(narrow_rest) {
    auto filled = [&](size_t k, float v) { return on(d, Floats(k, v)); };
    means = filled(3 * n, fill), quats = filled(4 * n, fill), log_scales = filled(3 * n, fill);
    logits = filled(n, fill), dc = filled(3 * n, fill), rest = filled(narrow ? 0 : 9 * n, fill);
    if (narrow) rest16.upload(std::vector<uint16_t>(size_t(9 * n), kernels::bf16_nearest(fill)));
    grad2d = filled(n, 0), grad2d_abs = filled(n, 0), max_radius = filled(n, 0);
    visible = Buffer<int32_t>(d, size_t(n));
    visible.zero();
  }
  kernels::GaussiansGrad grad(bool overwrite = false, bool with_reached = false) {
    kernels::GaussiansGrad g{means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(),
                             narrow ? nullptr : rest.data()};
    if (narrow) g.sh_rest_bf16 = reinterpret_cast<kernels::Bf16*>(rest16.data());
    g.overwrite = overwrite;
    if (with_reached) g.reached = reached.data();
    return g;
  }
  kernels::DensifyStats stats() { return {grad2d.data(), grad2d_abs.data(), visible.data(), max_radius.data()}; }
  // Every array on the host (bf16 ones decoded), concatenated, and the visible counts.
  Floats all() const {
    Floats out;
    for (const Buffer<float>* b : {&means, &quats, &log_scales, &logits, &dc, &rest, &grad2d, &grad2d_abs, &max_radius}) {
      const Floats h = b == &rest && narrow ? rest_values() : b->download();
      out.insert(out.end(), h.begin(), h.end());
    }
    return out;
  }
  Floats rest_values() const {
    if (!narrow) return rest.download();
    Floats out;
    for (uint16_t h : rest16.download()) out.push_back(kernels::bf16_to_float(h));
    return out;
  }
};

// Projected pairs on the host, in the public layout.
struct HostPairs {
  std::vector<int32_t> camera, half, tiles;
  std::vector<int64_t> id;
  Floats mean2d, conic_opacity, color_depth;
  size_t count() const { return camera.size(); }

  static HostPairs of(Device d, const kernels::ProjectedGaussians& p) {
    const size_t n = size_t(p.count);
    return {from(d, p.camera, n),     from(d, p.half, 2 * n),          from(d, p.tiles, n),
            from(d, p.id, n),         from(d, p.mean2d, 2 * n),        from(d, p.conic_opacity, 4 * n),
            from(d, p.color_depth, 4 * n)};
  }
  // Pair k of `o` appended.
  void take(const HostPairs& o, size_t k) {
    camera.push_back(o.camera[k]), tiles.push_back(o.tiles[k]), id.push_back(o.id[k]);
    half.insert(half.end(), o.half.begin() + 2 * k, o.half.begin() + 2 * k + 2);
    mean2d.insert(mean2d.end(), o.mean2d.begin() + 2 * k, o.mean2d.begin() + 2 * k + 2);
    conic_opacity.insert(conic_opacity.end(), o.conic_opacity.begin() + 4 * k, o.conic_opacity.begin() + 4 * k + 4);
    color_depth.insert(color_depth.end(), o.color_depth.begin() + 4 * k, o.color_depth.begin() + 4 * k + 4);
  }
};

// HostPairs on a device, as a ProjectedGaussians view.
struct DevicePairs {
  Buffer<int32_t> camera, half, tiles;
  Buffer<int64_t> id;
  Buffer<float> mean2d, conic_opacity, color_depth;
  int64_t count;
  DevicePairs(Device d, const HostPairs& h)
      : camera(on(d, h.camera)), half(on(d, h.half)), tiles(on(d, h.tiles)), id(on(d, h.id)), mean2d(on(d, h.mean2d)),
        conic_opacity(on(d, h.conic_opacity)), color_depth(on(d, h.color_depth)), count(int64_t(h.count())) {}
  kernels::ProjectedGaussians view() const {
    return {count, camera.data(), id.data(), mean2d.data(), conic_opacity.data(), color_depth.data(), half.data(),
            tiles.data()};
  }
};

// Gradients of `count` pairs (the public 3 x [count,4] layout), on a device.
// Pair gradients, every value 7 to begin with: rasterize_backward writes the pairs that cover a tile
// and leaves the culled ones' rows as they were, on either backend, so the two compare whole.
struct PairGrads {
  Buffer<float> mean2d, conic_opacity, color_depth;
  PairGrads(Device d, size_t count) : mean2d(d), conic_opacity(d), color_depth(d) {
    for (Buffer<float>* b : {&mean2d, &conic_opacity, &color_depth}) b->upload(Floats(4 * count, 7.f));
  }
  kernels::ProjectedGrads grads() { return {mean2d.data(), conic_opacity.data(), color_depth.data()}; }
  kernels::ConstProjectedGrads view() const { return {mean2d.data(), conic_opacity.data(), color_depth.data()}; }
  Floats host() const {
    Floats out = mean2d.download();
    for (const Buffer<float>* b : {&conic_opacity, &color_depth}) {
      const Floats h = b->download();
      out.insert(out.end(), h.begin(), h.end());
    }
    return out;
  }
};

std::unique_ptr<kernels::Rasterizer> rasterizer(Device d) {
  return d == Device::CPU ? kernels::make_cpu_rasterizer(2) : kernels::make_cuda_rasterizer();
}

// Images and gradients of one render.
struct Render {
  Floats rgb, alpha, depth, grads;
};


// The one-rank shortcut.
Render whole(Device d, const Scene& s, bool packed, const OutputGrads& up) {
  const Shard all(d, s, 0, s.n);
  Grads g(d, s.n);
  Buffer<float> rgb(d, 3 * s.pixels()), alpha(d, s.pixels()), depth(d, s.pixels());
  auto r = rasterizer(d);
  RasterSettings settings = s.settings;
  settings.packed = packed;
  r->forward(all.view(), s.cameras, settings, {rgb.data(), alpha.data(), depth.data()});
  auto drgb = on(d, up.rgb), dalpha = on(d, up.alpha), ddepth = on(d, up.depth);
  r->backward({drgb.data(), dalpha.data(), ddepth.data()}, g.grad(), g.stats());
  return {rgb.download(), alpha.download(), depth.download(), g.all()};
}

// `shards` ranks, each projecting its rows; the pairs of every camera gathered in rank order and
// rasterized by one renderer; their gradients returned to the owners, who finish the backward.
Render sharded(Device d, const Scene& s, int shards, bool packed, const OutputGrads& up) {
  RasterSettings settings = s.settings;
  settings.packed = packed;
  std::vector<Shard> parts;
  std::vector<std::unique_ptr<kernels::Rasterizer>> ranks;
  std::vector<HostPairs> projected;
  for (int r = 0; r < shards; ++r) {
    const int64_t first = s.n * r / shards, last = s.n * (r + 1) / shards;
    parts.emplace_back(d, s, first, last - first);
    ranks.push_back(rasterizer(d));
    projected.push_back(HostPairs::of(d, ranks.back()->project(parts.back().view(), s.cameras, settings)));
  }
  // Rank r renders the batch's cameras [B r / R, B (r + 1) / R). The exchange: each renderer
  // receives, rank by rank, the pairs of its cameras (a contiguous range of each rank's pairs, which
  // come ordered by camera), so cameras interleave; origin = (rank, pair index there).
  const int B = int(s.cameras.size());
  const auto offsets = kernels::image_offsets(s.cameras);
  Render out{Floats(3 * s.pixels()), Floats(s.pixels()), Floats(s.pixels()), {}};
  std::vector<Floats> per_rank(shards);
  for (int r = 0; r < shards; ++r) per_rank[r].assign(12 * projected[r].count(), 0.f);
  for (int dest = 0; dest < shards; ++dest) {
    const int c0 = B * dest / shards, c1 = B * (dest + 1) / shards;
    if (c0 == c1) continue;  // more ranks than cameras: this one renders nothing
    HostPairs gathered;
    std::vector<std::pair<int, size_t>> origin;
    for (int r = 0; r < shards; ++r)
      for (size_t k = 0; k < projected[r].count(); ++k)
        if (projected[r].camera[k] >= c0 && projected[r].camera[k] < c1)
          gathered.take(projected[r], k), origin.emplace_back(r, k);
    const DevicePairs pairs(d, gathered);
    const int64_t p0 = offsets[c0], px = offsets[c1] - p0;
    Buffer<float> rgb(d, 3 * px), alpha(d, px), depth(d, px);
    auto renderer = rasterizer(d);
    const std::span<const Camera> mine = std::span<const Camera>(s.cameras).subspan(c0, c1 - c0);
    renderer->rasterize(pairs.view(), mine, c0, settings, {rgb.data(), alpha.data(), depth.data()});
    auto slice = [](const Floats& v, int64_t from, int64_t n) { return Floats(v.begin() + from, v.begin() + from + n); };
    auto drgb = on(d, slice(up.rgb, 3 * p0, 3 * px)), dalpha = on(d, slice(up.alpha, p0, px)),
         ddepth = on(d, slice(up.depth, p0, px));
    PairGrads dpairs(d, gathered.count());
    renderer->rasterize_backward({drgb.data(), dalpha.data(), ddepth.data()}, dpairs.grads(), true);
    auto put = [](Floats& to, int64_t at, const Floats& v) { std::copy(v.begin(), v.end(), to.begin() + at); };
    put(out.rgb, 3 * p0, rgb.download()), put(out.alpha, p0, alpha.download()), put(out.depth, p0, depth.download());
    // The reverse exchange: each rank's pair gradients in its own pair order.
    const Floats all_d = dpairs.host();
    const size_t m = gathered.count();
    for (size_t k = 0; k < m; ++k) {
      const auto [r, j] = origin[k];
      const size_t n = projected[r].count();
      for (int part = 0; part < 3; ++part)
        for (int v = 0; v < 4; ++v) per_rank[r][part * 4 * n + 4 * j + v] = all_d[part * 4 * m + 4 * k + v];
    }
  }
  std::vector<Floats> shard_grads;
  for (int r = 0; r < shards; ++r) {
    const size_t n = projected[r].count();
    const Buffer<float> dr = on(d, per_rank[r]);
    Grads g(d, parts[r].n);
    ranks[r]->project_backward({dr.data(), dr.data() + 4 * n, dr.data() + 8 * n}, g.grad(), g.stats());
    shard_grads.push_back(g.all());
  }
  // Concatenate every array over the shards, in the layout Grads::all uses for the whole model.
  const int widths[] = {3, 4, 3, 1, 3, 9, 1, 1, 1};
  std::vector<size_t> at(shards, 0);
  for (int w : widths)
    for (int r = 0; r < shards; ++r) {
      const size_t len = size_t(w * parts[r].n);
      out.grads.insert(out.grads.end(), shard_grads[r].begin() + at[r], shard_grads[r].begin() + at[r] + len);
      at[r] += len;
    }
  return out;
}

double rel_err(const Floats& a, const Floats& b) {
  REQUIRE(a.size() == b.size());
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]), n += double(b[i]) * b[i];
  return std::sqrt(d) / std::max(std::sqrt(n), 1e-6);
}

// CPU: every sum runs in a fixed order, so sharding changes nothing at all. CUDA: images are
// exact too (the same pairs in the same order); gradients are summed with atomics in an order that
// changes from run to run, hence a float-rounding tolerance.
void check_sharded_equals_whole(Device d) {
  for (const bool mixed : {false, true})
    for (const bool packed : {false, true})
      for (const int shards : {2, 3, 4}) {
        INFO("mixed sizes " << mixed << ", packed " << packed << ", " << shards << " shards");
        const Scene s = random_scene(11 + shards, 90, mixed);
        const OutputGrads up(s.pixels(), 5);
        const Render a = whole(d, s, packed, up), b = sharded(d, s, shards, packed, up);
        CHECK(a.rgb == b.rgb);
        CHECK(a.alpha == b.alpha);
        CHECK(a.depth == b.depth);
        if (d == Device::CPU)
          CHECK(a.grads == b.grads);
        else
          CHECK(rel_err(b.grads, a.grads) < 1e-5);
      }
}

// Two Gaussians at the same depth, one per shard: the lower global id is composited first, in
// whichever shard (and rank order) it lies.
void check_depth_ties(Device d) {
  Camera cam;
  cam.fx = cam.fy = 40, cam.cx = 16.3f, cam.cy = 11.7f, cam.width = 32, cam.height = 24;
  const float push = 1.5f / 0.28209479f;  // colour 0.5 ± 1.5, clamped to 0 or 2
  RasterSettings settings;
  settings.sh_degree = 0;
  for (const bool red_first : {true, false}) {
    INFO("red has the lower id: " << red_first);
    // Shard 0 holds red, shard 1 green; ids say which comes first.
    const int64_t red_id = red_first ? 4 : 9, green_id = red_first ? 9 : 4;
    HostPairs gathered;
    std::vector<HostPairs> shards;
    for (const auto& [id, colour] : {std::pair{red_id, std::array<float, 3>{push, -push, -push}},
                                     std::pair{green_id, std::array<float, 3>{-push, push, -push}}}) {
      const Floats mean{0, 0, 4}, quat{1, 0, 0, 0}, scale(3, std::log(4.f / 12)), logit{1.f};
      const Floats dc(colour.begin(), colour.end());
      auto m = on(d, mean), q = on(d, quat), sc = on(d, scale), l = on(d, logit), c = on(d, dc);
      auto r = rasterizer(d);
      shards.push_back(HostPairs::of(
          d, r->project({1, m.data(), q.data(), sc.data(), l.data(), c.data(), nullptr, 0, id},
                        std::span<const Camera>(&cam, 1), settings)));
    }
    // Gathered by global id, as ranks in id order deliver them.
    const int lower = red_first ? 0 : 1;
    gathered.take(shards[lower], 0);
    gathered.take(shards[1 - lower], 0);
    const DevicePairs pairs(d, gathered);
    Buffer<float> rgb(d, 32 * 24 * 3);
    rasterizer(d)->rasterize(pairs.view(), std::span<const Camera>(&cam, 1), 0, settings,
                             {rgb.data(), nullptr, nullptr});
    const Floats img = rgb.download();
    const int o = 3 * (11 * 32 + 16);
    if (red_first)
      CHECK(img[o] > 2 * img[o + 1]);
    else
      CHECK(img[o + 1] > 2 * img[o]);
  }
}

// The one-rank shortcut's gradients written into arrays that held `fill`: added (overwrite false)
// or overwritten, the SH rest ones in bf16 where `narrow`. `degree` below the stored 1 leaves the SH
// rest coefficients without gradients (an overwrite must still zero them).
Grads backward_into(Device d, const Scene& s, bool packed, int degree, bool overwrite, bool narrow, float fill,
                    bool with_reached = false) {
  const Shard all(d, s, 0, s.n);
  Grads g(d, s.n, fill, narrow);
  Buffer<float> rgb(d, 3 * s.pixels());
  auto r = rasterizer(d);
  RasterSettings settings = s.settings;
  settings.packed = packed;
  settings.sh_degree = degree;
  r->forward(all.view(), s.cameras, settings, {rgb.data(), nullptr, nullptr});
  const OutputGrads up(s.pixels(), 12);
  auto drgb = on(d, up.rgb);
  r->backward({drgb.data(), nullptr, nullptr}, g.grad(overwrite, with_reached), g.stats());
  return g;
}

// Overwriting gives what zeroed arrays accumulate; rows no pair reaches (the three Gaussians behind
// every camera) get zeros; bf16 SH rest gradients are the fp32 ones rounded to nearest. On the CPU
// the sums run in the same order, so all of it holds exactly; on CUDA to the atomics' order.
void check_gradient_writes(Device d) {
  const Scene s = random_scene(14, 80, /*mixed_sizes=*/true);
  for (const bool packed : {false, true})
    for (const int degree : {0, 1}) {
      INFO("packed " << packed << ", SH degree " << degree);
      const Floats added = backward_into(d, s, packed, degree, false, false, 0.f).all();
      const Grads over = backward_into(d, s, packed, degree, true, false, 7.f);
      if (d == Device::CPU) CHECK(over.all() == added);
      else CHECK(rel_err(over.all(), added) < 1e-5);
      const Floats means = over.means.download(), rest = over.rest_values();
      for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) CHECK(means[3 * i + k] == 0.f);
        for (int k = 0; k < 9; ++k) CHECK(rest[9 * i + k] == 0.f);
      }
      if (degree == 0) CHECK(std::all_of(rest.begin(), rest.end(), [](float v) { return v == 0.f; }));
      if (packed) continue;  // bf16 gradients are stored by the dense layout only
      const Grads narrow = backward_into(d, s, packed, degree, true, true, 7.f);
      const Floats want = backward_into(d, s, packed, degree, false, false, 0.f).rest_values();
      Floats rounded;
      for (float v : want) rounded.push_back(kernels::bf16_to_float(kernels::bf16_nearest(v)));
      if (d == Device::CPU) CHECK(narrow.rest_values() == rounded);
      else CHECK(rel_err(narrow.rest_values(), want) < 4e-3);  // bf16 keeps 8 significant bits
      if (d == Device::CPU) CHECK(narrow.means.download() == over.means.download());
    }
}

// Given the rows reached, an overwriting call of the dense layout flags the rows a pair reached (those
// the visible-count statistic counts) and stores their gradients as a full overwrite does. The other
// rows' gradients, which held NaN, keep it on the CPU; CUDA may store zeros there (a 16-byte access of
// the SH rest values that a reached row shares).
void check_reached_writes(Device d) {
  const Scene s = random_scene(14, 80, /*mixed_sizes=*/true);
  const float nan = std::nanf("");
  for (const bool narrow : {false, true})
    for (const int degree : {0, 1}) {
      INFO((narrow ? "bf16" : "fp32") << " SH rest, degree " << degree);
      const Grads want = backward_into(d, s, false, degree, true, narrow, 7.f);
      const Grads got = backward_into(d, s, false, degree, true, narrow, nan, /*with_reached=*/true);
      const std::vector<uint8_t> reached = got.reached.download();
      const std::vector<int32_t> visible = got.visible.download();
      int64_t count = 0;
      for (int64_t i = 0; i < s.n; ++i) {
        CHECK(reached[size_t(i)] == (visible[size_t(i)] > 0 ? 1 : 0));
        count += reached[size_t(i)];
      }
      CHECK(count > s.n / 2);
      CHECK(count <= s.n - 3);  // the three Gaussians behind every camera
      const auto rows = [&](const Floats& a, const Floats& b, int width, const char* what) {
        INFO(what);
        Floats kept, wanted;
        for (int64_t i = 0; i < s.n; ++i)
          for (int k = 0; k < width; ++k) {
            const float v = a[size_t(i * width + k)];
            if (reached[size_t(i)]) kept.push_back(v), wanted.push_back(b[size_t(i * width + k)]);
            else if (d == Device::CPU) CHECK(std::isnan(v));
            else CHECK((std::isnan(v) || v == 0.f));
          }
        if (d == Device::CPU) CHECK(kept == wanted);
        else CHECK(rel_err(kept, wanted) < 1e-5);
      };
      rows(got.means.download(), want.means.download(), 3, "means");
      rows(got.quats.download(), want.quats.download(), 4, "quats");
      rows(got.log_scales.download(), want.log_scales.download(), 3, "log scales");
      rows(got.logits.download(), want.logits.download(), 1, "opacity logits");
      rows(got.dc.download(), want.dc.download(), 3, "SH dc");
      rows(got.rest_values(), want.rest_values(), 9, "SH rest");
      if (d == Device::CPU) CHECK(got.grad2d.download() == want.grad2d.download());
      else CHECK(rel_err(got.grad2d.download(), want.grad2d.download()) < 1e-5);  // the blend's atomics
      CHECK(got.max_radius.download() == want.max_radius.download());
    }
}

// rasterize_backward without the AbsGS sums: the pair gradients of a run with them, zeros where the sums
// were (which a scene of overlapping Gaussians does fill), culled pairs' rows untouched.
void check_abs_sums_optional(Device d) {
  const Scene s = random_scene(5, 150, /*mixed_sizes=*/true);
  const Shard shard(Device::CPU, s, 0, s.n);
  const HostPairs pairs = HostPairs::of(Device::CPU, make_cpu_rasterizer(2)->project(shard.view(), s.cameras, s.settings));
  const DevicePairs on_d(d, pairs);
  const OutputGrads up(s.pixels(), 3);
  auto drgb = on(d, up.rgb), dalpha = on(d, up.alpha), ddepth = on(d, up.depth);
  Floats grads[2];
  for (const bool abs_sums : {true, false}) {
    auto r = rasterizer(d);
    Buffer<float> rgb(d, 3 * s.pixels()), alpha(d, s.pixels()), depth(d, s.pixels());
    r->rasterize(on_d.view(), s.cameras, 0, s.settings, {rgb.data(), alpha.data(), depth.data()});
    PairGrads g(d, pairs.count());
    r->rasterize_backward({drgb.data(), dalpha.data(), ddepth.data()}, g.grads(), abs_sums);
    grads[abs_sums ? 0 : 1] = g.host();
  }
  Floats want = grads[0];
  size_t sums = 0;
  for (size_t k = 0; k < pairs.count(); ++k) {
    if (pairs.tiles[k] == 0) continue;
    sums += want[4 * k + 2] != 0.f;
    want[4 * k + 2] = want[4 * k + 3] = 0.f;
  }
  CHECK(sums > pairs.count() / 4);
  if (d == Device::CPU) CHECK(grads[1] == want);  // sums in a fixed order: the same bits
  else CHECK(rel_err(grads[1], want) < 1e-5);    // atomics
  for (size_t k = 0; k < pairs.count(); ++k)
    if (pairs.tiles[k] > 0) CHECK((grads[1][4 * k + 2] == 0.f && grads[1][4 * k + 3] == 0.f));
}

}  // namespace

TEST_CASE("rasterize_backward leaves the AbsGS sums out when not asked for (CPU)", "[raster_cpu][stages]") {
  check_abs_sums_optional(Device::CPU);
}

TEST_CASE("an overwriting backward stores what zeroed arrays accumulate, bf16 SH rest to nearest (CPU)",
          "[raster_cpu][stages]") {
  check_gradient_writes(Device::CPU);
}

TEST_CASE("an overwriting backward given the rows reached stores only theirs (CPU)", "[raster_cpu][stages][reached]") {
  check_reached_writes(Device::CPU);
}

TEST_CASE("bf16 SH rest gradients are refused where they would be accumulated into", "[raster_cpu][stages]") {
  const Scene s = random_scene(15, 20, false);
  const Shard all(Device::CPU, s, 0, s.n);
  for (const bool packed : {false, true}) {
    auto r = kernels::make_cpu_rasterizer(1);
    RasterSettings settings = s.settings;
    settings.packed = packed;
    Floats rgb(3 * s.pixels());
    r->forward(all.view(), s.cameras, settings, {rgb.data(), nullptr, nullptr});
    const Floats zero(3 * s.pixels(), 0.f);
    Grads g(Device::CPU, s.n, 0.f, /*narrow_rest=*/true);
    if (packed)
      CHECK_THROWS_WITH(r->backward({zero.data(), nullptr, nullptr}, g.grad(true), {}),
                        Catch::Contains("dense layout"));
    else
      CHECK_NOTHROW(r->backward({zero.data(), nullptr, nullptr}, g.grad(true), {}));
    CHECK_THROWS_WITH(r->backward({zero.data(), nullptr, nullptr}, g.grad(false), {}),
                      Catch::Contains("never accumulated in bf16"));
    kernels::GaussiansGrad both = g.grad(true);
    both.sh_rest = g.means.data();
    CHECK_THROWS_WITH(r->backward({zero.data(), nullptr, nullptr}, both, {}), Catch::Contains("not both"));
  }
}

TEST_CASE("sharded stages render and differentiate like the whole model (CPU)", "[raster_cpu][stages]") {
  check_sharded_equals_whole(Device::CPU);
}

TEST_CASE("depth ties break by global id across shards (CPU)", "[raster_cpu][stages]") { check_depth_ties(Device::CPU); }

TEST_CASE("cameras of different sizes in one call render like one call per camera (CPU)", "[raster_cpu][stages]") {
  const Scene s = random_scene(3, 60, /*mixed_sizes=*/true);
  const Shard all(Device::CPU, s, 0, s.n);
  auto r = kernels::make_cpu_rasterizer(2);
  Floats rgb(3 * s.pixels());
  r->forward(all.view(), s.cameras, s.settings, {rgb.data(), nullptr, nullptr});
  const auto offsets = kernels::image_offsets(s.cameras);
  for (size_t c = 0; c < s.cameras.size(); ++c) {
    Floats one(3 * (offsets[c + 1] - offsets[c]));
    r->forward(all.view(), std::span<const Camera>(&s.cameras[c], 1), s.settings, {one.data(), nullptr, nullptr});
    CHECK(std::equal(one.begin(), one.end(), rgb.begin() + 3 * offsets[c]));
  }
}

TEST_CASE("the rasterize stage refuses pairs it cannot render correctly (CPU)", "[raster_cpu][stages]") {
  const Scene s = random_scene(4, 30, false);
  const Shard all(Device::CPU, s, 0, s.n);
  auto r = kernels::make_cpu_rasterizer(1);
  RasterSettings settings = s.settings;
  settings.packed = true;
  HostPairs pairs = HostPairs::of(Device::CPU, r->project(all.view(), s.cameras, settings));
  REQUIRE(pairs.count() > 10);
  Floats rgb(3 * s.pixels());
  auto try_render = [&](const HostPairs& h) {
    const DevicePairs d(Device::CPU, h);
    kernels::make_cpu_rasterizer(1)->rasterize(d.view(), s.cameras, 0, settings, {rgb.data(), nullptr, nullptr});
  };
  CHECK_NOTHROW(try_render(pairs));
  HostPairs swapped = pairs;
  std::swap(swapped.id[3], swapped.id[4]);
  REQUIRE(swapped.camera[3] == swapped.camera[4]);
  CHECK_THROWS_WITH(try_render(swapped), Catch::Contains("of camera 0 are not in ascending global id order at pair 4"));
  HostPairs bad_camera = pairs;
  bad_camera.camera.back() = 3;
  CHECK_THROWS_WITH(try_render(bad_camera), Catch::Contains("names camera 3, outside this call's cameras 0..2"));
}

namespace {
// A projection with destinations (here each camera's rows of one set of columns, the cameras in reverse
// order, as a receiving rank's would be) writes camera c's pairs at destinations[c]: the plain CPU
// projection's values where a pair covers a tile (CUDA: to float rounding), only a tile count of 0 where
// it does not, and keeps here the tile counts and boxes (what project_backward reads) and nothing else.
void check_projection_into_destinations(Device d) {
  const Scene s = random_scene(31, 90, /*mixed_sizes=*/true);
  const Shard cpu_shard(Device::CPU, s, 0, s.n), shard(d, s, 0, s.n);
  const HostPairs want =
      HostPairs::of(Device::CPU, kernels::make_cpu_rasterizer(2)->project(cpu_shard.view(), s.cameras, s.settings));
  const size_t C = s.cameras.size(), n = size_t(s.n), m = C * n;
  constexpr float kUnwritten = -7.f;
  constexpr int32_t kUnwrittenId = -7;
  Buffer<float> mean2d = on(d, Floats(2 * m, kUnwritten)), co = on(d, Floats(4 * m, kUnwritten)),
                cd = on(d, Floats(4 * m, kUnwritten));
  Buffer<int32_t> camera = on(d, std::vector<int32_t>(m, kUnwrittenId)), tiles = on(d, std::vector<int32_t>(m, kUnwrittenId));
  const auto row_of = [&](size_t c, size_t i) { return (C - 1 - c) * n + i; };
  std::vector<PairDestination> to;
  for (size_t c = 0; c < C; ++c) {
    const size_t at = row_of(c, 0);
    to.push_back({mean2d.data() + 2 * at, co.data() + 4 * at, cd.data() + 4 * at, camera.data() + at, tiles.data() + at});
  }
  auto r = d == Device::CPU ? kernels::make_cpu_rasterizer(2) : kernels::make_cuda_rasterizer();
  const ProjectedGaussians kept = r->project(shard.view(), s.cameras, s.settings, to);
  REQUIRE(kept.count == int64_t(m));
  CHECK((!kept.mean2d && !kept.conic_opacity && !kept.color_depth && !kept.camera && !kept.id));
  CHECK(from(d, kept.tiles, m) == want.tiles);
  const std::vector<int32_t> kept_half = from(d, kept.half, 2 * m);
  const Floats got_mean2d = mean2d.download(), got_co = co.download(), got_cd = cd.download();
  const std::vector<int32_t> got_camera = camera.download(), got_tiles = tiles.download();
  Floats got_attr, want_attr;
  int64_t covering = 0, unwritten = 0;
  for (size_t c = 0; c < C; ++c)
    for (size_t i = 0; i < n; ++i) {
      const size_t k = c * n + i, at = row_of(c, i);
      INFO("camera " << c << ", pair " << i);
      REQUIRE(got_tiles[at] == want.tiles[k]);
      if (want.tiles[k] == 0) {
        unwritten += got_camera[at] == kUnwrittenId && got_mean2d[2 * at] == kUnwritten && got_co[4 * at] == kUnwritten &&
                     got_cd[4 * at + 3] == kUnwritten;
        continue;
      }
      ++covering;
      CHECK(got_camera[at] == int32_t(c));
      CHECK(kept_half[2 * k] == want.half[2 * k]);
      CHECK(kept_half[2 * k + 1] == want.half[2 * k + 1]);
      for (int v = 0; v < 2; ++v) got_attr.push_back(got_mean2d[2 * at + v]), want_attr.push_back(want.mean2d[2 * k + v]);
      for (int v = 0; v < 4; ++v)
        got_attr.push_back(got_co[4 * at + v]), want_attr.push_back(want.conic_opacity[4 * k + v]),
            got_attr.push_back(got_cd[4 * at + v]), want_attr.push_back(want.color_depth[4 * k + v]);
    }
  INFO(covering << " of " << m << " pairs cover a tile");
  REQUIRE(covering > int64_t(m) / 4);
  REQUIRE(covering < int64_t(m));  // some are culled: the scene has Gaussians behind every camera
  CHECK(unwritten == int64_t(m) - covering);
  if (d == Device::CPU) CHECK(got_attr == want_attr);
  else CHECK(rel_err(got_attr, want_attr) < 1e-5);
}
}  // namespace

// project_backward_by_camera reading camera c's pair gradients from arrays of its own (here the cameras'
// rows in reverse order in another buffer) writes the same gradients and statistics as project_backward
// reading them by slot: each Gaussian's thread sums its cameras in the same order either way.
void check_backward_by_camera(Device d) {
  const Scene s = random_scene(33, 90, /*mixed_sizes=*/true);
  const Shard shard(d, s, 0, s.n);
  auto r = rasterizer(d);
  const ProjectedGaussians p = r->project(shard.view(), s.cameras, s.settings);
  const size_t C = s.cameras.size(), n = size_t(s.n), m = size_t(p.count);
  REQUIRE(m == C * n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> U(-1, 1);
  Floats by_slot(12 * m), reversed(12 * m);
  for (float& v : by_slot) v = U(rng);
  for (size_t a = 0; a < 3; ++a)  // array a of the three, camera c's rows moved to camera C - 1 - c's place
    for (size_t c = 0; c < C; ++c)
      std::copy_n(by_slot.begin() + ptrdiff_t(4 * (a * m + c * n)), 4 * n,
                  reversed.begin() + ptrdiff_t(4 * (a * m + (C - 1 - c) * n)));
  const Buffer<float> slots = on(d, by_slot), cameras = on(d, reversed);
  const float* f = slots.data();
  Grads want(d, s.n), got(d, s.n);
  r->project_backward({f, f + 4 * m, f + 8 * m}, want.grad(), want.stats());
  std::vector<ConstProjectedGrads> sources;
  for (size_t c = 0; c < C; ++c) {
    const float* at = cameras.data() + 4 * (C - 1 - c) * n;
    sources.push_back({at, at + 4 * m, at + 8 * m});
  }
  r->project_backward_by_camera(sources, got.grad(), got.stats());
  const Floats w = want.all();
  REQUIRE(std::any_of(w.begin(), w.end(), [](float v) { return v != 0.f; }));
  CHECK(got.all() == w);
  CHECK(got.visible.download() == want.visible.download());
  CHECK_THROWS_WITH(r->project_backward_by_camera(std::span(sources).first(C - 1), got.grad(), got.stats()),
                    Catch::Contains(std::to_string(C - 1) + " gradient sources for " + std::to_string(C) + " cameras"));
  RasterSettings packed = s.settings;
  packed.packed = true;
  r->project(shard.view(), s.cameras, packed);
  CHECK_THROWS_WITH(r->project_backward_by_camera(sources, got.grad(), got.stats()),
                    Catch::Contains("gradients by camera need a dense projection"));
}

TEST_CASE("project_backward reading each camera's gradients from its own arrays equals reading them by slot (CPU)",
          "[raster_cpu][stages]") {
  check_backward_by_camera(Device::CPU);
}

TEST_CASE("CUDA project_backward reading each camera's gradients from its own arrays equals reading them by slot",
          "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA project_backward by camera")) return;
  check_backward_by_camera(Device::CUDA);
}

TEST_CASE("a projection writes each camera's pairs to its destination and keeps what its backward reads (CPU)",
          "[raster_cpu][stages]") {
  check_projection_into_destinations(Device::CPU);
  const Scene s = random_scene(4, 30, false);
  const Shard all(Device::CPU, s, 0, s.n);
  auto r = kernels::make_cpu_rasterizer(1);
  std::vector<float> f(64);
  std::vector<int32_t> i(64);
  const PairDestination one{f.data(), f.data(), f.data(), i.data(), i.data()};
  const std::vector<PairDestination> two(2, one), three(3, one);
  CHECK_THROWS_WITH(r->project(all.view(), s.cameras, s.settings, two),
                    Catch::Contains("2 pair destinations for 3 cameras"));
  RasterSettings packed = s.settings;
  packed.packed = true;
  CHECK_THROWS_WITH(r->project(all.view(), s.cameras, packed, three),
                    Catch::Contains("a packed projection writes no pair destinations"));
  std::vector<PairDestination> missing = three;
  missing[1].tiles = nullptr;
  CHECK_THROWS_WITH(r->project(all.view(), s.cameras, s.settings, missing),
                    Catch::Contains("a pair destination without all its columns"));
}

TEST_CASE("a CUDA projection writes each camera's pairs to its destination like the CPU reference",
          "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA projection into destinations")) return;
  check_projection_into_destinations(Device::CUDA);
}

TEST_CASE("CUDA stages match the CPU reference stage by stage", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer stages vs CPU")) return;
  for (const bool packed : {false, true}) {
    INFO("packed " << packed);
    const Scene s = random_scene(21, 120, /*mixed_sizes=*/true);
    RasterSettings settings = s.settings;
    settings.packed = packed;
    const Shard cpu_shard(Device::CPU, s, 0, s.n), gpu_shard(Device::CUDA, s, 0, s.n);
    auto cpu = kernels::make_cpu_rasterizer(2);
    auto gpu = kernels::make_cuda_rasterizer();
    // project: the same pairs in the same order, attributes to float rounding.
    const HostPairs pc = HostPairs::of(Device::CPU, cpu->project(cpu_shard.view(), s.cameras, settings));
    const HostPairs pg = HostPairs::of(Device::CUDA, gpu->project(gpu_shard.view(), s.cameras, settings));
    REQUIRE(pg.count() == pc.count());
    CHECK(pg.camera == pc.camera);
    CHECK(pg.id == pc.id);
    CHECK(pg.tiles == pc.tiles);
    std::vector<int32_t> half_c, half_g;
    Floats attr_c, attr_g;
    for (size_t k = 0; k < pc.count(); ++k) {
      if (pc.tiles[k] == 0) continue;  // culled: attributes undefined
      for (int v = 0; v < 2; ++v) half_c.push_back(pc.half[2 * k + v]), half_g.push_back(pg.half[2 * k + v]);
      for (int v = 0; v < 2; ++v) attr_c.push_back(pc.mean2d[2 * k + v]), attr_g.push_back(pg.mean2d[2 * k + v]);
      for (int v = 0; v < 4; ++v)
        attr_c.push_back(pc.conic_opacity[4 * k + v]), attr_g.push_back(pg.conic_opacity[4 * k + v]),
            attr_c.push_back(pc.color_depth[4 * k + v]), attr_g.push_back(pg.color_depth[4 * k + v]);
    }
    CHECK(half_g == half_c);
    CHECK(rel_err(attr_g, attr_c) < 1e-5);

    // rasterize + rasterize_backward on the CPU's pairs, uploaded.
    const DevicePairs on_cpu(Device::CPU, pc), on_gpu(Device::CUDA, pc);
    const OutputGrads up(s.pixels(), 8);
    Floats rgb_c(3 * s.pixels()), alpha_c(s.pixels()), depth_c(s.pixels());
    Buffer<float> rgb_g(Device::CUDA, 3 * s.pixels()), alpha_g(Device::CUDA, s.pixels()),
        depth_g(Device::CUDA, s.pixels());
    cpu->rasterize(on_cpu.view(), s.cameras, 0, settings, {rgb_c.data(), alpha_c.data(), depth_c.data()});
    gpu->rasterize(on_gpu.view(), s.cameras, 0, settings, {rgb_g.data(), alpha_g.data(), depth_g.data()});
    CHECK(rel_err(rgb_g.download(), rgb_c) < 1e-6);
    CHECK(rel_err(alpha_g.download(), alpha_c) < 1e-6);
    CHECK(rel_err(depth_g.download(), depth_c) < 1e-6);
    PairGrads dc(Device::CPU, pc.count()), dg(Device::CUDA, pc.count());
    auto drgb = on(Device::CUDA, up.rgb), dalpha = on(Device::CUDA, up.alpha), ddepth = on(Device::CUDA, up.depth);
    cpu->rasterize_backward({up.rgb.data(), up.alpha.data(), up.depth.data()}, dc.grads(), true);
    gpu->rasterize_backward({drgb.data(), dalpha.data(), ddepth.data()}, dg.grads(), true);
    CHECK(rel_err(dg.host(), dc.host()) < 1e-5);
    const Floats dg_host = dg.host();
    size_t culled = 0, kept_as_was = 0;
    for (size_t k = 0; k < pc.count(); ++k)
      if (pc.tiles[k] == 0) ++culled, kept_as_was += dg_host[4 * k] == 7.f && dg_host[8 * pc.count() + 4 * k + 3] == 7.f;
    CHECK((culled > 0) != settings.packed);  // a packed projection keeps the covering pairs only
    CHECK(kept_as_was == culled);            // a culled pair's gradients are not written

    // project_backward from the CPU's pair gradients, uploaded.
    const Floats d_host = dc.host();
    const size_t m = pc.count();
    const Buffer<float> d_gpu = on(Device::CUDA, d_host);
    Grads gc(Device::CPU, s.n), gg(Device::CUDA, s.n);
    cpu->project_backward({d_host.data(), d_host.data() + 4 * m, d_host.data() + 8 * m}, gc.grad(), gc.stats());
    gpu->project_backward({d_gpu.data(), d_gpu.data() + 4 * m, d_gpu.data() + 8 * m}, gg.grad(), gg.stats());
    CHECK(rel_err(gg.all(), gc.all()) < 1e-5);
    CHECK(gg.visible.download() == gc.visible.download());
  }
}

TEST_CASE("CUDA rasterize_backward leaves the AbsGS sums out when not asked for", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA backward without the AbsGS sums")) return;
  check_abs_sums_optional(Device::CUDA);
}

TEST_CASE("CUDA sharded stages render and differentiate like the whole model", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA sharded stages")) return;
  check_sharded_equals_whole(Device::CUDA);
}

TEST_CASE("CUDA depth ties break by global id across shards", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA depth ties")) return;
  check_depth_ties(Device::CUDA);
}

TEST_CASE("CUDA cameras of different sizes match the CPU reference", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA mixed camera sizes")) return;
  for (const bool packed : {false, true}) {
    const Scene s = random_scene(6, 150, /*mixed_sizes=*/true);
    const OutputGrads up(s.pixels(), 9);
    const Render c = whole(Device::CPU, s, packed, up), g = whole(Device::CUDA, s, packed, up);
    CHECK(rel_err(g.rgb, c.rgb) < 1e-6);
    CHECK(rel_err(g.depth, c.depth) < 1e-6);
    CHECK(rel_err(g.grads, c.grads) < 1e-5);
  }
}

TEST_CASE("CUDA backward given the rows reached matches the CPU's", "[raster][gpu][stages][reached]") {
  if (!splat::test::gpu_or_skip("CUDA rows reached")) return;
  check_reached_writes(Device::CUDA);
}

TEST_CASE("CUDA overwriting backward and bf16 SH rest gradients", "[raster][gpu][stages]") {
  if (!splat::test::gpu_or_skip("CUDA gradient writes")) return;
  check_gradient_writes(Device::CUDA);
  const Scene s = random_scene(16, 83, /*mixed_sizes=*/true);  // 83 x 9 values: the vector accesses leave a tail
  for (const bool narrow : {false, true}) {
    INFO("narrow " << narrow);
    const Grads c = backward_into(Device::CPU, s, false, 1, true, narrow, 7.f);
    const Grads g = backward_into(Device::CUDA, s, false, 1, true, narrow, 7.f);
    CHECK(rel_err(g.all(), c.all()) < (narrow ? 4e-3 : 1e-5));
  }
}
