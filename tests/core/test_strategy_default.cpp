#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "core/strategy_default.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {
float logit(float p) { return std::log(p / (1 - p)); }
// The rules' own expressions, in float as the strategy wrote them before the cuts.
float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }
float max_scale(const float* ls) { return std::exp(std::max({ls[0], ls[1], ls[2]})); }

// n axis-aligned Gaussians at x = i with the given isotropic scale and opacity.
GaussianState make_state(const std::vector<float>& scales, const std::vector<float>& opacities) {
  GaussianState s(0, int64_t(scales.size()));
  for (int64_t i = 0; i < s.size(); ++i) {
    s.row(Group::Means, i)[0] = float(i);
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, i)[c] = std::log(scales[i]);
    s.row(Group::Quats, i)[0] = 1.f;
    s.row(Group::Opacity, i)[0] = logit(opacities[i]);
    for (Group g : kAllGroups) {
      std::fill(s.col(g).exp_avg.begin(), s.col(g).exp_avg.end(), 0.5f);
      std::fill(s.col(g).exp_avg_sq.begin(), s.col(g).exp_avg_sq.end(), 0.25f);
    }
  }
  return s;
}

HostDensifyStats make_stats(const std::vector<float>& grad_sum, const std::vector<int32_t>& count) {
  HostDensifyStats st;
  st.grad2d_norm = grad_sum;
  st.grad2d_abs_norm.assign(grad_sum.size(), 0.f);
  st.visible_count = count;
  st.max_radius.assign(grad_sum.size(), 0.f);
  return st;
}
}  // namespace

TEST_CASE("default strategy: clone small and split large Gaussians whose mean 2D gradient is high",
          "[strategy_default]") {
  const double extent = 10.0;  // small/large boundary at scale 0.1
  // row 0: high gradient, small -> clone; row 1: high, large -> split; row 2: low -> nothing;
  // row 3: high sum but seen often, so its mean is low -> nothing; row 4: never visible -> nothing.
  const GaussianState s = make_state({0.05f, 0.5f, 0.05f, 0.05f, 0.5f}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f});
  const HostDensifyStats st = make_stats({6e-4f, 9e-4f, 1e-4f, 9e-4f, 0.f}, {2, 3, 1, 10, 0});
  DefaultStrategyOptions o;
  const GrowDecision d = decide_growth(s, st, o, 1, extent);
  CHECK(d.clone == std::vector<int64_t>{0});
  CHECK(d.split == std::vector<int64_t>{1});

  // Batch of 8: the mean loss scaled each camera's gradient by 1/8 (3e-4 -> 3.75e-5, seen twice), so
  // the statistic must be scaled back before the threshold; read as batch 1 it stays below.
  const HostDensifyStats batched = make_stats({2 * 3.75e-5f, 0, 0, 0, 0}, {2, 0, 0, 0, 0});
  CHECK(decide_growth(s, batched, o, 1, extent).clone.empty());
  CHECK(decide_growth(s, batched, o, 8, extent).clone == std::vector<int64_t>{0});

  SECTION("AbsGS reads the absolute-gradient statistic against its own threshold") {
    HostDensifyStats abs = make_stats({0, 0, 0, 0, 0}, {1, 1, 1, 1, 1});
    abs.grad2d_abs_norm = {1e-3f, 5e-4f, 0, 0, 0};
    o.absgrad = true;
    const GrowDecision a = decide_growth(s, abs, o, 1, extent);
    CHECK(a.clone == std::vector<int64_t>{0});  // 1e-3 > 8e-4
    CHECK(a.split.empty());                     // 5e-4 < 8e-4
  }
}

