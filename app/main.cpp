// splatlab: one binary, subcommands. Each subcommand lives in its own cmd_*.cpp and registers
// itself through the add_*_command functions declared in app/commands.h.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "app/command_suggestion.h"
#include "app/commands.h"
#include "app/path_args.h"

namespace {

// Usage errors (a mistyped command, a bad option value) exit with 2, as other command-line tools
// do; failures of the work itself exit with 1.
constexpr int kUsageError = 2;

const char* version_text() {
#ifdef SPLATLAB_HAS_GUI
  return "splatlab " SPLATLAB_VERSION " (with the GUI)";
#else
  return "splatlab " SPLATLAB_VERSION " (without the GUI)";
#endif
}

// The first word that is not an option: a subcommand, or the scene the window opens. The
// top-level options are flags, so no option value can be mistaken for it.
const char* first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return i + 1 < argc ? argv[i + 1] : nullptr;
    if (argv[i][0] != '-') return argv[i];
  }
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"splatlab: train and view 3D Gaussian Splatting scenes on every local GPU"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", version_text());
  splat::app::register_commands(app);
  if (const char* word = first_word(argc, argv)) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    if (auto refusal = splat::app::unknown_command_message(word, commands)) {
      std::fprintf(stderr, "error: %s\n", refusal->c_str());
      return kUsageError;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kUsageError;  // --help and --version exit with 0
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
