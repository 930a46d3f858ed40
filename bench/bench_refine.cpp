// Host cost of one DefaultStrategy refinement (clone / split / prune) at training scale, and of one
// MCMC relocation at its cap.
// Usage: bench_refine [rows] [runs]   (defaults: 1200000 rows, 7 runs; prints medians in ms)
//
// The model lives on Device::CPU, so the refinement runs the CPU twin of its device plan
// (kernels/refine_plan.h) and of the gather: the figures are the CPU backend's cost, not a GPU's (on a
// GPU, `splatlab train --profile` marks a refinement's parts). The refinement is timed whole
// (after_step) and its plan alone (codes, places and source lists, without the gather).
//
// Model recipe: SH degree 3 storage, scene extent 10 (clone/split boundary at world scale 0.1, size
// pruning above 1.0), batch 1. Per row, independently: 2% get a high mean 2D gradient and a small
// scale (clone), 1% a high gradient and a large scale (split), the rest a low gradient; 1% get an
// opacity below prune_opacity and 0.1% a screen radius above prune_scale2d (pruned). The step is
// 5100: a refinement with size pruning and without the opacity reset.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <vector>

#include "core/train/strategy_default.h"
#include "core/train/strategy_mcmc.h"
#include "kernels/refine_plan.h"

using namespace splat;

namespace {

constexpr double kExtent = 10.0;
constexpr int kStep = 5100;

struct BenchModel {
  GaussianState state;
  HostDensifyStats stats;
};

float logit(float p) { return std::log(p / (1.f - p)); }

BenchModel make_model(int64_t n) {
  BenchModel m{GaussianState(3, n), {}};
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::normal_distribution<float> normal(0.f, 1.f);
  m.stats.grad2d_norm.resize(n);
  m.stats.grad2d_abs_norm.resize(n);
  m.stats.max_radius.resize(n);
  m.stats.visible_count.resize(n);
  for (auto g : kAllGroups)
    for (float& v : m.state.col(g).value) v = 0.1f * normal(rng);
  for (int64_t i = 0; i < n; ++i) {
    const float kind = u(rng);
    // Small: world scale 0.005..0.08 (clone side of 0.1); large: 0.15..0.8 (split side, below 1.0).
    const bool high = kind < 0.03f, large = kind >= 0.02f && kind < 0.03f;
    const float scale = (high && !large) || (!high && u(rng) < 0.7f) ? 0.005f + 0.075f * u(rng) : 0.15f + 0.65f * u(rng);
    for (int c = 0; c < 3; ++c) m.state.row(Group::LogScales, i)[c] = std::log(scale) - 0.3f * u(rng);
    float* q = m.state.row(Group::Quats, i);
    q[0] = 1.f + 0.2f * normal(rng);
    m.state.row(Group::Opacity, i)[0] = logit(u(rng) < 0.01f ? 0.004f * u(rng) + 1e-4f : 0.01f + 0.98f * u(rng));
    const int32_t count = 1 + int32_t(40 * u(rng));
    const float mean_grad = high ? 3e-4f + 7e-4f * u(rng) : 1.5e-4f * u(rng);
    m.stats.visible_count[i] = count;
    m.stats.grad2d_norm[i] = mean_grad * float(count);
    m.stats.grad2d_abs_norm[i] = 3.f * mean_grad * float(count);
    m.stats.max_radius[i] = u(rng) < 0.001f ? 0.2f : 0.1f * u(rng);
  }
  return m;
}

void put_stats(DeviceGaussians& g, const HostDensifyStats& st) {
  const kernels::DensifyStats d = g.stats();
  std::copy(st.grad2d_norm.begin(), st.grad2d_norm.end(), d.grad2d_norm);
  std::copy(st.grad2d_abs_norm.begin(), st.grad2d_abs_norm.end(), d.grad2d_abs_norm);
  std::copy(st.max_radius.begin(), st.max_radius.end(), d.max_radius);
  std::copy(st.visible_count.begin(), st.visible_count.end(), d.visible_count);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Median over `runs` of f(), which times itself (so set-up can stay outside the timed region).
double median_ms(int runs, const std::function<double()>& f) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) t.push_back(f());
  return median(t);
}

double time_ms(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return ms_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1200000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 7;
  const BenchModel m = make_model(n);
  const DefaultStrategyOptions o;
  StepInfo info;
  info.first_image = kStep;
  info.scene_extent = kExtent;

  DeviceGaussians g(kernels::Device::CPU, m.state);
  put_stats(g, m.stats);
  DefaultStrategy probe(o, 5);
  probe.after_step(info, g);  // also the row count after pruning, for the header line

  // The plan alone, on the host copies, as refine_rows makes it.
  const kernels::RefineRule rule = refine_rule(o, 1, kExtent, true);
  const kernels::RefineColumns in{m.state.col(Group::Opacity).value.data(), m.state.col(Group::LogScales).value.data(),
                                  m.stats.grad2d_norm.data(), m.stats.visible_count.data(), m.stats.max_radius.data(), n};
  std::vector<uint8_t> code(static_cast<size_t>(n));
  std::vector<int32_t> at(static_cast<size_t>(3 * n)), params, moments;
  kernels::RefineCounts counts;
  const double t_plan = median_ms(runs, [&] {
    return time_ms([&] {
      kernels::refine_codes_reference(in, rule, -1, code.data());
      counts = kernels::refine_places_reference(code.data(), n, at.data());
      params.resize(static_cast<size_t>(counts.rows()));
      moments.resize(params.size());
      kernels::refine_sources_reference(code.data(), at.data(), n, counts, params.data(), moments.data());
    });
  });
  int64_t clones = 0, splits = 0;
  for (const uint8_t c : code) {
    clones += (c & kernels::kRefineGrow) && !(c & kernels::kRefineSplit);
    splits += (c & kernels::kRefineSplit) != 0;
  }
  std::printf("bench_refine: %lld rows (SH degree 3), %lld clones, %lld splits, %lld rows after pruning, %d runs\n",
              (long long)n, (long long)clones, (long long)splits, (long long)g.size(), runs);

  // The whole refinement, each run on a fresh copy of the model; the probe above was the first.
  DefaultStrategy strat(o, 5);
  const double total = median_ms(runs, [&] {
    g.upload(m.state);
    put_stats(g, m.stats);
    return time_ms([&] { strat.after_step(info, g); });
  });
  std::printf("refinement (after_step)         %8.2f ms\n", total);
  std::printf("  its plan (codes, places, sources) %4.2f ms\n", t_plan);

  // MCMC at its cap (the same model, whose 1 % near-transparent rows are the dead ones): a refinement
  // relocates the dead rows onto live ones drawn by opacity; growth has no room. The CPU twin of the
  // device plan and its gather, like the refinement above.
  McmcStrategyOptions mo;
  mo.cap = n;
  int64_t relocated = 0;
  const double t_mcmc = median_ms(runs, [&] {
    g.upload(m.state);
    return time_ms([&] { relocated = relocate_dead(g, mo.min_opacity, 5); });
  });
  std::printf("mcmc at its cap (%lld rows relocated):\n", (long long)relocated);
  std::printf("  relocate_dead                 %8.2f ms\n", t_mcmc);
  return 0;
}
