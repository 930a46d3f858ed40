#pragma once
// `train --resume RUN` continues a run with the settings its config.json records (RunConfig). Each
// recorded option is the setting of its name (--data-factor is "data_factor"); an option the command
// line leaves out takes the recorded value, passed through CLI11 as if it had been typed, so that its
// checks apply to a hand-edited config too. An option the command line gives overrides the record,
// and the caller prints a note saying so.
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/run/run_config.h"

namespace splat::app {

// "--data-factor" -> "data_factor".
std::string config_key(const std::string& option_name);

// Restores the options `names` of `sub` from `config` (read from `config_file`, named in errors) as
// above, and returns one note per option given with a value other than the recorded one:
// "--data-factor 2 overrides the run's recorded 8". A setting an older config lacked has its
// default there (run_config_from_json). Throws std::runtime_error naming the file and the field for
// a recorded value the option refuses, and std::logic_error for a name that is no setting.
std::vector<std::string> restore_recorded_options(CLI::App& sub, const std::vector<std::string>& names,
                                                  const RunConfig& config, const std::filesystem::path& config_file);

}  // namespace splat::app
