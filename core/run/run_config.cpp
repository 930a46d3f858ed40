#include "core/run/run_config.h"

#include <cstdint>
#include <fstream>

#include "core/util/user_text.h"

namespace splat {

namespace fs = std::filesystem;

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

nlohmann::json read_run_config(const fs::path& run) {
  const fs::path file = run / run_files::kConfig;
  std::ifstream in(file);
  if (!in) throw RunFolderError(file, "not found (is " + run.string() + " a splatlab run folder?)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {  // its text would quote the file's bytes raw
    throw RunFolderError(file, "bad run config: not valid JSON (error at byte " + std::to_string(e.byte) + ")");
  }
  auto wrong = [&](const std::string& key, const std::string& expected) {
    const std::string was = config.contains(key) ? "is " + quote_user_text(config[key].dump()) : "is missing";
    return RunFolderError(file, "run config field '" + key + "' " + was + ", expected " + expected);
  };
  if (!config.is_object()) throw RunFolderError(file, "bad run config: not a JSON object");
  if (!config.contains("scene_folder") || !config["scene_folder"].is_string()) throw wrong("scene_folder", "the scene folder's path");
  const auto int_in = [&](const char* key, int lo, int hi) {
    const nlohmann::json& v = config[key];
    return v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  };
  if (!config.contains("data_factor") || !int_in("data_factor", 1, 64)) throw wrong("data_factor", "an integer in 1..64");
  if (config.contains("sh_degree") && !int_in("sh_degree", 0, 3)) throw wrong("sh_degree", "an integer in 0..3");
  if (config.contains("undistort")) {
    const nlohmann::json& u = config["undistort"];
    if (!u.is_string() || (u != "mask" && u != "crop")) throw wrong("undistort", "'mask' or 'crop'");
  }
  if (config.contains("fisheye_fov")) {
    const nlohmann::json& f = config["fisheye_fov"];
    if (!f.is_number() || f.get<double>() < 10 || f.get<double>() > 170) throw wrong("fisheye_fov", "degrees in 10..170");
  }
  if (config.contains("background")) {
    const nlohmann::json& bg = config["background"];
    bool ok = bg.is_array() && bg.size() == 3;
    for (size_t c = 0; ok && c < 3; ++c) ok = bg[c].is_number();
    if (!ok) throw wrong("background", "three numbers r g b");
  }
  return config;
}

void write_scene_settings(nlohmann::json& config, const SceneLoadOptions& options) {
  config["data_factor"] = options.data_factor;
  config["undistort"] = undistort_mode_name(options.undistort.mode);
  config["fisheye_fov"] = options.undistort.fisheye_fov_deg;
}

void write_trainer_settings(nlohmann::json& config, const TrainerOptions& o) {
  config["device"] = o.device == kernels::Device::CUDA ? "cuda" : "cpu";
  config["images"] = o.images;
  config["strategy"] = o.strategy;
  config["batch_size"] = o.batch_size;
  config["packed"] = o.packed;
  config["amp"] = o.amp;
  config["antialiased"] = o.antialiased;
  config["seed"] = o.seed;
  config["sh_degree"] = o.sh_degree_cap;
  config["background"] = o.background;
  config["cap_max"] = o.mcmc.cap;
  config["absgrad"] = o.default_strategy.absgrad;
}

SceneLoadOptions read_scene_settings(const nlohmann::json& config) {
  SceneLoadOptions o;
  o.data_factor = config.at("data_factor").get<int>();
  if (config.contains("undistort")) o.undistort.mode = parse_undistort_mode(config["undistort"].get<std::string>());
  o.undistort.fisheye_fov_deg = config.value("fisheye_fov", o.undistort.fisheye_fov_deg);
  return o;
}

Scene load_run_scene(const nlohmann::json& config, bool load_images, bool quiet) {
  SceneLoadOptions o = read_scene_settings(config);
  o.load_images = load_images;
  o.show_progress = !quiet;
  return load_scene(config.at("scene_folder").get<std::string>(), o);
}

}  // namespace splat
