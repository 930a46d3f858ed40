// `splatlab gui [folder|file.ply] [--demo] [--images N | --steps N] [--data-factor F] [--out RUN] [--ranks R]
// [--screenshot out.png] [--exit] [--compare V [--error-map]] [--crop S] [--window-size WxH]`: the
// viewer-trainer window. It is also what `splatlab` does without a subcommand (`splatlab <folder>`
// opens that scene, `splatlab --demo` the demo scene), so the scene positional and --demo are
// registered on the top-level app as well. The training options are named and counted as train's.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "app/cli_checks.h"
#include "app/commands.h"
#include "app/path_args.h"
#include "app/up_arg.h"
#include "app/usage_error.h"
#ifdef SPLATLAB_HAS_GUI
#include "ui/gui_run.h"
#include "ui/viewer_app.h"
#endif

namespace splat::app {
namespace {
// "1600x900" -> {1600, 900}; {0, 0} for anything else.
std::pair<int, int> parse_window_size(const std::string& text) {
  int w = 0, h = 0;
  char x = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &rest) != 3 || (x != 'x' && x != 'X') || w < 320 || h < 240 ||
      w > 16384 || h > 16384)
    return {0, 0};
  return {w, h};
}

struct GuiArgs {
  std::string scene;
  bool demo = false;
  int images = 0;
  int steps = 0;
  int data_factor = 0;
  std::string out;
  std::string screenshot;
  bool exit = false;
  int ranks = 0;
  int compare = -1;
  bool error_map = false;
  float crop = 0;
  std::string window_size;
  bool reset_layout = false;
  std::string up;
};

#ifdef SPLATLAB_HAS_GUI
// What the window could not do as asked: load the demo scene or a run's scene at another size, or
// continue a run elsewhere than in its folder.
void check_training_options(const GuiArgs& a) {
  const bool run = !a.scene.empty() && ui::is_run_folder(a.scene);
  if (a.data_factor > 0 && a.demo)
    throw UsageError("--data-factor: the demo scene is generated small and opens at full size in the window "
                     "(splatlab train demo --data-factor " + std::to_string(a.data_factor) + " trains it smaller)");
  if (a.data_factor > 0 && run)
    throw UsageError("--data-factor: a run folder opens its scene as its config.json records");
  if (!a.out.empty() && run)
    throw UsageError("--out: a run folder continues in its own folder (splatlab train --resume RUN --out NEW "
                     "continues a copy elsewhere)");
}
#endif
}  // namespace

CommandRun add_gui_command(CLI::App& app) {
  auto args = std::make_shared<GuiArgs>();
  app.add_option("scene", args->scene, "Without a subcommand: open this COLMAP folder or .ply file in the viewer");
  app.add_flag("--demo", args->demo, "Without a subcommand: open the built-in demo scene in the viewer");
  auto* sub = app.add_subcommand("gui", "Open the viewer-trainer window (the default without a subcommand)");
  sub->add_option("scene", args->scene, "COLMAP scene folder or .ply file of Gaussians to open");
  sub->add_flag("--demo", args->demo, "Open the built-in demo scene");
  auto* images = sub->add_option("--images", args->images,
                                 "Train this many images once the scene is loaded (as train's --images); scripted "
                                 "(--screenshot, --exit), before the screenshot")
                     ->check(at_least(1));
  sub->add_option("--steps", args->steps,
                  "Instead of --images: this many steps, a budget of steps x the batch size images (as train's "
                  "--steps; the batch size is 1, or --ranks)")
      ->check(at_least(1))
      ->excludes(images);
  sub->add_option("--data-factor", args->data_factor,
                  "Load a scene folder's photos at 1/F size (as train's --data-factor; the Training panel's Data "
                  "factor, default 1 on a GPU, 4 on the CPU)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--out", args->out,
                  "The run folder training writes (as train's --out; default runs/<scene name>, or the next free "
                  "runs/<scene name>-N); refused when it already holds a run");
  sub->add_option("--screenshot", args->screenshot, "Scripted: save a PNG of the whole window");
  sub->add_flag("--exit", args->exit, "Scripted: quit once loaded (and after training and --screenshot)");
  sub->add_option("--ranks", args->ranks,
                  "Train with R ranks (the Training panel's Ranks): over the selected GPUs, or R CPU ranks on the "
                  "CPU backend; 0: one per GPU")
      ->check(at_least(0));
  sub->add_option("--compare", args->compare, "Scripted: open the comparison of this view (0-based, as `info --cameras` lists) with its photo, and evaluate the test views")->check(at_least(0));
  sub->add_flag("--error-map", args->error_map, "Scripted: show --compare as an error heat map instead of the split");
  sub->add_option("--window-size", args->window_size, "The window's size in pixels, WIDTHxHEIGHT (default 1280x800)")
      ->check(CLI::Validator(
          [](std::string& v) {
            return parse_window_size(v).first > 0 ? std::string() : "'" + v + "' is not WIDTHxHEIGHT (320x240 and up)";
          },
          "WxH"));
  sub->add_flag("--reset-layout", args->reset_layout,
                "Start with the default layout (as View > Reset layout) instead of the one kept in imgui.ini");
  add_up_option(sub, args->up, "the scene's estimate, or a run's recorded choice")->default_str("");
  sub->add_option("--crop", args->crop, "Scripted: crop to this share of the box fitted around the Gaussians (0..1]")->check(CLI::Range(0.001f, 1.f));
  return [args]() {
    if (!args->scene.empty()) check_path_argument("scene", args->scene);
#ifdef SPLATLAB_HAS_GUI
    check_training_options(*args);
    ui::GuiOptions o;
    o.open = args->scene;
    o.demo = args->demo;
    o.images = args->images;
    o.steps = args->steps;
    o.data_factor = args->data_factor;
    o.run_dir = args->out;
    o.screenshot = args->screenshot;
    o.exit = args->exit;
    o.ranks = args->ranks;
    o.compare_view = args->compare;
    o.error_map = args->error_map;
    o.crop = args->crop;
    o.reset_layout = args->reset_layout;
    if (!args->up.empty()) o.up = up_axis_arg(args->up);
    if (!args->window_size.empty()) {
      const auto [w, h] = parse_window_size(args->window_size);
      o.width = w, o.height = h;
    }
    return ui::run_viewer(o);
#else
    std::fprintf(stderr, "splatlab was built without the GUI (-DSPLATLAB_GUI=ON); see splatlab --help\n");
    return 1;
#endif
  };
}

}  // namespace splat::app
