#include "app/commands.h"

#include <cstdio>
#include <utility>
#include <vector>

namespace splat::app {
namespace {
std::vector<std::pair<CLI::App*, CommandRun>>& registry() {
  static std::vector<std::pair<CLI::App*, CommandRun>> r;
  return r;
}
void add(CLI::App& app, CommandRun (*adder)(CLI::App&)) {
  const size_t before = app.get_subcommands({}).size();
  CommandRun run = adder(app);
  auto subs = app.get_subcommands({});
  if (subs.size() != before + 1) throw std::logic_error("a command adder must add one subcommand");
  registry().emplace_back(subs.back(), std::move(run));
}
}  // namespace

void register_commands(CLI::App& app) {
  add(app, add_info_command);
  add(app, add_train_command);
  add(app, add_eval_command);
  add(app, add_render_command);
  add(app, add_export_command);
  add(app, add_demo_command);
  add(app, add_gui_command);
}

int run_selected() {
  for (auto& [sub, run] : registry())
    if (sub->parsed()) return run();
  // No subcommand: the viewer (`splatlab <folder>` opens that folder; see cmd_gui.cpp).
  for (auto& [sub, run] : registry())
    if (sub->get_name() == "gui") return run();
  throw std::logic_error("the gui command is not registered");
}

}  // namespace splat::app
