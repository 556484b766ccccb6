#pragma once

// A server that answers the way no honest one does, on a raw socket so that nothing
// between it and kb smooths the answer: JSON nested 100,000 deep, a chunked body that
// never ends, headers that never end, or an answer sent one byte at a time. Runs on a thread of the
// test process; the CLI tests point the kb binary at it, the integration tests kb_client.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace kb_test {

class HostileServer {
 public:
  enum class Mode {
    deep,     ///< 200, a JSON object nested 100,000 levels deep
    endless,  ///< 200, Transfer-Encoding: chunked, 64 KiB chunks until the client leaves
    trickle,  ///< a whole answer, status line included, one byte every 200 ms
    headers,  ///< 200, then 8 KB header lines until the client leaves
  };

  /// Serves `mode` on the paths starting with `hostile_prefix` ("" for every path); other
  /// paths get GET /v1/models' model list, or 404.
  explicit HostileServer(Mode mode, std::string hostile_prefix = "")
      : mode_(mode), prefix_(std::move(hostile_prefix)) {
    listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(listen_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listen_, 16) != 0 ||
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("hostile server: cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~HostileServer() {
    stop_ = true;
    ::shutdown(listen_, SHUT_RDWR);
    thread_.join();
    ::close(listen_);
  }
  HostileServer(const HostileServer&) = delete;
  HostileServer& operator=(const HostileServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// The head (request line and headers) of every request so far.
  std::vector<std::string> heads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return heads_;
  }

 private:
  static bool send_all(int fd, const std::string& s) {
    for (std::size_t at = 0; at < s.size();) {
      const ssize_t n = ::send(fd, s.data() + at, s.size() - at, MSG_NOSIGNAL);
      if (n <= 0) return false;
      at += static_cast<std::size_t>(n);
    }
    return true;
  }

  static std::string answer(const std::string& body, int status = 200) {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
           "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  void serve() {
    while (!stop_) {
      const int fd = ::accept4(listen_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      // A client that stopped reading and shut its socket may leave no RST to end a
      // blocked send: give up on it after 2 s instead of the kernel's minutes.
      const timeval patience{2, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &patience, sizeof patience);
      while (!stop_ && handle(fd)) {
      }
      ::close(fd);
    }
  }

  // Answers one request; false when the connection is done with.
  bool handle(int fd) {
    std::string head;
    char c = 0;
    while (head.find("\r\n\r\n") == std::string::npos) {
      if (::recv(fd, &c, 1, 0) != 1) return false;
      head += c;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      heads_.push_back(head);
    }
    const auto length_at = head.find("Content-Length: ");
    if (length_at != std::string::npos) {
      std::size_t left = std::stoul(head.substr(length_at + 16));
      for (; left > 0 && ::recv(fd, &c, 1, 0) == 1; --left) {
      }
    }
    const std::string path =
        head.substr(head.find(' ') + 1, head.find(' ', head.find(' ') + 1) - head.find(' ') - 1);
    if (path.rfind(prefix_, 0) != 0) {
      return send_all(fd, path == "/v1/models"
                              ? answer("{\"object\":\"list\",\"data\":[{\"id\":\"toy\"}]}")
                              : answer("{}", 404));
    }
    if (mode_ == Mode::deep) {
      std::string body = "{\"object\":\"list\",\"data\":[";
      for (int i = 0; i < 100000; ++i) body += "{\"a\":";
      body += "1";
      body += std::string(100000, '}') + "]}";
      return send_all(fd, answer(body));
    }
    if (mode_ == Mode::endless) {
      if (!send_all(fd,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n")) {
        return false;
      }
      const std::string chunk = "10000\r\n" + std::string(0x10000, ' ') + "\r\n";
      while (!stop_ && send_all(fd, chunk)) {
      }
      return false;
    }
    if (mode_ == Mode::headers) {
      if (!send_all(fd, "HTTP/1.1 200 OK\r\n")) return false;
      std::string lines;
      for (int i = 0; i < 8; ++i) lines += "X-Flood: " + std::string(8000, 'a') + "\r\n";
      while (!stop_ && send_all(fd, lines)) {
      }
      return false;
    }
    const std::string whole = answer("{\"object\":\"list\",\"data\":[]}" + std::string(4096, ' '));
    for (char b : whole) {
      if (stop_ || !send_all(fd, std::string(1, b))) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return true;
  }

  Mode mode_;
  std::string prefix_;
  int listen_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<std::string> heads_;
};

}  // namespace kb_test
