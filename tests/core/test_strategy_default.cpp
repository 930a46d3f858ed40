#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "core/train/strategy_default.h"
#include "core/train/strategy_mcmc.h"
#include "core/train/train_step.h"
#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "kernels/hd_math.h"
#include "kernels/refine_plan.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {
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

// What backward would have accumulated: the statistics the refinement reads.
void put_stats(DeviceGaussians& g, const HostDensifyStats& st) {
  const kernels::DensifyStats d = g.stats();
  const size_t n = st.visible_count.size();
  const kernels::Device cpu = kernels::Device::CPU;
  kernels::copy_bytes(d.grad2d_norm, g.device(), st.grad2d_norm.data(), cpu, n * sizeof(float));
  kernels::copy_bytes(d.max_radius, g.device(), st.max_radius.data(), cpu, n * sizeof(float));
  kernels::copy_bytes(d.visible_count, g.device(), st.visible_count.data(), cpu, n * sizeof(int32_t));
}

// The plan of one refinement of s by the CPU twin (kernels/refine_plan.h): each row's code and the
// gather's source lists (extent 10 unless given).
struct RowPlan {
  std::vector<uint8_t> code;
  std::vector<int32_t> params, moments;
};
RowPlan plan_rows(const GaussianState& s, const HostDensifyStats& st, bool check_size, const DefaultStrategyOptions& o = {},
                  int batch_size = 1, double extent = 10.0, int64_t room = -1) {
  const int64_t n = s.size();
  const kernels::RefineColumns in{s.col(Group::Opacity).value.data(), s.col(Group::LogScales).value.data(),
                                  o.absgrad ? st.grad2d_abs_norm.data() : st.grad2d_norm.data(),
                                  st.visible_count.data(), check_size ? st.max_radius.data() : nullptr, n};
  RowPlan p;
  p.code.resize(size_t(n));
  kernels::refine_codes_reference(in, refine_rule(o, batch_size, extent, check_size), room, p.code.data());
  std::vector<int32_t> at(size_t(3 * n));
  const kernels::RefineCounts counts = kernels::refine_places_reference(p.code.data(), n, at.data());
  p.params.resize(size_t(counts.rows()));
  p.moments.resize(size_t(counts.rows()));
  kernels::refine_sources_reference(p.code.data(), at.data(), n, counts, p.params.data(), p.moments.data());
  return p;
}

// The rows a plan clones and splits, ascending.
struct Grows {
  std::vector<int64_t> clone, split;
};
Grows growth(const GaussianState& s, const HostDensifyStats& st, const DefaultStrategyOptions& o, int batch_size,
             double extent, int64_t room = -1) {
  const RowPlan p = plan_rows(s, st, false, o, batch_size, extent, room);
  Grows g;
  for (size_t r = 0; r < p.code.size(); ++r)
    if (p.code[r] & kernels::kRefineGrow) ((p.code[r] & kernels::kRefineSplit) ? g.split : g.clone).push_back(int64_t(r));
  return g;
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
  const Grows d = growth(s, st, o, 1, extent);
  CHECK(d.clone == std::vector<int64_t>{0});
  CHECK(d.split == std::vector<int64_t>{1});

  // Batch of 8: the mean loss scaled each camera's gradient by 1/8 (3e-4 -> 3.75e-5, seen twice), so
  // the statistic must be scaled back before the threshold; read as batch 1 it stays below.
  const HostDensifyStats batched = make_stats({2 * 3.75e-5f, 0, 0, 0, 0}, {2, 0, 0, 0, 0});
  CHECK(growth(s, batched, o, 1, extent).clone.empty());
  CHECK(growth(s, batched, o, 8, extent).clone == std::vector<int64_t>{0});

  SECTION("AbsGS reads the absolute-gradient statistic against its own threshold") {
    HostDensifyStats abs = make_stats({0, 0, 0, 0, 0}, {1, 1, 1, 1, 1});
    abs.grad2d_abs_norm = {1e-3f, 5e-4f, 0, 0, 0};
    o.absgrad = true;
    const Grows a = growth(s, abs, o, 1, extent);
    CHECK(a.clone == std::vector<int64_t>{0});  // 1e-3 > 8e-4
    CHECK(a.split.empty());                     // 5e-4 < 8e-4
  }
}

