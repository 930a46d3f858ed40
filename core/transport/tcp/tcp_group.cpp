#include "core/transport/tcp/tcp_group.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/transport/tcp/tcp_links.h"

namespace splat::transport {

namespace {

using Clock = std::chrono::steady_clock;

std::string seconds(std::chrono::milliseconds t) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", std::chrono::duration<double>(t).count());
  return text;
}

std::span<const std::byte> bytes_of(const auto& value) { return std::as_bytes(std::span(&value, 1)); }

// Rank 0's end: a connection from every other rank, each announcing its rank and the job size.
std::vector<Socket> accept_ranks(const Socket& listener, const TcpAddress& root, int size, const TcpOptions& options) {
  std::vector<Socket> links(static_cast<size_t>(size));
  const Deadline deadline = Clock::now() + options.meet;
  for (int joined = 1; joined < size;) {
    Socket link = accept_tcp(listener, deadline);
    if (!link.open()) {
      std::string missing;
      int first = -1;
      for (int r = 1; r < size; ++r)
        if (!links[static_cast<size_t>(r)].open()) {
          missing += (missing.empty() ? "" : ", ") + std::to_string(r);
          if (first < 0) first = r;
        }
      throw CommError("rank 0 listening on port " + std::to_string(root.port) + " (MASTER_ADDR:MASTER_PORT " +
                          root.text() + "): " + std::to_string(joined) + " of " + std::to_string(size) +
                          " ranks joined within " + seconds(options.meet) + "; missing rank(s) " + missing +
                          " (started? given this MASTER_ADDR and MASTER_PORT?)",
                      first);
    }
    // What the connection says it is; a stray connection that says nothing sensible is dropped.
    struct {
      uint32_t kind;
      int32_t rank;
      uint64_t bytes;
      int64_t size;
    } hello{};
    if (receive_all(link, &hello, sizeof hello, Clock::now() + std::chrono::seconds(10)) != Io::Done ||
        hello.kind != static_cast<uint32_t>(TcpKind::Hello) || hello.bytes != sizeof(int64_t))
      continue;
    const std::string who = "a process joining " + root.text() + " as rank " + std::to_string(hello.rank);
    if (hello.size != size)
      throw CommError(who + " was started for a job of " + std::to_string(hello.size) + " ranks, rank 0 for " +
                          std::to_string(size) + " (WORLD_SIZE or SLURM_NTASKS differ)",
                      hello.rank);
    if (hello.rank < 1 || hello.rank >= size || links[static_cast<size_t>(hello.rank)].open())
      throw CommError(who + ": " + (hello.rank >= 1 && hello.rank < size ? "that rank has joined already" : "no such rank"),
                      -1);
    links[static_cast<size_t>(hello.rank)] = std::move(link);
    ++joined;
  }
  return links;
}

class TcpGroup final : public ProcessGroup {
 public:
  TcpGroup(std::shared_ptr<TcpLinks> links, const TcpOptions& options)
      : links_(std::move(links)), options_(options), host_(host_name()) {}

  int rank() const override { return links_->rank(); }
  int size() const override { return links_->size(); }

  void barrier() override {
    int64_t nothing = 0;  // a sum of one zero: every rank has sent, and rank 0 has answered every rank
    gather_and_answer(TcpKind::Barrier, std::span(&nothing, 1));
  }
  void all_reduce_sum(std::span<int64_t> values) override { gather_and_answer(TcpKind::Sum, values); }

  void broadcast(std::span<std::byte> bytes) override {
    const char* op = tcp_kind_name(TcpKind::Broadcast);
    if (rank() == 0) {
      for (const int p : links_->peers()) links_->send(p, TcpKind::Broadcast, bytes, deadline(), op);
      return;
    }
    const std::vector<std::byte> got = links_->receive(0, TcpKind::Broadcast, answer_deadline(), op);
    check_count(got.size(), bytes.size(), op);
    std::copy(got.begin(), got.end(), bytes.begin());
  }

  std::unique_ptr<ControlChannel> make_control_channel(const CommOptions& options) override;

  bool carries_cpu_training() const override { return false; }
  std::unique_ptr<Communicator> make_cpu_communicator(const CommOptions&) override {
    throw std::logic_error("processes that met over TCP carry no CPU training data");
  }

  std::string describe(const kernels::ComputeContext& where) const override {
    return describe_rank(rank(), where) + " on host " + host_;
  }

  void end(const std::string& reason, const kernels::ComputeContext& where) override {
    const std::string line = describe(where) + " failed: " + reason;
    std::fprintf(stderr, "error: %s; ending the job\n", line.c_str());
    std::fflush(stdout);
    std::fflush(stderr);
    links_->notify_and_close(rank(), line);
    // Without unwinding: threads of the failed training (NCCL's among them) may still hold its state.
    std::_Exit(1);
  }

 private:
  Deadline deadline() const { return Clock::now() + options_.wait; }
  // A rank waiting on rank 0's answer waits longer than rank 0 waits on the ranks, so that when one of
  // them hangs, rank 0's notice naming it arrives before this rank would blame rank 0.
  Deadline answer_deadline() const { return deadline() + std::max<std::chrono::milliseconds>(options_.wait / 10, std::chrono::seconds(1)); }

