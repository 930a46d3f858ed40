#include "app/command_suggestion.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/util/user_text.h"

namespace splat::app {
namespace {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
size_t edit_distance(const std::string& a, const std::string& b) {
  auto lower = [](char c) { return char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_command(const std::string& word, const std::vector<std::string>& commands) {
  std::string best;
  size_t best_d = 3;  // more than two edits is another word, not a typo
  for (const std::string& c : commands) {
    const size_t d = edit_distance(word, c);
    // A short word is all typo at two edits ("ab" is two edits from "eval"'s neighbours too).
    if (d < best_d && d < std::max<size_t>(word.size(), 2)) best = c, best_d = d;
  }
  return best;
}

std::optional<std::string> unknown_command_message(const std::string& word, const std::vector<std::string>& commands) {
  if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
  std::error_code ec;
  // Anything there (or that cannot even be looked at: the viewer's own check names that) is a path.
  if (std::filesystem::symlink_status(word, ec).type() != std::filesystem::file_type::not_found) return std::nullopt;
  const std::string quoted = quote_user_text(word);
  if (word.find_first_of("/.") != std::string::npos) return "scene " + quoted + ": no such file or folder";
  if (const std::string near = closest_command(word, commands); !near.empty())
    return "unknown command " + quoted + "; did you mean '" + near + "'?";
  std::string list;
  for (const std::string& c : commands) list += (list.empty() ? "" : ", ") + c;
  return "unknown command " + quoted + ", and no file or folder of that name exists; the commands are " + list +
         " (splatlab --help)";
}

std::optional<std::string> misplaced_option_message(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--" || a.empty() || a[0] != '-') return std::nullopt;  // a command or a scene: options after it are its own
    if (a != "--resume" && a.rfind("--resume=", 0) != 0) continue;
    const std::string run = a.size() > 9 ? a.substr(9) : i + 1 < args.size() ? args[i + 1] : "";
    const std::string shown = run.empty() ? "RUN" : quote_user_text(run);
    std::string message = "--resume is an option of train: splatlab train --resume " + shown + " continues the run";
#ifdef SPLATLAB_HAS_GUI
    message += " headless; splatlab " + shown + " opens it in the window to continue there";
#endif
    return message;
  }
  return std::nullopt;
}

}  // namespace splat::app
