#pragma once

// Caps on the test process itself, so that a regression of a budget fails fast (bad_alloc,
// SIGXCPU) instead of swapping the machine or hanging CI. ctest runs each Catch2 test case
// in a process of its own, so a cap set in a test case ends with it.

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace kb::test {

/// The process's virtual memory now, in bytes (0 when /proc is not there).
inline std::size_t virtual_memory_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

/// Lets the process grow its address space by at most `extra` bytes from now on.
inline bool cap_address_space(std::size_t extra) {
  const std::size_t now = virtual_memory_bytes();
  if (now == 0) return false;
  rlimit lim{now + extra, now + extra};
  return setrlimit(RLIMIT_AS, &lim) == 0;
}

/// Lets the process use at most `seconds` more seconds of CPU (then SIGXCPU ends it).
inline bool cap_cpu_seconds(rlim_t seconds) {
  rusage used{};
  getrusage(RUSAGE_SELF, &used);
  const rlim_t now = static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) + 1;
  rlimit lim{now + seconds, now + seconds + 1};
  return setrlimit(RLIMIT_CPU, &lim) == 0;
}

}  // namespace kb::test