  void check_count(size_t got, size_t expected, const char* op) {
    if (got != expected)
      links_->fail(CommError(std::string(op) + ": rank 0 sent " + std::to_string(got) + " bytes, rank " +
                                 std::to_string(rank()) + " expected " + std::to_string(expected) +
                                 " (the processes run different programs or arguments)",
                             -1));
  }

  // Every rank's values to rank 0, which adds them in rank order and sends the sum back to every rank.
  void gather_and_answer(TcpKind kind, std::span<int64_t> values) {
    const char* op = tcp_kind_name(kind);
    const auto payload = std::as_bytes(std::span<const int64_t>(values));
    if (rank() != 0) {
      links_->send(0, kind, payload, deadline(), op);
      const std::vector<std::byte> sum = links_->receive(0, kind, answer_deadline(), op);
      check_count(sum.size(), payload.size(), op);
      std::copy(sum.begin(), sum.end(), std::as_writable_bytes(values).begin());
      return;
    }
    const Deadline until = deadline();
    for (const int p : links_->peers()) {
      const std::vector<std::byte> theirs = links_->receive(p, kind, until, op);
      if (theirs.size() != payload.size())
        links_->fail(CommError(std::string(op) + ": rank " + std::to_string(p) + " sent " +
                                   std::to_string(theirs.size() / sizeof(int64_t)) + " values, rank 0 " +
                                   std::to_string(values.size()),
                               -1));
      for (size_t i = 0; i < values.size(); ++i) {
        int64_t v;
        std::memcpy(&v, theirs.data() + i * sizeof v, sizeof v);
        values[i] += v;
      }
    }
    for (const int p : links_->peers()) links_->send(p, kind, payload, until, op);
  }

  std::shared_ptr<TcpLinks> links_;
  TcpOptions options_;
  std::string host_;
};

// Rank 0 sends each block to every rank and goes on (the sockets' buffers hold it); another rank waits for
// the next one within the timeout.
class TcpControlChannel final : public ControlChannel {
 public:
  TcpControlChannel(std::shared_ptr<TcpLinks> links, const CommOptions& options)
      : links_(std::move(links)), options_(options) {}

  void share(std::span<int64_t> values) override {
    const char* op = tcp_kind_name(TcpKind::Control);
    const auto payload = std::as_bytes(std::span<const int64_t>(values));
    if (links_->rank() == 0) {
      links_->check_peers(op);
      const Deadline deadline = Clock::now() + options_.timeout;
      for (const int p : links_->peers()) links_->send(p, TcpKind::Control, payload, deadline, op);
      return;
    }
    const std::vector<std::byte> block = links_->receive(0, TcpKind::Control, Clock::now() + options_.timeout, op);
    if (block.size() != payload.size())
      links_->fail(CommError(std::string(op) + ": rank 0 sent a block of " + std::to_string(block.size() / sizeof(int64_t)) +
                                 " values, rank " + std::to_string(links_->rank()) + " expected " +
                                 std::to_string(values.size()),
                             -1));
    std::copy(block.begin(), block.end(), std::as_writable_bytes(values).begin());
  }

 private:
  std::shared_ptr<TcpLinks> links_;
  CommOptions options_;
};

std::unique_ptr<ControlChannel> TcpGroup::make_control_channel(const CommOptions& options) {
  return std::make_unique<TcpControlChannel>(links_, options);
}

void check_rank(int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("rank " + std::to_string(rank) + " is not a rank of " + std::to_string(size));
}

}  // namespace

std::unique_ptr<ProcessGroup> meet_over_tcp_as_root(Socket listener, const TcpAddress& root, int size,
                                                    const TcpOptions& options) {
  check_rank(0, size);
  std::vector<Socket> links = accept_ranks(listener, root, size, options);
  return std::make_unique<TcpGroup>(std::make_shared<TcpLinks>(0, size, root, std::move(links)), options);
}

std::unique_ptr<ProcessGroup> meet_over_tcp(const TcpAddress& root, int rank, int size, const TcpOptions& options) {
  check_rank(rank, size);
  if (rank == 0) {
    Socket listener;
    try {
      listener = listen_tcp(root.port);
    } catch (const std::runtime_error& e) {
      throw CommError(std::string("rank 0 cannot meet the other ranks at ") + root.text() + ": " + e.what(), 0);
    }
    return meet_over_tcp_as_root(std::move(listener), root, size, options);
  }
  std::vector<Socket> links(1);
  try {
    links[0] = connect_tcp(root, Clock::now() + options.meet);
  } catch (const std::runtime_error& e) {
    throw CommError("rank " + std::to_string(rank) + " could not reach rank 0 at " + root.text() +
                        " (MASTER_ADDR:MASTER_PORT) within " + seconds(options.meet) + ": " + e.what(),
                    0);
  }
  // The header and payload that accept_ranks reads as one: this rank, and the job size it was started for.
  auto group = std::make_shared<TcpLinks>(rank, size, root, std::move(links));
  const int64_t job_size = size;
  group->send(0, TcpKind::Hello, bytes_of(job_size), Clock::now() + options.meet, tcp_kind_name(TcpKind::Hello));
  return std::make_unique<TcpGroup>(std::move(group), options);
}

}  // namespace splat::transport
