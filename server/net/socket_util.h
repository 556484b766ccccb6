#pragma once

// The few socket and process calls the event loop needs, with their errors made
// kb::Error: a listening socket, peer addresses, the file descriptor limit.

#include <sys/socket.h>

#include <cstddef>
#include <string>

namespace kb::http::net {

/// A bound, listening, non-blocking socket and its port.
struct ListenSocket {
  int fd = -1;
  int port = 0;
};

/// Listens on `host`:`port` (0: any free port), IPv4 or IPv6 as the host resolves, with
/// SO_REUSEADDR and a `backlog`; an IPv6 wildcard also takes IPv4. Throws
/// kb::Error(io) when the address cannot be bound.
ListenSocket listen_on(const std::string& host, int port, int backlog);

/// The printable address of a peer or local end ("127.0.0.1", "::1") and its port.
std::string address_text(const sockaddr_storage& addr, int* port);

/// Raises the soft RLIMIT_NOFILE to the hard limit where allowed; returns the soft limit
/// now in force.
std::size_t raise_fd_limit();

/// The connection limit `fd_limit` descriptors allow: the limit minus a reserve for the
/// server's own files and `workers` threads, at most 10,000 and at least 16.
std::size_t default_max_connections(std::size_t fd_limit, unsigned workers);

}  // namespace kb::http::net