TEST_CASE("default strategy: growth appends clones and replaces split parents by two shrunk samples",
          "[strategy_default]") {
  GaussianState s = make_state({0.05f, 0.5f, 0.05f}, {0.5f, 0.3f, 0.5f});
  GrowDecision d;
  d.clone = {0};
  d.split = {1};
  DefaultStrategyOptions o;
  Rng rng(7);
  CHECK(apply_growth(s, d, o, rng) == 3);
  s.check_consistent();
  REQUIRE(s.size() == 5);
  // Row 3 = clone of 0 (same parameters, zero moments); row 0 itself untouched.
  for (int c = 0; c < 3; ++c) CHECK(s.row(Group::Means, 3)[c] == s.row(Group::Means, 0)[c]);
  CHECK(s.col(Group::Means).exp_avg[0] == 0.5f);
  CHECK(s.col(Group::Means).exp_avg[9] == 0.f);
  // Rows 1 and 4 = the split halves: scale / 1.6, opacity kept, positions moved, moments zero.
  for (int64_t r : {int64_t(1), int64_t(4)}) {
    CHECK(std::exp(s.row(Group::LogScales, r)[0]) == Approx(0.5 / 1.6));
    CHECK(s.row(Group::Opacity, r)[0] == Approx(logit(0.3f)));
    CHECK(s.col(Group::LogScales).exp_avg[r * 3] == 0.f);
    CHECK(s.col(Group::Opacity).exp_avg_sq[r] == 0.f);
  }
  CHECK(s.row(Group::Means, 1)[0] != s.row(Group::Means, 4)[0]);
  // Untouched row 2 keeps its moments.
  CHECK(s.col(Group::Quats).exp_avg[2 * 4] == 0.5f);
}

TEST_CASE("default strategy: split samples follow the parent's rotated anisotropic Gaussian", "[strategy_default]") {
  // One Gaussian with std 1 along its local x, 0.01 elsewhere, rotated 90 degrees about z so that
  // local x is world y. Samples must spread along world y only.
  GaussianState parent(0, 1);
  parent.row(Group::LogScales, 0)[0] = 0.f;
  parent.row(Group::LogScales, 0)[1] = std::log(0.01f);
  parent.row(Group::LogScales, 0)[2] = std::log(0.01f);
  const float h = std::sqrt(0.5f);
  float* q = parent.row(Group::Quats, 0);
  q[0] = h, q[3] = h;  // (w, x, y, z)
  Rng rng(1);
  DefaultStrategyOptions o;
  double sxx = 0, syy = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    GaussianState s = parent;
    GrowDecision d;
    d.split = {0};
    apply_growth(s, d, o, rng);
    for (int64_t r : {int64_t(0), int64_t(1)}) {
      sxx += double(s.row(Group::Means, r)[0]) * s.row(Group::Means, r)[0];
      syy += double(s.row(Group::Means, r)[1]) * s.row(Group::Means, r)[1];
    }
  }
  CHECK(std::sqrt(syy / (2 * trials)) == Approx(1.0).epsilon(0.05));
  CHECK(std::sqrt(sxx / (2 * trials)) < 0.02);
}

TEST_CASE("default strategy: prune transparent, and oversized only when sizes are checked", "[strategy_default]") {
  const double extent = 10.0;  // world size limit 1.0
  const GaussianState s = make_state({0.05f, 2.f, 0.05f, 0.05f, 0.05f}, {0.004f, 0.5f, 0.5f, 0.5f, 0.006f});
  const std::vector<float> radius{0.f, 0.f, 0.2f, 0.1f};  // row 4 grew this round: no radius yet
  DefaultStrategyOptions o;
  CHECK(decide_keep(s, radius, false, o, extent) == std::vector<uint8_t>{0, 1, 1, 1, 1});
  CHECK(decide_keep(s, radius, true, o, extent) == std::vector<uint8_t>{0, 0, 0, 1, 1});
}

TEST_CASE("default strategy: opacity reset caps at 0.01 and clears the opacity moments", "[strategy_default]") {
  GaussianState s = make_state({0.1f, 0.1f}, {0.9f, 0.001f});
  reset_opacities(s, 0.01f);
  CHECK(1 / (1 + std::exp(-s.row(Group::Opacity, 0)[0])) == Approx(0.01f));
  CHECK(1 / (1 + std::exp(-s.row(Group::Opacity, 1)[0])) == Approx(0.001f));
  for (float m : s.col(Group::Opacity).exp_avg) CHECK(m == 0.f);
  for (float m : s.col(Group::Opacity).exp_avg_sq) CHECK(m == 0.f);
  CHECK(s.col(Group::Means).exp_avg[0] == 0.5f);
}

