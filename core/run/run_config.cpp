#include "core/run/run_config.h"

#include <algorithm>
#include <fstream>
#include <type_traits>

#include "core/util/user_text.h"

namespace splat {

namespace fs = std::filesystem;

namespace {

// The one mapping between RunConfig's training settings and TrainerOptions: f(config member,
// options member) for each, used in both directions.
template <class Config, class Options, class F>
void for_each_trainer_setting(Config& c, Options& o, F&& f) {
  f(c.device, o.device);
  f(c.images, o.images);
  f(c.strategy, o.strategy);
  f(c.batch_size, o.batch_size);
  f(c.packed, o.packed);
  f(c.amp, o.amp);
  f(c.antialiased, o.antialiased);
  f(c.seed, o.seed);
  f(c.sh_degree, o.sh_degree_cap);
  f(c.background, o.background);
  f(c.cap_max, o.mcmc.cap);
  f(c.ssim_weight, o.ssim_weight);
  f(c.grow_grad2d, o.default_strategy.grad_threshold);
  f(c.absgrad, o.default_strategy.absgrad);
  f(c.absgrad_threshold, o.default_strategy.absgrad_threshold);
  f(c.prune_scale2d, o.default_strategy.prune_scale2d);
  f(c.revised_opacity, o.default_strategy.revised_opacity);
  f(c.opacity_reg, o.default_strategy.opacity_reg);
  f(c.scale_reg, o.default_strategy.scale_reg);
  f(c.max_gaussians, o.default_strategy.max_gaussians);
  f(c.photos, o.photos);
  f(c.exposure, o.exposure);
  f(c.adam, o.adam);
}

// Enumerations are recorded by name: the names of each, indexed by its values.
std::span<const char* const> names_of(kernels::Device) {
  static constexpr const char* names[] = {"cpu", "cuda"};
  static_assert(int(kernels::Device::CPU) == 0 && int(kernels::Device::CUDA) == 1);
  return names;
}
std::span<const char* const> names_of(UndistortMode) {
  static const char* const names[] = {undistort_mode_name(UndistortMode::Mask), undistort_mode_name(UndistortMode::Crop)};
  static_assert(int(UndistortMode::Mask) == 0 && int(UndistortMode::Crop) == 1);
  return names;
}

std::span<const char* const> names_of(MaskMode) {
  static const char* const names[] = {mask_mode_name(MaskMode::Ignore), mask_mode_name(MaskMode::Alpha)};
  static_assert(int(MaskMode::Ignore) == 0 && int(MaskMode::Alpha) == 1);
  return names;
}

std::span<const char* const> names_of(UpAxis) { return kUpAxisNames; }
std::span<const char* const> names_of(AdamMode) {
  static_assert(int(AdamMode::Auto) == 0 && int(AdamMode::Dense) == 1 && int(AdamMode::Sparse) == 2);
  return kAdamModeNames;
}
std::span<const char* const> names_of(PhotoPlacement) {
  static_assert(int(PhotoPlacement::Auto) == 0 && int(PhotoPlacement::Every) == 1 && int(PhotoPlacement::Own) == 2);
  return kPhotoPlacementNames;
}

template <class T>
nlohmann::json json_value(const T& v) {
  if constexpr (std::is_enum_v<T>) return names_of(v)[size_t(v)];
  else return v;
}

// The words a refusal uses for "one of these".
std::string one_of(std::span<const char* const> names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + "'" + names[i] + "'";
  return s;
}

std::string number_text(double v) {
  const nlohmann::json j = v == double(int64_t(v)) ? nlohmann::json(int64_t(v)) : nlohmann::json(v);
  return j.dump();
}

// Reads one setting of a config, refusing a value its member cannot hold or its rule does not accept.
class SettingReader {
 public:
  SettingReader(const nlohmann::json& json, const fs::path& file) : json_(json), file_(file) {}

  template <class T>
  void operator()(const char* key, T& member, const SettingRule& rule) const {
    if (!json_.contains(key)) {
      if (rule.required) throw wrong(key, expected<T>(rule));
      return;
    }
    const nlohmann::json& v = json_[key];
    if (!read(v, member, rule)) throw wrong(key, expected<T>(rule));
  }

 private:
  RunFolderError wrong(const char* key, const std::string& expected) const {
    const std::string was = json_.contains(key) ? "is " + quote_user_text(json_[key].dump()) : "is missing";
    return RunFolderError(file_, "run config field '" + std::string(key) + "' " + was + ", expected " + expected);
  }

  // What a refusal says the field should be.
  template <class T>
  static std::string expected(const SettingRule& rule) {
    if (rule.expected) return rule.expected;
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    else if constexpr (std::is_enum_v<T>) return one_of(names_of(T{}));
    else if constexpr (std::is_same_v<T, std::string>) return rule.names.empty() ? "a string" : one_of(rule.names);
    else if constexpr (std::is_same_v<T, std::array<float, 3>>) return "three numbers r g b";
    else {
      const std::string what = std::is_integral_v<T> ? "an integer" : "a number";
      const double lo = std::is_integral_v<T> ? std::max(rule.lo, double(std::numeric_limits<T>::lowest())) : rule.lo;
      const double inf = std::numeric_limits<double>::infinity();
      if (rule.hi < inf) return what + " in " + number_text(lo) + ".." + number_text(rule.hi);
      if (lo > -inf) return what + " of at least " + number_text(lo);
      return what;
    }
  }

