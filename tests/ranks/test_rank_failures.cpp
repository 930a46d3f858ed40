// A rank that fails, hangs or leaves early stops every other rank with an error naming it, well within
// the timeout where the failure is known (a throw, an early return) and at the timeout where it is not
// (a rank that never arrives): no rank waits forever.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "core/transport/run_ranks.h"
#include "tests/ranks/rank_outcome.h"
#include "kernels/buffer.h"

using namespace splat;
using namespace splat::transport;
using Clock = std::chrono::steady_clock;

namespace {

const ContextFor on_cpu = [](int) { return kernels::ComputeContext(kernels::Device::CPU); };

using Outcome = test::RankOutcome;

Outcome run_and_catch(int ranks, const std::function<void(Communicator&)>& work, CommOptions options) {
  return test::catch_ranks(ranks, [&](Communicator& comm, ControlChannel&) { work(comm); }, options);
}

}  // namespace

TEST_CASE("a rank that throws stops every other rank at once, with an error naming it", "[dist]") {
  for (const int ranks : {2, 3, 4}) {
    INFO(ranks << " ranks");
    const int bad = ranks - 1;
    const Outcome out = run_and_catch(ranks, [&](Communicator& comm) {
      std::vector<float> v(4, 1.f);
      comm.all_reduce_sum(std::span<float>(v));  // one collective that succeeds first
      if (comm.rank() == bad) throw std::runtime_error("out of memory on purpose");
      std::vector<int64_t> counts(comm.size(), 0), received(comm.size());
      comm.all_to_all_counts(counts.data(), received.data());  // the others wait here for the bad rank
    }, CommOptions{std::chrono::seconds(60)});

    const std::string bad_name = "rank " + std::to_string(bad) + " (CPU)";
    CHECK(out.seconds < 10);  // the abort flag, not the 60 s timeout, ended it
    CHECK(out.failed_rank == bad);
    CHECK(out.error == bad_name + " failed: out of memory on purpose");
    CHECK(out.nested == "out of memory on purpose");  // the original exception travels nested
    for (int r = 0; r < ranks; ++r) {
      INFO("rank " << r);
      if (r == bad) CHECK(out.rank_errors[r].empty());
      else CHECK_THAT(out.rank_errors[r], Catch::Contains("stopped in all_to_all_v because " + bad_name +
                                                          " failed: out of memory on purpose"));
    }
  }
}

TEST_CASE("a rank that never arrives makes the others time out, naming it", "[dist]") {
  std::atomic<int> gave_up{0};
  const Outcome out = run_and_catch(3, [&](Communicator& comm) {
    if (comm.rank() == 1) {
      // Stuck (as on a hung device) until both others have given up, then tries to carry on.
      const auto limit = Clock::now() + std::chrono::seconds(20);
      while (gave_up.load() < 2 && Clock::now() < limit) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      comm.barrier();
      return;
    }
    try {
      comm.barrier();
    } catch (const CommError&) {
      gave_up.fetch_add(1);
      throw;
    }
  }, CommOptions{std::chrono::milliseconds(300)});

  CHECK(gave_up.load() == 2);
  CHECK(out.seconds < 10);
  CHECK(out.failed_rank == 1);
  CHECK_THAT(out.error, Catch::Contains("rank 1 (CPU)") && Catch::Contains("did not reach all_reduce_sum(int64) within 0.3 s"));
  CHECK_THAT(out.rank_errors[0] + out.rank_errors[2], Catch::Contains("waited for rank 1 (CPU)"));
  CHECK_THAT(out.rank_errors[1], Catch::Contains("rank 1 (CPU) in all_reduce_sum(int64)"));  // its late call fails too
}

TEST_CASE("a rank that returns while the others wait for it stops them at once", "[dist]") {
  const Outcome out = run_and_catch(3, [](Communicator& comm) {
    if (comm.rank() == 0) return;  // skips the collective the others are in
    comm.barrier();
  }, CommOptions{std::chrono::seconds(60)});
  CHECK(out.seconds < 10);
  CHECK(out.failed_rank == 0);
  CHECK_THAT(out.error, Catch::Contains("rank 0 (CPU) failed: stopped calling collectives while rank"));
  CHECK_THAT(out.rank_errors[1], Catch::Contains("because rank 0 (CPU) failed"));
}

TEST_CASE("ranks that finish together are no failure, and an out-of-memory keeps its type nested", "[dist]") {
  CHECK_NOTHROW(run_ranks(3, on_cpu, [](Communicator& comm) { comm.barrier(); }));
  try {
    run_ranks(2, on_cpu, [](Communicator& comm) {
      if (comm.rank() == 0) throw kernels::OutOfMemory("out of memory: 3 GiB on the test device");
      comm.barrier();
    });
    FAIL("run_ranks returned");
  } catch (const CommError& e) {
    CHECK(e.failed_rank() == 0);
    CHECK_THROWS_AS(std::rethrow_if_nested(e), kernels::OutOfMemory);
  }
}
