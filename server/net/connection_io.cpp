// One connection's life in the event loop: bytes in, parsed; a complete request to a
// worker; its answer written back without blocking; then idle, the next pipelined
// request, or a lingering close.

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <functional>

#include "event_loop.h"
#include "response_writer.h"

namespace kb::http::net {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// Pieces of a streamed answer (about 64 KiB each) written in a row on one connection
// before the others get their turn.
constexpr int kPiecesPerEvent = 4;
// Reads in a row on one connection (256 KiB) before the others get their turn.
constexpr int kReadsPerEvent = 16;
// Bytes buffered after a request being answered (pipelined requests) before reading
// pauses until the answer is written.
constexpr std::size_t kMaxPipelined = 64 * 1024;
// After the last answer, what a client still sends is read and dropped (so closing does
// not reset the connection under the answer), up to this much.
constexpr std::size_t kMaxLingerBytes = 16u << 20;

bool would_block() {
  return errno == EAGAIN || errno == EWOULDBLOCK;
}

}  // namespace

void Listener::Loop::on_event(Connection& c, std::uint32_t events, Clock::time_point now) {
  // Edge-triggered: an event says something changed; `readable` remembers that the
  // socket may hold bytes until a read finds it empty.
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) c.readable = true;
  if ((events & EPOLLERR) && c.state != ConnState::handling) {
    close(c);
    return;
  }
  if ((events & EPOLLOUT) && c.out_sent < c.out.size()) {
    write_ready(c, now);
    if (c.fd < 0) return;
  }
  if (c.readable) read_ready(c, now);
}

void Listener::Loop::read_ready(Connection& c, Clock::time_point now) {
  char buf[kReadChunk];
  if (c.state == ConnState::closing) {
    for (;;) {
      const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n > 0) {
        c.discarded += static_cast<std::size_t>(n);
        if (c.discarded <= kMaxLingerBytes) continue;
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && would_block()) {
        c.readable = false;
        return;
      }
      close(c);
      return;
    }
  }
  for (int round = 0;; ++round) {
    if (c.fd < 0 || c.state == ConnState::closing) return;
    // While a request is answered, what follows it is only buffered (pipelining), up
    // to a bound; parsing resumes after the answer.
    const bool busy = c.state == ConnState::handling || c.state == ConnState::writing;
    if (busy && c.in.size() - c.in_pos >= kMaxPipelined) break;
    if (round == kReadsPerEvent) {
      read_again.push_back(c.id);  // fairness: the others first, then more of this one
      break;
    }
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<std::size_t>(n));
      if (!busy) parse(c, now);
      if (!within_budget(c, now)) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && would_block()) {
      c.readable = false;
      break;
    }
    c.readable = false;
    c.peer_closed = true;
    // Gone, or half-closed (which a client rarely means): work on its request may stop,
    // as Go's and nginx's servers stop it; whatever answer comes still goes out.
    client_gone(c);
    if (n == 0 && busy) break;
    if (c.state == ConnState::handling) {
      c.detached = true;  // failed: closes when its worker is done with it
      break;
    }
    close(c);  // closed or failed before a whole request: nothing left to answer
    return;
  }
  if (c.state == ConnState::handling &&
      (c.in_pos < c.in.size() || c.readable || c.peer_closed || c.detached))
    await_answer(c);
}

void Listener::Loop::await_answer(Connection& c) {
  // The client already sent more (or left): this answer is wanted back at once, so
  // workers wake the loop while any such connection waits.
  if (c.awaited) return;
  c.awaited = true;
  ++awaiting;
  completions_wanted = true;
}

void Listener::Loop::parse(Connection& c, Clock::time_point now) {
  while (c.fd >= 0 && (c.state == ConnState::idle || c.state == ConnState::reading) &&
         c.in_pos < c.in.size()) {
    const std::size_t used = c.parser.feed(std::string_view(c.in).substr(c.in_pos));
    c.in_pos += used;
    if (c.state == ConnState::idle && c.parser.started()) {
      table.set_state(c, ConnState::reading);
      c.deadline = now + config.request_timeout;
    }
    if (c.parser.take_continue()) {
      c.answered_any = true;
      c.out.append(kContinueResponse);
      write_ready(c, now);
      if (c.fd < 0) return;
    }
    if (c.parser.failed()) {
      refuse_request(c, c.parser.error().status, c.parser.error().message, now);
      break;
    }
    if (c.parser.complete()) {
      dispatch(c, now);
      break;
    }
    if (used == 0) break;
  }
  if (c.in_pos >= c.in.size()) {
    c.in.clear();
    c.in_pos = 0;
  } else if (c.in_pos > 0) {
    c.in.erase(0, c.in_pos);
    c.in_pos = 0;
  }
  account(c);
}

