// `splatlab demo`: makes sure the built-in procedural demo scene exists (generating it on first
// use, seconds on a laptop) and says where it is. It is the scene every headless pipeline run,
// test and the GUI's demo mode start from when no real capture is at hand.
#include <cstdio>
#include <memory>

#include "app/commands.h"
#include "core/scene/demo_scene.h"

namespace splat::app {

CommandRun add_demo_command(CLI::App& app) {
  struct Args {
    std::string out;
    demo::DemoOptions options;
    bool regenerate = false;
  };
  auto args = std::make_shared<Args>();
  auto* sub = app.add_subcommand("demo", "Generate (or reuse) the built-in procedural demo scene, a COLMAP folder");
  sub->add_option("--out", args->out, "Scene folder (default: $XDG_CACHE_HOME/splatlab/demo or ~/.cache/splatlab/demo)");
  sub->add_option("--width", args->options.width, "Image width in pixels")->capture_default_str()->check(CLI::Range(16, 8192));
  sub->add_option("--height", args->options.height, "Image height in pixels")->capture_default_str()->check(CLI::Range(16, 8192));
  sub->add_flag("--regenerate", args->regenerate, "Render again even when the cached copy is up to date");
  return [args]() {
    const std::filesystem::path folder = args->out.empty() ? demo::default_demo_folder() : std::filesystem::path(args->out);
    args->options.show_progress = true;
    const demo::DemoSceneInfo info = demo::ensure_demo_scene(folder, args->options, args->regenerate);
    std::printf("demo scene: %s (%s)\n", info.folder.string().c_str(), info.regenerated ? "generated" : "cached, up to date");
    std::printf("  %d views of %dx%d (PINHOLE), %d SfM points, COLMAP layout: images/, sparse/0/*.txt\n", info.views,
                info.width, info.height, info.points);
    return 0;
  };
}

}  // namespace splat::app
