#pragma once
// The message layer of the TCP rendezvous (tcp_group.h): one connection per peer (rank 0 has one to every
// rank, the others one to rank 0), messages of a kind and a payload, and the job's first failure, which
// every later call throws again. Rank 0 passes a failure on to the ranks it did not come from.
//
// Messages are a fixed header and the payload, in the hosts' own byte order (the nodes of one job share it).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/transport/communicator.h"
#include "core/transport/job_place.h"
#include "core/transport/tcp/tcp_socket.h"

namespace splat::transport {

enum class TcpKind : uint32_t { Hello = 0x53504c01, Barrier, Sum, Broadcast, Control, Failure };

class TcpLinks {
 public:
  // links[p] is the connection to rank p (rank 0: every other rank; another rank: only links[0]).
  TcpLinks(int rank, int size, TcpAddress root, std::vector<Socket> links);

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The ranks this process has a connection to.
  const std::vector<int>& peers() const { return peers_; }

  // Sends one message to `peer`. Throws CommError naming it when it closed or does not take the message
  // by the deadline.
  void send(int peer, TcpKind kind, std::span<const std::byte> payload, Deadline deadline, const char* op);
  // Receives `peer`'s next message, which must be of `kind`. A failure notice, a closed connection, a
  // message of another kind or the deadline throws CommError (see fail()).
  std::vector<std::byte> receive(int peer, TcpKind kind, Deadline deadline, const char* op);
  // Rank 0: throws when a peer has sent a failure notice or closed (nothing else is due from a peer
  // while rank 0 sends control blocks).
  void check_peers(const char* op);

  // Throws the job's failure, if any.
  void throw_if_failed() const;
  // Records `error` as the job's failure unless one is recorded (rank 0 then passes it on to the other
  // ranks), and throws the recorded one.
  [[noreturn]] void fail(const CommError& error);
  // Tells every peer that `failed_rank` failed (`what`), as far as they can still be reached soon, and
  // closes every connection.
  void notify_and_close(int failed_rank, const std::string& what);

  // "rank 0 at nodeA:29500", "rank 2": a peer as messages name it.
  std::string describe_peer(int peer) const;

 private:
  struct Header {
    uint32_t kind;
    int32_t rank;  // the sender; in a failure notice, the rank that failed
    uint64_t bytes;
  };
  void pass_on(int failed_rank, const std::string& what, int except);

  int rank_, size_;
  TcpAddress root_;
  std::vector<Socket> links_;
  std::vector<int> peers_;
  std::optional<CommError> failure_;
};

const char* tcp_kind_name(TcpKind kind);

}  // namespace splat::transport
