// RunConfig (core/run/run_config.h), the typed config.json: every setting round-trips through the
// JSON writer and reader, the list of keys is the one spelled out here, no member of RunConfig is
// left out of for_each_setting, the mapping to TrainerOptions and SceneLoadOptions loses nothing,
// older configs take defaults and damaged ones are refused naming the file and the field.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <type_traits>

#include "core/run/run_config.h"
#include "tests/support/test_support.h"

using namespace splat;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// Every key config.json holds. A setting added to for_each_setting fails the first test until it is
// added here too: adding a recorded setting is a decision (older configs lack it; `train --resume`
// may restore it), not a side effect.
const std::set<std::string> kKeys = {
    "scene",       "scene_folder", "started_by", "data_factor", "undistort", "fisheye_fov",      "mask_mode", "device",
    "images",      "strategy",     "batch_size", "packed",      "amp",       "antialiased",      "seed",
    "sh_degree",   "background",   "cap_max",    "ssim_weight", "grow_grad2d", "absgrad",     "absgrad_threshold", "prune_scale2d", "revised_opacity", "opacity_reg", "scale_reg", "max_gaussians", "eval_every",
    "log_every", "checkpoint_every", "up", "photos", "exposure", "adam"};

// The number of members of an aggregate: the most initializers T{...} takes (each AnyValue converts
// to whatever member it initializes).
struct AnyValue {
  template <class T>
  operator T() const;
};
template <class T, class... Given>
constexpr size_t member_count() {
  if constexpr (requires { T{Given{}..., AnyValue{}}; }) return member_count<T, Given..., AnyValue>();
  else return sizeof...(Given);
}

// Sets every setting to a value its rule accepts and its default is not, distinct per setting where
// the type allows (the n-th number is its default + n + 1), so that a setting read into another's
// member would show.
RunConfig every_setting_changed() {
  RunConfig c;
  int n = 0;
  for_each_setting(c, [&](const char* key, auto& m, const SettingRule& rule) {
    using T = std::remove_cvref_t<decltype(m)>;
    ++n;
    if constexpr (std::is_same_v<T, bool>) m = !m;
    else if constexpr (std::is_enum_v<T>) m = T(int(m) == 0 ? 1 : 0);  // every recorded enumeration has two values or more
    else if constexpr (std::is_same_v<T, std::string>) {
      if (rule.names.empty()) m = std::string("changed/") + key;
      else m = rule.names[rule.names[0] == m ? 1 : 0];
    } else if constexpr (std::is_same_v<T, std::array<float, 3>>) m = {0.25f, 0.5f, 0.75f};
    else {
      static_assert(std::is_arithmetic_v<T>, "a setting of a type this test cannot change: teach it");
      T v = T(m + n);
      if (double(v) > rule.hi) v = T(rule.hi - 1);
      REQUIRE(double(v) >= rule.lo);
      m = v;
    }
  });
  return c;
}

int setting_count() {
  RunConfig c;
  int n = 0;
  for_each_setting(c, [&](const char*, auto&, const SettingRule&) { ++n; });
  return n;
}

