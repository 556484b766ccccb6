#pragma once

// The event loop's connections: what each holds (buffers, parser, deadline), indexed by
// id and by peer address, with the state counts /metrics shows and the choice of which
// connection makes room for a new one when a limit is reached.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "connection_stats.h"
#include "request_parser.h"

namespace kb::http::net {

using Clock = std::chrono::steady_clock;

/// One client connection. Ids grow with accept order, so a smaller id is older.
struct Connection {
  std::uint64_t id = 0;
  int fd = -1;  ///< -1 once closed (the entry goes at the end of the loop iteration)
  std::string peer;
  int peer_port = -1;
  std::string local_addr;
  int local_port = -1;
  ConnState state = ConnState::idle;
  Clock::time_point deadline;  ///< of the current state: idle, request, write progress, linger
  std::string in;              ///< received bytes; in[in_pos..] are not parsed yet
  std::size_t in_pos = 0;
  RequestParser parser;
  std::string out;  ///< bytes being written; out[out_sent..] are not sent yet
  std::size_t out_sent = 0;
  /// The rest of a streamed answer: appends its next piece, returns whether more follow.
  std::function<bool(std::string&)> more;
  bool close_after = false;   ///< the answer being written is the last one
  bool peer_closed = false;   ///< the client sent its FIN
  bool detached = false;      ///< failed while a worker held it; closes with the answer
  bool readable = false;      ///< the socket may hold unread bytes (edge-triggered epoll)
  bool awaited = false;       ///< being answered, and the client sent more: wake for it
  bool answered_any = false;  ///< a byte answering the current request went out (100 Continue)
  unsigned requests = 0;      ///< answered on this connection
  std::size_t discarded = 0;  ///< bytes read and dropped while closing
  std::size_t buffered = 0;   ///< request bytes held, as last told to set_buffered()
  /// Set when the client of the request being answered has gone; a fresh one per request.
  std::shared_ptr<std::atomic<bool>> gone;

  explicit Connection(ParserLimits limits) : parser(limits) {}
};

/// What to do with a new connection: admit it, maybe after closing `victim`; or refuse it.
struct Admission {
  bool admit = true;
  std::optional<std::uint64_t> victim;  ///< close this one first
  Limit limit = Limit::global;          ///< the limit that evicted or refused
};

/// Owns the connections and keeps ConnectionStats::open in step with their states.
class ConnectionTable {
 public:
  explicit ConnectionTable(ConnectionStats& stats) : stats_(stats) {}
  ~ConnectionTable();

  /// A new idle connection.
  Connection& add(int fd, std::string peer, int peer_port, ParserLimits limits);
  /// The open connection with `id`, or nullptr.
  Connection* find(std::uint64_t id);
  /// Moves `c` to `state`.
  void set_state(Connection& c, ConnState state);
  /// Forgets a connection whose fd the caller closed, setting its fd to -1; it stays in
  /// memory until collect(), so references held during one loop iteration stay valid.
  void retire(Connection& c);
  /// Frees the retired connections.
  void collect();

  /// Records that `c` now holds `bytes` of requests not handed to a worker yet.
  void set_buffered(Connection& c, std::size_t bytes);
  /// Request bytes held, by every connection or by those of one peer.
  std::size_t buffered() const { return buffered_; }
  std::size_t buffered(const std::string& peer) const;

  /// Open connections, all or of one peer.
  std::size_t size() const { return open_; }
  std::size_t count(const std::string& peer) const;

  /// Whether a new connection from `peer` fits. Over `max_per_peer`, that peer's oldest
  /// connection not holding a request being answered (one closing first, then idle or
  /// still sending its request) is closed to make room; over `max_total`, anyone's. Only
  /// when there is none is the new one refused.
  Admission admit(const std::string& peer, std::size_t max_total, std::size_t max_per_peer);

  /// The oldest connection of `peer` (of anyone when null) that may be closed to make
  /// room: one closing first, then one idle or still sending its request; nullptr when
  /// every one holds a request being answered.
  Connection* oldest_evictable(const std::string* peer);

  /// Calls `f(Connection&)` for each open connection, oldest first.
  template <class F>
  void for_each(F&& f) {
    for (auto& [id, c] : by_id_) {
      if (c->fd >= 0) f(*c);
    }
  }

 private:
  Connection* evictable(const std::set<std::uint64_t>* among);

  ConnectionStats& stats_;
  std::uint64_t next_id_ = 1;
  std::size_t open_ = 0;
  std::map<std::uint64_t, std::unique_ptr<Connection>> by_id_;
  std::unordered_map<std::string, std::set<std::uint64_t>> by_peer_;
  std::size_t buffered_ = 0;
  std::unordered_map<std::string, std::size_t> buffered_by_peer_;
  std::vector<std::uint64_t> retired_;
};

}  // namespace kb::http::net