TEST_CASE("default strategy: refines only on its schedule and keeps the device buffers consistent",
          "[strategy_default]") {
  DefaultStrategyOptions o;
  DefaultStrategy strat(o, 3);
  DeviceGaussians g(kernels::Device::CPU, make_state({0.05f, 0.05f, 0.05f}, {0.5f, 0.5f, 0.002f}));
  auto fill_stats = [&] {
    kernels::DensifyStats st = g.stats();
    st.grad2d_norm[0] = 1e-3f;
    st.visible_count[0] = 1;
  };
  StepInfo info;
  info.scene_extent = 10;
  CHECK(strat.wants_stats(100));
  CHECK_FALSE(strat.wants_stats(15000));

  for (int step : {500, 550, 15100}) {  // before start, off schedule, after stop
    fill_stats();
    info.step = step;
    CHECK_FALSE(strat.after_step(info, g));
    CHECK(g.size() == 3);
  }
  fill_stats();
  info.step = 600;
  CHECK(strat.after_step(info, g));
  CHECK(g.size() == 3);  // row 0 cloned, row 2 pruned (opacity 0.002)
  for (Group grp : kAllGroups) CHECK(g.grad(grp).size() == size_t(3 * group_width(grp, 0)));
  CHECK(g.download_stats().visible_count == std::vector<int32_t>{0, 0, 0});

  info.step = 3000;
  strat.after_step(info, g);
  for (float l : g.param(Group::Opacity).download()) CHECK(l <= logit(0.01f) + 1e-6f);

  // The strategy's RNG state round-trips.
  DefaultStrategy other(o, 99);
  other.load_state(strat.state());
  CHECK(other.state() == strat.state());
}

namespace {
// A refinement step of DefaultStrategy on a DeviceGaussians of `device`, returned as host state.
GaussianState refine_once(kernels::Device device, const GaussianState& start, const HostDensifyStats& st,
                          uint64_t seed) {
  DeviceGaussians g(device, start);
  const kernels::DensifyStats d = g.stats();
  const size_t n = st.visible_count.size();
  kernels::copy_bytes(d.grad2d_norm, device, st.grad2d_norm.data(), kernels::Device::CPU, n * sizeof(float));
  kernels::copy_bytes(d.max_radius, device, st.max_radius.data(), kernels::Device::CPU, n * sizeof(float));
  kernels::copy_bytes(d.visible_count, device, st.visible_count.data(), kernels::Device::CPU, n * sizeof(int32_t));
  DefaultStrategy strat(DefaultStrategyOptions{}, seed);
  StepInfo info;
  info.scene_extent = 10;
  info.step = 6000;  // refinement, size pruning (after the first reset) and opacity reset together
  REQUIRE(strat.after_step(info, g));
  return g.download();
}

// Rows 0 and 3 clone, 1 and 4 split, 2 and 5 are transparent (pruned), 6 is too large on screen (pruned).
GaussianState refine_start_state() {
  GaussianState s = make_state({0.05f, 0.5f, 0.05f, 0.02f, 0.4f, 0.05f, 0.05f}, {0.5f, 0.3f, 0.002f, 0.02f, 0.9f, 0.001f, 0.5f});
  for (int64_t i = 0; i < s.size(); ++i) {
    float* q = s.row(Group::Quats, i);
    q[1] = 0.1f * float(i), q[2] = -0.2f;  // not axis-aligned, so the split samples rotate
    s.row(Group::Means, i)[2] = 0.5f * float(i);
  }
  return s;
}

HostDensifyStats refine_start_stats() {
  HostDensifyStats st = make_stats({1e-3f, 1e-3f, 0.f, 2e-3f, 3e-3f, 0.f, 0.f}, {1, 1, 1, 2, 2, 0, 1});
  st.max_radius[6] = 0.5f;
  return st;
}
}  // namespace

