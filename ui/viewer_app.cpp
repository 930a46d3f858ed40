#include "ui/viewer_app.h"

#include "ui/gl.h"  // before GLFW: glad provides the GL declarations

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/device.h"
#include "ui/camera_input.h"
#include "ui/dialogs.h"
#include "ui/folder_browser.h"
#include "ui/frame_gate.h"
#include "ui/gui_run.h"
#include "ui/image_files.h"
#include "ui/key_taps.h"
#include "ui/line_renderer.h"
#include "ui/motion_resolution.h"
#include "ui/panels.h"
#include "ui/presenter.h"
#include "ui/scene_lines.h"
#include "ui/training_controller.h"
#include "ui/view_settings_file.h"
#include "ui/viewer_state.h"
#include "ui/viewport_share.h"
#include "ui/viewport_texture.h"
#include "ui/window_capture.h"
#include "ui/window_layout.h"

namespace splat::ui {
namespace {
// Frames drawn after loading before a scripted screenshot: ImGui sizes auto-resized windows
// during the first frames.
constexpr int kScriptFrames = 3;

void print_glfw_error(int code, const char* what) { std::fprintf(stderr, "splatlab: GLFW error %d: %s\n", code, what); }

// What the window's callbacks collect between frames.
struct WindowEvents {
  std::string dropped;  // the first folder or file dropped on the window, opened at the next frame
  KeyTaps taps;         // key presses, read by the shortcuts (ui/key_taps.h)
};

WindowEvents* window_events(GLFWwindow* window) { return static_cast<WindowEvents*>(glfwGetWindowUserPointer(window)); }

void on_drop(GLFWwindow* window, int count, const char** paths) {
  if (count > 0 && window_events(window)) window_events(window)->dropped = paths[0];
}

// Installed before ImGui's own, which calls it after updating ImGui's key state.
void on_key(GLFWwindow* window, int key, int, int action, int) {
  if (window_events(window) && (action == GLFW_PRESS || action == GLFW_REPEAT))
    window_events(window)->taps.record(key, action == GLFW_REPEAT);
}

std::vector<LineVertex> overlay_lines(const ViewerState& s) {
  std::vector<LineVertex> lines;
  const double r = s.frame_radius();
  if (s.view.show_grid) append_grid(lines, s.grid_center(), s.camera.world_up(), r, 20, {0.6f, 0.6f, 0.6f, 0.35f});
  if (s.view.show_axes) append_axes(lines, {0, 0, 0}, 0.25 * r);
  if (s.crop_enabled()) append_box(lines, s.crop(), {1.f, 0.55f, 0.1f, 0.9f});
  if (s.view.show_frustums && s.content.scene) {
    const auto& views = s.content.scene->views;
    for (int i = 0; i < static_cast<int>(views.size()); ++i) {
      const Rgba color = i == s.current_view ? Rgba{1.f, 0.85f, 0.2f, 1.f}
                         : views[i].is_test   ? Rgba{0.9f, 0.4f, 0.9f, 0.7f}
                                              : Rgba{0.3f, 0.8f, 1.f, 0.7f};
      append_frustum(lines, views[i], 0.05 * r, color);
    }
  }
  return lines;
}

// What a viewport render depends on besides the Gaussians (ui/frame_gate.h).
ViewKey view_key(const ViewerState& s, const kernels::Camera& c) {
  const kernels::RasterSettings rs = s.raster_settings();
  const ColorizeParams cp = s.colorize_params();
  ViewKey k(c.R, c.R + 9);
  k.insert(k.end(), c.t, c.t + 3);
  k.insert(k.end(), {c.fx, c.fy, c.cx, c.cy, float(c.width), float(c.height), float(rs.sh_degree), rs.background[0],
                     rs.background[1], rs.background[2], float(cp.mode), cp.depth_near, cp.depth_far});
  return k;
}

// What moves the picture (ui/motion_resolution.h): the camera at the viewport's full size.
ViewKey camera_pose(const kernels::Camera& c) {
  ViewKey k(c.R, c.R + 9);
  k.insert(k.end(), c.t, c.t + 3);
  k.insert(k.end(), {c.fx, c.fy, c.cx, c.cy, float(c.width), float(c.height)});
  return k;
}

// Renders the Gaussians into the viewport texture (when the gate lets it) and draws it with the
// line overlays, which cost nothing on the training device and follow every frame. The render's scale
// comes from `motion` (reduced while the camera moves during training); the presenter draws the
// texture over the whole viewport, whatever its size.
void draw_viewport(ViewerState& state, ViewportTexture& texture, const Presenter& presenter, LineRenderer& lines,
                   const PixelRect& vp, FrameGate& gate, const GatePolicy& policy, MotionResolution& motion) {
  const MotionPolicy moving{.training = policy.training,
                            .rest_scale = state.view.resolution_scale,
                            .moving_scale = state.view.moving_resolution_scale};
  const float scale =
      motion.scale(camera_pose(state.camera.camera(vp.width, vp.height)), moving, FrameGate::Clock::now());
  const int rw = std::max(1, static_cast<int>(std::lround(vp.width * scale)));
  const int rh = std::max(1, static_cast<int>(std::lround(vp.height * scale)));
  const kernels::Camera camera = state.camera.camera(rw, rh);
  const auto start = FrameGate::Clock::now();
  if (gate.due(view_key(state, camera), state.model_version, policy, start)) {
    try {
      state.update_raster();
      state.raster.render(camera, state.raster_settings());
      texture.update(state.raster, state.colorize_params());
    } catch (...) {
      gate.forget();  // a render that throws leaves no stale frame behind
      throw;
    }
    // Wall time of the render is its device time: texture.update waits for the device (the CUDA
    // colouring synchronises its stream after the rasterizer's work; the CPU backend is synchronous).
    const auto end = FrameGate::Clock::now();
    state.render_cost.add(end, std::chrono::duration<double, std::milli>(end - start).count());
  }
  presenter.draw(texture.id(), vp);
  const double r = state.frame_radius();
  lines.draw(overlay_lines(state), clip_matrix(state.camera.camera(vp.width, vp.height), 1e-3 * r, 1e3 * r), vp);
}

// The display's refresh rate: the default fps cap of the viewer while training. 60 where the
// display does not tell (Xvfb, some remote displays).
int display_refresh_rate(GLFWwindow* window) {
  GLFWmonitor* monitor = glfwGetWindowMonitor(window);  // only full-screen windows have one
  if (!monitor) monitor = glfwGetPrimaryMonitor();
  const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
  return mode && mode->refreshRate > 0 ? mode->refreshRate : 60;
}

// Says over the viewport that it shows an old frame on purpose.
void draw_paused_note(float x, float y) {
  ImGui::GetForegroundDrawList()->AddText(ImVec2(x, y), IM_COL32(255, 210, 80, 255),
                                          "View paused while training (View panel: Pause view while training)");
}

void draw_left_column(ViewerState& state, TrainingController& training, ViewerTools& tools, Confirmations& confirm,
                      float top, float width) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(0, top));
  ImGui::SetNextWindowSize(ImVec2(width, display.y - top));
  ImGui::Begin("##panels", nullptr,
               ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoMove |
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoBringToFrontOnFocus);
  // Widgets leave room for the longest label, so that none is cut off.
  ImGui::PushItemWidth(-(ImGui::CalcTextSize("Checkpoint every").x + ImGui::GetStyle().ItemInnerSpacing.x));
  draw_view_panel(state);
  draw_training_panel(state, training, confirm);
  draw_gpus_panel(state, training);
  draw_metrics_panel(training);
  draw_compare_panel(state, tools.compare);
  draw_snapshot_panel(state, training);
  ImGui::PopItemWidth();
  ImGui::End();
}

