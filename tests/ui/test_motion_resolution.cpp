// The viewport's scale while the camera moves during training: reduced while moving, full once at rest
// (after rest_after) and whenever training does not run; never above the resting scale.
#include <catch2/catch.hpp>

#include "ui/motion_resolution.h"

using namespace splat::ui;
using namespace std::chrono_literals;

namespace {
const ViewKey kPose{1.f, 2.f, 3.f};
const ViewKey kMoved{1.f, 2.f, 3.5f};
const ViewKey kMovedMore{1.f, 2.f, 4.f};
constexpr MotionPolicy kTraining{.training = true, .rest_scale = 1.f, .moving_scale = 0.5f, .rest_after = 150ms};
const auto t0 = MotionResolution::Clock::time_point{} + 1h;
}  // namespace

TEST_CASE("motion resolution: full scale at first, reduced while the camera moves during training",
          "[ui][motion_resolution]") {
  MotionResolution m;
  CHECK(m.scale(kPose, kTraining, t0) == 1.f);  // the first frame is at rest
  CHECK(m.scale(kPose, kTraining, t0 + 16ms) == 1.f);
  CHECK(m.scale(kMoved, kTraining, t0 + 33ms) == 0.5f);  // moved
  CHECK(m.moving(kTraining, t0 + 33ms));
  CHECK(m.scale(kMovedMore, kTraining, t0 + 50ms) == 0.5f);
  CHECK(m.scale(kMovedMore, kTraining, t0 + 150ms) == 0.5f);  // still within rest_after of the last move
  CHECK(m.scale(kMovedMore, kTraining, t0 + 199ms) == 0.5f);
  CHECK(m.scale(kMovedMore, kTraining, t0 + 200ms) == 1.f);  // rested 150 ms: full scale
  CHECK_FALSE(m.moving(kTraining, t0 + 200ms));
  CHECK(m.scale(kMovedMore, kTraining, t0 + 10s) == 1.f);
  CHECK(m.scale(kPose, kTraining, t0 + 11s) == 0.5f);  // moves again
}

TEST_CASE("motion resolution: full scale without training, whatever the camera does", "[ui][motion_resolution]") {
  MotionResolution m;
  MotionPolicy alone = kTraining;
  alone.training = false;
  CHECK(m.scale(kPose, alone, t0) == 1.f);
  CHECK(m.scale(kMoved, alone, t0 + 16ms) == 1.f);
  CHECK(m.scale(kMovedMore, alone, t0 + 33ms) == 1.f);
  // Training starts while the camera moves: reduced at once; stops: full at once.
  CHECK(m.scale(kPose, kTraining, t0 + 50ms) == 0.5f);
  CHECK(m.scale(kMoved, alone, t0 + 66ms) == 1.f);
}

TEST_CASE("motion resolution: never above the resting scale, both clamped to a sane range", "[ui][motion_resolution]") {
  MotionResolution m;
  MotionPolicy p = kTraining;
  p.rest_scale = 0.4f;  // the user renders below the moving scale anyway
  m.scale(kPose, p, t0);
  CHECK(m.scale(kMoved, p, t0 + 16ms) == 0.4f);
  p.rest_scale = 1.f;
  p.moving_scale = 0.f;
  CHECK(m.scale(kMovedMore, p, t0 + 33ms) == MotionResolution::kMinScale);
  p.rest_scale = 7.f;
  p.moving_scale = 3.f;
  CHECK(m.scale(kPose, p, t0 + 50ms) == 1.f);
  CHECK(m.scale(kPose, p, t0 + 1s) == 1.f);
}
