#pragma once
// What the viewport may take from training. On CUDA the viewer renders on its own low-priority stream
// and the frame gate's fps cap is the user's. On the CPU backend the viewer's rasterizer, the GUI frames
// and the trainer share the same cores: a viewport that redraws at the display's rate with every core
// cut interactive CPU training to a third of its scripted speed. So while the CPU trains the frame loop
// wakes and renders new snapshots at most kCpuTrainingFps times a second (a changed view still renders
// at once: ui/frame_gate.h), and the viewer's rasterizer runs on a quarter of the cores.
// No GL or ImGui here, so the decision is tested without a window.
#include "kernels/device_context.h"
#include "ui/frame_gate.h"

namespace splat::ui {

inline constexpr double kCpuTrainingFps = 10;
// The window's redraw rate while training with nothing moving (ViewportShare::idle_hz).
inline constexpr double kTrainingIdleHz = 10;

struct ViewportShare {
  GatePolicy policy;    // for the frame gate; policy.fps_cap also paces the frame loop while training
  // While training with nothing moving, the window redraws (ImGui, the present) this often instead of
  // at the cap: every present of the GL context makes the GPU switch from training's CUDA work to GL
  // and back, which at 60 Hz cost an idle viewer's training several % (bench/VIEWER.md). Input wakes
  // the loop at once, and snapshots still show within 1 / idle_hz.
  double idle_hz = 60;
  int cpu_threads = 0;  // for the viewer's CPU rasterizer (make_cpu_rasterizer: 0 = every core)
};

// training: a session is running on `device`; fps_cap and pause are the View panel's settings;
// hardware_threads the machine's (std::thread::hardware_concurrency, 0 when unknown).
ViewportShare viewport_share(bool training, kernels::Device device, int fps_cap, bool pause, unsigned hardware_threads);

}  // namespace splat::ui
