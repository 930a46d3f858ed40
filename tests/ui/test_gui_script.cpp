// The scripted GUI as CI runs it under Xvfb: `splatlab gui --demo --screenshot out.png --exit`
// opens a real window, renders the demo scene and saves the whole window from the back buffer.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <stb_image.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
const std::string kSplatlab = std::string(SPLATLAB_BINARY_DIR) + "/app/splatlab";

bool display_or_skip() {
  const char* d = std::getenv("DISPLAY");
  if (d && *d) return true;
  std::printf("SKIPPED (no DISPLAY): scripted GUI test; run under xvfb-run\n");
  return false;
}

// Runs splatlab in `scratch` (GUI runs go to runs/<scene> there) with a private config folder (the
// recent-scenes list stays out of $HOME); returns the exit code, with stdout and stderr in `log`.
// `env`: more variable assignments for the command.
int run_splatlab(const std::string& args, const fs::path& scratch, std::string& log, const std::string& env = "") {
  const fs::path out = scratch / "log.txt";
  const std::string cmd = "cd '" + scratch.string() + "' && " + env + " XDG_CONFIG_HOME='" + (scratch / "config").string() + "' '" + kSplatlab + "' " + args +
                          " > '" + out.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  log = ss.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[3 * (static_cast<size_t>(y) * w + x)]; }
};

Image load_png(const fs::path& file) {
  Image img;
  int channels = 0;
  uint8_t* data = stbi_load(file.string().c_str(), &img.w, &img.h, &channels, 3);
  REQUIRE(data != nullptr);
  img.rgb.assign(data, data + static_cast<size_t>(img.w) * img.h * 3);
  stbi_image_free(data);
  return img;
}

// Mean and variance of the luminance in a rectangle.
std::pair<double, double> stats(const Image& img, int x0, int y0, int x1, int y1) {
  double s = 0, s2 = 0;
  const double n = double(x1 - x0) * (y1 - y0);
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = img.at(x, y);
      const double l = (p[0] + p[1] + p[2]) / 3.0;
      s += l;
      s2 += l * l;
    }
  return {s / n, s2 / n - (s / n) * (s / n)};
}
}  // namespace

TEST_CASE("scripted GUI: demo scene screenshots show panels, the render, and training", "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_script");
  std::string log;
  // Before training: the viewer shows the Gaussians initialised from the demo's SfM points.
  const fs::path png0 = scratch / "steps0.png";
  int code = run_splatlab("gui --demo --screenshot '" + png0.string() + "' --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  REQUIRE(fs::exists(png0));
  const Image img = load_png(png0);
  REQUIRE(img.w == 1280);  // the window's size: the whole window was captured
  REQUIRE(img.h == 800);

  // Left column (ImGui panels, x < 270) and viewport (x > 440) look different: the panel area is
  // mostly ImGui's dark window background with text, the viewport shows the scene.
  const auto [panel_mean, panel_var] = stats(img, 5, 40, 270, 780);
  const auto [view_mean, view_var] = stats(img, 440, 40, 1270, 780);
  // ImGui's dark style: WindowBg (0.06, 0.06, 0.06, 0.94) over the clear colour: about 16/255.
  int bg_pixels = 0;
  for (int y = 40; y < 780; ++y)
    for (int x = 5; x < 270; ++x) bg_pixels += img.at(x, y)[0] >= 13 && img.at(x, y)[0] <= 19 && img.at(x, y)[2] <= 19;
  CHECK(bg_pixels > 0.3 * 265 * 740);
  REQUIRE(panel_var > 1.0);  // text and widgets in the panels
  // The viewport is not blank: the demo scene's colours vary a lot.
  REQUIRE(view_var > 100.0);
  REQUIRE(std::abs(view_mean - panel_mean) > 5.0);

  // After a few training steps from the same view, the viewport shows different Gaussians.
  const fs::path png1 = scratch / "steps10.png";
  code = run_splatlab("gui --demo --images 10 --screenshot '" + png1.string() + "' --exit", scratch, log);
  REQUIRE(code == 0);
  const Image trained = load_png(png1);
  REQUIRE(trained.w == img.w);
  REQUIRE(trained.h == img.h);
  double diff = 0;
  for (int y = 40; y < 740; ++y)
    for (int x = 440; x < 1270; ++x)
      for (int c = 0; c < 3; ++c) diff += std::abs(int(trained.at(x, y)[c]) - int(img.at(x, y)[c]));
  diff /= 700.0 * 830.0 * 3.0;
  INFO("mean absolute viewport change after 10 steps: " << diff);
  REQUIRE(diff > 0.5);

  // The training wrote a run folder under runs/ in the working directory, as `splatlab train` does.
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(scratch / "runs")) runs.push_back(e.path());
  REQUIRE(runs.size() == 1);
  for (const char* f : {"config.json", "metrics.jsonl", "checkpoint.ckpt", "point_cloud.ply"}) {
    INFO(f);
    CHECK(fs::exists(runs[0] / f));
  }
  // A second scripted run does not overwrite it: it gets the next free folder.
  code = run_splatlab("gui --demo --images 4 --exit", scratch, log);
  REQUIRE(code == 0);
  size_t count = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(scratch / "runs")) ++count;
  CHECK(count == 2);

  // Opening the run folder opens the run (its scene, its plots) ready to continue.
  code = run_splatlab("gui '" + runs[0].string() + "' --exit", scratch, log);
  INFO(log);
  CHECK(code == 0);
  CHECK_THAT(log, Catch::Contains("opened run " + runs[0].string() + " (10 images trained)"));
}

