#include "core/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "core/model/shard_layout.h"
#include "core/train/image_schedule.h"
#include "kernels/adam.h"
#include "kernels/color_affine.h"
#include "kernels/device.h"

namespace splat {

using kernels::Buffer;
using kernels::Device;

// ---- helpers ----

namespace {

// The bytes every training photo (and mask) would take on a rank's device.
int64_t training_photo_bytes(const Scene& scene) {
  int64_t bytes = 0;
  for (int v : scene.train_indices()) {
    const auto& k = scene.views[v].intrinsics;
    bytes += int64_t(k.width) * k.height * (scene.has_masks() ? 4 : 3);
  }
  return bytes;
}

bool decide_own_photos(const TrainerOptions& o, const Scene& scene, const Sharding& sharding) {
  std::optional<size_t> device_bytes;
  if (o.photos == PhotoPlacement::Auto && sharding.ranks() > 1 && sharding.context().device == Device::CUDA)
    if (const auto m = kernels::device_memory(sharding.context().ordinal)) device_bytes = m->total_bytes;
  return hold_own_photos(o.photos, sharding.ranks(), training_photo_bytes(scene), device_bytes);
}

}  // namespace

std::unique_ptr<Strategy> make_strategy(const TrainerOptions& o) {
  if (o.strategy == "default") return std::make_unique<DefaultStrategy>(o.default_strategy, o.seed ^ 0x5157);
  if (o.strategy == "mcmc") return std::make_unique<McmcStrategy>(o.mcmc, o.seed ^ 0x3C3C);
  throw std::invalid_argument("unknown strategy '" + o.strategy + "' (expected default or mcmc)");
}



kernels::RasterSettings render_settings(const TrainerOptions& o, int sh_degree) {
  kernels::RasterSettings s;
  s.sh_degree = sh_degree;
  s.packed = o.packed;
  s.antialiased = o.antialiased;
  std::copy(o.background.begin(), o.background.end(), s.background);
  return s;
}

// ---- Trainer ----

Trainer::Trainer(const Scene& scene, const GaussianModel& init, const TrainerOptions& options,
                 std::unique_ptr<Sharding> sharding)
    : scene_(scene),
      opt_(options),
      sharding_(sharding ? std::move(sharding) : one_rank(kernels::ComputeContext(options.device))),
      where_(sharding_->context()),
      strategy_(make_strategy(options)),
      step_path_(sharding_->make_step(options.ssim_weight, options.cpu_threads)),
      draw_(scene.train_indices(), sharding_->ranks(), decide_own_photos(options, scene, *sharding_), options.seed,
            options.batch_size),
      render_costs_(int(scene.views.size())) {
  if (scene.images.size() != scene.views.size())
    throw std::invalid_argument("trainer: the scene's images are not loaded (" + scene.root + ")");
  if (where_.device != opt_.device)
    throw std::invalid_argument("trainer: the rank computes on another device than the trainer's options name");
  set_total_images(opt_.images);
  set_batch_size(opt_.batch_size);
  set_sh_degree_cap(opt_.sh_degree_cap);
  g_ = std::make_unique<DeviceGaussians>(where_, sharding_->initial_rows(init, wanted_columns()));
  for (int v : scene.train_indices()) {
    const auto& k = scene.views[v].intrinsics;
    largest_width_ = std::max(largest_width_, k.width);
    largest_height_ = std::max(largest_height_, k.height);
  }
  for (size_t v = 0; v < scene.views.size(); ++v) images_.emplace_back(where_);
  if (scene.has_masks())
    for (size_t v = 0; v < scene.views.size(); ++v) masks_.emplace_back(where_);
  hold_photos();
  if (opt_.exposure) {
    std::vector<float> identity(scene.views.size() * kernels::kColorAffineParams);
    for (size_t v = 0; v < scene.views.size(); ++v) kernels::color_affine_identity(&identity[v * kernels::kColorAffineParams]);
    color_maps_ = Buffer<float>(where_);
    color_maps_.upload(identity);
    for (Buffer<float>* b : {&color_grads_, &color_m_, &color_v_}) {
      *b = Buffer<float>(where_);
      b->resize(identity.size());
      b->zero();
    }
    color_train_views_ = Buffer<int32_t>(where_);
    color_train_views_.upload(scene.train_indices());
  }
}

void Trainer::color_maps_step(int batch) {
  kernels::AdamHyperParams h;
  h.lr = static_cast<float>(opt_.lr.color_maps);
  h.eps = static_cast<float>(opt_.lr.color_maps_eps);
  const int64_t t = (int64_t(images_done_) + batch + batch - 1) / batch;  // as optimizer_step counts
  kernels::adam_step(where_, color_maps_.data(), color_grads_.data(), color_m_.data(), color_v_.data(),
                     int64_t(color_maps_.size()), kernels::scale_for_batch(h, batch), t);
  kernels::color_affine_centre(where_, color_maps_.data(), color_train_views_.data(),
                               int(color_train_views_.size()));
}

// Only training targets live on the device for the whole run, and with own photos only this rank's
// share of them (uploaded where missing, freed where no longer held); evaluation uploads test views
// itself. Masks only exist on the device when some view has ignored pixels; then every held view gets
// one (all ones where nothing is ignored) so that a batch's masks gather like its targets.
void Trainer::hold_photos() {
  const std::vector<int>& held = draw_.held_by(sharding_->rank());
  std::vector<bool> holds(scene_.views.size(), false);
  for (int v : held) holds[size_t(v)] = true;
  for (int v : scene_.train_indices()) {
    if (!holds[size_t(v)]) {
      images_[v] = Buffer<uint8_t>(where_);
      if (!masks_.empty()) masks_[v] = Buffer<uint8_t>(where_);
      continue;
    }
    if (images_[v].size() == 0) images_[v].upload(scene_.images[v].pixels);
    if (!masks_.empty() && masks_[v].size() == 0) {
      const auto& k = scene_.views[v].intrinsics;
      const uint8_t* m = scene_.mask(v);
      masks_[v].upload(m ? std::vector<uint8_t>(m, m + size_t(k.width) * k.height)
                         : std::vector<uint8_t>(size_t(k.width) * k.height, 1));
    }
  }
}

Trainer::~Trainer() = default;

void Trainer::set_batch_size(int b) {
  if (b < 1) throw std::invalid_argument("batch size must be at least 1, got " + std::to_string(b));
  check_batch_covers_ranks(b, sharding_->ranks());
  opt_.batch_size = b;
  if (draw_.deal(b)) hold_photos();  // own photos: the shares follow the blocks' sizes
}

void Trainer::set_total_images(int images) {
  if (images < 0) throw std::invalid_argument("trainer: negative image budget " + std::to_string(images));
  opt_.images = images;
}

void Trainer::set_sh_degree_cap(int cap) {
  if (cap < 0 || cap > 3) throw std::invalid_argument("SH degree must be 0..3, got " + std::to_string(cap));
  opt_.sh_degree_cap = cap;
}

const ColumnTable& Trainer::wanted_columns() const {
  return opt_.amp ? kAmpColumns : kParamColumns;
}

// Whether a run uses mixed precision is a setting of the run (config.json, the command line, the
// GUI), not of its checkpoints: a checkpoint's columns are converted on loading (load_whole_state).
void Trainer::set_amp(bool on) {
  if (on == opt_.amp) return;
  opt_.amp = on;
  g_->set_columns(wanted_columns());
}

int Trainer::active_sh_degree() const {
  const int grown = opt_.sh_degree_interval > 0 ? images_done_ / opt_.sh_degree_interval : 3;
  return std::min({grown, opt_.sh_degree_cap, g_->sh_degree()});
}

double Trainer::means_lr(double images) const {
  const double t = opt_.images > 0 ? std::clamp(images / opt_.images, 0.0, 1.0) : 0.0;
  return opt_.lr.means * scene_.extent * std::pow(opt_.lr.means_final_ratio, t);
}

// The batch's cameras, photos and masks go to the step path, which leaves this rank's gradients (and
// statistics) in g_.
void Trainer::run_batch(const std::vector<int>& views) {
  std::vector<kernels::Camera> cams;
  std::vector<const uint8_t*> targets;
  std::vector<const uint8_t*> masks;
  for (int v : views) {
    cams.push_back(scene_.views[v].to_kernel_camera());
    targets.push_back(images_[v].data());
    if (!masks_.empty()) masks.push_back(masks_[v].data());
  }
  StepRows rows = step_rows(*g_, strategy_->wants_stats(images_done_), strategy_->wants_abs_stats());
  rows.view.first_id = first_id_;
  StepBatch::ColorMaps color;
  if (opt_.exposure) {
    color_grads_.zero();
    color = {color_maps_.data(), color_grads_.data()};
  }
  step_path_->run({.cameras = cams,
                   .settings = render_settings(opt_, active_sh_degree()),
                   .targets = targets,
                   .masks = masks,
                   .shard_sizes = shard_sizes_,
                   .largest_width = largest_width_,
                   .largest_height = largest_height_,
                   .color = color,
                   .views = views},
                  rows);
}

void Trainer::optimizer_step(int B) {
  const double lrs[kGroupCount] = {means_lr(images_done_), opt_.lr.log_scales, opt_.lr.quats,
                                   opt_.lr.opacity, opt_.lr.sh_dc,      opt_.lr.sh_rest};
  // Adam's bias corrections are 1 - beta_B^t with beta_B = beta^B (kernels::scale_for_batch). Each
  // step decays the moments by beta^B, so whatever mix of batch sizes came before, they have decayed
  // by beta^(images seen): t = images seen / B matches that, also after a batch change. Rounded up
  // to a whole t (exact while the count is a multiple of B); at one batch size, t = step + 1.
  const int64_t t = (int64_t(images_done_) + B + B - 1) / B;
  std::array<kernels::AdamGroup, kGroupCount> groups;
  size_t count = 0;
  for (Group grp : kAllGroups) {
    kernels::AdamGroup a = g_->adam_group(grp);
    if (a.n == 0) continue;
    kernels::AdamHyperParams h;
    h.lr = static_cast<float>(lrs[static_cast<int>(grp)]);
    a.h = kernels::scale_for_batch(h, B);
    // Stochastic rounding of bf16 storage: fresh bits for every images count and group (one draw
    // per element rounds its parameter and both moments, kernels/adam_math.h; the factor 3 is only a
    // spacing between the groups' seeds).
    a.seed = ((uint64_t(images_done_) * kGroupCount + uint64_t(grp)) * 3) ^ (opt_.seed << 40);
    a.first = first_id_ * group_width(grp, g_->sh_degree());  // a shard rounds as the whole model; 0 for one rank
    a.skip_zero_grads = sparse_adam(opt_.adam, B);
    groups[count++] = a;
  }
  // All groups in one launch: separately, six launches cost about as much as the update itself.
  kernels::adam_step_groups(where_, std::span<const kernels::AdamGroup>(groups.data(), count), t);
}

void Trainer::set_profiling(bool on) {
  timer_ = on ? std::make_unique<kernels::PhaseTimer>(where_) : nullptr;
  raster_stages_ = {};
  profiled_steps_ = 0;
  step_path_->rasterizer().set_stage_timing(on);
  step_path_->set_phase_timer(timer_.get());
}

// The rasterizer's stage clock holds its last forward and backward: with several image sizes in a
// batch, only the last run's stages are counted.
void Trainer::collect_raster_stages() {
  for (const kernels::StageTime& s : step_path_->rasterizer().stage_times())
    raster_stages_.add(s.stage, s.ms);
}

StepResult Trainer::step() {
  if (finished()) throw std::logic_error("trainer: step() after the last step");
  const auto t0 = std::chrono::steady_clock::now();
  if (timer_) timer_->start();
  // The last step takes what is left of the budget, so that a run trains exactly its images.
  const int B = std::min(opt_.batch_size, opt_.images - images_done_);
  if (B < sharding_->ranks())
    throw std::invalid_argument("the step at image " + std::to_string(images_done_) + " has " + std::to_string(B) +
                                " image(s) of the budget left for " + std::to_string(sharding_->ranks()) +
                                " ranks: choose a budget whose last step has no fewer images than ranks");
  refresh_shard_sizes(false);
  // Where every rank holds every photo, the batch goes to the ranks' blocks by its views' render costs;
  // within a block, photos of one size go together (one rasterizer call per size).
  std::vector<int> views = draw_.own() ? draw_.next(B) : render_costs_.balanced(draw_.next(B), sharding_->ranks());
  group_blocks_by_size(views, sharding_->ranks(), [this](int v) {
    const auto& k = scene_.views[size_t(v)].intrinsics;
    return int64_t(k.width) << 32 | int64_t(k.height);
  });
  run_batch(views);  // its first backward call overwrites the gradients
  // Each rank's maps saw its block of the batch: the sum makes every copy take the same step.
  if (opt_.exposure) sharding_->sum_on_device(color_grads_.data(), int64_t(color_grads_.size()));
  StepInfo info;
  info.first_image = images_done_;
  info.batch_size = B;
  info.total_images = opt_.images;
  info.scene_extent = scene_.extent;
  info.first_row = first_id_;
  info.model_rows = known_total();
  info.timer = timer_.get();
  kernels::AdamHyperParams means_h;
  means_h.lr = static_cast<float>(means_lr(images_done_));
  info.means_lr = kernels::scale_for_batch(means_h, B).lr;
  strategy_->add_loss_gradients(info, *g_);
  mark("strategy loss terms");
  optimizer_step(B);
  if (opt_.exposure) color_maps_step(B);
  mark("adam");
  StepResult r;
  r.step = step_;
  r.first_image = images_done_;
  r.batch_size = B;
  r.structure_changed = strategy_->after_step(info, *g_);
  // Steps that changed the rows are the refinements (host round trip of every column).
  mark(r.structure_changed ? "strategy: refinement steps" : "strategy: other steps");
  // Refinements happen at the same step on every rank (the schedule counts images), so this collective
  // does too, and so does the check every rebalance_every images, made only where a rebalance (which
  // zeroes them) loses no refinement statistics.
  const bool check = sharding_->ranks() > 1 && opt_.rebalance_every > 0 && !strategy_->wants_stats(images_done_) &&
                     passes_multiple(images_done_, images_done_ + B, opt_.rebalance_every);
  if (r.structure_changed || check) {
    // The render costs ride the same collective points: every rank adds its credits at once.
    if (learns_render_costs()) render_costs_.fold([this](std::span<int64_t> v) { sharding_->sum_each(v); });
    // No window: an even split (Strategy::budget_per_shard).
    const sharded::RankWindow window = strategy_->budget_per_shard() ? sharded::RankWindow{} : wait_window();
    r.rebalanced = sharding_->rebalance(*g_, opt_.rebalance_threshold, window);
    if (r.rebalanced) mark("rebalance");
    // A window stays open until it is long enough to be heard, or the rows it measured have moved (or it
    // was not asked for).
    if (r.rebalanced || window.steps == 0 || window.steps >= sharded::kMinWindowSteps) wait_window_ = {};
    refresh_shard_sizes(true);
  }
  if (timer_) {
    timer_->collect();
    collect_raster_stages();  // after the step's own marks: reading them waits for the stream
    ++profiled_steps_;
  }
  ++step_;
  images_done_ += B;
  r.gaussians = known_total();
  r.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  measure_rank_stats(r.host_ms);
  return r;
}

void Trainer::measure_rank_stats(double step_ms) {
  sharded::RankStats& s = rank_stats_;
  s.rank = sharding_->rank();
  s.device_ordinal = where_.device == kernels::Device::CUDA ? where_.ordinal : -1;
  s.gaussians = g_->size();
  s.step_ms = step_ms;
  const StepTimes t = step_path_->step_times();
  s.render_ms = t.render_ms;
  s.exchange_wait_ms = t.exchange_wait_ms;
  const bool costs = learns_render_costs();
  for (const StepTimes& m : step_path_->measured_steps()) {
    wait_window_.outside_ms += m.exchange_wait_ms + m.render_ms;
    ++wait_window_.measured;
    if (costs) render_costs_.observe(m.views, m.render_ms);
  }
  ++wait_window_.steps;
  s.bytes_sent = step_path_->exchange_sizes().bytes_sent;
  s.bytes_received = step_path_->exchange_sizes().bytes_received;
  // cudaMemGetInfo is a driver call: not every step.
  const auto now = std::chrono::steady_clock::now();
  if (s.device_ordinal >= 0 && now - memory_read_ > std::chrono::milliseconds(500)) {
    memory_read_ = now;
    if (const auto m = kernels::device_memory(s.device_ordinal)) s.device_memory_mb = double(m->used_bytes) / (1 << 20);
  }
}

// On the CPU backend the ranks share the machine's cores: their render times say little of their images,
// so the table stays empty (the batches as drawn) and is never folded. The same on every rank.
bool Trainer::learns_render_costs() const {
  return sharding_->ranks() > 1 && where_.device == kernels::Device::CUDA;
}

sharded::RankWindow Trainer::wait_window() const {
  // On the CPU backend the ranks share the machine's cores: what they wait on says little of their shards.
  if (where_.device != kernels::Device::CUDA || wait_window_.measured == 0) return {};
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wait_window_.since).count();
  return {wait_window_.outside_ms / wait_window_.measured, ms / wait_window_.steps, wait_window_.measured};
}

