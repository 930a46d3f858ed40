#include "core/train/strategy_mcmc.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/train/image_schedule.h"
#include "kernels/hd_math.h"
#include "kernels/handoff_memory.h"
#include "kernels/mcmc.h"
#include "kernels/mcmc_relocate.h"
#include "kernels/morton.h"
#include "kernels/row_ops.h"

namespace splat {
namespace {

// A gather's lists (row i of the result takes parameter row params[i] and moment row moments[i]) put
// along the Morton curve of the result's means over their box, ties in list order: into out_params and
// out_moments (`rows` entries each, on g's device).
void order_along_curve(const DeviceGaussians& g, int64_t rows, const int32_t* params, const int32_t* moments,
                       int32_t* out_params, int32_t* out_moments) {
  const kernels::ComputeContext& where = g.context();
  const kernels::HandoffBlock scratch(where, size_t(rows) * (3 * sizeof(float) + sizeof(int32_t)) + 16);
  float* means = static_cast<float*>(scratch.data());
  int32_t* order = reinterpret_cast<int32_t*>(means + 3 * rows);
  kernels::gather_rows(where, means, g.param(Group::Means).data(), 3, params, rows);
  kernels::morton_order(where, means, rows, kernels::bounding_box(where, means, rows), order);
  kernels::gather_rows(where, out_params, params, 1, order, rows);
  kernels::gather_rows(where, out_moments, moments, 1, order, rows);
  scratch.used_on(where);
}

// One round: append == 0 relocates the dead rows, append > 0 appends that many copies.
int64_t relocation_round(DeviceGaussians& g, float min_opacity, uint64_t key, int64_t append, RowOrder order) {
  static_assert(stored_fp32(Group::Opacity) && stored_fp32(Group::LogScales), "the corrections are written in fp32");
  const kernels::ComputeContext& where = g.context();
  const int64_t n = g.size();
  float* opacity = g.param(Group::Opacity).data();
  // The weights' sums, the dead rows and each row's draw count: 16 bytes a row.
  const kernels::HandoffBlock table(where, size_t(n) * (sizeof(uint64_t) + 2 * sizeof(int32_t)) + 16);
  auto* cum = static_cast<uint64_t*>(table.data());
  auto* dead = reinterpret_cast<int32_t*>(cum + n);
  int32_t* copies = dead + n;
  const kernels::McmcLiving living = kernels::mcmc_weigh(where, opacity, n, min_opacity, cum, dead);
  const int64_t m = append > 0 ? append : living.dead;
  if (m == 0 || living.total == 0) return 0;
  const int64_t rows = append > 0 ? n + m : n;
  if (rows > std::numeric_limits<int32_t>::max())
    throw std::runtime_error("mcmc strategy: " + std::to_string(rows) + " Gaussians exceed the row index range");
  const bool along = order == RowOrder::AlongCurve;
  const kernels::HandoffBlock lists(where, size_t(m + (along ? 4 : 2) * rows) * sizeof(int32_t) + 16);
  int32_t* sources = static_cast<int32_t*>(lists.data());
  int32_t* params = sources + m;
  int32_t* moments = params + rows;
  kernels::mcmc_draw_sources(where, cum, n, living.total, key, m, sources, copies);
  kernels::mcmc_correct_sources(where, copies, n, min_opacity, opacity, g.param(Group::LogScales).data());
  kernels::mcmc_copy_lists(where, n, append > 0 ? nullptr : dead, sources, m, copies, params, moments);
  if (along) {
    int32_t* curve_params = moments + rows;
    order_along_curve(g, rows, params, moments, curve_params, curve_params + rows);
    params = curve_params;
    moments = curve_params + rows;
  }
  g.gather_rows_on_device(params, moments, rows);
  table.used_on(where);
  lists.used_on(where);
  return m;
}

}  // namespace

int64_t relocate_dead(DeviceGaussians& g, float min_opacity, uint64_t key, RowOrder order) {
  return relocation_round(g, min_opacity, key, 0, order);
}

int64_t append_copies(DeviceGaussians& g, float min_opacity, uint64_t key, int64_t count, RowOrder order) {
  return count > 0 ? relocation_round(g, min_opacity, key, count, order) : 0;
}

int64_t mcmc_growth(const McmcStrategyOptions& o, int64_t n) {
  const int64_t target = std::min<int64_t>(o.cap, static_cast<int64_t>(std::floor((1.0 + o.grow_rate) * double(n))));
  return std::max<int64_t>(0, target - n);
}

McmcStrategy::McmcStrategy(const McmcStrategyOptions& o, uint64_t seed)
    : o_(o), rng_(seed), noise_seed_(seed) {}

float regularizer_step_weight(float weight, int batch_size) {
  return weight * float(std::max(batch_size, 1)) / float(kRegularizerImages);
}

// The regularisers are means over the whole model: a shard adds its rows' part of them.
void add_mean_regularizers(const StepInfo& info, DeviceGaussians& g, float opacity_reg, float scale_reg) {
  if (opacity_reg == 0.f && scale_reg == 0.f) return;
  // Both groups were written by the same backward call: one list of rows reached serves them.
  kernels::mcmc_add_regularizer_gradients(g.context(), g.param(Group::Opacity).data(), g.param(Group::LogScales).data(),
                                          g.grad(Group::Opacity).data(), g.grad(Group::LogScales).data(), g.size(),
                                          std::max(info.model_rows, g.size()),
                                          regularizer_step_weight(opacity_reg, info.batch_size),
                                          regularizer_step_weight(scale_reg, info.batch_size),
                                          g.reached_rows(Group::Opacity));
  g.set_grad_complete(Group::Opacity);
  g.set_grad_complete(Group::LogScales);
}

void McmcStrategy::add_loss_gradients(const StepInfo& info, DeviceGaussians& g) {
  add_mean_regularizers(info, g, o_.opacity_reg, o_.scale_reg);
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
    // Each round's draws keyed by a draw of rng_ and this shard's first global id, so that shards draw
    // apart.
    const uint64_t shard = kernels::mix64(uint64_t(info.first_row));
    // Relocation keeps the row count; the last round that gathers puts the rows along the curve (RowOrder).
    const int64_t growth = mcmc_growth(mine, g.size());
    relocate_dead(g, mine.min_opacity, rng_() ^ shard, growth > 0 ? RowOrder::Kept : RowOrder::AlongCurve);
    info.mark("refinement: dead rows relocated");
    append_copies(g, mine.min_opacity, rng_() ^ shard, growth, RowOrder::AlongCurve);
    info.mark("refinement: rows grown");
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
