#pragma once

// What the event loop counts about client connections, read by /metrics: open
// connections by state, evictions and refusals by limit, closes at each deadline.

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kb::http::net {

/// Where a connection is in its life. Only `handling` and `writing` hold a request
/// the server accepted; the others may be closed to make room for a new client.
enum class ConnState {
  idle,      ///< connected, between requests (or before the first byte)
  reading,   ///< a request is arriving
  handling,  ///< a worker is answering its request (or wrote all of it, and the loop
             ///< has not looked yet: at most 0.1 s)
  writing,   ///< its answer is being written
  closing,   ///< answered; draining what the client still sends before closing
};
inline constexpr std::size_t kConnStates = 5;
inline constexpr std::array<std::string_view, kConnStates> kConnStateNames = {
    "idle", "reading", "handling", "writing", "closing"};

/// The limit that made a connection go: its peer's, the server's, or the process's
/// file descriptors.
enum class Limit { per_peer, global, descriptors };
inline constexpr std::size_t kLimits = 3;
inline constexpr std::array<std::string_view, kLimits> kLimitNames = {"per_peer", "global",
                                                                      "descriptors"};

/// The deadline a connection missed.
enum class Deadline { request, idle, write };
inline constexpr std::size_t kDeadlines = 3;
inline constexpr std::array<std::string_view, kDeadlines> kDeadlineNames = {"request", "idle",
                                                                            "write"};

/// Counters shared by the event loop (writer) and /metrics (reader); all relaxed.
struct ConnectionStats {
  std::array<std::atomic<std::int64_t>, kConnStates> open{};  ///< by ConnState
  std::atomic<std::uint64_t> accepted{0};
  std::array<std::atomic<std::uint64_t>, kLimits> evicted{};  ///< closed to make room
  std::array<std::atomic<std::uint64_t>, kLimits> refused{};  ///< new ones answered 503
  std::array<std::atomic<std::uint64_t>, kDeadlines> timed_out{};
  std::atomic<std::uint64_t> request_timeouts_answered{0};  ///< 408s sent
  std::atomic<std::uint64_t> answered_inline{0};  ///< answers the loop wrote without a worker
  /// Requests refused (503) because their bytes would take the request bytes held past
  /// the peer's or the server's budget (Limit::per_peer or global).
  std::array<std::atomic<std::uint64_t>, kLimits> refused_buffered{};
  std::atomic<std::uint64_t> buffered_bytes{0};  ///< request bytes held by the loop now
  /// Requests whose client left while they were queued or answered (told to their handler).
  std::atomic<std::uint64_t> clients_gone{0};
  /// Requests dropped unanswered because their client had gone before a worker took them.
  std::atomic<std::uint64_t> cancelled{0};
  std::atomic<std::uint64_t> max_connections{0};  ///< the limits in force
  std::atomic<std::uint64_t> max_connections_per_peer{0};
};

}  // namespace kb::http::net
