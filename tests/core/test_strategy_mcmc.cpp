#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "core/train/strategy_default.h"
#include "core/train/strategy_mcmc.h"
#include "kernels/hd_math.h"
#include "kernels/mcmc_relocate.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {
GaussianState make_state(const std::vector<float>& opacities) {
  GaussianState s(0, int64_t(opacities.size()));
  for (int64_t i = 0; i < s.size(); ++i) {
    s.row(Group::Means, i)[0] = float(i);
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, i)[c] = std::log(0.1f);
    s.row(Group::Quats, i)[0] = 1.f;
    s.row(Group::Opacity, i)[0] = logit(opacities[i]);
    for (Group g : kAllGroups) std::fill(s.col(g).exp_avg.begin(), s.col(g).exp_avg.end(), 0.5f);
  }
  return s;
}

double opacity(const GaussianState& s, int64_t row) { return sigmoid(double(s.row(Group::Opacity, row)[0])); }
}  // namespace

TEST_CASE("mcmc: k copies of a relocated Gaussian composite to its opacity", "[strategy_mcmc]") {
  for (float o : {0.05f, 0.5f, 0.9f})
    for (int k : {1, 2, 5}) {
      const double o_new = kernels::relocated_opacity(o, k);
      CHECK(1 - std::pow(1 - o_new, k) == Approx(o).epsilon(1e-5));
    }
  CHECK(kernels::relocated_scale_factor(0.7f, 1) == Approx(1.f));
  // k = 2 written out: denom = o' + (o' - o'^2 / sqrt 2) with o' = 1 - sqrt(1 - o).
  const double o = 0.6, on = 1 - std::sqrt(1 - o);
  CHECK(kernels::relocated_scale_factor(float(o), 2) == Approx(o / (2 * on - on * on / std::sqrt(2.0))).epsilon(1e-5));
  CHECK(kernels::relocated_scale_factor(0.6f, 3) < kernels::relocated_scale_factor(0.6f, 2));
}

TEST_CASE("mcmc: draws pick live rows only, in proportion to their opacity", "[strategy_mcmc]") {
  const float min_opacity = McmcStrategyOptions{}.min_opacity;
  const std::vector<float> logits{logit(0.2f), logit(0.6f), logit(0.001f)};  // the last is dead
  std::vector<uint64_t> cum(3);
  std::vector<int32_t> dead(3), sources(8000), copies(3);
  const kernels::McmcLiving living = kernels::mcmc_weigh_reference(logits.data(), 3, min_opacity, cum.data(), dead.data());
  CHECK(living.dead == 1);
  CHECK(dead[0] == 2);
  kernels::mcmc_draw_sources_reference(cum.data(), 3, living.total, 5, 8000, sources.data(), copies.data());
  CHECK(copies[2] == 0);
  CHECK(copies[0] + copies[1] == 8000);
  CHECK(double(copies[1]) / copies[0] == Approx(3.0).epsilon(0.1));
  // Another key draws other rows.
  std::vector<int32_t> again(8000), again_copies(3);
  kernels::mcmc_draw_sources_reference(cum.data(), 3, living.total, 6, 8000, again.data(), again_copies.data());
  CHECK(again != sources);
  const std::vector<float> all_dead{logit(0.001f), logit(0.002f)};
  CHECK(kernels::mcmc_weigh_reference(all_dead.data(), 2, min_opacity, cum.data(), dead.data()).total == 0);
}

