#include "app/run_folder.h"

#include <fstream>
#include <stdexcept>

#include "app/scene_args.h"
#include "core/util/user_text.h"
#include "core/scene/demo_scene.h"
#include "core/scene/scene_loader.h"
#include "kernels/device.h"

namespace splat::app {

kernels::Device parse_device(const std::string& name) {
  const bool have_cuda = kernels::cuda_device_count() > 0;
  if (name.empty()) return have_cuda ? kernels::Device::CUDA : kernels::Device::CPU;
  if (name == "cpu") return kernels::Device::CPU;
  if (name == "cuda") {
    if (!have_cuda) throw std::invalid_argument("--device cuda: no CUDA device is available here (use --device cpu)");
    return kernels::Device::CUDA;
  }
  throw std::invalid_argument("--device must be cpu or cuda, got '" + name + "'");
}

std::filesystem::path resolve_scene_folder(const std::string& scene_arg) {
  if (scene_arg == "demo") return demo::ensure_demo_scene(demo::default_demo_folder()).folder;
  return scene_arg;
}

void write_run_config(const std::filesystem::path& run, const nlohmann::json& config) {
  const auto file = run / run_files::kConfig;
  std::ofstream out(file);
  out << config.dump(2) << '\n';
  if (!out) throw std::runtime_error(file.string() + ": cannot write the run config");
}

nlohmann::json read_run_config(const std::filesystem::path& run) {
  const auto file = run / run_files::kConfig;
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": not found (is " + run.string() + " a splatlab run folder?)");
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {  // its text would quote the file's bytes raw
    throw std::runtime_error(file.string() + ": bad run config: not valid JSON (error at byte " + std::to_string(e.byte) + ")");
  }
  // The fields the commands read, checked here where the file is known, so that a damaged config
  // is named with its field instead of surfacing as a JSON library error.
  auto wrong = [&](const std::string& key, const std::string& expected) {
    const std::string was = config.contains(key) ? "is " + quote_user_text(config[key].dump()) : "is missing";
    return std::runtime_error(file.string() + ": run config field '" + key + "' " + was + ", expected " + expected);
  };
  if (!config.is_object()) throw std::runtime_error(file.string() + ": bad run config: not a JSON object");
  if (!config.contains("scene_folder") || !config["scene_folder"].is_string()) throw wrong("scene_folder", "the scene folder's path");
  const auto int_in = [&](const char* key, int lo, int hi) {
    const nlohmann::json& v = config[key];
    return v.is_number_integer() && v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
  };
  if (!config.contains("data_factor") || !int_in("data_factor", 1, 64)) throw wrong("data_factor", "an integer in 1..64");
  if (config.contains("sh_degree") && !int_in("sh_degree", 0, 3)) throw wrong("sh_degree", "an integer in 0..3");
  if (config.contains("background")) {
    const nlohmann::json& bg = config["background"];
    bool ok = bg.is_array() && bg.size() == 3;
    for (size_t c = 0; ok && c < 3; ++c) ok = bg[c].is_number();
    if (!ok) throw wrong("background", "three numbers r g b");
  }
  return config;
}

Scene load_run_scene(const nlohmann::json& config, bool load_images) {
  SceneLoadOptions o = scene_load_options(read_scene_args(config));
  o.load_images = load_images;
  return load_scene(config.at("scene_folder").get<std::string>(), o);
}

}  // namespace splat::app