TEST_CASE("default strategy: the device refinement equals growth, pruning and reset on a host copy",
          "[strategy_default]") {
  const GaussianState start = refine_start_state();
  const HostDensifyStats st = refine_start_stats();
  DefaultStrategyOptions o;
  GaussianState want = start;
  Rng rng(11);
  const GrowDecision d = decide_growth(want, st, o, 1, 10.0);
  REQUIRE(d.clone.size() == 2);
  REQUIRE(d.split.size() == 2);
  apply_growth(want, d, o, rng);
  want.keep_rows(decide_keep(want, st.max_radius, true, o, 10.0));
  reset_opacities(want, o.reset_opacity);
  REQUIRE(want.size() == 8);  // 7 + 2 clones + 2 second halves - 2 transparent - 1 too large on screen

  const GaussianState got = refine_once(kernels::Device::CPU, start, st, 11);
  REQUIRE(got.size() == want.size());
  for (Group g : kAllGroups) {
    CHECK(got.col(g).value == want.col(g).value);
    CHECK(got.col(g).exp_avg == want.col(g).exp_avg);
    CHECK(got.col(g).exp_avg_sq == want.col(g).exp_avg_sq);
  }
}

TEST_CASE("default strategy: CUDA refinement equals the CPU one", "[strategy_default][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA default-strategy refinement")) return;
  const GaussianState cpu = refine_once(kernels::Device::CPU, refine_start_state(), refine_start_stats(), 4);
  const GaussianState gpu = refine_once(kernels::Device::CUDA, refine_start_state(), refine_start_stats(), 4);
  REQUIRE(gpu.size() == cpu.size());
  for (Group g : kAllGroups) {
    CHECK(gpu.col(g).value == cpu.col(g).value);
    CHECK(gpu.col(g).exp_avg == cpu.col(g).exp_avg);
    CHECK(gpu.col(g).exp_avg_sq == cpu.col(g).exp_avg_sq);
  }
}

TEST_CASE("default strategy: the logit and log-scale cuts agree with sigmoid and exp, at the boundary too",
          "[strategy_default]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> wide(-30.f, 30.f), near(-1e-3f, 1e-3f);
  const float inf = std::numeric_limits<float>::infinity();
  for (float p : {0.005f, 0.01f, 0.5f, 0.99f, 1e-6f}) {
    const float cut = opacity_logit_cut(p);
    CHECK(cut == Approx(logit(p)).epsilon(1e-5).margin(1e-6));
    std::vector<float> xs{cut, std::nextafter(cut, -inf), std::nextafter(cut, inf), -inf, inf};
    for (int i = 0; i < 2000; ++i) xs.insert(xs.end(), {wide(rng), logit(p) + near(rng)});
    for (float x : xs) {
      INFO("p " << p << " x " << x);
      CHECK((x < cut) == (sigmoid(x) < p));
    }
  }
  CHECK(opacity_logit_cut(0.f) == -inf);  // no opacity is below 0: nothing pruned

  for (double s : {0.1, 1.0, 1e-3, 2.5}) {
    const float cut = log_scale_cut(s);
    CHECK(cut == Approx(std::log(s)).epsilon(1e-5).margin(1e-6));
    std::vector<float> xs{cut, std::nextafter(cut, -inf), std::nextafter(cut, inf), -inf};
    for (int i = 0; i < 2000; ++i) xs.insert(xs.end(), {wide(rng), float(std::log(s)) + near(rng)});
    for (float x : xs) {
      INFO("s " << s << " x " << x);
      CHECK((x < cut) == (double(std::exp(x)) <= s));
    }
  }
}