TEST_CASE("scripted GUI: a missing scene is an error naming the path", "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_missing");
  const std::string missing = (scratch / "no_such_scene").string();
  std::string log;
  const int code = run_splatlab("gui '" + missing + "' --exit", scratch, log);
  INFO(log);
  REQUIRE(code != 0);
  REQUIRE_THAT(log, Catch::Contains(missing));
}

namespace {
// Horizontal bars in ImGui's progress-bar colour (the dark style's PlotHistogram, orange) in the left
// column: bands of rows with a long run of that colour, counted from the top.
int orange_bars(const Image& img) {
  int bars = 0;
  bool in_bar = false;
  for (int y = 20; y < img.h; ++y) {
    int orange = 0;
    for (int x = 5; x < 270; ++x) {
      const uint8_t* p = img.at(x, y);
      orange += p[0] > 200 && p[1] > 140 && p[1] < 210 && p[2] < 60;
    }
    const bool bar_row = orange >= 40;
    bars += bar_row && !in_bar;
    in_bar = bar_row;
  }
  return bars;
}
// Mean colour of a rectangle.
std::array<double, 3> mean_rgb(const Image& img, int x0, int y0, int x1, int y1) {
  std::array<double, 3> m{};
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      for (int c = 0; c < 3; ++c) m[c] += img.at(x, y)[c];
  for (double& v : m) v /= double(x1 - x0) * (y1 - y0);
  return m;
}

// Pixels of the crop box's orange lines in a rectangle.
int orange_pixels(const Image& img, int x0, int y0, int x1, int y1) {
  int n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint8_t* p = img.at(x, y);
      n += p[0] > 200 && p[1] > 90 && p[1] < 180 && p[2] < 80;
    }
  return n;
}
}  // namespace

