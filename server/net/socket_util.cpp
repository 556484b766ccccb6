#include "socket_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>

#include "kb/error.h"

namespace kb::http::net {
namespace {

constexpr std::size_t kMaxDefaultConnections = 10000;
constexpr std::size_t kMinConnections = 16;
// Descriptors kept for the server itself: records, SQLite, the watcher, logs, epoll.
constexpr std::size_t kReservedFds = 64;

}  // namespace

ListenSocket listen_on(const std::string& host, int port, int backlog) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const auto fail = [&](const std::string& why) {
    return Error(Errc::io,
                 "cannot listen on " + host + ":" + std::to_string(port) + " (" + why + ")");
  };
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr)
    throw fail("not an address of this machine");
  int error = 0;
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    const int fd =
        ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    const int yes = 1, no = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (ai->ai_family == AF_INET6) ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || ::listen(fd, backlog) != 0) {
      error = errno;
      ::close(fd);
      continue;
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
    ListenSocket out;
    out.fd = fd;
    address_text(bound, &out.port);
    ::freeaddrinfo(found);
    return out;
  }
  ::freeaddrinfo(found);
  throw fail(error == EADDRINUSE      ? "in use"
             : error == EADDRNOTAVAIL ? "not an address of this machine"
                                      : "in use, or not an address of this machine");
}

std::string address_text(const sockaddr_storage& addr, int* port) {
  char buf[INET6_ADDRSTRLEN] = "";
  int p = -1;
  if (addr.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(addr);
    ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
    p = ntohs(a.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(addr);
    ::inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof buf);
    p = ntohs(a.sin6_port);
  }
  if (port != nullptr) *port = p;
  std::string text = buf;
  // A dual-stack socket names IPv4 peers ::ffff:a.b.c.d; one peer, one name.
  if (text.starts_with("::ffff:") && text.find('.') != std::string::npos) text.erase(0, 7);
  return text;
}

std::size_t raise_fd_limit() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  return lim.rlim_cur == RLIM_INFINITY ? kMaxDefaultConnections * 2
                                       : static_cast<std::size_t>(lim.rlim_cur);
}

std::size_t default_max_connections(std::size_t fd_limit, unsigned workers) {
  const std::size_t reserve = kReservedFds + 2 * static_cast<std::size_t>(workers);
  const std::size_t room = fd_limit > reserve ? fd_limit - reserve : fd_limit / 2;
  return std::clamp(room, kMinConnections, kMaxDefaultConnections);
}

}  // namespace kb::http::net
