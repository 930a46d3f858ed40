#pragma once
// Helpers shared by the tests: where the real scenes live, whether a GPU is present,
// and scratch folders.
#include <filesystem>
#include <optional>
#include <string>

namespace splat::test {

// ../shared/data beside the checkout (or $SPLATLAB_DATA); nullopt when absent, so tests skip.
std::optional<std::filesystem::path> shared_data_dir();

// A real scene by name ("cup", "bonsai"), or nullopt when the data folder is absent.
// Prints a skip line when it is absent.
std::optional<std::filesystem::path> shared_scene(const std::string& name);

// True when a CUDA device can be used; otherwise prints "SKIPPED (no CUDA device): <what>".
bool gpu_or_skip(const std::string& what);

// "timeout <seconds> mpirun --oversubscribe [--allow-run-as-root] ": how a test starts processes under
// OpenMPI (more of them than cores; as root in containers and CI), within a time limit, so that a job
// that hangs fails the test instead of stalling it (exit status 124). nullopt, after printing
// "SKIPPED (no mpirun on PATH ...): <what>", where mpirun is absent.
std::optional<std::string> mpirun_or_skip(int seconds, const std::string& what);

// A fresh empty folder under the build tree for one test.
std::filesystem::path scratch_dir(const std::string& name);

}  // namespace splat::test