std::vector<sharded::RankStats> Trainer::gather_rank_stats() const {
  return sharding_->gather_stats(rank_stats_);
}

float Trainer::read_loss() const {
  if (step_ == 0) return 0.f;
  return step_path_->read_loss();
}

GaussianState Trainer::whole_state() const {
  return sharding_->gather_state(*g_);
}

std::shared_ptr<const ModelSnapshot> Trainer::whole_snapshot(uint64_t version) const {
  return sharding_->gather_snapshot(*g_, version, step_);
}

// A checkpoint's columns are converted to what this run stores (mixed precision or not).
void Trainer::load_whole_state(const GaussianState& whole) {
  const GaussianState mine = whole.with_columns(wanted_columns());
  g_->upload(sharding_->rows_of(mine));
  shard_sizes_.clear();  // the next step gathers the new shards' sizes
}

TrainingMemory Trainer::memory() const {
  const GaussianMemory g = g_->memory();
  TrainingMemory m{.parameters = g.parameters, .optimizer = g.optimizer, .gradients = g.gradients,
                   .statistics = g.statistics};
  m.gaussians = g_->size();
  for (const auto* list : {&images_, &masks_})
    for (const Buffer<uint8_t>& b : *list) m.photos += b.capacity();
  m.renders = step_path_->render_bytes();
  m.workspace = step_path_->rasterizer().workspace_bytes();
  return m;
}