void Listener::Loop::account(Connection& c) {
  if (c.fd < 0) return;
  const bool reading = c.state == ConnState::idle || c.state == ConnState::reading;
  table.set_buffered(c, c.in.size() - c.in_pos + (reading ? c.parser.buffered() : 0));
}

bool Listener::Loop::within_budget(Connection& c, Clock::time_point now) {
  if (c.fd < 0) return false;
  account(c);
  // A connection being answered holds at most kMaxPipelined more: only one whose
  // request is arriving is refused, and its bytes freed.
  if (c.state != ConnState::idle && c.state != ConnState::reading) return true;
  Limit limit = Limit::per_peer;
  if (table.buffered(c.peer) > config.max_buffered_bytes_per_peer)
    limit = Limit::per_peer;
  else if (table.buffered() > config.max_buffered_bytes)
    limit = Limit::global;
  else
    return true;
  stats.refused_buffered[static_cast<std::size_t>(limit)]++;
  refuse_request(c, 503,
                 limit == Limit::per_peer
                     ? "this address is sending too many request bytes at once; retry in a moment"
                     : "the server holds too many request bytes; retry in a moment",
                 now);
  return false;
}

bool Listener::Loop::answer_inline(Connection& c, httplib::Request& req, bool keep_alive,
                                   Clock::time_point now) {
  // Not behind a queued 100 Continue, and never nested (see answering_inline).
  if (!callbacks.answer_now || answering_inline || c.out_sent < c.out.size()) return false;
  httplib::Response res;
  try {
    if (!callbacks.answer_now(req, res) || is_streamed(res)) return false;
  } catch (...) {
    return false;
  }
  std::string bytes = serialize_response(req, res, keep_alive);
  stats.answered_inline++;
  answering_inline = true;
  answer(c, std::move(bytes), 0, keep_alive, {}, now);
  answering_inline = false;
  return true;
}

void Listener::Loop::dispatch(Connection& c, Clock::time_point now) {
  table.set_state(c, ConnState::handling);
  httplib::Request req = std::move(c.parser.request());
  req.remote_addr = c.peer;
  req.remote_port = c.peer_port;
  req.local_addr = c.local_addr;
  req.local_port = c.local_port;
  const bool keep_alive =
      c.parser.keep_alive() && !stopping && c.requests + 1 < config.max_requests_per_connection;
  c.parser.reset();
  if (answer_inline(c, req, keep_alive, now)) return;
  c.gone = std::make_shared<std::atomic<bool>>(false);           // only a worker's answer can wait
  if (c.in_pos < c.in.size() || c.peer_closed) await_answer(c);  // before the worker can finish
  // The worker writes what the socket takes at once (most answers), unless a 100
  // Continue is still queued ahead of it; the loop writes the rest.
  const int fd = c.out_sent >= c.out.size() ? c.fd : -1;
  const Lane lane = callbacks.lane ? callbacks.lane(req) : Lane::general;
  WorkerPool& pool = lane == Lane::reserved ? *reserved_workers
                     : lane == Lane::cpu    ? *cpu_workers
                                            : *workers;
  pool.submit([this, id = c.id, fd, keep_alive, gone = c.gone, req = std::move(req)]() mutable {
    if (gone->load()) {
      // Its client left while it queued: nobody reads an answer, so none is made.
      stats.cancelled++;
      {
        std::lock_guard<std::mutex> lock(completions_mu);
        completions.push_back({id, std::string(), 0, false, nullptr});
      }
      wake();
      return;
    }
    httplib::Response res;
    try {
      callbacks.handle(req, res, *gone);
    } catch (...) {
      res = httplib::Response();
      callbacks.refuse(req, 500, "internal error", res);
    }
    std::string bytes;
    std::function<bool(std::string&)> more;
    bool keep = keep_alive;
    if (is_streamed(res)) {
      // The head and the first piece now; the loop pulls the rest as the client reads.
      StreamStart start = start_stream(req, res, keep_alive);
      bytes = std::move(start.head);
      keep = start.keep_alive;
      try {
        if (start.more && start.more(bytes)) more = std::move(start.more);
      } catch (const std::exception&) {
        keep = false;  // cut short: only closing tells the client
      }
    } else {
      bytes = serialize_response(req, res, keep_alive);
    }
    std::size_t sent = 0;
    while (fd >= 0 && sent < bytes.size()) {
      const ssize_t n =
          ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0)
        sent += static_cast<std::size_t>(n);
      else if (n < 0 && errno == EINTR)
        continue;
      else
        break;  // full or failed: the loop finds out when it writes the rest
    }
    // Written whole on a kept-alive connection, the answer can wait for the loop's next
    // wake-up (the client's next request, at the latest); the loop only needs waking
    // for the rest of an answer, a close, or when it asked (see on_event).
    const bool urgent = sent < bytes.size() || !keep || more;
    {
      std::lock_guard<std::mutex> lock(completions_mu);
      completions.push_back({id, std::move(bytes), sent, keep, std::move(more)});
    }
    if (urgent || completions_wanted) wake();
  });
}

