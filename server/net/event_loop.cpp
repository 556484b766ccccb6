#include "event_loop.h"

#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>

#include "kb/error.h"
#include "response_writer.h"
#include "socket_util.h"

namespace kb::http::net {
namespace {

// Deadlines are checked this often: a deadline fires at most this late.
constexpr auto kSweepInterval = std::chrono::milliseconds(100);
constexpr int kAcceptBatch = 256;
// How long accepting pauses when descriptors ran out and nothing could be freed.
constexpr auto kAcceptPause = std::chrono::milliseconds(100);

}  // namespace

Listener::Listener(ListenerConfig config, Callbacks callbacks, ConnectionStats& stats)
    : loop_(std::make_unique<Loop>(std::move(config), std::move(callbacks), stats)) {}

Listener::~Listener() {
  stop();
}

int Listener::bind() {
  return loop_->bind();
}

void Listener::start() {
  loop_->start();
}

void Listener::stop() {
  loop_->stop();
}

void Listener::wait() {
  loop_->wait();
}

Listener::Loop::~Loop() {
  stop();
}

int Listener::Loop::bind() {
  const std::size_t fds = raise_fd_limit();
  max_connections = config.max_connections != 0 ? config.max_connections
                                                : default_max_connections(fds, config.workers);
  stats.max_connections = max_connections;
  stats.max_connections_per_peer = config.max_connections_per_peer;
  const ListenSocket sock = listen_on(config.host, config.port, config.backlog);
  listen_fd = sock.fd;
  epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (epoll_fd < 0 || wake_fd < 0) {
    close_fds();
    throw Error(Errc::io, "cannot create the event loop (out of file descriptors?)");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenTag;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, listen_fd, &ev);
  ev.data.u64 = kWakeTag;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &ev);
  return sock.port;
}

void Listener::Loop::start() {
  if (thread.joinable() || epoll_fd < 0) return;
  // A burst of searches and checks leaves its high-water mark in glibc's arenas (at 100k
  // records, ~130 MiB after bench_http.py's runs); a second of quiet hands it back.
  workers = std::make_unique<WorkerPool>(config.workers, std::chrono::seconds(1),
                                         [] { ::malloc_trim(0); });
  reserved_workers = std::make_unique<WorkerPool>(1);
  cpu_workers = std::make_unique<WorkerPool>(std::max(1u, std::thread::hardware_concurrency()),
                                             std::chrono::seconds(1), [] { ::malloc_trim(0); });
  {
    std::lock_guard<std::mutex> lock(running_mu);
    running = true;
  }
  thread = std::thread([this] {
    pthread_setname_np(pthread_self(), "kb-loop");  // as top -H and /proc show it
    run();
    std::lock_guard<std::mutex> lock(running_mu);
    running = false;
    running_cv.notify_all();
  });
}

void Listener::Loop::stop() {
  if (thread.joinable()) {
    stop_requested = true;
    wake();
    thread.join();
  }
  if (workers) workers->stop();
  if (reserved_workers) reserved_workers->stop();
  if (cpu_workers) cpu_workers->stop();
  table.for_each([this](Connection& c) { close(c); });
  table.collect();
  close_fds();
}

void Listener::Loop::wait() {
  std::unique_lock<std::mutex> lock(running_mu);
  running_cv.wait(lock, [this] { return !running; });
}

void Listener::Loop::close_fds() {
  for (int* fd : {&listen_fd, &epoll_fd, &wake_fd, &spare_fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

void Listener::Loop::wake() {
  // One write per loop wake-up, however many answers arrive meanwhile.
  if (wake_fd < 0 || wake_pending.exchange(true)) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
}

void Listener::Loop::run() {
  std::array<epoll_event, 256> events{};
  auto next_sweep = Clock::now() + kSweepInterval;
  for (;;) {
    const int timeout =
        read_again.empty() && write_again.empty() ? static_cast<int>(kSweepInterval.count()) : 0;
    const int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), timeout);
    const auto now = Clock::now();
    // Answers workers wrote whole come first: their clients may have sent the next one.
    take_completions(now);
    for (int i = 0; i < n; ++i) {
      const std::uint64_t tag = events[static_cast<std::size_t>(i)].data.u64;
      if (tag == kListenTag) {
        accept_ready(now);
      } else if (tag == kWakeTag) {
        std::uint64_t count = 0;
        [[maybe_unused]] auto r = ::read(wake_fd, &count, sizeof count);
        // Cleared before the queue is taken: an answer queued after this wakes again.
        wake_pending = false;
        take_completions(now);
      } else if (Connection* c = table.find(tag)) {
        on_event(*c, events[static_cast<std::size_t>(i)].events, now);
      }
    }
    if (!read_again.empty()) {
      std::vector<std::uint64_t> ids;
      ids.swap(read_again);
      for (std::uint64_t id : ids) {
        Connection* c = table.find(id);
        if (c != nullptr && c->readable) read_ready(*c, now);
      }
    }
    if (!write_again.empty()) {
      std::vector<std::uint64_t> ids;
      ids.swap(write_again);
      for (std::uint64_t id : ids) {
        Connection* c = table.find(id);
        if (c != nullptr && c->fd >= 0 && c->more) write_ready(*c, now);
      }
    }
    // An answer queued while the events above asked for it (its worker saw no request).
    if (awaiting > 0) take_completions(now);
    if (stop_requested && !stopping) begin_stop(now);
    if (now >= next_sweep) {
      sweep(now);
      next_sweep = now + kSweepInterval;
    }
    table.collect();
    if (stopping && (table.size() == 0 || now >= drain_deadline)) break;
  }
  // A worker may still be writing to a connection it answers: those close in stop(),
  // after the workers are joined, so their descriptors cannot be reused meanwhile.
  table.for_each([this](Connection& c) {
    if (c.state != ConnState::handling) close(c);
  });
  table.collect();
}

void Listener::Loop::accept_ready(Clock::time_point now) {
  for (int i = 0; i < kAcceptBatch && listen_fd >= 0; ++i) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      admit(fd, addr, now);
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;
    if (errno == EMFILE || errno == ENFILE) {
      if (free_a_descriptor(now)) continue;
      return;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK) pause_accepting(now);
    return;
  }
}

