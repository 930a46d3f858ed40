#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "core/strategy_mcmc.h"

using namespace splat;

namespace {
float logit(double p) { return float(std::log(p / (1 - p))); }
double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

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
}  // namespace

TEST_CASE("mcmc: k copies of a relocated Gaussian composite to its opacity", "[strategy_mcmc]") {
  for (float o : {0.05f, 0.5f, 0.9f})
    for (int k : {1, 2, 5}) {
      const double o_new = relocated_opacity(o, k);
      CHECK(1 - std::pow(1 - o_new, k) == Approx(o).epsilon(1e-5));
    }
  CHECK(relocated_scale_factor(0.7f, 1) == Approx(1.f));
  // k = 2 written out: denom = o' + (o' - o'^2 / sqrt 2) with o' = 1 - sqrt(1 - o).
  const double o = 0.6, on = 1 - std::sqrt(1 - o);
  CHECK(relocated_scale_factor(float(o), 2) == Approx(o / (2 * on - on * on / std::sqrt(2.0))).epsilon(1e-5));
  CHECK(relocated_scale_factor(0.6f, 3) < relocated_scale_factor(0.6f, 2));
}

TEST_CASE("mcmc: sampling by opacity only picks eligible rows, proportionally", "[strategy_mcmc]") {
  const GaussianState s = make_state({0.2f, 0.6f, 0.9f});
  Rng rng(5);
  const std::vector<int64_t> picks = sample_by_opacity(s, {1, 1, 0}, 8000, rng);
  int counts[3] = {0, 0, 0};
  for (int64_t p : picks) ++counts[p];
  CHECK(counts[2] == 0);
  CHECK(double(counts[1]) / counts[0] == Approx(3.0).epsilon(0.1));
  CHECK(sample_by_opacity(s, {0, 0, 0}, 5, rng).empty());
}

TEST_CASE("mcmc: relocation keeps the count and moves every dead Gaussian onto a live one", "[strategy_mcmc]") {
  GaussianState s = make_state({0.8f, 0.001f, 0.5f, 0.004f, 0.3f});
  const GaussianState before = s;
  McmcStrategyOptions o;
  Rng rng(11);
  CHECK(relocate_dead(s, o, rng) == 2);
  s.check_consistent();
  REQUIRE(s.size() == 5);
  std::set<int64_t> sources;
  for (int64_t dead : {int64_t(1), int64_t(3)}) {
    CHECK(sigmoid(s.row(Group::Opacity, dead)[0]) > o.min_opacity);
    const int64_t src = int64_t(s.row(Group::Means, dead)[0]);  // means encode the source row
    CHECK((src == 0 || src == 2 || src == 4));
    sources.insert(src);
    // Copy has the source's (corrected) parameters and no momentum.
    CHECK(s.row(Group::Opacity, dead)[0] == s.row(Group::Opacity, src)[0]);
    CHECK(s.row(Group::LogScales, dead)[0] == s.row(Group::LogScales, src)[0]);
    CHECK(s.col(Group::Means).exp_avg[dead * 3] == 0.f);
  }
  for (int64_t src : sources) {
    CHECK(sigmoid(s.row(Group::Opacity, src)[0]) < sigmoid(before.row(Group::Opacity, src)[0]));
    CHECK(s.row(Group::LogScales, src)[0] != before.row(Group::LogScales, src)[0]);
    CHECK(s.col(Group::Opacity).exp_avg[src] == 0.f);
  }
  for (int64_t i : {int64_t(0), int64_t(2), int64_t(4)})
    if (!sources.count(i)) CHECK(s.col(Group::Opacity).exp_avg[i] == 0.5f);

  GaussianState all_live = make_state({0.5f, 0.5f});
  CHECK(relocate_dead(all_live, o, rng) == 0);
}

TEST_CASE("mcmc: growth adds 5% per refinement up to the cap", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  Rng rng(2);
  GaussianState s = make_state(std::vector<float>(100, 0.5f));
  o.cap = 1000;
  CHECK(grow_towards_cap(s, o, rng) == 5);
  CHECK(s.size() == 105);
  s.check_consistent();
  o.cap = 107;
  CHECK(grow_towards_cap(s, o, rng) == 2);
  CHECK(grow_towards_cap(s, o, rng) == 0);
  CHECK(s.size() == 107);
}

TEST_CASE("mcmc: position noise moves transparent Gaussians along their shape, opaque ones not", "[strategy_mcmc]") {
  // Row 0 opaque, row 1 almost transparent; both long along x (scale 1 vs 0.01).
  std::vector<float> means(6, 0.f), quats{1, 0, 0, 0, 1, 0, 0, 0};
  std::vector<float> ls{0, std::log(0.01f), std::log(0.01f), 0, std::log(0.01f), std::log(0.01f)};
  std::vector<float> op{logit(0.9), logit(0.001)};
  Rng rng(3);
  add_position_noise(means, quats, ls, op, 1e-5f, 5e5f, rng);
  CHECK(std::abs(means[0]) < 1e-6f);
  CHECK(std::abs(means[3]) > 1e-3f);                  // 5 * sigma^2 * eps along x
  CHECK(std::abs(means[4]) < 1e-3f * std::abs(means[3]));  // 1e-4 smaller across
}

TEST_CASE("mcmc: regulariser gradients match finite differences of the regularised loss", "[strategy_mcmc]") {
  std::vector<double> op{-1.0, 0.5, 2.0}, ls{-2, -1, 0, 0.5, -0.5, -3, 1, 0, -1};
  auto loss = [&](const std::vector<double>& o, const std::vector<double>& l) {
    double a = 0, b = 0;
    for (double x : o) a += sigmoid(x);
    for (double x : l) b += std::exp(x);
    return 0.01 * a / o.size() + 0.02 * b / l.size();
  };
  std::vector<float> opf(op.begin(), op.end()), lsf(ls.begin(), ls.end());
  std::vector<float> go(3, 1.f), gs(9, 0.f);  // accumulates onto what is there
  add_regularizer_gradients(opf, lsf, go, gs, 0.01f, 0.02f);
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

TEST_CASE("mcmc strategy: refinement relocates and grows on the device copy", "[strategy_mcmc]") {
  McmcStrategyOptions o;
  o.cap = 21;
  McmcStrategy strat(o, 4);
  std::vector<float> ops(20, 0.5f);
  ops[3] = 0.001f;
  DeviceGaussians g(kernels::Device::CPU, make_state(ops));
  StepInfo info;
  info.step = 300;  // before refine_start: only noise
  CHECK_FALSE(strat.after_step(info, g));
  CHECK(g.size() == 20);
  info.step = 600;
  CHECK(strat.after_step(info, g));
  CHECK(g.size() == 21);
  for (float l : g.param(Group::Opacity).download()) CHECK(sigmoid(l) > o.min_opacity);
  for (Group grp : kAllGroups) CHECK(g.exp_avg(grp).size() == size_t(21 * group_width(grp, 0)));
}
