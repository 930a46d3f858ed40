#pragma once
// The one exception type for bad scene input: its message always starts with the file at fault,
// so a user can go straight to it ("<file>: <problem>").
#include <filesystem>
#include <stdexcept>
#include <string>

namespace splat {

class SceneError : public std::runtime_error {
 public:
  SceneError(const std::filesystem::path& file, const std::string& problem)
      : std::runtime_error(file.string() + ": " + problem), file_(file), problem_(problem) {}

  const std::filesystem::path& file() const { return file_; }
  const std::string& problem() const { return problem_; }

 private:
  std::filesystem::path file_;
  std::string problem_;
};

}  // namespace splat
