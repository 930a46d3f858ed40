#include "tests/support/test_support.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "kernels/device.h"

namespace splat::test {

std::optional<std::filesystem::path> shared_data_dir() {
  if (const char* env = std::getenv("SPLATLAB_DATA"); env && *env) {
    if (std::filesystem::is_directory(env)) return std::filesystem::path(env);
    return std::nullopt;
  }
  const std::filesystem::path p = std::filesystem::path(SPLATLAB_SOURCE_DIR) / ".." / "shared" / "data";
  if (std::filesystem::is_directory(p)) return std::filesystem::weakly_canonical(p);
  return std::nullopt;
}

std::optional<std::filesystem::path> shared_scene(const std::string& name) {
  auto dir = shared_data_dir();
  if (!dir || !std::filesystem::is_directory(*dir / name)) {
    std::printf("SKIPPED (no ../shared/data/%s): test needs the real scene\n", name.c_str());
    return std::nullopt;
  }
  return *dir / name;
}

bool gpu_or_skip(const std::string& what) {
  if (splat::kernels::cuda_device_count() > 0) return true;
  std::printf("SKIPPED (no CUDA device): %s\n", what.c_str());
  return false;
}

std::optional<std::string> mpirun_or_skip(int seconds, const std::string& what) {
  if (std::system("command -v mpirun > /dev/null 2>&1") != 0) {
    std::printf("SKIPPED (no mpirun on PATH; scripts/deps.sh installs openmpi-bin): %s\n", what.c_str());
    return std::nullopt;
  }
  std::string cmd = "timeout " + std::to_string(seconds) + " mpirun --oversubscribe ";
  if (geteuid() == 0) cmd += "--allow-run-as-root ";
  return cmd;
}

std::filesystem::path scratch_dir(const std::string& name) {
  std::filesystem::path p = std::filesystem::path(SPLATLAB_BINARY_DIR) / "test-scratch" / name;
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

}  // namespace splat::test
