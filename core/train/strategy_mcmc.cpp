#include "core/train/strategy_mcmc.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "core/train/image_schedule.h"
#include "kernels/hd_math.h"
#include "kernels/mcmc.h"

namespace splat {
namespace {

// The rules weigh opacities in double.
double opacity_of(const RowEditPlan& s, int64_t row) { return sigmoid(double(s.row(Group::Opacity, row)[0])); }

// The correction's alternating binomial sums lose precision for many copies; beyond this count a
// source is treated as copied this many times (its copies then composite to slightly less).
constexpr int kMaxCopies = 51;

}  // namespace

float relocated_opacity(float opacity, int copies) {
  copies = std::clamp(copies, 1, kMaxCopies);
  return static_cast<float>(1.0 - std::pow(1.0 - double(opacity), 1.0 / copies));
}

float relocated_scale_factor(float opacity, int copies) {
  copies = std::clamp(copies, 1, kMaxCopies);
  const double o_new = relocated_opacity(opacity, copies);
  // denom = sum_{i=1..k} sum_{j=0..i-1} C(i-1, j) (-1)^j o_new^(j+1) / sqrt(j+1)
  double denom = 0;
  for (int i = 1; i <= copies; ++i) {
    double binom = 1;  // C(i-1, j), updated along j
    for (int j = 0; j < i; ++j) {
      denom += binom * ((j % 2) ? -1.0 : 1.0) * std::pow(o_new, j + 1) / std::sqrt(double(j + 1));
      binom = binom * double(i - 1 - j) / double(j + 1);
    }
  }
  return static_cast<float>(double(opacity) / denom);
}

std::vector<int64_t> sample_by_opacity(const RowEditPlan& s, const std::vector<uint8_t>& eligible, int64_t n, Rng& rng) {
  // Draws by inverting the cumulative weights: row i owns [cum[i-1], cum[i]), empty for a row that is
  // not eligible. The sums are kept per thread between refinements: at a million rows, fresh pages
  // for them (std::discrete_distribution's two tables) cost more than the sums themselves.
  thread_local std::vector<double> cum;
  cum.resize(static_cast<size_t>(s.size()));
  double total = 0;
  for (int64_t i = 0; i < s.size(); ++i) {
    if (eligible[i]) total += opacity_of(s, i);
    cum[size_t(i)] = total;
  }
  std::vector<int64_t> out;
  if (n <= 0 || total <= 0) return out;
  std::uniform_real_distribution<double> at(0.0, total);
  out.reserve(size_t(n));
  for (int64_t k = 0; k < n; ++k) {
    auto it = std::upper_bound(cum.begin(), cum.end(), at(rng));
    if (it == cum.end()) it = std::lower_bound(cum.begin(), cum.end(), total);  // a draw rounded up to the total
    out.push_back(it - cum.begin());
  }
  return out;
}

void copy_with_correction(RowEditPlan& s, const std::vector<int64_t>& sources, const std::vector<int64_t>& targets,
                          float min_opacity) {
  std::map<int64_t, int> copies;  // source -> 1 + times sampled
  for (int64_t src : sources) copies.emplace(src, 1).first->second += 1;
  for (auto& [src, k] : copies) {
    const float o = static_cast<float>(opacity_of(s, src));
    const float o_new = std::clamp(relocated_opacity(o, k), min_opacity, 1.f - 1e-6f);
    const float log_factor = std::log(relocated_scale_factor(o, k));
    s.row(Group::Opacity, src)[0] = static_cast<float>(logit(double(o_new)));
    for (int c = 0; c < 3; ++c) s.row(Group::LogScales, src)[c] += log_factor;
  }
  for (size_t j = 0; j < targets.size(); ++j) s.copy_row(sources[j], targets[j]);
  std::vector<int64_t> touched = targets;
  for (auto& [src, k] : copies) touched.push_back(src);
  s.reset_moments(touched);
}

int64_t relocate_dead(RowEditPlan& s, const McmcStrategyOptions& o, Rng& rng) {
  std::vector<uint8_t> alive(static_cast<size_t>(s.size()));
  std::vector<int64_t> dead;
  for (int64_t i = 0; i < s.size(); ++i) {
    alive[i] = opacity_of(s, i) > o.min_opacity;
    if (!alive[i]) dead.push_back(i);
  }
  if (dead.empty()) return 0;
  const std::vector<int64_t> sources = sample_by_opacity(s, alive, int64_t(dead.size()), rng);
  if (sources.empty()) return 0;
  copy_with_correction(s, sources, dead, o.min_opacity);
  return int64_t(dead.size());
}

int64_t grow_towards_cap(RowEditPlan& s, const McmcStrategyOptions& o, Rng& rng) {
  const int64_t n = s.size();
  const int64_t target = std::min<int64_t>(o.cap, static_cast<int64_t>(std::floor((1.0 + o.grow_rate) * n)));
  if (target <= n) return 0;
  std::vector<uint8_t> alive(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) alive[i] = opacity_of(s, i) > o.min_opacity;
  const std::vector<int64_t> sources = sample_by_opacity(s, alive, target - n, rng);
  if (sources.empty()) return 0;
  // New rows start as copies of their sources; then the correction applies to both.
  s.append_rows(sources);
  std::vector<int64_t> targets(sources.size());
  for (size_t j = 0; j < sources.size(); ++j) targets[j] = n + int64_t(j);
  copy_with_correction(s, sources, targets, o.min_opacity);
  return int64_t(sources.size());
}

McmcStrategy::McmcStrategy(const McmcStrategyOptions& o, uint64_t seed)
    : o_(o), rng_(seed), noise_seed_(seed) {}

// The regularisers are means over the whole model: a shard adds its rows' part of them.
void McmcStrategy::add_loss_gradients(const StepInfo& info, DeviceGaussians& g) {
  kernels::mcmc_add_regularizer_gradients(g.context(), g.param(Group::Opacity).data(), g.param(Group::LogScales).data(),
                                          g.grad(Group::Opacity).data(), g.grad(Group::LogScales).data(), g.size(),
                                          std::max(info.model_rows, g.size()), o_.opacity_reg, o_.scale_reg);
}

bool McmcStrategy::after_step(const StepInfo& info, DeviceGaussians& g) {
  bool changed = false;
  // One refinement when an image of this step is on the schedule (core/train/image_schedule.h).
  const int first = info.first_image, end = std::min(first + info.batch_size, o_.refine_stop);
  if (first_multiple_in(std::max(first, o_.refine_start + 1), end, o_.refine_every)) {
    // The cap bounds the whole model: with ranks each shard grows to its share of it, in proportion to
    // its size (rounded down), so the shards together never pass it.
    McmcStrategyOptions mine = o_;
    if (info.model_rows > g.size())
      mine.cap = int64_t(double(o_.cap) * double(g.size()) / double(info.model_rows));
    RowEditPlan plan(g);
    info.mark("refinement: inputs to the host");
    relocate_dead(plan, mine, rng_);
    info.mark("refinement: dead rows relocated");
    grow_towards_cap(plan, mine, rng_);
    info.mark("refinement: growth planned");
    plan.apply(g);
    info.mark("refinement: rows applied");
    changed = true;
  }
  // The noise is a random walk of the means, one draw per step with a spread proportional to the
  // means' learning rate. info.means_lr carries the sqrt(B) batch scaling (kernels/adam.h), as in
  // gsplat, and that keeps the walk's variance per image the same at every batch: B times the
  // variance per step, over B times fewer steps.
  kernels::McmcNoiseParams p;
  p.scale = double(o_.noise_lr) * double(info.means_lr);
  p.seed = noise_seed_;
  p.step = uint64_t(first);
  p.first = uint64_t(info.first_row);  // the rows draw as the same rows of the whole model do
  kernels::mcmc_add_position_noise(g.context(), g.param(Group::Means).data(), g.param(Group::Quats).data(),
                                   g.param(Group::LogScales).data(), g.param(Group::Opacity).data(), g.size(), p);
  return changed;
}

nlohmann::json McmcStrategy::state() const { return {{"rng", rng_to_string(rng_)}, {"noise_seed", noise_seed_}}; }

void McmcStrategy::load_state(const nlohmann::json& s) {
  const std::string what = "mcmc strategy state";
  rng_ = rng_from_string(s.at("rng").get<std::string>(), what);
  if (!s.contains("noise_seed") || !s.at("noise_seed").is_number_unsigned())
    throw std::runtime_error(what + ": missing or invalid noise_seed");
  noise_seed_ = s.at("noise_seed").get<uint64_t>();
}

}  // namespace splat