TEST_CASE("mcmc: relocation keeps the count and moves every dead Gaussian onto a live one", "[strategy_mcmc]") {
  const GaussianState before = make_state({0.8f, 0.001f, 0.5f, 0.004f, 0.3f});
  DeviceGaussians g(kernels::Device::CPU, before);
  McmcStrategyOptions o;
  CHECK(relocate_dead(g, o.min_opacity, 11) == 2);
  const GaussianState s = g.download();
  REQUIRE(s.size() == 5);
  std::set<int64_t> sources;
  for (int64_t dead : {int64_t(1), int64_t(3)}) {
    CHECK(opacity(s, dead) > o.min_opacity);
    const int64_t src = int64_t(s.row(Group::Means, dead)[0]);  // means encode the source row
    CHECK((src == 0 || src == 2 || src == 4));
    sources.insert(src);
    // Copy has the source's (corrected) parameters and no momentum.
    CHECK(s.row(Group::Opacity, dead)[0] == s.row(Group::Opacity, src)[0]);
    CHECK(s.row(Group::LogScales, dead)[0] == s.row(Group::LogScales, src)[0]);
    CHECK(s.col(Group::Means).exp_avg[dead * 3] == 0.f);
  }
  for (int64_t src : sources) {
    CHECK(opacity(s, src) < opacity(before, src));
    CHECK(s.row(Group::LogScales, src)[0] != before.row(Group::LogScales, src)[0]);
    CHECK(s.col(Group::Opacity).exp_avg[src] == 0.f);
  }
  for (int64_t i : {int64_t(0), int64_t(2), int64_t(4)})
    if (!sources.count(i)) CHECK(s.col(Group::Opacity).exp_avg[i] == 0.5f);

  DeviceGaussians all_live(kernels::Device::CPU, make_state({0.5f, 0.5f}));
  CHECK(relocate_dead(all_live, o.min_opacity, 11) == 0);
  DeviceGaussians all_dead(kernels::Device::CPU, make_state({0.001f, 0.002f}));
  CHECK(relocate_dead(all_dead, o.min_opacity, 11) == 0);
  CHECK(append_copies(all_dead, o.min_opacity, 11, 3) == 0);
  CHECK(all_dead.size() == 2);
}

TEST_CASE("mcmc: growth adds 5% per refinement up to the cap", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  DeviceGaussians g(kernels::Device::CPU, make_state(std::vector<float>(100, 0.5f)));
  o.cap = 1000;
  CHECK(mcmc_growth(o, 100) == 5);
  CHECK(append_copies(g, o.min_opacity, 2, mcmc_growth(o, g.size())) == 5);
  CHECK(g.size() == 105);
  o.cap = 107;
  CHECK(mcmc_growth(o, 105) == 2);
  CHECK(append_copies(g, o.min_opacity, 3, mcmc_growth(o, g.size())) == 2);
  CHECK(append_copies(g, o.min_opacity, 4, 0) == 0);
  CHECK(mcmc_growth(o, 107) == 0);
  CHECK(g.size() == 107);
  CHECK(g.download().size() == 107);  // every column and moment has the new rows
}

TEST_CASE("mcmc strategy: position noise moves transparent Gaussians along their shape, opaque ones not",
          "[strategy_mcmc]") {
  // Row 0 opaque, row 1 almost transparent; both long along x (scale 1 vs 0.01).
  GaussianState s(0, 2);
  for (int64_t i = 0; i < 2; ++i) {
    const float ls[3] = {0.f, std::log(0.01f), std::log(0.01f)};
    std::copy(ls, ls + 3, s.row(Group::LogScales, i));
    s.row(Group::Quats, i)[0] = 1.f;
  }
  s.row(Group::Opacity, 0)[0] = logit(0.9f);
  s.row(Group::Opacity, 1)[0] = logit(0.001f);
  DeviceGaussians g(kernels::Device::CPU, s);
  McmcStrategy strat({}, 3);  // noise_lr 5e5
  StepInfo info;
  info.first_image = 7;
  info.means_lr = 1e-5f;
  CHECK_FALSE(strat.after_step(info, g));
  const std::vector<float> means = g.param(Group::Means).download();
  CHECK(std::abs(means[0]) < 1e-6f);
  CHECK(std::abs(means[3]) > 1e-3f);                       // 5 * sigma^2 * eps along x
  CHECK(std::abs(means[4]) < 1e-3f * std::abs(means[3]));  // 1e-4 smaller across
}