TEST_CASE("scripted GUI: training with 2 CPU ranks shows a row per rank in the GPUs panel", "[ui][script][ranks]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_ranks");
  std::string log;
  const fs::path one = scratch / "ranks1.png", two = scratch / "ranks2.png";
  int code = run_splatlab("gui --demo --images 4 --window-size 1280x900 --screenshot '" + one.string() + "' --exit",
                          scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  // A taller window, so that the GPUs panel below the View and Training panels shows both ranks.
  code = run_splatlab("gui --demo --ranks 2 --images 4 --window-size 1280x900 --screenshot '" + two.string() + "' --exit",
                      scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  CHECK_THAT(log, Catch::Contains("with 2 ranks on the CPU") && Catch::Contains("(checkpoint at image 4, step 2)"));
  // Both show the training progress bar and one bar per rank (its share of the Gaussians): one more with
  // two ranks.
  const int bars_one = orange_bars(load_png(one)), bars_two = orange_bars(load_png(two));
  CHECK(bars_one == 2);
  CHECK(bars_two == bars_one + 1);
}

TEST_CASE("scripted GUI: the comparison with a photo, split and as an error map, with the test views' PSNR",
          "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_compare");
  std::string log;
  const fs::path split = scratch / "split.png", error = scratch / "error.png";
  int code = run_splatlab("gui --demo --compare 1 --screenshot '" + split.string() + "' --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  CHECK_THAT(log, Catch::Contains("test views: mean PSNR") && Catch::Contains("over 8 views"));
  code = run_splatlab("gui --demo --compare 1 --error-map --screenshot '" + error.string() + "' --exit", scratch, log);
  REQUIRE(code == 0);
  const Image s = load_png(split), e = load_png(error);
  // The window opens over the viewport with the image's top rows at y 150..220: the demo photo's sky
  // on the right of the split (bright, bluish), the untrained render's black background on the left.
  const auto render_sky = mean_rgb(s, 600, 160, 800, 220), photo_sky = mean_rgb(s, 900, 160, 1100, 220);
  INFO("split: render " << render_sky[0] << " " << render_sky[1] << " " << render_sky[2] << ", photo "
                        << photo_sky[0] << " " << photo_sky[1] << " " << photo_sky[2]);
  CHECK(render_sky[0] + render_sky[1] + render_sky[2] < 3 * 60);
  CHECK(photo_sky[0] + photo_sky[1] + photo_sky[2] > 3 * 170);
  CHECK(photo_sky[2] > photo_sky[0]);
  // The error map shows the sky (black against the photo's sky: an error far past 0.2) at full heat,
  // pale yellow, on both sides.
  for (const int x0 : {600, 900}) {
    const auto hot = mean_rgb(e, x0, 160, x0 + 200, 220);
    INFO("error map at x " << x0 << ": " << hot[0] << " " << hot[1] << " " << hot[2]);
    CHECK(hot[0] > 220);
    CHECK(hot[1] > 220);
    CHECK(hot[2] < hot[0] - 30);
  }
  // A view that does not exist is an error naming it.
  code = run_splatlab("gui --demo --compare 600 --exit", scratch, log);
  CHECK(code != 0);
  CHECK_THAT(log, Catch::Contains("--compare 600: no such view"));
}

TEST_CASE("scripted GUI: the crop box limits the Gaussians shown and is drawn", "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_crop");
  std::string log;
  const fs::path plain = scratch / "plain.png", crop = scratch / "crop.png";
  int code = run_splatlab("gui --demo --screenshot '" + plain.string() + "' --exit", scratch, log);
  REQUIRE(code == 0);
  code = run_splatlab("gui --demo --crop 0.3 --screenshot '" + crop.string() + "' --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  // "crop box: M of 4000 Gaussians inside", with 0 < M < 4000.
  const size_t at = log.find("crop box: ");
  REQUIRE(at != std::string::npos);
  const long inside = std::strtol(log.c_str() + at + 10, nullptr, 10);
  CHECK(inside > 0);
  CHECK(inside < 4000);
  CHECK_THAT(log, Catch::Contains(" of 4000 Gaussians inside"));
  const Image p = load_png(plain), c = load_png(crop);
  // Fewer Gaussians: the fog that fills the lower viewport without the crop is gone (darker), and
  // the box's orange edges are drawn. The region lies above the Plots window (y >= 602) and right of
  // the messages over its left end.
  const auto fog = mean_rgb(p, 760, 440, 1270, 590), cropped = mean_rgb(c, 760, 440, 1270, 590);
  INFO("lower viewport: plain " << fog[0] << ", cropped " << cropped[0]);
  CHECK(cropped[0] + cropped[1] + cropped[2] < 0.5 * (fog[0] + fog[1] + fog[2]));
  const int edges = orange_pixels(c, 330, 30, 1270, 790), none = orange_pixels(p, 330, 30, 1270, 790);
  INFO("orange pixels: cropped " << edges << ", plain " << none);
  CHECK(edges > 500);
  CHECK(none < 50);
}

TEST_CASE("scripted GUI: the saved view settings apply at start, a malformed file is reported", "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_view_settings");
  fs::create_directories(scratch / "config" / "splatlab");
  const fs::path file = scratch / "config" / "splatlab" / "view.json";
  std::ofstream(file) << R"({"background": [1.0, 0.0, 0.0], "show_grid": false, "show_frustums": false,
                            "fps_cap": 30, "pause_while_training": true, "moving_resolution_scale": 0.3})";
  const fs::path png = scratch / "red.png";
  std::string log;
  int code = run_splatlab("gui --demo --window-size 1600x900 --screenshot '" + png.string() + "' --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  // The top of the viewport shows the background above the demo scene: red, as the file says.
  const Image img = load_png(png);
  REQUIRE(img.w == 1600);
  double red = 0, other = 0;
  for (int y = 30; y < 60; ++y)
    for (int x = 1000; x < 1200; ++x) {
      red += img.at(x, y)[0];
      other += img.at(x, y)[1] + img.at(x, y)[2];
    }
  CHECK(red / (30 * 200) > 200);
  CHECK(other / (2 * 30 * 200) < 60);

  std::ofstream(file, std::ios::trunc) << "{\"fps_cap\": ";
  code = run_splatlab("gui --demo --exit", scratch, log);
  INFO(log);
  CHECK(code == 1);
  CHECK(log.find("view.json") != std::string::npos);
}

