// The viewport's share of the machine while training: on the CPU backend a lower frame rate and a
// quarter of the cores for the viewer's rasterizer; on CUDA, or without training, the user's settings.
#include <catch2/catch.hpp>

#include "ui/viewport_share.h"

using splat::kernels::Device;
using namespace splat::ui;

TEST_CASE("viewport share: CPU training caps the frame rate and the viewer's threads", "[ui][viewport_share]") {
  const ViewportShare s = viewport_share(true, Device::CPU, 60, false, 16);
  CHECK(s.policy.training);
  CHECK(s.policy.fps_cap == Approx(kCpuTrainingFps));
  CHECK(s.cpu_threads == 4);
  CHECK(viewport_share(true, Device::CPU, 5, true, 16).policy.fps_cap == Approx(5));  // a lower cap stays
  CHECK(viewport_share(true, Device::CPU, 5, true, 16).policy.pause);
  CHECK(viewport_share(true, Device::CPU, 60, false, 2).cpu_threads == 1);  // at least one
  CHECK(viewport_share(true, Device::CPU, 60, false, 0).cpu_threads == 1);  // unknown core count
}

TEST_CASE("viewport share: CUDA training and an idle CPU keep the user's cap and every core",
          "[ui][viewport_share]") {
  const ViewportShare cuda = viewport_share(true, Device::CUDA, 144, false, 16);
  CHECK(cuda.policy.fps_cap == Approx(144));
  CHECK(cuda.cpu_threads == 0);
  const ViewportShare idle = viewport_share(false, Device::CPU, 60, false, 16);
  CHECK_FALSE(idle.policy.training);
  CHECK(idle.policy.fps_cap == Approx(60));
  CHECK(idle.cpu_threads == 0);
}

TEST_CASE("viewport share: while training the window redraws at the idle rate, never above the cap",
          "[ui][viewport_share]") {
  for (const Device d : {Device::CUDA, Device::CPU}) {
    CHECK(viewport_share(true, d, 60, false, 16).idle_hz == Approx(kTrainingIdleHz));
    CHECK(viewport_share(true, d, 5, false, 16).idle_hz == Approx(5));  // a lower cap stays
    CHECK(viewport_share(false, d, 60, false, 16).idle_hz == Approx(60));  // not training: the cap
  }
  CHECK(kTrainingIdleHz < 60);
}
