// The TCP rendezvous of processes no MPI launcher wired up (core/transport/tcp/tcp_group.h), its ranks run
// here as threads meeting on 127.0.0.1: the setup's barrier and sums, NCCL's 128-byte id handed out, rank
// 0's control blocks in order without rank 0 waiting, and no rank waiting forever: a rank that leaves fails
// the others naming it, and a rank 0 that is not there, or silent, times out naming the address.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/transport/tcp/tcp_group.h"

using namespace splat::transport;
using namespace std::chrono_literals;

namespace {

const TcpOptions kQuick{.meet = 10s, .wait = 10s};

// What each rank's own work threw (empty: nothing).
struct Outcome {
  std::vector<std::string> errors;
  std::vector<int> failed_ranks;
};

// `ranks` threads meeting at a free port of 127.0.0.1, each running work(its group) and then leaving
// (its sockets closed).
Outcome run_tcp_ranks(int ranks, const std::function<void(ProcessGroup&)>& work, const TcpOptions& options = kQuick) {
  Socket listener = listen_tcp(0);
  const TcpAddress root{"127.0.0.1", bound_port(listener)};
  Outcome out{std::vector<std::string>(ranks), std::vector<int>(ranks, -2)};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        const std::unique_ptr<ProcessGroup> group =
            r == 0 ? meet_over_tcp_as_root(std::move(listener), root, ranks, options)
                   : meet_over_tcp(root, r, ranks, options);
        work(*group);
      } catch (const CommError& e) {
        out.errors[r] = e.what();
        out.failed_ranks[r] = e.failed_rank();
      } catch (const std::exception& e) {
        out.errors[r] = std::string("not a CommError: ") + e.what();
      }
    });
  for (std::thread& t : threads) t.join();
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A port of 127.0.0.1 on which nothing listens (it did a moment ago).
int closed_port() { return bound_port(listen_tcp(0)); }

}  // namespace

TEST_CASE("tcp rendezvous: barrier, sums and a 128-byte broadcast agree on 1 to 4 ranks of 127.0.0.1", "[dist][tcp]") {
  for (const int ranks : {1, 2, 3, 4}) {
    INFO(ranks << " ranks");
    std::vector<std::vector<int64_t>> sums(ranks);
    std::vector<std::vector<std::byte>> ids(ranks);
    const Outcome out = run_tcp_ranks(ranks, [&](ProcessGroup& group) {
      const int r = group.rank();
      CHECK(group.size() == ranks);
      group.barrier();
      for (int round = 0; round < 3; ++round) {
        std::vector<int64_t> v{r + 1, int64_t{1} << (40 + r), -round * r};
        group.all_reduce_sum(v);
        if (round == 2) sums[r] = v;
      }
      std::vector<std::byte> id(128, std::byte{0});
      if (r == 0)
        for (size_t i = 0; i < id.size(); ++i) id[i] = std::byte(static_cast<unsigned char>(i * 7 + 3));
      group.broadcast(id);
      ids[r] = id;
      group.barrier();
    });
    int64_t high = 0;
    for (int r = 0; r < ranks; ++r) high += int64_t{1} << (40 + r);
    const std::vector<int64_t> expected{ranks * (ranks + 1) / 2, high, -2 * (ranks * (ranks - 1) / 2)};
    for (int r = 0; r < ranks; ++r) {
      INFO("rank " << r);
      CHECK(out.errors[r].empty());
      CHECK(sums[r] == expected);
      CHECK(ids[r] == ids[0]);
    }
    CHECK(static_cast<int>(ids[0][5]) == 38);
  }
}

TEST_CASE("tcp rendezvous: rank 0's control blocks reach every rank in order while rank 0 goes on", "[dist][tcp]") {
  constexpr int kRanks = 3, kBlocks = 6;
  std::vector<std::vector<int64_t>> seen(kRanks);
  double root_seconds = -1;
  const Outcome out = run_tcp_ranks(kRanks, [&](ProcessGroup& group) {
    const std::unique_ptr<ControlChannel> channel = group.make_control_channel({.timeout = 10s});
    // The others take their first block only after a while: rank 0 sends every block before that.
    if (group.rank() != 0) std::this_thread::sleep_for(300ms);
    const auto start = std::chrono::steady_clock::now();
    for (int64_t block = 0; block < kBlocks; ++block) {
      std::vector<int64_t> v{100 * block + group.rank(), -group.rank()};
      channel->share(v);
      seen[group.rank()].insert(seen[group.rank()].end(), v.begin(), v.end());
    }
    if (group.rank() == 0) root_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    group.barrier();
  });
  for (int r = 0; r < kRanks; ++r) {
    INFO("rank " << r);
    CHECK(out.errors[r].empty());
    CHECK(seen[r] == seen[0]);
  }
  CHECK(seen[0].size() == 2 * kBlocks);
  CHECK(seen[0][2] == 100);
  CHECK(root_seconds >= 0);
  CHECK(root_seconds < 0.25);  // rank 0 did not wait for the sleeping ranks
}

