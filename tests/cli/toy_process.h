#pragma once

// Runs kb_toy_openai_server (tests/oracle) as a child process for the CLI tests, and kb
// in the background for the tests that interrupt it.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace kb_test {

/// The toy server, started with `args`, stopped (SIGTERM) when this goes away.
class ToyProcess {
 public:
  explicit ToyProcess(const std::vector<std::string>& args) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> argv;
      std::string bin = KB_TOY_SERVER;
      argv.push_back(bin.data());
      std::vector<std::string> copy = args;
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(bin.c_str(), argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    std::string line;
    char c = 0;
    while (::read(fds[0], &c, 1) == 1 && c != '\n') line += c;
    ::close(fds[0]);
    if (line.rfind("listening on ", 0) != 0) throw std::runtime_error("toy server: " + line);
    port_ = std::stoi(line.substr(13));
  }
  ~ToyProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  ToyProcess(const ToyProcess&) = delete;
  ToyProcess& operator=(const ToyProcess&) = delete;

  /// http://127.0.0.1:PORT
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

/// `kb ARGS` started in the background with output going to files under `dir`.
inline pid_t kb_background(const std::string& dir, const std::string& args) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const std::string cmd = std::string("exec '") + KB_BINARY + "' " + args + " </dev/null >'" +
                            dir + "/stdout' 2>'" + dir + "/stderr'";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

}  // namespace kb_test
