#include "app/run_folder.h"

#include <fstream>
#include <stdexcept>

#include "core/demo_scene.h"
#include "core/scene_loader.h"
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
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(file.string() + ": bad run config: " + e.what());
  }
}

Scene load_run_scene(const nlohmann::json& config, bool load_images) {
  SceneLoadOptions o;
  o.data_factor = config.at("data_factor").get<int>();
  o.load_images = load_images;
  return load_scene(config.at("scene_folder").get<std::string>(), o);
}

}  // namespace splat::app