TEST_CASE("mcmc strategy: regulariser gradients match finite differences of the regularised loss",
          "[strategy_mcmc]") {
  std::vector<double> op{-1.0, 0.5, 2.0}, ls{-2, -1, 0, 0.5, -0.5, -3, 1, 0, -1};
  auto loss = [&](const std::vector<double>& o, const std::vector<double>& l) {
    double a = 0, b = 0;
    for (double x : o) a += sigmoid(x);
    for (double x : l) b += std::exp(x);
    return 0.01 * a / o.size() + 0.02 * b / l.size();
  };
  GaussianState s(0, 3);
  for (int64_t i = 0; i < 3; ++i) {
    s.row(Group::Opacity, i)[0] = float(op[i]);
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, i)[c] = float(ls[3 * i + c]);
    s.row(Group::Quats, i)[0] = 1.f;
  }
  McmcStrategyOptions o;
  o.opacity_reg = 0.01f;
  o.scale_reg = 0.02f;
  McmcStrategy strat(o, 1);
  DeviceGaussians g(kernels::Device::CPU, s);
  g.grad(Group::Opacity).upload(std::vector<float>(3, 1.f));  // accumulates onto what is there
  StepInfo info;
  info.batch_size = kRegularizerImages;  // the weights' own batch: the loss above as it is
  strat.add_loss_gradients(info, g);
  const std::vector<float> go = g.grad(Group::Opacity).download(), gs = g.grad(Group::LogScales).download();
  const double h = 1e-6;
  for (size_t i = 0; i < op.size(); ++i) {
    auto p = op, m = op;
    p[i] += h, m[i] -= h;
    CHECK(go[i] - 1.0 == Approx((loss(p, ls) - loss(m, ls)) / (2 * h)).epsilon(1e-3));
  }
  for (size_t i = 0; i < ls.size(); ++i) {
    auto p = ls, m = ls;
    p[i] += h, m[i] -= h;
    CHECK(gs[i] == Approx((loss(op, p) - loss(op, m)) / (2 * h)).epsilon(1e-3));
  }
}

TEST_CASE("mcmc strategy: the regularisers' weights are per four images, scaled by the step's batch",
          "[strategy_mcmc]") {
  GaussianState s(0, 2);
  for (int64_t i = 0; i < 2; ++i) {
    s.row(Group::Opacity, i)[0] = 0.3f * float(i);
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, i)[c] = -1.f + 0.5f * float(c);
    s.row(Group::Quats, i)[0] = 1.f;
  }
  McmcStrategy strat;  // the reference trainer's weights
  // The regularisers' gradient (opacity, then log scales) at batch b.
  auto pull = [&](int b) {
    DeviceGaussians g(kernels::Device::CPU, s);
    StepInfo info;
    info.batch_size = b;
    strat.add_loss_gradients(info, g);
    std::vector<float> v = g.grad(Group::Opacity).download();
    const std::vector<float> l = g.grad(Group::LogScales).download();
    v.insert(v.end(), l.begin(), l.end());
    return v;
  };
  const std::vector<float> at4 = pull(4), at1 = pull(1), at2 = pull(2), at8 = pull(8);
  for (size_t k = 0; k < at4.size(); ++k) {
    INFO(k);
    REQUIRE(at4[k] > 0.f);
    CHECK(at1[k] == Approx(at4[k] / 4).epsilon(1e-6));
    CHECK(at2[k] == Approx(at4[k] / 2).epsilon(1e-6));
    CHECK(at8[k] == Approx(at4[k] * 2).epsilon(1e-6));
  }
  CHECK(regularizer_step_weight(0.01f, kRegularizerImages) == 0.01f);
  CHECK(regularizer_step_weight(0.01f, 0) == regularizer_step_weight(0.01f, 1));  // no batch: one image
}

