// The viewport's render gating: renders only for a change, new snapshots at most fps_cap times a
// second while training, nothing while the view is paused during training.
#include <catch2/catch.hpp>

#include "ui/frame_gate.h"

using namespace splat::ui;
using namespace std::chrono_literals;

namespace {
const ViewKey kView{1.f, 2.f, 3.f};
const ViewKey kMoved{1.f, 2.f, 3.5f};
constexpr GatePolicy kTraining{.training = true, .fps_cap = 10, .pause = false};  // 100 ms per snapshot
}  // namespace

TEST_CASE("frame gate renders the first frame and then only for changes", "[ui][frame_gate]") {
  FrameGate gate;
  const auto t0 = FrameGate::Clock::now();
  CHECK(gate.due(kView, 1, {}, t0));
  CHECK_FALSE(gate.due(kView, 1, {}, t0 + 1s));  // nothing changed
  CHECK_FALSE(gate.due(kView, 1, kTraining, t0 + 2s));
  CHECK(gate.due(kMoved, 1, {}, t0 + 2s));
  CHECK(gate.due(kMoved, 2, {}, t0 + 2s));  // not training: a new model renders at once
}

TEST_CASE("frame gate caps new snapshots while training, not the camera", "[ui][frame_gate]") {
  FrameGate gate;
  const auto t0 = FrameGate::Clock::now();
  REQUIRE(gate.due(kView, 1, kTraining, t0));
  CHECK_FALSE(gate.due(kView, 2, kTraining, t0 + 50ms));  // within the cap's interval
  CHECK_FALSE(gate.due(kView, 3, kTraining, t0 + 99ms));
  CHECK(gate.due(kView, 3, kTraining, t0 + 100ms));  // the interval passed: the newest snapshot
  CHECK_FALSE(gate.due(kView, 3, kTraining, t0 + 300ms));  // and only once
  CHECK(gate.due(kMoved, 3, kTraining, t0 + 310ms));  // camera moved: renders regardless of the cap
  CHECK(gate.due(kView, 4, kTraining, t0 + 320ms));   // ... with a new snapshot too
  CHECK_FALSE(gate.due(kView, 5, kTraining, t0 + 330ms));  // the interval counts from the last render
  GatePolicy uncapped = kTraining;
  uncapped.fps_cap = 0;
  CHECK(gate.due(kView, 5, uncapped, t0 + 331ms));
}

TEST_CASE("frame gate renders nothing while the view is paused during training", "[ui][frame_gate]") {
  FrameGate gate;
  const auto t0 = FrameGate::Clock::now();
  GatePolicy paused = kTraining;
  paused.pause = true;
  CHECK(FrameGate::paused(paused));
  CHECK_FALSE(FrameGate::paused(kTraining));
  REQUIRE(gate.due(kView, 1, kTraining, t0));
  CHECK_FALSE(gate.due(kView, 2, paused, t0 + 1s));   // a new snapshot
  CHECK_FALSE(gate.due(kMoved, 3, paused, t0 + 2s));  // the camera moved
  paused.training = false;                            // the run paused or ended: pausing no longer applies
  CHECK_FALSE(FrameGate::paused(paused));
  CHECK(gate.due(kMoved, 3, paused, t0 + 2s));
}

TEST_CASE("frame gate renders again after a failed render", "[ui][frame_gate]") {
  FrameGate gate;
  const auto t0 = FrameGate::Clock::now();
  REQUIRE(gate.due(kView, 1, {}, t0));
  gate.forget();
  CHECK(gate.due(kView, 1, {}, t0));
}