TEST_CASE("scripted GUI: --images, --steps, --data-factor and --out as train names them", "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_train_options");
  auto config_of = [](const fs::path& run) {
    std::ifstream in(run / "config.json");
    return nlohmann::json::parse(in);
  };
  std::string log;
  // --out names the run folder (relative to the working directory), instead of runs/<scene>.
  int code = run_splatlab("gui --demo --images 6 --out named --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  for (const char* f : {"config.json", "metrics.jsonl", "checkpoint.ckpt", "point_cloud.ply"}) {
    INFO(f);
    CHECK(fs::exists(scratch / "named" / f));
  }
  CHECK_FALSE(fs::exists(scratch / "runs"));
  CHECK(config_of(scratch / "named").value("images", 0) == 6);
  // Its last record is the end of the budget, evaluated as train evaluates it (same keys).
  {
    std::ifstream metrics(scratch / "named" / "metrics.jsonl");
    std::string line, last;
    while (std::getline(metrics, line))
      if (!line.empty()) last = line;
    const nlohmann::json end = nlohmann::json::parse(last);
    CHECK(end.value("images", 0) == 6);
    CHECK(end.contains("psnr"));
    CHECK(end.contains("ssim"));
  }
  // The same --out again is refused naming the folder, as train refuses it, rather than piling up as named-2.
  code = run_splatlab("gui --demo --images 6 --out named --exit", scratch, log);
  CHECK(code == 1);
  CHECK_THAT(log, Catch::Contains((scratch / "named").string()) && Catch::Contains("already holds a run"));
  CHECK_FALSE(fs::exists(scratch / "named-2"));

  // --steps counts steps, as train's does: two ranks train batches of 2, so 3 steps are 6 images.
  code = run_splatlab("gui --demo --ranks 2 --steps 3 --out steps --exit", scratch, log);
  REQUIRE(code == 0);
  CHECK_THAT(log, Catch::Contains("(checkpoint at image 6, step 3)"));

  // --data-factor loads a scene folder's photos smaller (the CPU's default is 4), and the run records it.
  REQUIRE(run_splatlab("demo --out scene --width 48 --height 32", scratch, log) == 0);
  code = run_splatlab("gui scene --data-factor 2 --images 2 --out small --exit", scratch, log);
  REQUIRE(code == 0);
  CHECK_THAT(log, Catch::Contains("photos at 1/2"));
  CHECK(config_of(scratch / "small").value("data_factor", 0) == 2);

  // What the window cannot do as asked is a usage error: one line, exit 2.
  code = run_splatlab("gui --demo --data-factor 2 --exit", scratch, log);
  CHECK(code == 2);
  CHECK(log.rfind("error: --data-factor: the demo scene", 0) == 0);
  CHECK(std::count(log.begin(), log.end(), '\n') == 1);
  code = run_splatlab("gui --demo --images 4 --steps 2 --exit", scratch, log);
  CHECK(code == 2);
  CHECK(log.rfind("error: ", 0) == 0);
}

