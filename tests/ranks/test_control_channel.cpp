// The ranks' control channel (core/transport/control_channel.h) between rank threads: rank 0's blocks reach
// every other rank in order, rank 0 never waits for them, and no rank waits forever: a failed rank, a rank 0
// that leaves or sends nothing within the timeout release the waiting ranks with an error naming it.
#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/transport/run_ranks.h"
#include "tests/ranks/rank_outcome.h"

using namespace splat;
using namespace splat::transport;

namespace {

const ContextFor on_cpu = [](int) { return kernels::ComputeContext(kernels::Device::CPU); };

using Outcome = test::RankOutcome;

Outcome run_and_catch(int ranks, const std::function<void(int rank, ControlChannel&)>& work, CommOptions options) {
  return test::catch_ranks(ranks, [&](Communicator& comm, ControlChannel& channel) { work(comm.rank(), channel); },
                           options);
}

}  // namespace

TEST_CASE("control channel: every rank gets rank 0's blocks, in order (2, 3, 4 CPU ranks)", "[dist][control]") {
  for (const int ranks : {2, 3, 4}) {
    INFO(ranks << " ranks");
    std::vector<std::vector<int64_t>> seen(ranks);
    run_ranks_with_control(ranks, on_cpu, [&](Communicator& comm, ControlChannel& channel) {
      // Rank 0 sends all its blocks without waiting; each other rank starts from its own values and takes
      // rank 0's, one block per call.
      for (int64_t block = 0; block < 5; ++block) {
        std::vector<int64_t> v{10 * block + comm.rank(), -3 * comm.rank(), 7};
        channel.share(v);
        seen[comm.rank()].insert(seen[comm.rank()].end(), v.begin(), v.end());
      }
    });
    for (int r = 0; r < ranks; ++r)
      CHECK(seen[r] == std::vector<int64_t>{0, 0, 7, 10, 0, 7, 20, 0, 7, 30, 0, 7, 40, 0, 7});
  }
  std::vector<int64_t> alone{4, 5};
  make_solo_control_channel()->share(alone);  // one rank: its own decision
  CHECK(alone == std::vector<int64_t>{4, 5});
}

TEST_CASE("control channel: a failed rank releases the ranks waiting for a block, naming it", "[dist][control]") {
  SECTION("rank 0 fails before it sends") {
    const Outcome out = run_and_catch(3, [](int rank, ControlChannel& channel) {
      if (rank == 0) throw std::runtime_error("cannot decide on purpose");
      std::vector<int64_t> v(4);
      channel.share(v);
    }, CommOptions{std::chrono::seconds(60)});
    CHECK(out.seconds < 10);  // the abort flag, not the 60 s timeout, ended it
    CHECK(out.failed_rank == 0);
    CHECK(out.error == "rank 0 (CPU) failed: cannot decide on purpose");
    for (int r : {1, 2})
      CHECK_THAT(out.rank_errors[r], Catch::Contains("rank " + std::to_string(r) +
                                                     " (CPU) stopped in the control channel because rank 0 (CPU) "
                                                     "failed: cannot decide on purpose"));
  }
  SECTION("another rank fails: rank 0's next send reports it") {
    const Outcome out = run_and_catch(3, [](int rank, ControlChannel& channel) {
      std::vector<int64_t> v(2, 1);
      channel.share(v);
      if (rank == 2) throw std::runtime_error("step failed on purpose");
      // Rank 1 waits for a block that rank 0 never manages to send.
      for (int i = 0; i < 1000; ++i) {
        channel.share(v);
        if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }, CommOptions{std::chrono::seconds(60)});
    CHECK(out.seconds < 10);
    CHECK(out.failed_rank == 2);
    CHECK(out.error == "rank 2 (CPU) failed: step failed on purpose");
    CHECK_THAT(out.rank_errors[0], Catch::Contains("because rank 2 (CPU) failed"));
  }
  SECTION("rank 0 returns while the others wait") {
    const Outcome out = run_and_catch(2, [](int rank, ControlChannel& channel) {
      if (rank == 0) return;
      std::vector<int64_t> v(1);
      channel.share(v);
    }, CommOptions{std::chrono::seconds(60)});
    CHECK(out.seconds < 10);
    CHECK(out.failed_rank == 0);
    CHECK_THAT(out.error, Catch::Contains("rank 0 (CPU) failed: stopped sending decisions while rank 1 (CPU) waited"));
  }
  SECTION("rank 0 sends nothing within the timeout") {
    const Outcome out = run_and_catch(2, [](int rank, ControlChannel& channel) {
      std::vector<int64_t> v(1);
      if (rank == 0) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        channel.share(v);  // too late: the group has failed
        return;
      }
      channel.share(v);
    }, CommOptions{std::chrono::milliseconds(200)});
    CHECK(out.failed_rank == 0);
    CHECK_THAT(out.error, Catch::Contains("rank 0 (CPU)") && Catch::Contains("sent no decision within 0.2 s"));
  }
}
