// splatlab: one binary, subcommands. Each subcommand lives in its own cmd_*.cpp and registers
// itself through the add_*_command functions declared in app/commands.h.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "app/command_suggestion.h"
#include "app/commands.h"
#include "app/path_args.h"
#include "app/usage_error.h"

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

// A usage error as one line: CLI11's own printout adds a second ("Run with --help for more
// information."), which a script reading the last line, or a user reading the first, would miss.
int usage_error(const std::string& message) {
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  // CLI11 starts some messages with a capital ("The following argument was not expected"); after
  // "error:" the sentence goes on in lower case, as ours do.
  if (line.size() > 1 && std::isupper(static_cast<unsigned char>(line[0])) && std::islower(static_cast<unsigned char>(line[1])))
    line[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(line[0])));
  std::fprintf(stderr, "error: %s\n", line.c_str());
  return kUsageError;
}

// The command whose options were being parsed, for the pointer to its --help.
std::string help_hint(const CLI::App& app) {
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  if (parsed.empty()) return " (splatlab --help lists the commands and options)";
  return " (splatlab " + parsed.front()->get_name() + " --help lists its options)";
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
  // Before the first word's check, which would take --resume's run folder for a scene to open.
  if (auto refusal = splat::app::misplaced_option_message(std::vector<std::string>(argv + 1, argv + argc)))
    return usage_error(*refusal);
  if (const char* word = first_word(argc, argv)) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands({})) commands.push_back(sub->get_name());
    if (auto refusal = splat::app::unknown_command_message(word, commands)) return usage_error(*refusal);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help and --version
    return usage_error(e.what() + help_hint(app));
  }
  try {
    return splat::app::run_selected();
  } catch (const splat::app::UsageError& e) {
    return usage_error(e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "error: %s\n", splat::app::describe_filesystem_error(e).c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
