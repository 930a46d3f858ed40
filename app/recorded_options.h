#pragma once
// `train --resume RUN` continues a run with the settings its config.json records. Each recorded
// option is stored under its name (--data-factor as "data_factor"); an option the command line
// leaves out takes the recorded value, passed through CLI11 as if it had been typed, so that its
// checks apply to a hand-edited config too. An option the command line gives overrides the record,
// and the caller prints a note saying so.
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace splat::app {

// "--data-factor" -> "data_factor".
std::string config_key(const std::string& option_name);

// Restores the options `names` of `sub` from `config` (read from `config_file`, named in errors) as
// above, and returns one note per option given with a value other than the recorded one:
// "--data-factor 2 overrides the run's recorded 8". Keys the config lacks (written before the
// option existed) leave the option as it is. Throws std::runtime_error naming the file and the
// field for a recorded value the option refuses.
std::vector<std::string> restore_recorded_options(CLI::App& sub, const std::vector<std::string>& names,
                                                  const nlohmann::json& config,
                                                  const std::filesystem::path& config_file);

}  // namespace splat::app