TEST_CASE("default strategy: a Gaussian budget grows the rows with the largest gradient, cloned or split as before",
          "[strategy_default][budget]") {
  const double extent = 10.0;
  // Five rows over the threshold (means 6e-4, 9e-4, 3e-4, 8e-4, 5e-4): small ones clone, large ones split.
  const GaussianState s = make_state({0.05f, 0.5f, 0.05f, 0.5f, 0.05f, 0.05f}, {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f});
  const HostDensifyStats st = make_stats({6e-4f, 9e-4f, 3e-4f, 8e-4f, 5e-4f, 1e-4f}, {1, 1, 1, 1, 1, 1});
  const DefaultStrategyOptions o;
  const Grows all = growth(s, st, o, 1, extent);
  CHECK(all.clone == std::vector<int64_t>{0, 2, 4});
  CHECK(all.split == std::vector<int64_t>{1, 3});
  CHECK(growth(s, st, o, 1, extent, 5).clone == all.clone);  // room enough: unchanged
  const Grows three = growth(s, st, o, 1, extent, 3);  // 9e-4, 8e-4, 6e-4
  CHECK(three.clone == std::vector<int64_t>{0});
  CHECK(three.split == std::vector<int64_t>{1, 3});
  const Grows none = growth(s, st, o, 1, extent, 0);
  CHECK(none.clone.empty());
  CHECK(none.split.empty());
  // Equal gradients: the lower row first.
  const HostDensifyStats tie = make_stats({5e-4f, 5e-4f, 5e-4f, 0, 0, 0}, {1, 1, 1, 1, 1, 1});
  const Grows two = growth(s, tie, o, 1, extent, 2);
  CHECK(two.clone == std::vector<int64_t>{0});
  CHECK(two.split == std::vector<int64_t>{1});
  CHECK(growth(s, tie, o, 1, extent, 1).clone == std::vector<int64_t>{0});
}

TEST_CASE("default strategy: a refinement under a Gaussian budget stops growing at it", "[strategy_default][budget]") {
  DefaultStrategyOptions o;
  o.max_gaussians = 13;
  DefaultStrategy strat(o, 3);
  // Ten small, opaque rows, all over the threshold, row i's gradient growing with i.
  DeviceGaussians g(kernels::Device::CPU, make_state(std::vector<float>(10, 0.05f), std::vector<float>(10, 0.5f)));
  HostDensifyStats st = make_stats(std::vector<float>(10, 0.f), std::vector<int32_t>(10, 1));
  for (int i = 0; i < 10; ++i) st.grad2d_norm[i] = 3e-4f + 1e-5f * float(i);
  put_stats(g, st);
  StepInfo info;
  info.scene_extent = 10;
  info.first_image = 600;
  info.model_rows = 10;
  REQUIRE(strat.after_step(info, g));
  REQUIRE(g.size() == 13);
  // The clones are copies of the three rows with the largest gradient (rows 7, 8, 9), appended.
  const GaussianState after = g.download();
  for (int k = 0; k < 3; ++k) CHECK(after.row(Group::Means, 10 + k)[0] == float(7 + k));
  // Full: the next refinement grows nothing.
  put_stats(g, make_stats(std::vector<float>(13, 1e-3f), std::vector<int32_t>(13, 1)));
  info.first_image = 700;
  info.model_rows = 13;
  REQUIRE(strat.after_step(info, g));
  CHECK(g.size() == 13);
}