namespace {
struct PlotsRect {
  int x = 0, y = 0, w = 0, h = 0, window_w = 0, window_h = 0;
};

// The Plots window's place as a scripted run reports it on exit ("layout: Plots window X Y W H in W x H").
PlotsRect reported_plots(const std::string& log) {
  const size_t at = log.find("layout: Plots window ");
  REQUIRE(at != std::string::npos);
  PlotsRect r;
  REQUIRE(std::sscanf(log.c_str() + at, "layout: Plots window %d %d %d %d in %d x %d", &r.x, &r.y, &r.w, &r.h,
                      &r.window_w, &r.window_h) == 6);
  return r;
}

// Pixels of the plots' frame inside `r`: ImGui's dark FrameBg (0.16, 0.29, 0.48, 0.54) over its
// WindowBg, about (29, 47, 73); nothing in the demo scene is that flat colour over so many pixels.
int plot_frame_pixels(const Image& img, const PlotsRect& r) {
  int n = 0;
  for (int y = std::max(0, r.y); y < std::min(img.h, r.y + r.h); ++y)
    for (int x = std::max(0, r.x); x < std::min(img.w, r.x + r.w); ++x) {
      const uint8_t* p = img.at(x, y);
      n += std::abs(p[0] - 29) <= 8 && std::abs(p[1] - 47) <= 8 && std::abs(p[2] - 73) <= 8;
    }
  return n;
}

void set_plots_place(const fs::path& ini, const std::string& pos, const std::string& size) {
  std::ifstream in(ini);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const size_t section = text.find("[Window][Plots]");
  REQUIRE(section != std::string::npos);
  const size_t end = text.find("\n\n", section);
  text.replace(section, end == std::string::npos ? std::string::npos : end - section,
               "[Window][Plots]\nPos=" + pos + "\nSize=" + size + "\nCollapsed=0");
  std::ofstream(ini, std::ios::trunc) << text;
}
}  // namespace

TEST_CASE("scripted GUI: the plots are in sight beside the viewport and the panels; the layout is kept and reset",
          "[ui][script]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_layout");
  const fs::path ini = scratch / "config" / "splatlab" / "imgui.ini";
  std::string log;
  PlotsRect default_1280;
  for (const auto& [w, h] : {std::pair{1280, 800}, {1600, 900}}) {
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    INFO(size);
    fs::remove(ini);  // a first start: the default layout
    fs::remove_all(scratch / "runs");
    const fs::path png = scratch / ("plots" + size + ".png");
    const int code = run_splatlab("gui --demo --images 12 --window-size " + size + " --screenshot '" + png.string() + "' --exit",
                                  scratch, log);
    INFO(log);
    REQUIRE(code == 0);
    const PlotsRect r = reported_plots(log);
    CHECK(r.window_w == w);
    CHECK(r.window_h == h);
    // Wholly inside the window, right of the panel column (at least a fifth of the width), along the
    // bottom, tall enough for a row of plots and leaving most of the height to the viewport.
    CHECK(r.x >= w / 5);
    CHECK(r.y > h / 2);
    CHECK(r.x + r.w <= w);
    CHECK(r.y + r.h <= h);
    CHECK(r.h >= 150);
    CHECK(r.h <= 0.45 * h);
    CHECK(r.w >= w / 2);
    // The screenshot shows the plots' frames there: the loss plot (12 images give a few records).
    const Image img = load_png(png);
    REQUIRE(img.w == w);
    CHECK(plot_frame_pixels(img, r) > 8000);
    if (w == 1280) default_1280 = r;
    // The layout is kept in the config folder beside view.json.
    REQUIRE(fs::exists(ini));
  }

  // A place the user chose is kept between sessions.
  set_plots_place(ini, "400,120", "520,200");
  int code = run_splatlab("gui --demo --exit", scratch, log);
  INFO(log);
  REQUIRE(code == 0);
  PlotsRect r = reported_plots(log);
  CHECK(r.x == 400);
  CHECK(r.y == 120);
  CHECK(r.w == 520);
  CHECK(r.h == 200);

  // One saved on a larger screen is pulled back inside a smaller window.
  set_plots_place(ini, "1500,850", "500,200");
  code = run_splatlab("gui --demo --exit", scratch, log);
  REQUIRE(code == 0);
  r = reported_plots(log);
  CHECK(r.x + r.w <= 1280);
  CHECK(r.y + r.h <= 800);
  CHECK(r.w == 500);

  // Reset layout: the default place again, whatever was kept.
  set_plots_place(ini, "400,120", "520,200");
  code = run_splatlab("gui --demo --reset-layout --exit", scratch, log);
  REQUIRE(code == 0);
  r = reported_plots(log);
  CHECK(r.x == default_1280.x);
  CHECK(r.y == default_1280.y);
  CHECK(r.w == default_1280.w);
  CHECK(r.h == default_1280.h);
  // And it is what is kept for the next start.
  code = run_splatlab("gui --demo --exit", scratch, log);
  REQUIRE(code == 0);
  CHECK(reported_plots(log).y == default_1280.y);
}