  static bool read(const nlohmann::json& v, bool& member, const SettingRule&) {
    if (!v.is_boolean()) return false;
    member = v.get<bool>();
    return true;
  }
  static bool read(const nlohmann::json& v, std::string& member, const SettingRule& rule) {
    if (!v.is_string()) return false;
    const std::string s = v.get<std::string>();
    if (!rule.names.empty() && std::find(rule.names.begin(), rule.names.end(), s) == rule.names.end()) return false;
    member = s;
    return true;
  }
  template <class E>
    requires std::is_enum_v<E>
  static bool read(const nlohmann::json& v, E& member, const SettingRule&) {
    const std::span<const char* const> names = names_of(E{});
    for (size_t i = 0; i < names.size(); ++i)
      if (v == names[i]) return member = E(i), true;
    return false;
  }
  static bool read(const nlohmann::json& v, std::array<float, 3>& member, const SettingRule&) {
    if (!v.is_array() || v.size() != 3) return false;
    for (size_t c = 0; c < 3; ++c)
      if (!v[c].is_number()) return false;
    for (size_t c = 0; c < 3; ++c) member[c] = v[c].get<float>();
    return true;
  }
  template <class T>
    requires std::is_arithmetic_v<T>
  static bool read(const nlohmann::json& v, T& member, const SettingRule& rule) {
    if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer()) return false;
      // Held to the member's type first, so that get<T> below cannot wrap.
      using limits = std::numeric_limits<T>;
      if (v.is_number_unsigned()) {
        if (v.get<uint64_t>() > uint64_t(limits::max())) return false;
      } else if (v.get<int64_t>() < int64_t(limits::lowest()) ||
                 (std::is_signed_v<T> && v.get<int64_t>() > int64_t(limits::max()))) {
        return false;
      }
    } else if (!v.is_number()) {
      return false;
    }
    const T value = v.get<T>();
    if (double(value) < rule.lo || double(value) > rule.hi) return false;
    member = value;
    return true;
  }

  const nlohmann::json& json_;
  const fs::path& file_;
};

}  // namespace

TrainerOptions RunConfig::trainer_options(kernels::Device on) const {
  TrainerOptions o;
  for_each_trainer_setting(*this, o, [](const auto& from, auto& to) { to = from; });
  o.device = on;
  return o;
}

void RunConfig::set_trainer_options(const TrainerOptions& options) {
  for_each_trainer_setting(*this, options, [](auto& to, const auto& from) { to = from; });
}

SceneLoadOptions RunConfig::scene_load_options() const {
  SceneLoadOptions o;
  o.data_factor = data_factor;
  o.undistort = {undistort, fisheye_fov};
  o.mask_mode = mask_mode;
  o.mask_fill = background;
  return o;
}

void RunConfig::set_scene_load_options(const SceneLoadOptions& options) {
  data_factor = options.data_factor;
  undistort = options.undistort.mode;
  fisheye_fov = options.undistort.fisheye_fov_deg;
  mask_mode = options.mask_mode;
}

nlohmann::json to_json(const RunConfig& config) {
  nlohmann::json json = nlohmann::json::object();
  for_each_setting(config, [&](const char* key, const auto& member, const SettingRule&) { json[key] = json_value(member); });
  return json;
}

RunConfig run_config_from_json(const nlohmann::json& json, const fs::path& file) {
  if (!json.is_object()) throw RunFolderError(file, "bad run config: not a JSON object");
  RunConfig config;
  // A config without the key was written before the anti-aliased projection became the default: that
  // run trained without it, and eval, render and the viewer must draw it so.
  if (!json.contains("antialiased")) config.antialiased = false;
  // Likewise a config without revised_opacity trained without it, at 3DGS's growth threshold (a config
  // that records the threshold says so itself).
  if (!json.contains("revised_opacity")) {
    config.revised_opacity = false;
    config.grow_grad2d = DefaultStrategyOptions::kGradThreshold3dgs;
  }
  for_each_setting(config, SettingReader(json, file));
  return config;
}

void write_run_config(const fs::path& run, const nlohmann::json& config) {
  const fs::path file = run / run_files::kConfig;
  fs::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << config.dump(2) << '\n';
    out.flush();
    if (!out) throw RunFolderError(file, "cannot write the run config");
  }
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) throw RunFolderError(file, "cannot write the run config: " + ec.message());
}

RunConfig read_run_config(const fs::path& run) {
  const fs::path file = run / run_files::kConfig;
  std::ifstream in(file);
  if (!in) throw RunFolderError(file, "not found (is " + run.string() + " a splatlab run folder?)");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {  // its text would quote the file's bytes raw
    throw RunFolderError(file, "bad run config: not valid JSON (error at byte " + std::to_string(e.byte) + ")");
  }
  return run_config_from_json(json, file);
}

Scene load_run_scene(const RunConfig& config, bool load_images, bool quiet) {
  SceneLoadOptions o = config.scene_load_options();
  o.load_images = load_images;
  o.show_progress = !quiet;
  return load_scene(config.scene_folder, o);
}

}  // namespace splat
