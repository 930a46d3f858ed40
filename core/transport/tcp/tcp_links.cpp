#include "core/transport/tcp/tcp_links.h"

#include <cstring>

namespace splat::transport {

namespace {

// A failure notice is best effort: a peer that does not take it within this is failing or gone anyway.
constexpr std::chrono::seconds kNoticeWait{2};
// Payloads are small (sums of a few values, a 128-byte id, control blocks); anything larger is garbage.
constexpr uint64_t kMaxPayload = uint64_t{1} << 30;

}  // namespace

const char* tcp_kind_name(TcpKind kind) {
  switch (kind) {
    case TcpKind::Hello: return "joining";
    case TcpKind::Barrier: return "barrier";
    case TcpKind::Sum: return "all_reduce_sum";
    case TcpKind::Broadcast: return "broadcast";
    case TcpKind::Control: return "the control channel";
    case TcpKind::Failure: return "a failure notice";
  }
  return "an unknown message";
}

TcpLinks::TcpLinks(int rank, int size, TcpAddress root, std::vector<Socket> links)
    : rank_(rank), size_(size), root_(std::move(root)), links_(std::move(links)) {
  for (int p = 0; p < static_cast<int>(links_.size()); ++p)
    if (links_[static_cast<size_t>(p)].open()) peers_.push_back(p);
}

std::string TcpLinks::describe_peer(int peer) const {
  return "rank " + std::to_string(peer) + (peer == 0 ? " at " + root_.text() : "");
}

void TcpLinks::throw_if_failed() const {
  if (failure_) throw *failure_;
}

void TcpLinks::fail(const CommError& error) {
  if (!failure_) {
    failure_ = error;
    if (rank_ == 0) pass_on(error.failed_rank(), error.what(), error.failed_rank());
  }
  throw *failure_;
}

void TcpLinks::send(int peer, TcpKind kind, std::span<const std::byte> payload, Deadline deadline, const char* op) {
  throw_if_failed();
  const Socket& link = links_.at(static_cast<size_t>(peer));
  const Header header{static_cast<uint32_t>(kind), rank_, payload.size()};
  Io io = send_all(link, &header, sizeof header, deadline);
  if (io == Io::Done && !payload.empty()) io = send_all(link, payload.data(), payload.size(), deadline);
  if (io == Io::Closed) fail(CommError(describe_peer(peer) + " left the job (its connection closed) during " + op, peer));
  if (io == Io::TimedOut)
    fail(CommError(describe_peer(peer) + " took nothing during " + op + " until the timeout (it hangs)", peer));
}

std::vector<std::byte> TcpLinks::receive(int peer, TcpKind kind, Deadline deadline, const char* op) {
  throw_if_failed();
  const Socket& link = links_.at(static_cast<size_t>(peer));
  Header header{};
  Io io = receive_all(link, &header, sizeof header, deadline);
  std::vector<std::byte> payload;
  if (io == Io::Done) {
    if (header.bytes > kMaxPayload)
      fail(CommError("a message of " + std::to_string(header.bytes) + " bytes from " + describe_peer(peer) +
                     " during " + op + ": not splatlab's rendezvous on the other end?", peer));
    payload.resize(header.bytes);
    io = receive_all(link, payload.data(), payload.size(), deadline);
  }
  if (io == Io::Closed) fail(CommError(describe_peer(peer) + " left the job (its connection closed) during " + op, peer));
  if (io == Io::TimedOut)
    fail(CommError(describe_peer(peer) + " sent nothing during " + op + " until the timeout (it hangs or stopped)", peer));
  const auto got = static_cast<TcpKind>(header.kind);
  if (got == TcpKind::Failure)
    fail(CommError(std::string(reinterpret_cast<const char*>(payload.data()), payload.size()), header.rank));
  if (got != kind)
    fail(CommError(describe_peer(peer) + " is in " + tcp_kind_name(got) + " while rank " + std::to_string(rank_) +
                       " is in " + op + ": the processes run different programs or arguments",
                   -1));
  return payload;
}

void TcpLinks::check_peers(const char* op) {
  throw_if_failed();
  for (const int p : peers_)
    if (readable_now(links_[static_cast<size_t>(p)]))
      receive(p, TcpKind::Failure, std::chrono::steady_clock::now() + kNoticeWait, op);  // a notice or a close: throws
}

void TcpLinks::pass_on(int failed_rank, const std::string& what, int except) {
  const Deadline deadline = std::chrono::steady_clock::now() + kNoticeWait;
  const Header header{static_cast<uint32_t>(TcpKind::Failure), failed_rank, what.size()};
  for (const int p : peers_) {
    if (p == except) continue;
    const Socket& link = links_[static_cast<size_t>(p)];
    if (send_all(link, &header, sizeof header, deadline) == Io::Done) send_all(link, what.data(), what.size(), deadline);
  }
}

void TcpLinks::notify_and_close(int failed_rank, const std::string& what) {
  pass_on(failed_rank, what, -1);
  for (Socket& link : links_) link.close();
}

}  // namespace splat::transport