namespace {

// Where the grid is drawn in the viewport: the pixels that differ between a screenshot with the grid and
// one without, right of the panel column and above the Plots window (`plots`), as shares of the region's
// height: the fraction in its top quarter and in its lower half.
struct GridPlace {
  int pixels = 0;
  double top_quarter = 0, lower_half = 0;
};
GridPlace grid_place(const Image& with, const Image& without, const PlotsRect& plots) {
  GridPlace g;
  const int x0 = plots.x, y0 = 24, y1 = plots.y;  // below the menu bar
  int top = 0, low = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < with.w; ++x) {
      const uint8_t *a = with.at(x, y), *b = without.at(x, y);
      if (std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]) < 24) continue;
      ++g.pixels;
      if (y < y0 + (y1 - y0) / 4) ++top;
      if (y >= (y0 + y1) / 2) ++low;
    }
  if (g.pixels > 0) g.top_quarter = double(top) / g.pixels, g.lower_half = double(low) / g.pixels;
  return g;
}

}  // namespace

TEST_CASE("scripted GUI: real captures open upright, the grid under the scene; a wrong up shows no floor",
          "[ui][script][up]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_upright");
  const fs::path view = scratch / "config" / "splatlab" / "view.json";
  fs::create_directories(view.parent_path());
  for (const std::string name : {"cup", "bonsai"}) {
    const std::optional<fs::path> scene = splat::test::shared_scene(name);
    if (!scene) continue;
    // Each view twice, with the grid and without; frustums and axes off, so that only the grid differs.
    const auto shot = [&](const std::string& up, bool grid) {
      std::ofstream(view, std::ios::trunc) << "{\"show_grid\": " << (grid ? "true" : "false")
                                           << ", \"show_frustums\": false, \"show_axes\": false}";
      const fs::path png = scratch / (name + up + (grid ? "-grid.png" : ".png"));
      std::string log;
      const int code = run_splatlab("gui '" + scene->string() + "'" + (up.empty() ? "" : " --up " + up) +
                                        " --window-size 1600x1000 --screenshot '" + png.string() + "' --exit",
                                    scratch, log);
      INFO(log);
      REQUIRE(code == 0);
      return std::pair{load_png(png), reported_plots(log)};
    };
    const auto [upright_grid, plots] = shot("", true);
    const GridPlace g = grid_place(upright_grid, shot("", false).first, plots);
    INFO(name << ": " << g.pixels << " grid pixels, " << g.top_quarter << " in the top quarter, " << g.lower_half
              << " in the lower half");
    CHECK(g.pixels > 500);
    CHECK(g.lower_half > 0.6);
    CHECK(g.top_quarter < 0.05);
    // The same check fails when the scene is turned on its side: the up the photos do not have.
    const std::string wrong = name == "cup" ? "+x" : "+y";
    const GridPlace w = grid_place(shot(wrong, true).first, shot(wrong, false).first, plots);
    INFO(name << " with --up " << wrong << ": " << w.pixels << " grid pixels, " << w.top_quarter
              << " in the top quarter, " << w.lower_half << " in the lower half");
    CHECK_FALSE((w.pixels > 500 && w.lower_half > 0.6 && w.top_quarter < 0.05));
  }
}

TEST_CASE("scripted GUI: a rank that runs out of memory fails the run in one message naming it; the window goes on",
          "[ui][script][fault]") {
  if (!display_or_skip()) return;
  const fs::path scratch = splat::test::scratch_dir("ui_gui_fault");
  const fs::path png = scratch / "failed.png";
  std::string log;
  // Planted as core/train/planted_fault.h describes: rank 1 fails after 4 of the 20 images.
  const int code = run_splatlab("gui --demo --ranks 2 --images 20 --screenshot '" + png.string() + "' --exit", scratch,
                                log, "SPLATLAB_FAULT=oom:1:4");
  INFO(log);
  CHECK(code == 1);  // a scripted run that failed
  CHECK(log.find("splatlab: error: training failed: rank 1 (CPU) failed: out of memory on CPU, planted at 4 images") !=
        std::string::npos);
  // The window went on to its screenshot after the failure.
  CHECK(load_png(png).w > 0);
}
