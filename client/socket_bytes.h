#pragma once

// How many bytes a TCP socket has received, asked of the kernel: what lets a watchdog
// cap an answer whose headers httplib would read without end. Its own file because
// <linux/tcp.h> and the <netinet/tcp.h> that httplib includes cannot meet.

#include <cstdint>
#include <optional>

namespace kb::client {

/// Bytes received on TCP socket `fd` since it connected; nullopt when the kernel does not
/// say (not a TCP socket, closed).
std::optional<std::uint64_t> bytes_received(int fd);

}  // namespace kb::client
