// PhaseTotals bookkeeping and PhaseTimer on both backends (the trainer's --profile table).
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "kernels/buffer.h"
#include "kernels/phase_timer.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

TEST_CASE("phase totals keep first-seen order, sums, counts and maxima", "[phase_timer]") {
  PhaseTotals t;
  t.add("render", 2.0);
  t.add("adam", 0.5);
  t.add("render", 3.0);
  REQUIRE(t.phases().size() == 2);
  CHECK(t.phases()[0].name == "render");
  CHECK(t.phases()[0].total_ms == 5.0);
  CHECK(t.phases()[0].max_ms == 3.0);
  CHECK(t.phases()[0].count == 2);
  CHECK(t.phases()[1].name == "adam");
  CHECK(t.phases()[1].count == 1);
  CHECK(t.total_ms() == 5.5);
}

TEST_CASE("CPU phase timer attributes host time to the phase it passed in", "[phase_timer]") {
  PhaseTimer timer(Device::CPU);
  CHECK_THROWS_AS(timer.mark("early"), std::logic_error);
  for (int seq = 0; seq < 2; ++seq) {
    timer.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    timer.mark("slow");
    timer.mark("quick");
    timer.collect();
  }
  const auto& p = timer.totals().phases();
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "slow");
  CHECK(p[0].count == 2);
  CHECK(p[0].total_ms >= 40.0);  // only a lower bound: a loaded machine may sleep longer
  CHECK(p[1].name == "quick");
  CHECK(p[1].total_ms < p[0].total_ms);
}

TEST_CASE("CUDA phase timer measures enqueued work between its marks", "[phase_timer][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA phase timer")) return;
  PhaseTimer timer(Device::CUDA);
  Buffer<float> big(Device::CUDA, size_t(1) << 28);  // 1 GiB: clearing it takes a visible time
  timer.start();
  timer.mark("nothing");
  big.zero();
  timer.mark("clear");
  timer.collect();
  const auto& p = timer.totals().phases();
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "nothing");
  CHECK(p[1].name == "clear");
  CHECK(p[1].total_ms > 0.02);  // 1 GiB at a few TB/s is ~0.3 ms
  CHECK(p[1].total_ms > p[0].total_ms);
}

TEST_CASE("CPU step marks give the newest sequence's durations, none before one completes", "[phase_timer]") {
  CHECK_THROWS_AS(StepMarks(Device::CPU, 1), std::invalid_argument);
  StepMarks marks(Device::CPU, 3);
  CHECK_FALSE(marks.latest());
  CHECK_THROWS_AS(marks.mark(1), std::logic_error);  // a sequence begins with mark 0
  marks.mark(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  marks.mark(1);
  CHECK_FALSE(marks.latest());  // mark 2 still to come
  marks.mark(2);
  auto first = marks.latest();
  REQUIRE(first);
  REQUIRE(first->size() == 2);
  CHECK((*first)[0] >= 20.0);  // a lower bound only: a loaded machine may sleep longer
  CHECK((*first)[1] < (*first)[0]);
  // A second sequence replaces the first once complete.
  marks.mark(0);
  marks.mark(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(marks.latest() == first);
  marks.mark(2);
  const auto second = marks.latest();
  REQUIRE(second);
  CHECK((*second)[1] >= 20.0);
  CHECK((*second)[0] < (*second)[1]);
}

TEST_CASE("CUDA step marks read finished sequences without waiting for running ones", "[phase_timer][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA step marks")) return;
  StepMarks marks(Device::CUDA, 2);
  Buffer<float> big(Device::CUDA, size_t(1) << 28);  // 1 GiB: clearing it takes a visible time
  marks.mark(0);
  big.zero();
  marks.mark(1);
  cudaDeviceSynchronize();  // the sequence is complete
  const auto done = marks.latest();
  REQUIRE(done);
  CHECK((*done)[0] > 0.02);  // 1 GiB at a few TB/s is ~0.3 ms
  // A sequence still running on the device leaves the finished one in place.
  for (int k = 0; k < 3; ++k) {
    marks.mark(0);
    for (int j = 0; j < 20; ++j) big.zero();
    marks.mark(1);
    const auto now = marks.latest();  // enqueued 20 clears (~6 ms) ago: not finished yet
    REQUIRE(now);
    CHECK(now->size() == 1);
  }
  cudaDeviceSynchronize();
  const auto last = marks.latest();
  REQUIRE(last);
  CHECK((*last)[0] > 10 * (*done)[0]);  // the 20-clear sequence, not the 1-clear one
}

TEST_CASE("CPU step marks hand out every completed sequence once, oldest first", "[phase_timer]") {
  StepMarks marks(Device::CPU, 2);
  CHECK(marks.take_completed().empty());
  CHECK(marks.sequence() == 0);
  marks.mark(0);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  marks.mark(1);
  marks.mark(0);
  marks.mark(1);
  marks.mark(0);  // a third sequence, not complete
  CHECK(marks.sequence() == 3);
  const auto taken = marks.take_completed();
  REQUIRE(taken.size() == 2);
  CHECK(taken[0].ms[0] >= 30.0);          // the slept sequence first
  CHECK(taken[1].ms[0] < taken[0].ms[0]);  // then the quick one
  CHECK(taken[0].sequence == 1);
  CHECK(taken[1].sequence == 2);
  CHECK(marks.latest() == taken[1].ms);   // the newest is the last handed out
  CHECK(marks.take_completed().empty());
  marks.mark(1);
  const auto third = marks.take_completed();
  REQUIRE(third.size() == 1);
  CHECK(third[0].sequence == 3);
  CHECK(marks.lost() == 0);
  // A caller that reads only latest() leaves at most kSlots sequences held.
  for (int k = 0; k < StepMarks::kSlots + 8; ++k) {
    marks.mark(0);
    marks.mark(1);
    CHECK(marks.latest());
  }
  CHECK(marks.take_completed().size() == size_t(StepMarks::kSlots));
}

TEST_CASE("CUDA step marks measure every sequence the host ran ahead of the device", "[phase_timer][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA step marks ahead")) return;
  StepMarks marks(Device::CUDA, 2);
  Buffer<float> big(Device::CUDA, size_t(1) << 28);  // 1 GiB: clearing it takes a visible time
  Buffer<float> small(Device::CUDA, 1024);
  // Ten sequences enqueued behind 20 clears (~6 ms): the host is ten steps ahead when it marks the last.
  for (int j = 0; j < 20; ++j) big.zero();
  for (int k = 0; k < 10; ++k) {
    marks.mark(0);
    small.zero();
    marks.mark(1);
  }
  cudaDeviceSynchronize();
  const auto ten = marks.take_completed();
  REQUIRE(ten.size() == 10);
  for (size_t k = 0; k < ten.size(); ++k) CHECK(ten[k].sequence == k + 1);
  CHECK(marks.lost() == 0);
  // More sequences ahead than the ring holds: the oldest are overwritten and counted as lost.
  const int many = StepMarks::kSlots + 8;
  for (int j = 0; j < 20; ++j) big.zero();
  for (int k = 0; k < many; ++k) {
    marks.mark(0);
    small.zero();
    marks.mark(1);
  }
  cudaDeviceSynchronize();
  const size_t taken = marks.take_completed().size();
  CHECK(taken + marks.lost() == size_t(many));
  CHECK(marks.lost() >= 8);
}