// The Plots window: at its default place on first use and after View > Reset layout, else where the
// user left it (imgui.ini), pulled back inside the window when that has become smaller. Returns where
// it is, for scripted runs to report.
LayoutRect draw_plots_window(TrainingController& training, bool reset, float menu_h, float panel_w, float ui_scale) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const LayoutRect d = default_plots_rect(display.x, display.y, menu_h, panel_w, ui_scale);
  const ImGuiCond cond = reset ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
  ImGui::SetNextWindowPos(ImVec2(d.x, d.y), cond);
  ImGui::SetNextWindowSize(ImVec2(d.w, d.h), cond);
  if (reset) ImGui::SetNextWindowCollapsed(false);
  ImGui::Begin("Plots", nullptr, ImGuiWindowFlags_NoFocusOnAppearing);
  const ImVec2 pos = ImGui::GetWindowPos(), size = ImGui::GetWindowSize();
  const LayoutRect here{pos.x, pos.y, size.x, size.y};
  const LayoutRect inside = keep_inside(here, display.x, display.y, menu_h);
  if (!(inside == here)) {
    ImGui::SetWindowPos(ImVec2(inside.x, inside.y));
    ImGui::SetWindowSize(ImVec2(inside.w, inside.h));
  }
  draw_plots(training);
  ImGui::End();
  return inside;
}

