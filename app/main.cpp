// splatlab: one binary, subcommands. Each subcommand lives in its own cmd_*.cpp and registers
// itself through the add_*_command functions declared in app/commands.h.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>

#include "app/commands.h"
#include "app/path_args.h"

int main(int argc, char** argv) {
  CLI::App app{"splatlab: train and view 3D Gaussian Splatting scenes on every local GPU"};
  app.require_subcommand(0, 1);
  splat::app::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return splat::app::run_selected();
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "error: %s\n", splat::app::describe_filesystem_error(e).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