void Listener::Loop::refuse_request(Connection& c, int status, std::string_view message,
                                    Clock::time_point now) {
  httplib::Request& req = c.parser.request();
  req.remote_addr = c.peer;
  req.remote_port = c.peer_port;
  req.local_addr = c.local_addr;
  req.local_port = c.local_port;
  httplib::Response res;
  callbacks.refuse(req, status, message, res);
  if (status == 408) stats.request_timeouts_answered++;
  std::string bytes = serialize_response(req, res, false);
  // Nothing more of this connection is parsed: what it sent is freed now.
  c.parser.reset();
  std::string().swap(c.in);
  c.in_pos = 0;
  account(c);
  answer(c, std::move(bytes), 0, false, nullptr, now);
}

void Listener::Loop::answer(Connection& c, std::string bytes, std::size_t sent, bool keep_alive,
                            std::function<bool(std::string&)> more, Clock::time_point now) {
  if (c.out_sent >= c.out.size()) {
    c.out = std::move(bytes);
    c.out_sent = sent;
  } else {
    c.out.append(bytes, sent);
  }
  c.close_after = c.close_after || !keep_alive;
  c.more = std::move(more);
  table.set_state(c, ConnState::writing);
  c.deadline = now + config.write_timeout;
  write_ready(c, now);
}

void Listener::Loop::write_ready(Connection& c, Clock::time_point now) {
  for (int pieces = 0;; ++pieces) {
    while (c.out_sent < c.out.size()) {
      const ssize_t n =
          ::send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
      if (n > 0) {
        c.out_sent += static_cast<std::size_t>(n);
        if (c.state == ConnState::writing) c.deadline = now + config.write_timeout;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && would_block()) return;  // the next EPOLLOUT edge resumes
      close(c);
      return;
    }
    c.out.clear();
    c.out_sent = 0;
    if (!c.more) break;
    if (pieces == kPiecesPerEvent) {
      write_again.push_back(c.id);  // fairness: the others first, then more of this one
      return;
    }
    try {
      if (!c.more(c.out)) c.more = nullptr;
    } catch (const std::exception&) {
      close(c);  // cut short: the client sees no final chunk
      return;
    }
  }
  if (c.state == ConnState::writing) answered(c, now);
}

void Listener::Loop::answered(Connection& c, Clock::time_point now) {
  ++c.requests;
  c.answered_any = false;
  if (c.close_after) {
    begin_close(c, now);
    return;
  }
  table.set_state(c, ConnState::idle);
  c.deadline = now + config.idle_timeout;
  parse(c, now);  // a pipelined request may be waiting in the buffer
  if (c.fd < 0) return;
  if (c.readable) {
    read_ready(c, now);
  } else if (c.peer_closed && (c.state == ConnState::idle || c.state == ConnState::reading)) {
    close(c);  // the client sent its last request and was answered
  }
}

void Listener::Loop::begin_close(Connection& c, Clock::time_point now) {
  ::shutdown(c.fd, SHUT_WR);
  table.set_state(c, ConnState::closing);
  c.deadline = now + config.linger;
  c.in.clear();
  c.in_pos = 0;
  c.discarded = 0;
  account(c);
  if (c.readable) read_ready(c, now);
}

void Listener::Loop::client_gone(Connection& c) {
  if (c.gone && c.state == ConnState::handling && !c.gone->exchange(true)) stats.clients_gone++;
}

void Listener::Loop::close(Connection& c) {
  if (c.fd < 0) return;
  client_gone(c);
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  if (c.awaited) {
    c.awaited = false;
    --awaiting;
  }
  table.retire(c);
}

}  // namespace kb::http::net