TEST_CASE("default strategy: the room a budget leaves, for one rank and for a shard", "[strategy_default][budget]") {
  DefaultStrategyOptions o;
  CHECK(growth_room(o, 500, 0) < 0);  // no limit
  o.max_gaussians = 1000;
  CHECK(growth_room(o, 600, 0) == 400);
  CHECK(growth_room(o, 600, 600) == 400);
  CHECK(growth_room(o, 1200, 0) == 0);  // over it (a budget lowered on resume): no growth, no negative room
  // A shard of a quarter of the model gets a quarter of the budget.
  CHECK(growth_room(o, 150, 600) == 100);
}

TEST_CASE("default strategy: growth appends clones and replaces split parents by two shrunk samples",
          "[strategy_default]") {
  // Row 0 small with a high gradient (clone), row 1 large with a high gradient (split), row 2 idle.
  DeviceGaussians g(kernels::Device::CPU, make_state({0.05f, 0.5f, 0.05f}, {0.5f, 0.3f, 0.5f}));
  put_stats(g, make_stats({1e-3f, 1e-3f, 0.f}, {1, 1, 0}));
  DefaultStrategy strat(DefaultStrategyOptions{}, 7);
  StepInfo info;
  info.scene_extent = 10;
  info.first_image = 600;  // a refinement before the first reset: no size pruning, no opacity reset
  REQUIRE(strat.after_step(info, g));
  const GaussianState s = g.download();
  REQUIRE(s.size() == 5);
  // Row 3 = clone of 0 (same parameters, zero moments); row 0 itself untouched.
  for (int c = 0; c < 3; ++c) CHECK(s.row(Group::Means, 3)[c] == s.row(Group::Means, 0)[c]);
  CHECK(s.col(Group::Means).exp_avg[0] == 0.5f);
  CHECK(s.col(Group::Means).exp_avg[9] == 0.f);
  // Rows 1 and 4 = the split halves: scale / 1.6, opacity revised (the two let through what the
  // parent did), positions moved, moments zero.
  for (int64_t r : {int64_t(1), int64_t(4)}) {
    CHECK(std::exp(s.row(Group::LogScales, r)[0]) == Approx(0.5 / 1.6));
    CHECK(s.row(Group::Opacity, r)[0] == Approx(kernels::revised_opacity_logit(logit(0.3f))));
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
  const float h = std::sqrt(0.5f);
  const std::vector<float> mean{0, 0, 0}, quat{h, 0, 0, h}, log_scales{0.f, std::log(0.01f), std::log(0.01f)};
  const float shrink = std::log(1.6f);
  double sxx = 0, syy = 0, sy = 0;
  const int trials = 2000;
  // Halves of many parents (ids) under one key, and of one parent under many keys: both must be draws.
  for (int t = 0; t < trials; ++t)
    for (int k = 0; k < 2; ++k) {
      float m[3], ls[3];
      kernels::refine_split_half(mean.data(), quat.data(), log_scales.data(), t % 2 ? 77u : uint64_t(t), t % 2 ? t : 5, k,
                                 shrink, m, ls);
      sxx += double(m[0]) * m[0];
      syy += double(m[1]) * m[1];
      sy += m[1];
      CHECK(ls[0] == -shrink);
    }
  CHECK(std::sqrt(syy / (2 * trials)) == Approx(1.0).epsilon(0.05));
  CHECK(std::abs(sy / (2 * trials)) < 0.06);
  CHECK(std::sqrt(sxx / (2 * trials)) < 0.02);
}

TEST_CASE("default strategy: prune transparent, and oversized only when sizes are checked", "[strategy_default]") {
  // Row 0 transparent; row 1 too large in the world (limit 1.0 at extent 10); row 2 too large on
  // screen; row 3 fine; row 4 nearly transparent but kept, too large on screen, and cloned: its
  // clone has not been on screen yet, so no size check reaches it.
  const GaussianState s = make_state({0.05f, 2.f, 0.05f, 0.05f, 0.05f}, {0.004f, 0.5f, 0.5f, 0.5f, 0.006f});
  HostDensifyStats st = make_stats({0.f, 0.f, 0.f, 0.f, 1e-3f}, {1, 1, 1, 1, 1});
  st.max_radius = {0.f, 0.f, 0.2f, 0.1f, 0.2f};
  const RowPlan unchecked = plan_rows(s, st, false);
  CHECK(unchecked.params == std::vector<int32_t>{1, 2, 3, 4, 4});
  CHECK(unchecked.moments == std::vector<int32_t>{1, 2, 3, 4, -1});
  const RowPlan checked = plan_rows(s, st, true);
  CHECK(checked.params == std::vector<int32_t>{3, 4});
  CHECK(checked.moments == std::vector<int32_t>{3, -1});
  // prune_scale2d 0: sizes are checked in the world only, so rows 2 and 4 stay (and 4 is cloned).
  DefaultStrategyOptions world_only;
  world_only.prune_scale2d = 0;
  const RowPlan in_world = plan_rows(s, st, true, world_only);
  CHECK(in_world.params == std::vector<int32_t>{2, 3, 4, 4});
  CHECK(in_world.moments == std::vector<int32_t>{2, 3, 4, -1});
}

TEST_CASE("default strategy: the opacity and scale regularisers add MCMC's gradients, and none at weight 0",
          "[strategy_default]") {
  const GaussianState start = make_state({0.05f, 0.5f, 0.01f}, {0.9f, 0.1f, 0.4f});
  StepInfo info;
  info.model_rows = 3;
  // The loss terms' gradients, on top of a photometric gradient of 1 in every value.
  auto loss_terms = [&](Strategy& strategy) {
    DeviceGaussians g(kernels::Device::CPU, start);
    g.grad(Group::Opacity).upload(std::vector<float>(3, 1.f));
    g.grad(Group::LogScales).upload(std::vector<float>(9, 1.f));
    strategy.add_loss_gradients(info, g);
    std::vector<float> v = g.grad(Group::Opacity).download();
    const std::vector<float> s = g.grad(Group::LogScales).download();
    v.insert(v.end(), s.begin(), s.end());
    return v;
  };
  DefaultStrategy plain;
  CHECK(loss_terms(plain) == std::vector<float>(12, 1.f));
  DefaultStrategyOptions o;
  o.opacity_reg = 0.01f;
  o.scale_reg = 0.02f;
  DefaultStrategy regularised(o);
  McmcStrategyOptions m;
  m.opacity_reg = o.opacity_reg;
  m.scale_reg = o.scale_reg;
  McmcStrategy mcmc(m);
  const std::vector<float> got = loss_terms(regularised), want = loss_terms(mcmc);
  CHECK(got == want);
  for (const float v : got) CHECK(v > 1.f);  // both terms grow with opacity and scale
}

TEST_CASE("default strategy: opacity reset caps at 0.01 and clears the opacity moments", "[strategy_default]") {
  DefaultStrategyOptions o;
  o.refine_start = 5000;  // step 3000 resets without refining
  DefaultStrategy strat(o, 1);
  DeviceGaussians g(kernels::Device::CPU, make_state({0.1f, 0.1f}, {0.9f, 0.001f}));
  StepInfo info;
  info.scene_extent = 10;
  info.first_image = 3000;
  CHECK_FALSE(strat.after_step(info, g));
  const GaussianState s = g.download();
  REQUIRE(s.size() == 2);
  CHECK(sigmoid(s.row(Group::Opacity, 0)[0]) == Approx(0.01f));
  CHECK(sigmoid(s.row(Group::Opacity, 1)[0]) == Approx(0.001f));
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
    info.first_image = step;
    CHECK_FALSE(strat.after_step(info, g));
    CHECK(g.size() == 3);
  }
  fill_stats();
  info.first_image = 600;
  CHECK(strat.after_step(info, g));
  CHECK(g.size() == 3);  // row 0 cloned, row 2 pruned (opacity 0.002)
  for (Group grp : kAllGroups) CHECK(g.grad(grp).size() == size_t(3 * group_width(grp, 0)));
  CHECK(g.download_stats().visible_count == std::vector<int32_t>{0, 0, 0});

  info.first_image = 3000;
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
                          uint64_t seed, const DefaultStrategyOptions& o = {}) {
  DeviceGaussians g(device, start);
  put_stats(g, st);
  DefaultStrategy strat(o, seed);
  StepInfo info;
  info.scene_extent = 10;
  info.first_image = 6000;  // refinement, size pruning (after the first reset) and opacity reset together
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

TEST_CASE("default strategy: a refinement with size pruning and opacity reset gives the planned rows",
          "[strategy_default]") {
  const GaussianState start = refine_start_state();
  const HostDensifyStats st = refine_start_stats();
  REQUIRE(growth(start, st, DefaultStrategyOptions{}, 1, 10.0).clone == std::vector<int64_t>{0, 3});
  REQUIRE(growth(start, st, DefaultStrategyOptions{}, 1, 10.0).split == std::vector<int64_t>{1, 4});
  DefaultStrategyOptions unsorted;
  unsorted.curve_sort_every = 0;  // the rows where the refinement puts them (sorted below)
  const GaussianState got = refine_once(kernels::Device::CPU, start, st, 11, unsorted);
  // Old rows with each split parent replaced by its first half, the clones, the second halves;
  // 2 and 5 (transparent) and 6 (too large on screen) pruned.
  const int64_t source[] = {0, 1, 3, 4, 0, 3, 1, 4};
  const bool fresh[] = {false, true, false, true, true, true, true, true};  // zero moments
  const int parent_of_half[] = {-1, 1, -1, 4, -1, -1, 1, 4};  // the split parent of a half, if any
  const int half[] = {-1, 0, -1, 0, -1, -1, 1, 1};              // which half
  REQUIRE(got.size() == 8);
  // The halves are drawn with the strategy's first draw from its seeded RNG as the key.
  const uint64_t key = Rng(11)();
  const float shrink = std::log(DefaultStrategyOptions{}.split_scale_divisor);
  const float reset_cap = logit(DefaultStrategyOptions{}.reset_opacity);
  for (int64_t r = 0; r < got.size(); ++r) {
    INFO("row " << r << " from " << source[r]);
    for (Group g : kAllGroups) {
      const int w = got.width(g);
      std::vector<float> want(start.row(g, source[r]), start.row(g, source[r]) + w);
      if (parent_of_half[r] >= 0 && (g == Group::Means || g == Group::LogScales)) {
        const int64_t q = parent_of_half[r];
        float m[3], ls[3];
        kernels::refine_split_half(start.row(Group::Means, q), start.row(Group::Quats, q), start.row(Group::LogScales, q),
                                   key, q, half[r], shrink, m, ls);
        want.assign(g == Group::Means ? m : ls, (g == Group::Means ? m : ls) + 3);
      }
      if (g == Group::Opacity) want[0] = std::min(want[0], reset_cap);
      CHECK(std::vector<float>(got.row(g, r), got.row(g, r) + w) == want);
      // The reset clears every opacity moment; the others survive on old rows only.
      const bool zero = fresh[r] || g == Group::Opacity;
      for (int k = 0; k < w; ++k) {
        CHECK(got.col(g).exp_avg[r * w + k] == (zero ? 0.f : 0.5f));
        CHECK(got.col(g).exp_avg_sq[r * w + k] == (zero ? 0.f : 0.25f));
      }
    }
  }
}

TEST_CASE("default strategy: a refinement at a multiple of curve_sort_every leaves its rows along the curve",
          "[strategy_default]") {
  GaussianState start = refine_start_state();
  for (int64_t i = 0; i < start.size(); ++i) start.row(Group::Means, i)[0] = float((5 * i) % 7);  // off the curve
  DefaultStrategyOptions unsorted;
  unsorted.curve_sort_every = 0;
  const GaussianState planned = refine_once(kernels::Device::CPU, start, refine_start_stats(), 11, unsorted);
  REQUIRE_FALSE(test::along_curve(planned));
  DefaultStrategyOptions o;
  REQUIRE(6000 % o.curve_sort_every == 0);  // refine_once's image
  const GaussianState sorted = refine_once(kernels::Device::CPU, start, refine_start_stats(), 11, o);
  CHECK(test::along_curve(sorted));
  CHECK(test::rows_as_set(sorted) == test::rows_as_set(planned));
  o.curve_sort_every = 700;  // 6000 is no multiple: the rows stay where the refinement put them
  test::check_same_state(refine_once(kernels::Device::CPU, start, refine_start_stats(), 11, o), planned);
}

TEST_CASE("default strategy: CUDA refinement equals the CPU one", "[strategy_default][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA default-strategy refinement")) return;
  for (const bool revised : {false, true}) {
    INFO("revised opacity " << revised);
    // Resets every 5000 images: sizes are checked at the refinement (at 6000), and no reset caps what
    // the revision wrote.
    DefaultStrategyOptions o;
    o.revised_opacity = revised;
    o.reset_every = 5000;
    const GaussianState cpu = refine_once(kernels::Device::CPU, refine_start_state(), refine_start_stats(), 4, o);
    const GaussianState gpu = refine_once(kernels::Device::CUDA, refine_start_state(), refine_start_stats(), 4, o);
    REQUIRE(gpu.size() == cpu.size());
    for (Group g : kAllGroups) {
      if (g == Group::Opacity)  // the revision's exp and log differ in the last bits between the two libms
        for (int64_t r = 0; r < cpu.size(); ++r) CHECK(gpu.col(g).value[size_t(r)] == Approx(cpu.col(g).value[size_t(r)]).margin(1e-6));
      else
        CHECK(gpu.col(g).value == cpu.col(g).value);
      CHECK(gpu.col(g).exp_avg == cpu.col(g).exp_avg);
      CHECK(gpu.col(g).exp_avg_sq == cpu.col(g).exp_avg_sq);
    }
  }
}