// Shard sizes change only where the rows do: at refinement steps, which come at the same step on
// every rank (the schedules count images), in a rebalance, and in load_whole_state. Those gather
// them (`changed`: every rank calls this at the same step); other steps check that this rank's own
// size is still the one gathered, so a change that every rank does not see is refused rather than
// giving rows wrong global ids.
void Trainer::refresh_shard_sizes(bool changed) {
  const int rank = sharding_->rank();
  if (!changed && !shard_sizes_.empty()) {
    if (shard_sizes_[size_t(rank)] != g_->size())
      throw std::logic_error("trainer: " + std::to_string(g_->size()) + " Gaussians on rank " + std::to_string(rank) +
                             " but " + std::to_string(shard_sizes_[size_t(rank)]) +
                             " when the shard sizes were last gathered: the rows changed outside a refinement step");
    return;
  }
  shard_sizes_ = sharding_->row_counts(g_->size());
  first_id_ = sharded::first_global_id(shard_sizes_, rank);
}

int64_t Trainer::known_total() const {
  int64_t n = 0;
  for (int64_t s : shard_sizes_) n += s;
  return n;
}

int64_t Trainer::total_gaussians() const {
  return sharding_->sum(g_->size());
}

nlohmann::json Trainer::state() const {
  const sharded::RenderCosts::Table costs = render_costs_.table();
  return {{"step", step_},
          {"images", images_done_},
          {"total_images", opt_.images},
          {"batch_size", opt_.batch_size},
          {"packed", opt_.packed},
          {"sh_degree_cap", opt_.sh_degree_cap},
          {"strategy", strategy_->name()},
          {"strategy_state", strategy_->state()},
          {"sampler", draw_.state()},
          {"render_costs", {{"cost_ms", costs.cost_ms}, {"weight", costs.weight}}},
          {"color_maps", opt_.exposure ? nlohmann::json{{"params", color_maps_.download()},
                                                        {"exp_avg", color_m_.download()},
                                                        {"exp_avg_sq", color_v_.download()}}
                                       : nlohmann::json()}};
}