TEST_CASE("tcp rendezvous: a rank that leaves fails every other rank's wait, naming it", "[dist][tcp]") {
  SECTION("in a sum: rank 0 sees it go and tells the others") {
    const Outcome out = run_tcp_ranks(3, [](ProcessGroup& group) {
      group.barrier();
      if (group.rank() == 2) return;  // leaves: its connection closes
      std::vector<int64_t> v{1};
      group.all_reduce_sum(v);
      FAIL("the sum completed without rank 2");
    });
    CHECK(out.errors[2].empty());
    for (int r : {0, 1}) {
      INFO("rank " << r << ": " << out.errors[r]);
      CHECK(out.failed_ranks[r] == 2);
      CHECK(contains(out.errors[r], "rank 2 left the job (its connection closed) during all_reduce_sum"));
    }
  }
  SECTION("on the control channel: rank 0 sending, another rank waiting") {
    const Outcome out = run_tcp_ranks(3, [](ProcessGroup& group) {
      const std::unique_ptr<ControlChannel> channel = group.make_control_channel({.timeout = 10s});
      std::vector<int64_t> v{7};
      channel->share(v);
      group.barrier();
      if (group.rank() == 1) return;  // leaves after the first block
      if (group.rank() == 0) std::this_thread::sleep_for(200ms);  // rank 1 has gone by now
      for (int block = 0; block < 3; ++block) channel->share(v);
      FAIL("the control channel went on without rank 1");
    });
    CHECK(out.errors[1].empty());
    for (int r : {0, 2}) {
      INFO("rank " << r << ": " << out.errors[r]);
      CHECK(out.failed_ranks[r] == 1);
      CHECK(contains(out.errors[r], "rank 1 left the job"));
    }
  }
  SECTION("rank 0 itself") {
    const Outcome out = run_tcp_ranks(2, [](ProcessGroup& group) {
      const std::unique_ptr<ControlChannel> channel = group.make_control_channel({.timeout = 10s});
      if (group.rank() == 0) return;
      std::vector<int64_t> v{7};
      channel->share(v);
      FAIL("a block came from a rank 0 that left");
    });
    INFO(out.errors[1]);
    CHECK(out.failed_ranks[1] == 0);
    CHECK(contains(out.errors[1], "rank 0 at 127.0.0.1:"));
    CHECK(contains(out.errors[1], "left the job"));
  }
}

TEST_CASE("tcp rendezvous: no rank waits forever, and the timeouts name the address and the rank", "[dist][tcp]") {
  SECTION("rank 0 not listening") {
    const TcpAddress nowhere{"127.0.0.1", closed_port()};
    const auto start = std::chrono::steady_clock::now();
    try {
      meet_over_tcp(nowhere, 1, 2, {.meet = 500ms, .wait = 10s});
      FAIL("met a rank 0 that is not there");
    } catch (const CommError& e) {
      INFO(e.what());
      CHECK(e.failed_rank() == 0);
      CHECK(contains(e.what(), "rank 1 could not reach rank 0 at " + nowhere.text() + " (MASTER_ADDR:MASTER_PORT)"));
    }
    CHECK(std::chrono::steady_clock::now() - start < 5s);
  }
  SECTION("a rank that never joins") {
    Socket listener = listen_tcp(0);
    const TcpAddress root{"127.0.0.1", bound_port(listener)};
    std::thread one([&] { meet_over_tcp(root, 1, 3, kQuick); });
    try {
      meet_over_tcp_as_root(std::move(listener), root, 3, {.meet = 500ms, .wait = 10s});
      FAIL("met without rank 2");
    } catch (const CommError& e) {
      INFO(e.what());
      CHECK(e.failed_rank() == 2);
      CHECK(contains(e.what(), root.text()));
      CHECK(contains(e.what(), "2 of 3 ranks joined"));
      CHECK(contains(e.what(), "missing rank(s) 2"));
    }
    one.join();
  }
  SECTION("a rank 0 that sends no control block") {
    const Outcome out = run_tcp_ranks(2, [](ProcessGroup& group) {
      const std::unique_ptr<ControlChannel> channel = group.make_control_channel({.timeout = 300ms});
      if (group.rank() == 0) {
        std::this_thread::sleep_for(1s);  // stuck, though still connected
        return;
      }
      std::vector<int64_t> v{7};
      channel->share(v);
    });
    INFO(out.errors[1]);
    CHECK(out.failed_ranks[1] == 0);
    CHECK(contains(out.errors[1], "rank 0 at 127.0.0.1:"));
    CHECK(contains(out.errors[1], "sent nothing during the control channel until the timeout"));
  }
}
