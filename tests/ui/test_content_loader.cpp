// ContentLoader's progress: what a job reports on its worker thread is what the GUI thread reads,
// and a job that reports nothing (or a finished one) gives no fraction.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <thread>

#include "ui/viewer_content.h"

using namespace splat::ui;

namespace {
// Polls until the loader shows `done` of `total` or two seconds pass.
bool shows(const ContentLoader& loader, int64_t done, int64_t total) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < until) {
    const auto p = loader.progress();
    if (p && p->done == done && p->total == total) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}
}  // namespace

TEST_CASE("content loader shows the fraction its job reports", "[ui][loader]") {
  ContentLoader loader;
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  loader.start("job", [gate](const LoadProgressFn& report) {
    report(3, 8);
    gate.wait();
    return ViewerContent{"job", nullptr, nullptr};
  });
  REQUIRE(loader.busy());
  CHECK(shows(loader, 3, 8));
  release.set_value();
  loader.wait();
  REQUIRE(loader.take_if_ready()->source == "job");
  CHECK_FALSE(loader.progress());

  SECTION("a job that reports nothing has no fraction, not the previous job's") {
    std::promise<void> release2;
    std::shared_future<void> gate2 = release2.get_future().share();
    loader.start("silent", [gate2](const LoadProgressFn&) {
      gate2.wait();
      return ViewerContent{"silent", nullptr, nullptr};
    });
    CHECK_FALSE(loader.progress());
    release2.set_value();
    loader.wait();
    CHECK(loader.take_if_ready()->source == "silent");
  }
}