TEST_CASE("mcmc strategy: resuming from state() repeats the uninterrupted run exactly", "[strategy_mcmc]") {
  std::vector<float> ops(30, 0.004f);  // mostly dead: every step moves them, refinement relocates
  for (int i = 0; i < 30; i += 3) ops[i] = 0.7f;
  McmcStrategyOptions o;
  o.cap = 40;
  McmcStrategy a(o, 21);
  DeviceGaussians ga(kernels::Device::CPU, make_state(ops));
  StepInfo info;
  info.means_lr = 1e-4f;
  for (info.first_image = 597; info.first_image < 599; ++info.first_image) a.after_step(info, ga);
  // Text round trip, as in a checkpoint file; b starts from another seed and must not keep it.
  McmcStrategy b(o, 99);
  b.load_state(nlohmann::json::parse(a.state().dump()));
  DeviceGaussians gb(kernels::Device::CPU, ga.download());
  const std::vector<float> means_before = ga.param(Group::Means).download();
  for (; info.first_image < 602; ++info.first_image) {  // crosses the refinement at 600
    CHECK(a.after_step(info, ga) == b.after_step(info, gb));
    CHECK(ga.param(Group::Means).download() == gb.param(Group::Means).download());
    CHECK(ga.param(Group::Opacity).download() == gb.param(Group::Opacity).download());
  }
  CHECK(ga.size() == 31);
  CHECK(ga.param(Group::Means).download() != means_before);

  nlohmann::json broken = a.state();
  broken.erase("noise_seed");
  CHECK_THROWS_WITH(b.load_state(broken), Catch::Contains("noise_seed"));
}

TEST_CASE("mcmc strategy: refinement relocates and grows on the device copy", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  o.cap = 21;
  McmcStrategy strat(o, 4);
  std::vector<float> ops(20, 0.5f);
  ops[3] = 0.001f;
  DeviceGaussians g(kernels::Device::CPU, make_state(ops));
  StepInfo info;
  info.first_image = 300;  // before refine_start: only noise
  CHECK_FALSE(strat.after_step(info, g));
  CHECK(g.size() == 20);
  info.first_image = 600;
  CHECK(strat.after_step(info, g));
  CHECK(g.size() == 21);
  for (float l : g.param(Group::Opacity).download()) CHECK(sigmoid(double(l)) > o.min_opacity);
  for (Group grp : kAllGroups) CHECK(g.exp_avg(grp).size() == size_t(21 * group_width(grp, 0)));
}

namespace {
// 12 rows, 4 dead; every row's means and moments differ so that a misplaced row shows.
GaussianState relocation_start() {
  GaussianState s = make_state({0.5f, 0.001f, 0.9f, 0.2f, 0.002f, 0.6f, 0.3f, 0.001f, 0.7f, 0.4f, 0.004f, 0.8f});
  for (int64_t i = 0; i < s.size(); ++i) {
    s.row(Group::Means, i)[1] = 0.25f * float(i);
    for (Group g : kAllGroups) {
      const int w = s.width(g);
      for (int k = 0; k < w; ++k) s.col(g).exp_avg_sq[i * w + k] = float(i + 1) * 0.01f + float(k);
    }
  }
  return s;
}

// relocation_start() with its means spread over a box, so that memory order and curve order differ.
GaussianState scattered_start() {
  GaussianState s = relocation_start();
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> at(-5.f, 5.f);
  for (int64_t i = 0; i < s.size(); ++i)
    for (int a = 0; a < 3; ++a) s.row(Group::Means, i)[a] = at(rng);
  return s;
}

// Relocation then growth planned on a DeviceGaussians of `device` and applied there; the growth round
// leaves the rows in `order`.
GaussianState relocate_and_grow_on(kernels::Device device, const McmcStrategyOptions& o, uint64_t seed,
                                   const GaussianState& start = relocation_start(), RowOrder order = RowOrder::Kept) {
  DeviceGaussians g(device, start);
  relocate_dead(g, o.min_opacity, seed);
  append_copies(g, o.min_opacity, seed + 1, mcmc_growth(o, g.size()), order);
  return g.download();
}
}  // namespace

