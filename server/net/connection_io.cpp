// One connection's life in the event loop: bytes in, parsed; a complete request to a
// worker; its answer written back without blocking; then idle, the next pipelined
// request, or a lingering close.

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "event_loop.h"
#include "response_writer.h"

namespace kb::http::net {
namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// Reads per readiness event, so one fast client cannot starve the others.
constexpr int kReadsPerEvent = 4;
// After the last answer, what a client still sends is read and dropped (so closing does
// not reset the connection under the answer), up to this much.
constexpr std::size_t kMaxLingerBytes = 16u << 20;

bool would_block() {
  return errno == EAGAIN || errno == EWOULDBLOCK;
}

}  // namespace

void Listener::Loop::on_event(Connection& c, std::uint32_t events, Clock::time_point now) {
  if (c.state == ConnState::handling) {
    // A worker may be writing to this descriptor: it must not be closed (and its number
    // reused) under it. A failed connection leaves epoll and closes with the answer.
    if (events & (EPOLLERR | EPOLLHUP)) {
      ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
      c.detached = true;
      c.interest = 0;
    } else if (events & EPOLLOUT) {
      write_ready(c, now);  // a 100 Continue still going out
    }
    return;
  }
  if (events & EPOLLERR) {
    close(c);
    return;
  }
  if (events & EPOLLOUT) {
    write_ready(c, now);
    if (c.fd < 0) return;
  }
  if (events & (EPOLLIN | EPOLLHUP)) {
    if (c.state == ConnState::writing) {
      if (events & EPOLLHUP) close(c);  // gone both ways: nobody to answer
      return;
    }
    read_ready(c, now);
  }
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
        return;
      }
      close(c);
      return;
    }
  }
  for (int round = 0; round < kReadsPerEvent; ++round) {
    if (c.fd < 0 || (c.state != ConnState::idle && c.state != ConnState::reading)) return;
    const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      c.in.append(buf, static_cast<std::size_t>(n));
      parse(c, now);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && would_block()) return;
    // The client closed (or failed) before a whole request: nothing left to answer.
    c.peer_closed = true;
    close(c);
    return;
  }
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
}

void Listener::Loop::dispatch(Connection& c, Clock::time_point) {
  table.set_state(c, ConnState::handling);
  want(c, c.out_sent < c.out.size() ? std::uint32_t{EPOLLOUT} : 0u);
  httplib::Request req = std::move(c.parser.request());
  req.remote_addr = c.peer;
  req.remote_port = c.peer_port;
  req.local_addr = c.local_addr;
  req.local_port = c.local_port;
  const bool keep_alive =
      c.parser.keep_alive() && !stopping && c.requests + 1 < config.max_requests_per_connection;
  c.parser.reset();
  // The worker writes what the socket takes at once (most answers), unless a 100
  // Continue is still queued ahead of it; the loop writes the rest.
  const int fd = c.out_sent >= c.out.size() ? c.fd : -1;
  workers->submit([this, id = c.id, fd, keep_alive, req = std::move(req)]() mutable {
    httplib::Response res;
    try {
      callbacks.handle(req, res);
    } catch (...) {
      res = httplib::Response();
      callbacks.refuse(req, 500, "internal error", res);
    }
    std::string bytes = serialize_response(req, res, keep_alive);
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
    {
      std::lock_guard<std::mutex> lock(completions_mu);
      completions.push_back({id, std::move(bytes), sent, keep_alive});
    }
    wake();
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
  answer(c, serialize_response(req, res, false), 0, false, now);
}

void Listener::Loop::answer(Connection& c, std::string bytes, std::size_t sent, bool keep_alive,
                            Clock::time_point now) {
  if (c.out_sent >= c.out.size()) {
    c.out = std::move(bytes);
    c.out_sent = sent;
  } else {
    c.out.append(bytes, sent);
  }
  c.close_after = c.close_after || !keep_alive;
  table.set_state(c, ConnState::writing);
  c.deadline = now + config.write_timeout;
  write_ready(c, now);
}

void Listener::Loop::write_ready(Connection& c, Clock::time_point now) {
  while (c.out_sent < c.out.size()) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.out_sent, c.out.size() - c.out_sent, MSG_NOSIGNAL);
    if (n > 0) {
      c.out_sent += static_cast<std::size_t>(n);
      if (c.state == ConnState::writing) c.deadline = now + config.write_timeout;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && would_block()) {
      want(c, c.state == ConnState::reading ? std::uint32_t{EPOLLIN | EPOLLOUT}
                                            : std::uint32_t{EPOLLOUT});
      return;
    }
    close(c);
    return;
  }
  c.out.clear();
  c.out_sent = 0;
  if (c.state == ConnState::writing)
    answered(c, now);
  else if (c.state == ConnState::reading || c.state == ConnState::idle)
    want(c, EPOLLIN);
  else if (c.state == ConnState::handling)
    want(c, 0);
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
  want(c, EPOLLIN);
  parse(c, now);  // a pipelined request may be waiting in the buffer
}

void Listener::Loop::begin_close(Connection& c, Clock::time_point now) {
  ::shutdown(c.fd, SHUT_WR);
  table.set_state(c, ConnState::closing);
  c.deadline = now + config.linger;
  c.in.clear();
  c.in_pos = 0;
  c.discarded = 0;
  want(c, EPOLLIN);
}

void Listener::Loop::close(Connection& c) {
  if (c.fd < 0) return;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
  ::close(c.fd);
  table.retire(c);
}

void Listener::Loop::want(Connection& c, std::uint32_t events) {
  if (c.fd < 0 || c.interest == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c.id;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c.fd, &ev);
  c.interest = events;
}

}  // namespace kb::http::net
