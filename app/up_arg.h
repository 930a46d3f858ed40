#pragma once
// The --up option shared by `train` (recorded in config.json) and `render` (the orbit's axis): one of
// the up axis names of core/scene/up_axis.h.
#include <string>

#include <CLI/CLI.hpp>

#include "core/scene/up_axis.h"

namespace splat::app {

// Adds --up to `sub`, holding a name of kUpAxisNames in `up`; `auto_means` says what "auto" stands
// for in this command.
CLI::Option* add_up_option(CLI::App* sub, std::string& up, const std::string& auto_means);

// The axis a name add_up_option accepted stands for.
UpAxis up_axis_arg(const std::string& up);

}  // namespace splat::app
