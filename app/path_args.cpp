#include "app/path_args.h"

#include <stdexcept>
#include <system_error>

#include "app/usage_error.h"
#include "core/util/user_text.h"

namespace splat::app {
namespace {

// Paths are the user's own, but file names may still hold escape codes; a long path is kept
// longer than file data is (400 characters) so that its end stays readable.
constexpr size_t kShownPathChars = 400;

std::string problem_of(const std::error_code& ec) {
  if (ec == std::errc::too_many_symbolic_link_levels) return "a symbolic link loop (too many levels of symbolic links)";
  if (ec == std::errc::permission_denied) return "permission denied (on the path or a folder on the way to it)";
  if (ec == std::errc::filename_too_long) return "the path is too long";
  return ec.message();
}

}  // namespace

void check_path_argument(const std::string& option, const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!ec || st.type() == std::filesystem::file_type::not_found) return;
  throw std::invalid_argument(option + " " + quote_user_text(path.string(), kShownPathChars) + ": " + problem_of(ec));
}

void require_path_argument(const std::string& option, const std::string& what, const std::filesystem::path& path) {
  check_path_argument(option, path);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw UsageError(what + " " + quote_user_text(path.string(), kShownPathChars) + ": no such folder");
}

std::string describe_filesystem_error(const std::filesystem::filesystem_error& e) {
  std::string s;
  for (const std::filesystem::path* p : {&e.path1(), &e.path2()})
    if (!p->empty()) s += (s.empty() ? "" : " -> ") + quote_user_text(p->string(), kShownPathChars);
  return (s.empty() ? "" : s + ": ") + problem_of(e.code());
}

}  // namespace splat::app
