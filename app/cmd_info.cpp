// `splatlab info <scene>`: placeholder until the COLMAP loader lands (issue 2).
#include "app/commands.h"

namespace splat::app {

CommandRun add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Print cameras, images, points, split and extent of a scene");
  auto path = std::make_shared<std::string>();
  sub->add_option("scene", *path, "COLMAP scene folder")->required();
  return [path]() { return 0; };
}

}  // namespace splat::app
