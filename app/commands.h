#pragma once
// Subcommand registry. Every cmd_*.cpp defines one add_*_command that creates its CLI11
// subcommand and returns the function that runs it after parsing.
#include <CLI/CLI.hpp>
#include <functional>

namespace splat::app {

using CommandRun = std::function<int()>;

CommandRun add_info_command(CLI::App& app);
CommandRun add_train_command(CLI::App& app);
CommandRun add_eval_command(CLI::App& app);
CommandRun add_render_command(CLI::App& app);
CommandRun add_export_command(CLI::App& app);
CommandRun add_demo_command(CLI::App& app);
CommandRun add_gui_command(CLI::App& app);

// Registers every subcommand; run_selected runs the one the user chose (the viewer, `gui`, when
// none was chosen).
void register_commands(CLI::App& app);
int run_selected();

}  // namespace splat::app
