#pragma once

// Request counters and latency histograms by route, rendered with the snapshot's gauges
// in the Prometheus text exposition format for `GET /metrics`.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "net/connection_stats.h"

namespace kb {
class LiveKb;
class Snapshot;
struct ReloadStatus;
}  // namespace kb

namespace kb::http {

/// Upper bounds (seconds) of the latency histogram buckets.
inline constexpr std::array<double, 14> kLatencyBuckets = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

/// The reload state as /healthz and /metrics show it: "idle", "running", "failing", or
/// "stuck" once the running reload has taken longer than `stuck_after`.
std::string_view reload_state(const ReloadStatus& status, std::chrono::milliseconds stuck_after,
                              std::chrono::system_clock::time_point now);

/// Thread-safe request metrics of one server.
class Metrics {
 public:
  /// Counts one answered request. `route` is the route table's name (bounded label set).
  void observe(std::string_view route, int status, std::chrono::microseconds latency);
  /// Requests counted for (route, status); for tests.
  std::uint64_t requests(std::string_view route, int status) const;
  /// The exposition text: requests, latency, connections, snapshot age, records, reloads
  /// and their state (`stuck_after` as for reload_state), diagnostics.
  std::string render(const Snapshot& snap, const LiveKb& kb,
                     std::chrono::milliseconds stuck_after) const;
  /// The front end's connection counters, updated by its event loop.
  net::ConnectionStats& connections() { return connections_; }

 private:
  struct Histogram {
    std::array<std::uint64_t, kLatencyBuckets.size()> buckets{};
    std::uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, std::uint64_t> requests_;
  std::map<std::string, Histogram> latency_;
  net::ConnectionStats connections_;
};

}  // namespace kb::http
