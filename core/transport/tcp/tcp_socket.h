#pragma once
// The few POSIX socket calls the TCP rendezvous needs (tcp_group.h), each bounded by a deadline: listen,
// accept, connect (retried while the listener is not up yet: ranks start in any order), and whole-message
// sends and receives. Failures are std::runtime_error naming the address; a peer that closed is a result,
// not an error, since the caller names the rank.
#include <chrono>
#include <cstddef>
#include <string>

#include "core/transport/job_place.h"

namespace splat::transport {

using Deadline = std::chrono::steady_clock::time_point;

class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket();
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void close();

 private:
  int fd_ = -1;
};

// Listens on `port` of every interface (0: a free port, for tests). Throws naming the port.
Socket listen_tcp(int port);
int bound_port(const Socket& listener);
// The next connection, or a closed Socket at the deadline.
Socket accept_tcp(const Socket& listener, Deadline deadline);
// Connects to `address`, retrying refused connections until the deadline; throws naming the address.
Socket connect_tcp(const TcpAddress& address, Deadline deadline);

enum class Io { Done, Closed, TimedOut };
// All `bytes` or nothing useful: Closed when the peer closed or reset the connection.
Io send_all(const Socket& socket, const void* data, size_t bytes, Deadline deadline);
Io receive_all(const Socket& socket, void* data, size_t bytes, Deadline deadline);
// Whether a receive would not block now (data, or the peer closed).
bool readable_now(const Socket& socket);

// This machine's host name, for messages.
std::string host_name();

}  // namespace splat::transport