std::string refusal(const nlohmann::json& json) {
  try {
    run_config_from_json(json, "run/config.json");
  } catch (const RunFolderError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("every setting of a run config round-trips through config.json", "[run_config]") {
  const RunConfig c = every_setting_changed();
  const nlohmann::json json = to_json(c);
  const nlohmann::json defaults = to_json(RunConfig{});

  std::set<std::string> keys;
  for (const auto& [key, value] : json.items()) keys.insert(key);
  CHECK(keys == kKeys);
  // Each RunConfig member is a setting: one added without an entry in for_each_setting would be
  // neither written nor read.
  CHECK(member_count<RunConfig>() == size_t(setting_count()));

  const RunConfig back = run_config_from_json(json, "run/config.json");
  const nlohmann::json back_json = to_json(back);
  for (const std::string& key : kKeys) {
    INFO(key);
    CHECK(json.at(key) != defaults.at(key));  // the test changed it
    CHECK(back_json.at(key) == json.at(key));
  }
  CHECK(back == c);
  CHECK(to_json(run_config_from_json(to_json(c), "run/config.json")) == to_json(c));

  // Through the file too.
  const fs::path run = splat::test::scratch_dir("run_config_file");
  write_run_config(run, json);
  CHECK(read_run_config(run) == c);
}

TEST_CASE("a run config maps onto TrainerOptions and SceneLoadOptions and back without loss", "[run_config]") {
  const RunConfig c = every_setting_changed();
  // Only the scene, the cadences and the up axis are not trainer or scene-loading options.
  RunConfig r{.scene = c.scene,
              .scene_folder = c.scene_folder,
              .started_by = c.started_by,
              .eval_every = c.eval_every,
              .log_every = c.log_every,
              .checkpoint_every = c.checkpoint_every,
              .up = c.up};
  r.set_scene_load_options(c.scene_load_options());
  r.set_trainer_options(c.trainer_options(c.device));
  CHECK(r == c);

  const TrainerOptions o = c.trainer_options(kernels::Device::CPU);
  CHECK(o.device == kernels::Device::CPU);  // where it trains now, not where it trained
  CHECK(o.images == c.images);
  CHECK(o.strategy == c.strategy);
  CHECK(o.batch_size == c.batch_size);
  CHECK(o.packed == c.packed);
  CHECK(o.amp == c.amp);
  CHECK(o.antialiased == c.antialiased);
  CHECK(o.seed == c.seed);
  CHECK(o.sh_degree_cap == c.sh_degree);
  CHECK(o.background == c.background);
  CHECK(o.mcmc.cap == c.cap_max);
  CHECK(o.ssim_weight == c.ssim_weight);
  CHECK(o.default_strategy.grad_threshold == c.grow_grad2d);
  CHECK(o.default_strategy.absgrad == c.absgrad);
  CHECK(o.default_strategy.absgrad_threshold == c.absgrad_threshold);
  CHECK(o.default_strategy.prune_scale2d == c.prune_scale2d);
  CHECK(o.default_strategy.revised_opacity == c.revised_opacity);
  CHECK(o.default_strategy.opacity_reg == c.opacity_reg);
  CHECK(o.default_strategy.scale_reg == c.scale_reg);
  CHECK(o.default_strategy.max_gaussians == c.max_gaussians);
  CHECK(o.photos == c.photos);
  CHECK(o.exposure == c.exposure);
  CHECK(o.adam == c.adam);
  const SceneLoadOptions load = c.scene_load_options();
  CHECK(load.data_factor == c.data_factor);
  CHECK(load.undistort.mode == c.undistort);
  CHECK(load.undistort.fisheye_fov_deg == c.fisheye_fov);
  CHECK(load.mask_mode == c.mask_mode);
  CHECK(load.mask_fill == c.background);  // masked-out pixels of alpha masks show the training background
}

TEST_CASE("a config as train writes it reads into its settings, an older one takes defaults", "[run_config]") {
  const nlohmann::json cli = nlohmann::json::parse(R"({
    "scene": "data/garden", "scene_folder": "/data/garden", "data_factor": 4, "undistort": "crop",
    "fisheye_fov": 120.0, "device": "cuda", "images": 7000, "strategy": "mcmc", "batch_size": 4,
    "packed": true, "amp": true, "antialiased": true, "seed": 18446744073709551615, "sh_degree": 2,
    "background": [1.0, 0.5, 0.0], "cap_max": 3000000, "ssim_weight": 0.3, "grow_grad2d": 0.00015, "absgrad": true, "absgrad_threshold": 0.0004, "prune_scale2d": 0.0, "revised_opacity": true, "opacity_reg": 0.01, "scale_reg": 0.02, "max_gaussians": 500000, "eval_every": 1000,
    "log_every": 50, "checkpoint_every": 2000, "up": "-z", "a key from a newer splatlab": 1})");
  const RunConfig c = run_config_from_json(cli, "run/config.json");
  CHECK(c.scene == "data/garden");
  CHECK(c.scene_folder == "/data/garden");
  CHECK(c.started_by == "cli");
  CHECK(c.data_factor == 4);
  CHECK(c.undistort == UndistortMode::Crop);
  CHECK(c.fisheye_fov == 120.0);
  CHECK(c.device == kernels::Device::CUDA);
  CHECK(c.images == 7000);
  CHECK(c.strategy == "mcmc");
  CHECK(c.batch_size == 4);
  CHECK(c.packed);
  CHECK(c.amp);
  CHECK(c.antialiased);
  CHECK(c.seed == UINT64_MAX);
  CHECK(c.sh_degree == 2);
  const std::array<float, 3> background{1.0f, 0.5f, 0.0f};
  CHECK(c.background == background);
  CHECK(c.cap_max == 3000000);
  CHECK(c.ssim_weight == 0.3f);
  CHECK(c.grow_grad2d == 0.00015f);
  CHECK(c.absgrad);
  CHECK(c.absgrad_threshold == 0.0004f);
  CHECK(c.prune_scale2d == 0.0f);
  CHECK(c.revised_opacity);
  CHECK(c.opacity_reg == 0.01f);
  CHECK(c.scale_reg == 0.02f);
  CHECK(c.max_gaussians == 500000);
  CHECK(c.eval_every == 1000);
  CHECK(c.log_every == 50);
  CHECK(c.checkpoint_every == 2000);
  CHECK(c.up == UpAxis::MinusZ);

  // The oldest configs hold the scene folder and the data factor only.
  const RunConfig old = run_config_from_json({{"scene_folder", "/data/garden"}, {"data_factor", 2}}, "run/config.json");
  RunConfig defaults;
  defaults.scene_folder = "/data/garden";
  defaults.data_factor = 2;
  defaults.antialiased = false;  // they trained before the anti-aliased projection was the default
  defaults.revised_opacity = false;  // ... and before revised opacity, at 3DGS's growth threshold
  defaults.grow_grad2d = DefaultStrategyOptions::kGradThreshold3dgs;
  CHECK(old == defaults);
  // One that records its threshold (but not revised opacity) keeps the threshold it records.
  const RunConfig recorded = run_config_from_json(
      {{"scene_folder", "/data/garden"}, {"data_factor", 2}, {"grow_grad2d", 0.0003}}, "run/config.json");
  CHECK(recorded.grow_grad2d == 0.0003f);
  CHECK_FALSE(recorded.revised_opacity);
}

TEST_CASE("a damaged run config is refused naming the file and the field", "[run_config]") {
  const nlohmann::json good = {{"scene_folder", "/data/garden"}, {"data_factor", 1}};
  auto with = [&](const std::string& key, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[key] = value;
    return refusal(j);
  };
  auto without = [&](const std::string& key) {
    nlohmann::json j = good;
    j.erase(key);
    return refusal(j);
  };
  CHECK(refusal(good) == "(accepted)");
  CHECK_THAT(refusal(nlohmann::json::array()), Contains("run/config.json: bad run config: not a JSON object"));
  CHECK_THAT(without("scene_folder"),
             Contains("run/config.json: run config field 'scene_folder' is missing, expected the scene folder's path"));
  CHECK_THAT(with("scene_folder", 3), Contains("field 'scene_folder' is '3', expected the scene folder's path"));
  CHECK_THAT(without("data_factor"), Contains("field 'data_factor' is missing, expected an integer in 1..64"));
  CHECK_THAT(with("data_factor", 65), Contains("field 'data_factor' is '65', expected an integer in 1..64"));
  CHECK_THAT(with("data_factor", 2.5), Contains("field 'data_factor' is '2.5', expected an integer in 1..64"));
  CHECK_THAT(with("sh_degree", 4), Contains("field 'sh_degree' is '4', expected an integer in 0..3"));
  CHECK_THAT(with("undistort", "warp"), Contains("field 'undistort' is '\"warp\"', expected 'mask' or 'crop'"));
  CHECK_THAT(with("fisheye_fov", 5), Contains("field 'fisheye_fov' is '5', expected degrees in 10..170"));
  CHECK_THAT(with("background", nullptr), Contains("field 'background' is 'null', expected three numbers r g b"));
  CHECK_THAT(with("background", {1, 2}), Contains("field 'background' is '[1,2]', expected three numbers r g b"));
  CHECK_THAT(with("device", "tpu"), Contains("field 'device' is '\"tpu\"', expected 'cpu' or 'cuda'"));
  CHECK_THAT(with("strategy", "random"), Contains("field 'strategy' is '\"random\"', expected 'default' or 'mcmc'"));
  CHECK_THAT(with("packed", "yes"), Contains("field 'packed' is '\"yes\"', expected true or false"));
  CHECK_THAT(with("batch_size", "2"), Contains("field 'batch_size' is '\"2\"', expected an integer of at least 1"));
  CHECK_THAT(with("batch_size", 3000000000LL), Contains("field 'batch_size' is '3000000000', expected an integer"));
  CHECK_THAT(with("cap_max", 0), Contains("field 'cap_max' is '0', expected an integer of at least 1"));
  CHECK_THAT(with("max_gaussians", -5), Contains("field 'max_gaussians' is '-5', expected an integer of at least 0"));
  CHECK_THAT(with("seed", -1), Contains("field 'seed' is '-1', expected an integer of at least 0"));
  CHECK_THAT(with("log_every", 0), Contains("field 'log_every' is '0', expected an integer of at least 1"));
  CHECK_THAT(with("started_by", 1), Contains("field 'started_by' is '1', expected a string"));
  CHECK_THAT(with("up", "sideways"),
             Contains("field 'up' is '\"sideways\"', expected 'auto', 'flipped', '+x', '-x', '+y', '-y', '+z' or '-z'"));
}
