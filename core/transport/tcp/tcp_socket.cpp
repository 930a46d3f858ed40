#include "core/transport/tcp/tcp_socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace splat::transport {

namespace {

std::string system_error(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

int ms_left(Deadline deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}

// Waits until `events` on the socket or the deadline; false at the deadline.
bool wait_for(const Socket& socket, short events, Deadline deadline) {
  for (;;) {
    pollfd p{.fd = socket.fd(), .events = events, .revents = 0};
    const int n = ::poll(&p, 1, ms_left(deadline));
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) throw std::runtime_error(system_error("poll"));
  }
}

void set_no_delay(const Socket& socket) {
  // Small messages (sums, control blocks) go out at once rather than waiting to be coalesced.
  const int one = 1;
  ::setsockopt(socket.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

Socket::~Socket() { close(); }

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void Socket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Socket listen_tcp(int port) {
  const std::string where = "listening on TCP port " + std::to_string(port);
  // IPv6 with IPv4 mapped where the machine has it, so either family of MASTER_ADDR reaches rank 0.
  for (const int family : {AF_INET6, AF_INET}) {
    Socket s(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.open()) continue;
    const int one = 1, zero = 0;
    ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // a port just freed by an earlier job
    int bound = -1;
    if (family == AF_INET6) {
      ::setsockopt(s.fd(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(static_cast<uint16_t>(port));
      bound = ::bind(s.fd(), reinterpret_cast<const sockaddr*>(&a), sizeof a);
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(static_cast<uint16_t>(port));
      bound = ::bind(s.fd(), reinterpret_cast<const sockaddr*>(&a), sizeof a);
    }
    if (bound != 0) {
      if (errno == EAFNOSUPPORT || errno == EADDRNOTAVAIL) continue;
      throw std::runtime_error(where + ": " + system_error("bind") + " (another job on this port? choose another "
                               "MASTER_PORT)");
    }
    if (::listen(s.fd(), 128) != 0) throw std::runtime_error(where + ": " + system_error("listen"));
    return s;
  }
  throw std::runtime_error(where + ": " + system_error("socket"));
}

int bound_port(const Socket& listener) {
  sockaddr_storage a{};
  socklen_t length = sizeof a;
  if (::getsockname(listener.fd(), reinterpret_cast<sockaddr*>(&a), &length) != 0)
    throw std::runtime_error(system_error("getsockname"));
  return ntohs(a.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6&>(a).sin6_port
                                       : reinterpret_cast<sockaddr_in&>(a).sin_port);
}

Socket accept_tcp(const Socket& listener, Deadline deadline) {
  while (wait_for(listener, POLLIN, deadline)) {
    Socket s(::accept4(listener.fd(), nullptr, nullptr, SOCK_CLOEXEC));
    if (s.open()) {
      set_no_delay(s);
      return s;
    }
    if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
      throw std::runtime_error(system_error("accept"));
  }
  return Socket();
}

Socket connect_tcp(const TcpAddress& address, Deadline deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  std::string last = "no attempt";
  do {
    addrinfo* found = nullptr;
    const int resolved = ::getaddrinfo(address.host.c_str(), std::to_string(address.port).c_str(), &hints, &found);
    if (resolved != 0) {
      last = std::string("cannot resolve the host: ") + ::gai_strerror(resolved);
    } else {
      for (addrinfo* a = found; a; a = a->ai_next) {
        Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
        if (!s.open()) continue;
        if (::connect(s.fd(), a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(found);
          set_no_delay(s);
          return s;
        }
        last = system_error("connect");
      }
      ::freeaddrinfo(found);
    }
    // Rank 0 may not listen yet (ranks start in any order), or a name may not resolve yet on a fresh node.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(100, ms_left(deadline))));
  } while (std::chrono::steady_clock::now() < deadline);
  throw std::runtime_error("could not connect to " + address.text() + " (" + last + ")");
}

Io send_all(const Socket& socket, const void* data, size_t bytes, Deadline deadline) {
  const auto* at = static_cast<const char*>(data);
  while (bytes > 0) {
    // MSG_NOSIGNAL: a peer that closed is reported here, not by SIGPIPE ending the process.
    const ssize_t n = ::send(socket.fd(), at, bytes, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      at += n;
      bytes -= static_cast<size_t>(n);
    } else if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      if (!wait_for(socket, POLLOUT, deadline)) return Io::TimedOut;
    } else if (errno == EPIPE || errno == ECONNRESET) {
      return Io::Closed;
    } else {
      throw std::runtime_error(system_error("send"));
    }
  }
  return Io::Done;
}

Io receive_all(const Socket& socket, void* data, size_t bytes, Deadline deadline) {
  auto* at = static_cast<char*>(data);
  while (bytes > 0) {
    if (!wait_for(socket, POLLIN, deadline)) return Io::TimedOut;
    const ssize_t n = ::recv(socket.fd(), at, bytes, MSG_DONTWAIT);
    if (n > 0) {
      at += n;
      bytes -= static_cast<size_t>(n);
    } else if (n == 0 || errno == ECONNRESET) {
      return Io::Closed;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      throw std::runtime_error(system_error("recv"));
    }
  }
  return Io::Done;
}

bool readable_now(const Socket& socket) {
  pollfd p{.fd = socket.fd(), .events = POLLIN, .revents = 0};
  return ::poll(&p, 1, 0) > 0;
}

std::string host_name() {
  char name[256] = "";
  if (::gethostname(name, sizeof name - 1) != 0) return "(unknown)";
  return name;
}

}  // namespace splat::transport