void draw_loading(const ViewerState& state, float x, float y) {
  if (!state.loader.busy()) return;
  ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  ImGui::Begin("##loading", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::Text("Loading %s ... %.1f s", state.loader.label().c_str(), state.loader.elapsed_s());
  if (const auto p = state.loader.progress()) {
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%lld / %lld images", static_cast<long long>(p->done),
                  static_cast<long long>(p->total));
    ImGui::ProgressBar(static_cast<float>(double(p->done) / double(p->total)), ImVec2(300, 0), overlay);
  } else {
    // Stages that report no fraction (reading files, generating the demo scene): an
    // indeterminate bar shows that work goes on.
    ImGui::ProgressBar(static_cast<float>(std::fmod(state.loader.elapsed_s(), 1.0)), ImVec2(300, 0), "");
  }
  ImGui::End();
}

// A key or mouse button still down (as of the last frame): fly and drag gestures need every frame.
bool input_held() {
  const ImGuiIO& io = ImGui::GetIO();
  return std::any_of(std::begin(io.KeysDown), std::end(io.KeysDown), [](bool b) { return b; }) ||
         std::any_of(std::begin(io.MouseDown), std::end(io.MouseDown), [](bool b) { return b; });
}

// Scripted training: trains the open scene for the budget in training.settings, blocking, and shows
// the result once the run's files are written.
void train_scripted(ViewerState& state, TrainingController& training) {
  training.start(state);
  while (training.active() && training.state() != SessionState::Finished && training.state() != SessionState::Failed) {
    training.poll(state);  // as frames would: the plots and the elapsed time follow
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // The run's checkpoint and PLY: poll() requests them, the session writes them.
  while (training.active() && training.state() != SessionState::Failed && !training.results_written()) {
    training.poll(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  training.poll(state);
}

// Scripted --crop and --compare: the crop box at a share of its fitted size, the comparison of a view
// (with the test views evaluated, as the Compare panel's button does).
void script_tools(ViewerState& state, ViewerTools& tools, const GuiOptions& opt) {
  if (!state.has_content()) return;
  if (opt.crop > 0) {
    state.reset_crop();
    CropBox box = state.crop();
    box.half_size = box.half_size * double(opt.crop);
    state.set_crop(true, box);
    state.update_raster();
    state.notes.info("crop box: " + std::to_string(state.raster.gaussian_count()) + " of " +
                     std::to_string(state.gaussian_count()) + " Gaussians inside");
  }
  if (opt.compare_view >= 0) {
    const size_t views = state.content.scene ? state.content.scene->views.size() : 0;
    if (size_t(opt.compare_view) >= views) {
      state.notes.error("--compare " + std::to_string(opt.compare_view) + ": no such view (the scene has " +
                        std::to_string(views) + ")");
      return;
    }
    tools.compare.show(opt.compare_view);
    tools.compare.params.mode = opt.error_map ? CompareMode::Error : CompareMode::Split;
    tools.compare.evaluate_test_views(state);
  }
}

// The Compare panel shows the run's latest test evaluation as soon as there is one (no click).
void follow_training_evaluation(const ViewerState& state, const TrainingController& training, ViewCompare& compare) {
  const TrainingController::Evaluation e = training.latest_evaluation();
  compare.follow_training(state, e.result, e.of_shown_model);
}

// A run folder continues that run; anything else opens as content. While a session exists either
// waits for the user's yes (ui/dialogs.h).
void open_path(ViewerState& state, TrainingController& training, const std::string& path) {
  if (is_run_folder(path) && !state.confirm_discard)
    training.open_run(state, path);
  else
    state.open(path);
}

// ImGui's font and sizes follow the monitor's content scale (HiDPI), read once at start.
float apply_content_scale(GLFWwindow* window) {
  float xs = 1.f, ys = 1.f;
  glfwGetWindowContentScale(window, &xs, &ys);
  const float scale = std::clamp(std::max(xs, ys), 1.f, 4.f);
  ImFontConfig font;
  font.SizePixels = 13.f * scale;
  ImGui::GetIO().Fonts->AddFontDefault(&font);
  ImGui::GetStyle().ScaleAllSizes(scale);
  return scale;
}

int frame_loop(GLFWwindow* window, const GuiOptions& opt, float ui_scale) {
  WindowEvents events;
  glfwSetWindowUserPointer(window, &events);
  glfwSetDropCallback(window, on_drop);

  const kernels::Device device = kernels::cuda_device_count() > 0 ? kernels::Device::CUDA : kernels::Device::CPU;
  ViewerState state(device, default_recent_file());
  // CPU training at full size is too slow to watch (a real scene trains well under one image a
  // second); quarter-size photos train 16 times as many.
  state.data_factor = opt.data_factor > 0 ? opt.data_factor : device == kernels::Device::CPU ? 4 : 1;
  TrainingController training(device);
  training.settings.ranks = opt.ranks;
  training.settings.batch_size = std::max(training.settings.batch_size, opt.ranks);  // an image per rank
  training.settings.run_dir = opt.run_dir;
  // --images, or --steps at the batch size, as `splatlab train` counts them; set when training starts, since
  // an opened run folder brings its own budget and batch size.
  const bool train_at_start = opt.images > 0 || opt.steps > 0;
  auto set_budget = [&] {
    const long long images = opt.images > 0 ? opt.images : 1LL * opt.steps * training.settings.batch_size;
    training.settings.steps = int(std::min<long long>(images, std::numeric_limits<int>::max()));
  };
  Confirmations confirm;
  ViewerTools tools;
  ViewportTexture compare_texture;
  bool shortcuts_open = false;
  Presenter presenter;
  LineRenderer lines;
  ViewportTexture texture;
  FolderBrowser browser;
  state.view.fps_cap = display_refresh_rate(window);
  const std::filesystem::path view_file = default_view_settings_file();
  try {
    load_view_settings(view_file, state.view);
  } catch (const std::exception& e) {
    state.notes.error(e.what());
  }
  ViewSettings saved_view = state.view;
  if (opt.demo) {
    state.open_demo();
  } else if (!opt.open.empty()) {
    open_path(state, training, opt.open);
  }
  const bool scripted = opt.exit || !opt.screenshot.empty();
  // A script's frames and a budget from the command line stay as they were asked for.
  state.propose_cpu_budget = !scripted && !train_at_start;
  // A budget without a script trains in the background once the scene is there.
  bool train_when_loaded = !scripted && train_at_start;
  // --up applies to the scene once it is there (before a scripted training, which records it).
  bool up_when_loaded = opt.up.has_value();
  const auto apply_up = [&] {
    if (!up_when_loaded || state.loader.busy() || !state.has_content()) return;
    state.set_up_axis(*opt.up);
    up_when_loaded = false;
  };
  if (scripted) {
    state.loader.wait();
    state.poll_loader();
    apply_up();
    while (training.opening_run()) {  // a run folder: shown once its checkpoint is restored
      training.poll(state);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (train_at_start && state.has_content()) {
      set_budget();
      train_scripted(state, training);
      follow_training_evaluation(state, training, tools.compare);
    }
    script_tools(state, tools, opt);
  }

  tools.reset_layout = opt.reset_layout;
  LayoutRect plots_rect;
  int frames_after_load = 0;
  FrameGate gate;
  MotionResolution motion;
  for (bool quit = false; !quit;) {
    // Idle, the loop waits for input (up to 0.1 s, so messages still fade) instead of spinning at
    // full speed where vsync is not available (Xvfb, some remote displays). While training alone
    // it wakes at the idle rate, or at the fps cap while the camera moves (ui/viewport_share.h):
    // often enough for the next snapshot, without taking the cores or the device from training.
    const bool training_runs = training.state() == SessionState::Running;
    const bool busy = scripted || state.loader.busy() || tools.path_export.running() || tools.compare.evaluating() ||
                      input_held();
    if (busy) {
      glfwPollEvents();
    } else if (training_runs) {
      // At the cap while the camera moves (an animation, the last input's frames), else at the idle rate.
      const ViewportShare pace = viewport_share(true, training.device(), state.view.fps_cap, false, 0);
      const bool moving = motion.moving(MotionPolicy{.training = true}, FrameGate::Clock::now());
      glfwWaitEventsTimeout(1.0 / (moving ? pace.policy.fps_cap : pace.idle_hz));
    } else {
      glfwWaitEventsTimeout(0.1);
    }
    if (!events.dropped.empty()) {
      open_path(state, training, events.dropped);
      events.dropped.clear();
    }
    state.poll_loader();
    apply_up();
    if (train_when_loaded && !state.loader.busy()) {
      set_budget();
      if (state.has_content()) training.start(state);
      train_when_loaded = false;
    }
    training.poll(state);
    follow_training_evaluation(state, training, tools.compare);

    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    const ImGuiIO& io = ImGui::GetIO();
    // Closing the window (or File > Quit) while training asks first.
    bool close = !draw_main_menu(state, browser, tools) || glfwWindowShouldClose(window);
    glfwSetWindowShouldClose(window, GLFW_FALSE);
    if (close && training.in_progress()) {
      confirm.quit = true;
      close = false;
    }
    close |= draw_confirmations(state, training, confirm);
    quit = close;
    const float menu_h = ImGui::GetFrameHeight();
    const float panel_w = std::clamp(io.DisplaySize.x * 0.25f, 280.f * ui_scale, 420.f * ui_scale);
    draw_left_column(state, training, tools, confirm, menu_h, panel_w);
    plots_rect = draw_plots_window(training, std::exchange(tools.reset_layout, false), menu_h, panel_w, ui_scale);
    draw_compare_window(state, tools.compare, compare_texture);
    draw_path_export(state, tools.path_export);
    if (auto chosen = browser.draw(state.recent)) open_path(state, training, *chosen);
    draw_shortcut_sheet(shortcuts_open, events.taps);
    draw_loading(state, 0.5f * (panel_w + io.DisplaySize.x), 0.5f * io.DisplaySize.y);
    // Above the Plots window where it lies along the bottom, else at the bottom of the viewport.
    const bool plots_below = plots_rect.y > 0.5f * io.DisplaySize.y && plots_rect.x < 0.5f * io.DisplaySize.x;
    state.notes.draw(panel_w + 8.f, (plots_below ? plots_rect.y : io.DisplaySize.y) - 8.f);

    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    const float ratio = io.DisplaySize.x > 0 ? fb_w / io.DisplaySize.x : 1.f;
    const PixelRect vp{static_cast<int>(panel_w * ratio), 0, fb_w - static_cast<int>(panel_w * ratio),
                       fb_h - static_cast<int>(menu_h * ratio)};
    handle_camera_input(state, vp, io.DeltaTime, ratio, events.taps);
    events.taps.clear();
    const ViewportShare share = viewport_share(training.state() == SessionState::Running, training.device(),
                                               state.view.fps_cap, state.view.pause_while_training,
                                               std::thread::hardware_concurrency());
    state.raster.set_cpu_threads(share.cpu_threads);
    const GatePolicy& policy = share.policy;
    if (state.has_content() && FrameGate::paused(policy)) draw_paused_note(panel_w + 12.f, menu_h + 12.f);
    ImGui::Render();

    glViewport(0, 0, fb_w, fb_h);
    glClearColor(0.08f, 0.08f, 0.09f, 1.f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (state.has_content() && vp.width > 0 && vp.height > 0) {
      try {
        draw_viewport(state, texture, presenter, lines, vp, gate, policy, motion);
      } catch (const std::exception& e) {
        // A failing renderer would fail again every frame: report once and close the content.
        state.notes.error(std::string("rendering failed: ") + e.what());
        state.content = {};
      }
    }
    training.set_interactive(motion.moving(MotionPolicy{.training = true}, FrameGate::Clock::now()));
    glViewport(0, 0, fb_w, fb_h);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

    if (scripted && !state.loader.busy() && ++frames_after_load >= kScriptFrames) {
      if (!opt.screenshot.empty()) {
        try {
          write_png(opt.screenshot, read_back_buffer(fb_w, fb_h));
          std::fprintf(stderr, "splatlab: saved window screenshot %s (%dx%d)\n", opt.screenshot.c_str(), fb_w, fb_h);
        } catch (const std::exception& e) {
          state.notes.error(e.what());
        }
      }
      if (opt.exit) {
        // Where the plots are, for scripted checks of the layout (tests/ui/test_gui_script.cpp).
        std::fprintf(stderr, "splatlab: layout: Plots window %.0f %.0f %.0f %.0f in %.0f x %.0f\n", plots_rect.x,
                     plots_rect.y, plots_rect.w, plots_rect.h, io.DisplaySize.x, io.DisplaySize.y);
        break;
      }
    }
    glfwSwapBuffers(window);
    // Saved once a change is done (not at every step of a slider's drag).
    if (state.view != saved_view && !input_held()) {
      saved_view = state.view;
      try {
        save_view_settings(view_file, saved_view);
      } catch (const std::exception& e) {
        state.notes.error(e.what());
      }
    }
  }
  return scripted && state.notes.error_count() > 0 ? 1 : 0;
}
}  // namespace

int run_viewer(const GuiOptions& opt) {
  glfwSetErrorCallback(print_glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr, "splatlab: cannot open a window (no display? set DISPLAY or run under xvfb-run)\n");
    return 1;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "splatlab", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "splatlab: cannot create a window with an OpenGL 4.5 core context\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(opt.exit ? 0 : 1);
  int code = 1;
  if (!gladLoadGL(glfwGetProcAddress)) {
    std::fprintf(stderr, "splatlab: cannot load the OpenGL 4.5 functions\n");
  } else {
    const std::filesystem::path config_dir = default_view_settings_file().parent_path();
    const std::string ini_file = (config_dir / "imgui.ini").string();
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    // The Plots window's place (and the dialogs') is kept in imgui.ini beside recent.json and view.json;
    // where that folder cannot be made, the layout is simply not kept.
    std::error_code ec;
    std::filesystem::create_directories(config_dir, ec);
    ImGui::GetIO().IniFilename = ec ? nullptr : ini_file.c_str();
    ImGui::StyleColorsDark();
    glfwSetKeyCallback(window, on_key);  // before ImGui's, which chains to it
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 450");
    const float ui_scale = apply_content_scale(window);
    try {
      code = frame_loop(window, opt, ui_scale);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "splatlab: error: %s\n", e.what());
    }
    glfwSetWindowUserPointer(window, nullptr);  // the loop's WindowEvents are gone
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
  }
  glfwDestroyWindow(window);
  glfwTerminate();
  return code;
}

}  // namespace splat::ui