void Listener::Loop::admit(int fd, const sockaddr_storage& addr, Clock::time_point now) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  int port = -1;
  const std::string peer = address_text(addr, &port);
  const Admission a = table.admit(peer, max_connections, config.max_connections_per_peer);
  if (!a.admit) {
    refuse_connection(fd, peer, port, a.limit);
    return;
  }
  if (a.victim) {
    if (Connection* victim = table.find(*a.victim)) {
      stats.evicted[static_cast<std::size_t>(a.limit)]++;
      close(*victim);
    }
  }
  Connection& c = table.add(fd, peer, port, config.parser);
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0)
    c.local_addr = address_text(local, &c.local_port);
  c.deadline = now + config.idle_timeout;
  // Registered once, edge-triggered: no epoll_ctl per request.
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
  ev.data.u64 = c.id;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
    close(c);
    return;
  }
  stats.accepted++;
}

void Listener::Loop::refuse_connection(int fd, const std::string& peer, int port, Limit limit) {
  stats.refused[static_cast<std::size_t>(limit)]++;
  // Read what already arrived, so closing does not reset the connection under the answer.
  char buf[4096];
  for (int i = 0; i < 16 && ::recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0; ++i) {
  }
  httplib::Request req;
  req.remote_addr = peer;
  req.remote_port = port;
  httplib::Response res;
  callbacks.refuse(req, 503, "too many connections; retry in a moment", res);
  const std::string bytes = serialize_response(req, res, false);
  [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  ::close(fd);
}

bool Listener::Loop::free_a_descriptor(Clock::time_point now) {
  if (Connection* victim = table.oldest_evictable(nullptr)) {
    stats.evicted[static_cast<std::size_t>(Limit::descriptors)]++;
    close(*victim);
    return true;
  }
  if (spare_fd >= 0) {
    ::close(spare_fd);
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd = ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&addr), &len,
                             SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      int port = -1;
      const std::string peer = address_text(addr, &port);
      refuse_connection(fd, peer, port, Limit::descriptors);
    }
    spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }
  pause_accepting(now);
  return false;
}

void Listener::Loop::pause_accepting(Clock::time_point now) {
  if (accept_paused || listen_fd < 0) return;
  epoll_event ev{};
  ev.data.u64 = kListenTag;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
  accept_paused = true;
  accept_resume = now + kAcceptPause;
}

void Listener::Loop::sweep(Clock::time_point now) {
  if (accept_paused && now >= accept_resume && listen_fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenTag;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, listen_fd, &ev);
    accept_paused = false;
  }
  table.for_each([&](Connection& c) {
    if (c.state == ConnState::handling || now < c.deadline) return;
    switch (c.state) {
      case ConnState::idle:
        stats.timed_out[static_cast<std::size_t>(Deadline::idle)]++;
        close(c);
        break;
      case ConnState::reading:
        stats.timed_out[static_cast<std::size_t>(Deadline::request)]++;
        if (!c.answered_any && c.out.empty()) {
          char message[80];
          std::snprintf(message, sizeof message, "the request did not arrive within %g s",
                        static_cast<double>(config.request_timeout.count()) / 1000.0);
          refuse_request(c, 408, message, now);
        } else {
          close(c);
        }
        break;
      case ConnState::writing:
        stats.timed_out[static_cast<std::size_t>(Deadline::write)]++;
        close(c);
        break;
      case ConnState::closing:
      case ConnState::handling:
        close(c);
        break;
    }
  });
}

void Listener::Loop::take_completions(Clock::time_point now) {
  std::vector<Completion> done;
  for (;;) {
    // Said before looking, so an answer queued after the look wakes the loop when a
    // connection still awaits one (see await_answer).
    completions_wanted = awaiting > 0;
    {
      std::lock_guard<std::mutex> lock(completions_mu);
      done.swap(completions);
    }
    if (done.empty()) return;
    for (auto& d : done) {
      Connection* c = table.find(d.id);
      if (c == nullptr || c->state != ConnState::handling) continue;
      if (c->awaited) {
        c->awaited = false;
        --awaiting;
      }
      if (c->detached) {
        close(*c);
        continue;
      }
      answer(*c, std::move(d.bytes), d.sent, d.keep_alive && !stopping, std::move(d.more), now);
    }
    done.clear();
  }
}

void Listener::Loop::begin_stop(Clock::time_point now) {
  stopping = true;
  drain_deadline = now + config.drain;
  if (listen_fd >= 0) {
    ::epoll_ctl(epoll_fd, EPOLL_CTL_DEL, listen_fd, nullptr);
    ::close(listen_fd);
    listen_fd = -1;
  }
  table.for_each([this](Connection& c) {
    if (c.state == ConnState::handling || c.state == ConnState::writing)
      c.close_after = true;
    else
      close(c);
  });
}

}  // namespace kb::http::net
