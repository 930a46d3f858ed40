// Host cost of one DefaultStrategy refinement (clone / split / prune) at training scale, and of one
// MCMC relocation at its cap.
// Usage: bench_refine [rows] [runs]   (defaults: 1200000 rows, 7 runs; prints medians in ms)
//
// The model lives on Device::CPU, so every "device" copy (the column downloads, the index uploads,
// gather_rows) is a host memcpy or the CPU reference kernel: the figures are host cost, not what a
// GPU refinement costs. The refinement is timed whole (after_step) and in its two halves:
// RefinementPlanner::plan (downloads, decisions, row lists: the host part, which a GPU run pays
// too, plus PCIe time for the copies) and apply_refinement (gather_rows + write_rows: on CUDA ~1 ms of
// bandwidth, here the slow element-wise CPU reference, so ignore its figure for GPU questions).
// The downloads and the decision functions are also timed alone.
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

  const GrowDecision d = decide_growth(m.state.col(Group::LogScales).value, m.stats, o, 1, kExtent);
  DeviceGaussians g(kernels::Device::CPU, m.state);
  put_stats(g, m.stats);
  DefaultStrategy probe(o, 5);
  probe.after_step(info, g);  // also the row count after pruning, for the header line
  std::printf("bench_refine: %lld rows (SH degree 3), %zu clones, %zu splits, %lld rows after pruning, %d runs\n",
              (long long)n, d.clone.size(), d.split.size(), (long long)g.size(), runs);

  // The whole refinement, its host plan and its device edit, each run on a fresh copy of the model.
  // The strategy and the planner live across runs, as in training, where they keep host memory
  // between refinements; the probe above was the first, warming-up refinement.
  DefaultStrategy strat(o, 5);
  RefinementPlanner planner;
  Rng rng(5);
  std::vector<double> t_total, t_plan, t_apply;
  for (int r = 0; r < runs; ++r) {
    g.upload(m.state);
    put_stats(g, m.stats);
    t_total.push_back(time_ms([&] { strat.after_step(info, g); }));
    g.upload(m.state);
    put_stats(g, m.stats);
    const RefinementPlan* plan = nullptr;
    t_plan.push_back(time_ms([&] { plan = &planner.plan(g, o, info, true, rng); }));
    t_apply.push_back(time_ms([&] { apply_refinement(g, *plan); }));
  }
  const double total = median(t_total), host_plan = median(t_plan), device_edit = median(t_apply);

  // Phases through the public functions (on the host copies).
  g.upload(m.state);
  put_stats(g, m.stats);
  // The downloads as the planner makes them: into kept vectors, only the statistics it reads.
  std::vector<float> opacity, log_scales;
  HostDensifyStats stats;
  StatsSelection needed;
  needed.grad2d_abs_norm = false;
  const double t_download = median_ms(runs, [&] {
    return time_ms([&] {
      download_into(g.param(Group::Opacity), opacity);
      download_into(g.param(Group::LogScales), log_scales);
      g.download_stats(stats, needed);
    });
  });
  const std::vector<float>& log_scales_col = m.state.col(Group::LogScales).value;
  const double t_grow =
      median_ms(runs, [&] { return time_ms([&] { (void)decide_growth(log_scales_col, m.stats, o, 1, kExtent); }); });
  std::vector<float> pm, pq, pl;
  for (int64_t r : d.split) {
    pm.insert(pm.end(), m.state.row(Group::Means, r), m.state.row(Group::Means, r) + 3);
    pq.insert(pq.end(), m.state.row(Group::Quats, r), m.state.row(Group::Quats, r) + 4);
    pl.insert(pl.end(), m.state.row(Group::LogScales, r), m.state.row(Group::LogScales, r) + 3);
  }
  const double t_split = median_ms(runs, [&] {
    Rng split_rng(5);
    return time_ms([&] { (void)split_children(pm, pq, pl, o.split_scale_divisor, split_rng); });
  });

  std::printf("refinement (after_step)         %8.2f ms\n", total);
  std::printf("  planner.plan (host part)      %8.2f ms\n", host_plan);
  std::printf("  apply_refinement (device edit)%8.2f ms  (gather_rows + write_rows; CPU reference here)\n", device_edit);
  std::printf("phases through the public functions:\n");
  std::printf("  downloads (opacity, scales, 3 stats) %3.2f ms\n", t_download);
  std::printf("  decide_growth                 %8.2f ms\n", t_grow);
  std::printf("  split_children                %8.2f ms\n", t_split);

  // MCMC at its cap (the same model, whose 1 % near-transparent rows are the dead ones): a refinement
  // relocates the dead rows onto live ones drawn by opacity; growth has no room. Host part only: the
  // RowEditPlan's downloads, the relocation's decisions (apply is the device edit, timed above).
  McmcStrategyOptions mo;
  mo.cap = n;
  int64_t relocated = 0;
  const double t_mcmc_plan = median_ms(runs, [&] {
    g.upload(m.state);
    Rng mcmc_rng(5);
    return time_ms([&] {
      RowEditPlan plan(g);
      relocated = relocate_dead(plan, mo, mcmc_rng);
      (void)grow_towards_cap(plan, mo, mcmc_rng);
    });
  });
  std::printf("mcmc at its cap (%lld rows relocated):\n", (long long)relocated);
  std::printf("  RowEditPlan + relocate_dead + grow_towards_cap %3.2f ms\n", t_mcmc_plan);
  return 0;
}