TEST_CASE("mcmc: relocation and growth on the device copy move whole rows and reset only the edited moments",
          "[strategy_mcmc]") {
  McmcStrategyOptions o;
  o.grow_rate = 0.25f;
  const GaussianState start = relocation_start();
  const GaussianState got = relocate_and_grow_on(kernels::Device::CPU, o, 9);
  REQUIRE(got.size() == 15);  // 4 dead relocated, then 12 * 1.25
  // Means encode the row a row was copied from (x = row, y = row / 4).
  std::vector<int64_t> source(15);
  std::vector<uint8_t> edited(15, 0);  // copies and their corrected sources
  for (int64_t r = 0; r < 15; ++r) {
    source[r] = std::lround(got.row(Group::Means, r)[0]);
    REQUIRE(source[r] >= 0);
    REQUIRE(source[r] < 12);
    if (source[r] != r) edited[r] = edited[source[r]] = 1;
  }
  for (int64_t dead : {1, 4, 7, 10}) CHECK(source[dead] != dead);
  for (int64_t r = 0; r < 15; ++r) {
    INFO("row " << r << " from " << source[r]);
    CHECK(opacity(got, r) > o.min_opacity);
    for (Group g : {Group::Means, Group::Quats, Group::ShDc}) {
      const int w = got.width(g);
      CHECK(std::vector<float>(got.row(g, r), got.row(g, r) + w) ==
            std::vector<float>(start.row(g, source[r]), start.row(g, source[r]) + w));
    }
    // Opacity and scale change only where the correction applied (copies and their sources).
    if (!edited[r]) {
      CHECK(got.row(Group::Opacity, r)[0] == start.row(Group::Opacity, r)[0]);
      for (int c = 0; c < 3; ++c) CHECK(got.row(Group::LogScales, r)[c] == start.row(Group::LogScales, r)[c]);
    }
    for (Group g : kAllGroups) {
      const int w = got.width(g);
      for (int k = 0; k < w; ++k) {
        CHECK(got.col(g).exp_avg[r * w + k] == (edited[r] ? 0.f : start.col(g).exp_avg[r * w + k]));
        CHECK(got.col(g).exp_avg_sq[r * w + k] == (edited[r] ? 0.f : start.col(g).exp_avg_sq[r * w + k]));
      }
    }
  }
  // Sources give up opacity to their copies.
  for (int64_t r = 0; r < 12; ++r)
    if (edited[r] && source[r] == r) CHECK(opacity(got, r) < opacity(start, r));
}

TEST_CASE("mcmc: a round along the curve leaves the rows a kept round leaves, in Morton order", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  o.grow_rate = 0.25f;
  const GaussianState kept = relocate_and_grow_on(kernels::Device::CPU, o, 9, scattered_start(), RowOrder::Kept);
  const GaussianState curve = relocate_and_grow_on(kernels::Device::CPU, o, 9, scattered_start(), RowOrder::AlongCurve);
  REQUIRE(curve.size() == 15);
  CHECK(test::rows_as_set(curve) == test::rows_as_set(kept));
  CHECK(test::along_curve(curve));
  CHECK_FALSE(test::along_curve(kept));
}

TEST_CASE("mcmc strategy: a refinement leaves its rows along the curve", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  o.grow_rate = 0.25f;
  for (const int64_t cap : {int64_t(13), int64_t(12)}) {  // with growth, and at the cap (relocation alone)
    INFO("cap " << cap);
    o.cap = cap;
    McmcStrategy strat(o, 4);
    DeviceGaussians g(kernels::Device::CPU, scattered_start());
    StepInfo info;
    info.first_image = 600;
    REQUIRE(strat.after_step(info, g));
    const GaussianState got = g.download();
    CHECK(got.size() == cap);
    CHECK(test::along_curve(got));  // (StepInfo's means_lr of 0 draws no noise after the refinement)
  }
}

