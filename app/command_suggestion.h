#pragma once
// `splatlab trian cup`: without a subcommand the first word is a scene to open in the window, so a
// mistyped command would open a window on a path that does not exist. main() asks here first.
#include <optional>
#include <string>
#include <vector>

namespace splat::app {

// The command in `commands` closest to `word` (at most two edits: a letter added, removed, changed
// or two neighbours swapped, each counted once), or "" when none is that close.
std::string closest_command(const std::string& word, const std::vector<std::string>& commands);

// The refusal for a first word that is neither one of `commands` nor an existing file or folder
// ("unknown command 'trian'; did you mean 'train'?"; a word with / or . is taken for a missing
// path instead), or nullopt when the word is fine.
std::optional<std::string> unknown_command_message(const std::string& word, const std::vector<std::string>& commands);

// The refusal for `splatlab --resume RUN`, an option of train given before any command (the
// top-level app would otherwise call it an unexpected argument, or take RUN for a scene to open),
// or nullopt when `args` (argv without the program) hold no such option.
std::optional<std::string> misplaced_option_message(const std::vector<std::string>& args);

}  // namespace splat::app