TEST_CASE("default strategy: with revised opacity both copies of a grown Gaussian let through what it did",
          "[strategy_default]") {
  DefaultStrategyOptions revised;
  revised.revised_opacity = true;
  revised.reset_every = 5000;  // sizes checked at the refinement (at 6000), no opacity reset there
  revised.curve_sort_every = 0;  // the rows where the plan puts them
  DefaultStrategyOptions plain = revised;
  plain.revised_opacity = false;
  const GaussianState off = refine_once(kernels::Device::CPU, refine_start_state(), refine_start_stats(), 11, plain);
  const GaussianState on = refine_once(kernels::Device::CPU, refine_start_state(), refine_start_stats(), 11, revised);
  // The rows of refine_start_state's plan: 0 and 3 clone, 1 and 4 split (their own places, then the
  // clones, then the second halves); every row here comes from a grown one.
  const int64_t source[] = {0, 1, 3, 4, 0, 3, 1, 4};
  REQUIRE(on.size() == 8);
  REQUIRE(off.size() == 8);
  const GaussianState start = refine_start_state();
  for (int64_t r = 0; r < on.size(); ++r) {
    INFO("row " << r << " from " << source[r]);
    const double parent = sigmoid(double(start.row(Group::Opacity, source[r])[0]));
    CHECK(sigmoid(double(off.row(Group::Opacity, r)[0])) == Approx(parent).epsilon(1e-6));
    const double copy = sigmoid(double(on.row(Group::Opacity, r)[0]));
    CHECK(1.0 - (1.0 - copy) * (1.0 - copy) == Approx(parent).epsilon(1e-5));
    for (Group g : kAllGroups)
      if (g != Group::Opacity)
        CHECK(std::vector<float>(on.row(g, r), on.row(g, r) + on.width(g)) ==
              std::vector<float>(off.row(g, r), off.row(g, r) + off.width(g)));
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
  // Many rows, with values on both sides of every threshold and some exactly at the cuts.
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

  Grows want;
  for (int64_t i = 0; i < n; ++i) {
    if (!(st.grad2d_norm[i] / float(std::max(st.visible_count[i], 1)) > o.grad_threshold)) continue;
    (max_scale(s.row(Group::LogScales, i)) <= o.grow_scale3d * extent ? want.clone : want.split).push_back(i);
  }
  const Grows got = growth(s, st, o, 1, extent);
  CHECK(got.clone == want.clone);
  CHECK(got.split == want.split);
  CHECK(want.clone.size() > 100);
  CHECK(want.split.size() > 100);

  // Pruning alone: the same rows and radii without gradients, so that nothing grows.
  HostDensifyStats still = st;
  std::fill(still.grad2d_norm.begin(), still.grad2d_norm.end(), 0.f);
  for (bool check_size : {false, true}) {
    std::vector<int32_t> kept;
    for (int64_t i = 0; i < n; ++i) {
      bool drop = sigmoid(s.row(Group::Opacity, i)[0]) < o.prune_opacity;
      if (check_size)
        drop = drop || max_scale(s.row(Group::LogScales, i)) > o.prune_scale3d * extent ||
               st.max_radius[i] > o.prune_scale2d;
      if (!drop) kept.push_back(int32_t(i));
    }
    CHECK(kept.size() < size_t(n));
    CHECK(plan_rows(s, still, check_size, o, 1, extent).params == kept);
  }
}

TEST_CASE("default strategy: the new rows are the kept old rows, then the clones, then the second halves",
          "[strategy_default]") {
  // Row 0 clones, row 1 splits, row 2 is transparent; the radii would prune every row if sizes were checked.
  GaussianState s = make_state({0.05f, 0.5f, 0.05f}, {0.5f, 0.5f, 0.002f});
  HostDensifyStats st = make_stats({1e-3f, 1e-3f, 0.f}, {1, 1, 0});
  st.max_radius.assign(3, 0.5f);
  const RowPlan p = plan_rows(s, st, false);
  CHECK(p.params == std::vector<int32_t>{0, 1, 0, 1});  // row 2 pruned; the clone of 0, the second half of 1
  CHECK(p.moments == std::vector<int32_t>{0, -1, -1, -1});
  // With sizes checked the old places go (their radii), the new ones stay (not on screen yet).
  const RowPlan checked = plan_rows(s, st, true);
  CHECK(checked.params == std::vector<int32_t>{0, 1});
  CHECK(checked.moments == std::vector<int32_t>{-1, -1});
}

TEST_CASE("default strategy: the AbsGS sums are gathered only when it grows by them", "[strategy_default]") {
  DefaultStrategyOptions o;
  CHECK_FALSE(DefaultStrategy(o).wants_abs_stats());
  CHECK_FALSE(McmcStrategy(McmcStrategyOptions{}).wants_abs_stats());
  o.absgrad = true;
  CHECK(DefaultStrategy(o).wants_abs_stats());

  // A step's rows carry the sums' array only when asked (the backward then skips their cross-lane sums).
  RandomInitOptions init;
  init.count = 8;
  DeviceGaussians g(kernels::Device::CPU, GaussianState::from_model(init_random(init)));
  const StepRows with = step_rows(g, true, true), without = step_rows(g, true, false), none = step_rows(g, false, true);
  CHECK(with.stats.grad2d_abs_norm != nullptr);
  CHECK(without.stats.grad2d_abs_norm == nullptr);
  CHECK(without.stats.grad2d_norm == with.stats.grad2d_norm);
  CHECK(without.stats.visible_count != nullptr);
  CHECK(none.stats.grad2d_norm == nullptr);
  CHECK(none.stats.grad2d_abs_norm == nullptr);
}