void Trainer::load_state(const nlohmann::json& s) {
  const std::string name = s.at("strategy").get<std::string>();
  if (name != strategy_->name())
    throw std::runtime_error("checkpoint was trained with strategy '" + name + "', this run uses '" +
                             strategy_->name() + "'");
  strategy_->load_state(s.at("strategy_state"));
  step_ = s.at("step").get<int>();
  set_batch_size(s.at("batch_size").get<int>());  // first: with own photos it deals the shares the draws use
  draw_.load_state(s.at("sampler"));
  // The schedules span the budget the run was started with.
  if (s.contains("images")) {
    images_done_ = s.at("images").get<int>();
    opt_.images = s.at("total_images").get<int>();
  } else {  // written before images were counted: one batch size throughout is all it can say
    images_done_ = step_ * opt_.batch_size;
    opt_.images = s.at("steps").get<int>() * opt_.batch_size;
  }
  opt_.packed = s.at("packed").get<bool>();
  // The views' learned render costs (files from before they were kept: learned again from unknown).
  if (s.contains("render_costs"))
    render_costs_.load({s.at("render_costs").at("cost_ms").get<std::vector<double>>(),
                        s.at("render_costs").at("weight").get<std::vector<double>>()});
  set_sh_degree_cap(s.at("sh_degree_cap").get<int>());
  // The colour maps where both the checkpoint and this run have them (a run that turns exposure
  // compensation on starts its maps at the identity).
  if (opt_.exposure && s.contains("color_maps") && s.at("color_maps").is_object()) {
    const nlohmann::json& c = s.at("color_maps");
    for (auto [key, buffer] : {std::pair{"params", &color_maps_}, {"exp_avg", &color_m_}, {"exp_avg_sq", &color_v_}}) {
      const std::vector<float> values = c.at(key).get<std::vector<float>>();
      if (values.size() != buffer->size())
        throw std::runtime_error("checkpoint's colour maps hold " + std::to_string(values.size()) + " values for " +
                                 std::to_string(buffer->size()) + " (another scene?)");
      buffer->upload(values);
    }
  }
}

}  // namespace splat