TEST_CASE("mcmc: relocation and growth on CUDA equal the CPU device copy", "[strategy_mcmc][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA mcmc relocation")) return;
  McmcStrategyOptions o;
  o.grow_rate = 0.25f;
  for (const RowOrder order : {RowOrder::Kept, RowOrder::AlongCurve}) {
    const GaussianState cpu = relocate_and_grow_on(kernels::Device::CPU, o, 5, scattered_start(), order);
    const GaussianState gpu = relocate_and_grow_on(kernels::Device::CUDA, o, 5, scattered_start(), order);
    REQUIRE(gpu.size() == cpu.size());
    for (Group g : kAllGroups) {
      INFO("group " << int(g) << (order == RowOrder::Kept ? ", rows kept" : ", rows along the curve"));
      // The corrections are double math rounded to float on both (pow, log): equal to the last bit or so.
      const bool corrected = g == Group::Opacity || g == Group::LogScales;
      REQUIRE(gpu.col(g).value.size() == cpu.col(g).value.size());
      for (size_t i = 0; i < cpu.col(g).value.size(); ++i)
        if (corrected) CHECK(gpu.col(g).value[i] == Approx(cpu.col(g).value[i]).epsilon(1e-6).margin(1e-7));
        else CHECK(gpu.col(g).value[i] == cpu.col(g).value[i]);
      CHECK(gpu.col(g).exp_avg == cpu.col(g).exp_avg);
      CHECK(gpu.col(g).exp_avg_sq == cpu.col(g).exp_avg_sq);
    }
  }
}

TEST_CASE("mcmc: a shard spends its share of the cap, so the shards stay even", "[strategy_mcmc]") {
  CHECK(McmcStrategy().budget_per_shard());
  CHECK_FALSE(DefaultStrategy().budget_per_shard());  // growth by each row's gradient, no budget
  DefaultStrategyOptions capped;
  capped.max_gaussians = 600000;
  CHECK(DefaultStrategy(capped).budget_per_shard());
}

TEST_CASE("mcmc: the regularisers store every row of their groups after a call that reached only some",
          "[mcmc][reached]") {
  GaussianState s(0, 3);
  for (int64_t i = 0; i < 3; ++i) {
    s.row(Group::Opacity, i)[0] = 0.5f * float(i) - 0.5f;
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, i)[c] = -2.f + 0.5f * float(c);
    s.row(Group::Quats, i)[0] = 1.f;
  }
  McmcStrategyOptions o;
  o.opacity_reg = 0.01f;
  o.scale_reg = 0.02f;
  McmcStrategy strat(o, 1);
  DeviceGaussians zeroed(kernels::Device::CPU, s), g(kernels::Device::CPU, s);
  StepInfo info;
  info.batch_size = 1;
  strat.add_loss_gradients(info, zeroed);  // the regulariser onto zero gradients
  // A call that reached row 1 only: rows 0 and 2 hold stale values (NaN here).
  const kernels::GaussiansGrad only = g.grad(GradWrite::OnlyCall);
  const float nan = std::nanf("");
  only.reached[0] = 0, only.reached[1] = 1, only.reached[2] = 0;
  g.grad(Group::Opacity).upload(std::vector<float>{nan, 1.f, nan});
  g.grad(Group::LogScales).upload(std::vector<float>{nan, nan, nan, 2.f, 2.f, 2.f, nan, nan, nan});
  strat.add_loss_gradients(info, g);
  CHECK(g.reached_rows(Group::Opacity) == nullptr);
  CHECK(g.reached_rows(Group::LogScales) == nullptr);
  CHECK(g.reached_rows(Group::Means) == only.reached);
  const std::vector<float> op = g.grad(Group::Opacity).download(), ls = g.grad(Group::LogScales).download();
  const std::vector<float> zop = zeroed.grad(Group::Opacity).download(), zls = zeroed.grad(Group::LogScales).download();
  for (int64_t i = 0; i < 3; ++i) {
    INFO("row " << i);
    CHECK(op[size_t(i)] == (i == 1 ? 1.f : 0.f) + zop[size_t(i)]);
    for (int c = 0; c < 3; ++c) CHECK(ls[size_t(3 * i + c)] == (i == 1 ? 2.f : 0.f) + zls[size_t(3 * i + c)]);
  }
}