TEST_CASE("default strategy: growth and pruning over many rows match the rules written with exp and sigmoid",
          "[strategy_default]") {
  // More rows than decide_growth's chunk, with values on both sides of every threshold and some
  // exactly at the cuts.
  const int64_t n = 10000;
  const double extent = 10.0;
  DefaultStrategyOptions o;
  GaussianState s(0, n);
  HostDensifyStats st;
  st.grad2d_norm.resize(n);
  st.grad2d_abs_norm.assign(n, 0.f);
  st.visible_count.resize(n);
  st.max_radius.resize(n);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const float grow_cut = log_scale_cut(o.grow_scale3d * extent), prune_cut = log_scale_cut(o.prune_scale3d * extent);
  const float opacity_cut = opacity_logit_cut(o.prune_opacity);
  for (int64_t i = 0; i < n; ++i) {
    float* ls = s.row(Group::LogScales, i);
    const float base = std::log(0.02f) + std::log(100.f) * u(rng);  // world scales 0.02..2, log-uniform
    for (int c = 0; c < 3; ++c) ls[c] = base + std::log(0.5f + 0.5f * u(rng));
    if (i % 97 == 0) ls[1] = grow_cut;
    if (i % 89 == 0) ls[2] = std::nextafter(prune_cut, 0.f);
    s.row(Group::Opacity, i)[0] = i % 83 == 0 ? opacity_cut : logit(0.001f + 0.02f * u(rng));
    st.visible_count[i] = int32_t(u(rng) * 4);
    st.grad2d_norm[i] = 4e-4f * u(rng);
    st.max_radius[i] = 0.2f * u(rng);
  }

  GrowDecision want;
  for (int64_t i = 0; i < n; ++i) {
    if (!(st.grad2d_norm[i] / float(std::max(st.visible_count[i], 1)) > o.grad_threshold)) continue;
    (max_scale(s.row(Group::LogScales, i)) <= o.grow_scale3d * extent ? want.clone : want.split).push_back(i);
  }
  const GrowDecision got = decide_growth(s, st, o, 1, extent);
  CHECK(got.clone == want.clone);
  CHECK(got.split == want.split);
  CHECK(want.clone.size() > 100);
  CHECK(want.split.size() > 100);

  const std::vector<float> radius(st.max_radius.begin(), st.max_radius.begin() + n / 2);  // the rest grew
  for (bool check_size : {false, true}) {
    std::vector<uint8_t> keep(n);
    for (int64_t i = 0; i < n; ++i) {
      bool drop = sigmoid(s.row(Group::Opacity, i)[0]) < o.prune_opacity;
      if (check_size)
        drop = drop || max_scale(s.row(Group::LogScales, i)) > o.prune_scale3d * extent ||
               (i < n / 2 && radius[i] > o.prune_scale2d);
      keep[i] = drop ? 0 : 1;
    }
    CHECK(decide_keep(s, radius, check_size, o, extent) == keep);
  }
}

TEST_CASE("default strategy: a planner reused across models plans as a fresh one does", "[strategy_default]") {
  // A large model with size pruning first, then a smaller one without: nothing of the first plan
  // (rows, statistics, radii) may leak into the second.
  const GaussianState big = refine_start_state();
  GaussianState small = make_state({0.05f, 0.5f, 0.05f}, {0.5f, 0.5f, 0.002f});
  small.row(Group::Quats, 1)[2] = 0.3f;
  HostDensifyStats big_stats = refine_start_stats(), small_stats = make_stats({1e-3f, 1e-3f, 0.f}, {1, 1, 0});
  small_stats.max_radius.assign(3, 0.5f);  // would prune everything if sizes were checked
  auto plan_with = [](RefinementPlanner& planner, const GaussianState& s, const HostDensifyStats& st, bool check_size) {
    DeviceGaussians g(kernels::Device::CPU, s);
    const kernels::DensifyStats d = g.stats();
    std::copy(st.grad2d_norm.begin(), st.grad2d_norm.end(), d.grad2d_norm);
    std::copy(st.max_radius.begin(), st.max_radius.end(), d.max_radius);
    std::copy(st.visible_count.begin(), st.visible_count.end(), d.visible_count);
    StepInfo info;
    info.scene_extent = 10;
    Rng rng(21);
    return planner.plan(g, DefaultStrategyOptions{}, info, check_size, rng);
  };
  RefinementPlanner reused, fresh;
  const RefinementPlan first = plan_with(reused, big, big_stats, true);
  CHECK(first.params.size() == 8);
  const RefinementPlan again = plan_with(reused, small, small_stats, false);
  const RefinementPlan want = plan_with(fresh, small, small_stats, false);
  CHECK(want.params == std::vector<int32_t>{0, 1, 0, 1});  // row 2 pruned; clone of 0, second half of 1
  CHECK(want.moments == std::vector<int32_t>{0, -1, -1, -1});
  CHECK(again.params == want.params);
  CHECK(again.moments == want.moments);
  CHECK(again.written == want.written);
  CHECK(again.written_means == want.written_means);
  CHECK(again.written_log_scales == want.written_log_scales);
}
