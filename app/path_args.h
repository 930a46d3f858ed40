#pragma once
// Paths from the command line are looked at once, before any loader touches them, so that a path
// that cannot even be looked at (a symbolic link loop, no permission on a folder on the way) is
// refused in one line naming the option and the path, instead of a filesystem_error from deep
// inside a loader. A path that does not exist passes: each command's own message for that says
// more (what it expected to find there).
#include <filesystem>
#include <string>

namespace splat::app {

// Throws std::invalid_argument "<option> '<path>': <problem>".
void check_path_argument(const std::string& option, const std::filesystem::path& path);

// A path the command cannot do without: check_path_argument, then a UsageError (exit 2, like every
// command line that cannot run as given) "<what> '<path>': no such folder" when nothing is there.
void require_path_argument(const std::string& option, const std::string& what, const std::filesystem::path& path);

// One line for a filesystem_error that escaped anyway: "<path>: <problem>" (the library's own text
// puts the operation first and the path in brackets).
std::string describe_filesystem_error(const std::filesystem::filesystem_error& e);

}  // namespace splat::app
