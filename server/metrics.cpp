#include "metrics.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "kb/snapshot.h"

namespace kb::http {
namespace {

// Label values come from the route table, but escape them as the format requires anyway.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void render_connections(std::ostream& out, const net::ConnectionStats& c) {
  out << "# HELP kb_http_connections Open client connections, by state.\n"
         "# TYPE kb_http_connections gauge\n";
  for (std::size_t i = 0; i < net::kConnStates; ++i) {
    out << "kb_http_connections{state=\"" << net::kConnStateNames[i] << "\"} "
        << std::max<std::int64_t>(c.open[i].load(std::memory_order_relaxed), 0) << "\n";
  }
  out << "# HELP kb_http_connection_limit The connection limits in force.\n"
         "# TYPE kb_http_connection_limit gauge\n"
      << "kb_http_connection_limit{scope=\"global\"} " << c.max_connections.load() << "\n"
      << "kb_http_connection_limit{scope=\"per_peer\"} " << c.max_connections_per_peer.load()
      << "\n";
  out << "# HELP kb_http_connections_accepted_total Connections accepted.\n"
         "# TYPE kb_http_connections_accepted_total counter\n"
      << "kb_http_connections_accepted_total " << c.accepted.load() << "\n";
  out << "# HELP kb_http_connections_evicted_total Connections (idle or still sending a "
         "request) closed to make room for a new one, by the limit reached.\n"
         "# TYPE kb_http_connections_evicted_total counter\n";
  for (std::size_t i = 0; i < net::kLimits; ++i) {
    out << "kb_http_connections_evicted_total{limit=\"" << net::kLimitNames[i] << "\"} "
        << c.evicted[i].load() << "\n";
  }
  out << "# HELP kb_http_connections_refused_total New connections answered 503 because none "
         "could make room, by the limit reached.\n"
         "# TYPE kb_http_connections_refused_total counter\n";
  for (std::size_t i = 0; i < net::kLimits; ++i) {
    out << "kb_http_connections_refused_total{limit=\"" << net::kLimitNames[i] << "\"} "
        << c.refused[i].load() << "\n";
  }
  out << "# HELP kb_http_connections_timed_out_total Connections closed at a deadline: the "
         "request's, the kept-alive idle one, or the write progress one.\n"
         "# TYPE kb_http_connections_timed_out_total counter\n";
  for (std::size_t i = 0; i < net::kDeadlines; ++i) {
    out << "kb_http_connections_timed_out_total{deadline=\"" << net::kDeadlineNames[i] << "\"} "
        << c.timed_out[i].load() << "\n";
  }
  out << "# HELP kb_http_request_timeouts_total Requests answered 408 (not all there in time).\n"
         "# TYPE kb_http_request_timeouts_total counter\n"
      << "kb_http_request_timeouts_total " << c.request_timeouts_answered.load() << "\n";
  out << "# HELP kb_http_answered_inline_total Answers already built (a cached record or page, "
         "a 304) written by the event loop without a worker.\n"
         "# TYPE kb_http_answered_inline_total counter\n"
      << "kb_http_answered_inline_total " << c.answered_inline.load() << "\n";
  out << "# HELP kb_http_request_bytes_buffered Bytes of requests still arriving, held by the "
         "event loop.\n"
         "# TYPE kb_http_request_bytes_buffered gauge\n"
      << "kb_http_request_bytes_buffered " << c.buffered_bytes.load() << "\n";
  out << "# HELP kb_http_requests_refused_buffered_total Requests answered 503 because their "
         "bytes took what is buffered past a peer's or the server's budget, by that limit.\n"
         "# TYPE kb_http_requests_refused_buffered_total counter\n";
  for (const net::Limit l : {net::Limit::per_peer, net::Limit::global}) {
    const auto i = static_cast<std::size_t>(l);
    out << "kb_http_requests_refused_buffered_total{limit=\"" << net::kLimitNames[i] << "\"} "
        << c.refused_buffered[i].load() << "\n";
  }
  out << "# HELP kb_http_clients_gone_total Requests whose client left while they were queued "
         "or answered.\n"
         "# TYPE kb_http_clients_gone_total counter\n"
      << "kb_http_clients_gone_total " << c.clients_gone.load() << "\n";
  out << "# HELP kb_http_requests_cancelled_total Requests dropped unanswered because their "
         "client had gone before a worker took them.\n"
         "# TYPE kb_http_requests_cancelled_total counter\n"
      << "kb_http_requests_cancelled_total " << c.cancelled.load() << "\n";
}

}  // namespace

std::string_view reload_state(const ReloadStatus& status, std::chrono::milliseconds stuck_after,
                              std::chrono::system_clock::time_point now) {
  if (status.state == ReloadState::running &&
      now - status.since > std::chrono::duration<double>(stuck_after)) {
    return "stuck";
  }
  return to_string(status.state);
}

void Metrics::observe(std::string_view route, int status, std::chrono::microseconds latency) {
  const double seconds = static_cast<double>(latency.count()) / 1e6;
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{std::string(route), status}];
  auto& h = latency_[std::string(route)];
  for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i) {
    if (seconds <= kLatencyBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

std::uint64_t Metrics::requests(std::string_view route, int status) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = requests_.find({std::string(route), status});
  return it == requests_.end() ? 0 : it->second;
}

std::string Metrics::render(const Snapshot& snap, const LiveKb& kb,
                            std::chrono::milliseconds stuck_after) const {
  std::ostringstream out;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out << "# HELP kb_http_requests_total HTTP requests answered, by route and status.\n"
           "# TYPE kb_http_requests_total counter\n";
    for (const auto& [key, n] : requests_) {
      out << "kb_http_requests_total{route=\"" << label(key.first) << "\",status=\"" << key.second
          << "\"} " << n << "\n";
    }
    out << "# HELP kb_http_request_duration_seconds Time from routing to the response, by route.\n"
           "# TYPE kb_http_request_duration_seconds histogram\n";
    for (const auto& [route, h] : latency_) {
      const std::string r = label(route);
      for (std::size_t i = 0; i < kLatencyBuckets.size(); ++i) {
        out << "kb_http_request_duration_seconds_bucket{route=\"" << r << "\",le=\""
            << number(kLatencyBuckets[i]) << "\"} " << h.buckets[i] << "\n";
      }
      out << "kb_http_request_duration_seconds_bucket{route=\"" << r << "\",le=\"+Inf\"} "
          << h.count << "\n";
      out << "kb_http_request_duration_seconds_sum{route=\"" << r << "\"} " << number(h.sum)
          << "\n";
      out << "kb_http_request_duration_seconds_count{route=\"" << r << "\"} " << h.count << "\n";
    }
  }
  render_connections(out, connections_);
  const auto age =
      std::chrono::duration<double>(std::chrono::system_clock::now() - snap.loaded_at()).count();
  out << "# HELP kb_snapshot_age_seconds Seconds since the snapshot being served was loaded.\n"
         "# TYPE kb_snapshot_age_seconds gauge\n"
      << "kb_snapshot_age_seconds " << number(age < 0 ? 0 : age) << "\n";
  out << "# HELP kb_snapshot_generation Snapshots loaded since start, this one included.\n"
         "# TYPE kb_snapshot_generation gauge\n"
      << "kb_snapshot_generation " << snap.generation() << "\n";
  std::size_t by_kind[kKindCount] = {};
  for (const auto& r : snap.corpus().records()) ++by_kind[static_cast<int>(r->kind)];
  out << "# HELP kb_records Records in the snapshot, by type.\n# TYPE kb_records gauge\n";
  for (Kind k : kAllKinds) {
    out << "kb_records{type=\"" << kind_name(k) << "\"} " << by_kind[static_cast<int>(k)] << "\n";
  }
  out << "# HELP kb_reloads_total Snapshots swapped in after file changes.\n"
         "# TYPE kb_reloads_total counter\n"
      << "kb_reloads_total " << kb.reloads() << "\n";
  out << "# HELP kb_reload_failures_total Reloads that failed; the previous snapshot stayed.\n"
         "# TYPE kb_reload_failures_total counter\n"
      << "kb_reload_failures_total " << kb.reload_failures() << "\n";
  const auto now = std::chrono::system_clock::now();
  const ReloadStatus reload = kb.reload_status();
  const std::string_view state = reload_state(reload, stuck_after, now);
  out << "# HELP kb_reload_state The reload side's state: 1 for the current one, else 0.\n"
         "# TYPE kb_reload_state gauge\n";
  for (std::string_view s : {"idle", "running", "failing", "stuck"}) {
    out << "kb_reload_state{state=\"" << s << "\"} " << (s == state ? 1 : 0) << "\n";
  }
  out << "# HELP kb_reload_running_seconds How long the reload running now has taken; 0 when "
         "none runs.\n"
         "# TYPE kb_reload_running_seconds gauge\n"
      << "kb_reload_running_seconds " << number(reload.running_seconds(now)) << "\n";
  const auto success_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(reload.last_success.time_since_epoch());
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "%.3f", static_cast<double>(success_ms.count()) / 1000);
  out << "# HELP kb_reload_last_success_timestamp_seconds When the last reload (or the first "
         "load) succeeded, unix time.\n"
         "# TYPE kb_reload_last_success_timestamp_seconds gauge\n"
      << "kb_reload_last_success_timestamp_seconds " << stamp << "\n";
  out << "# HELP kb_diagnostics Lint diagnostics of the snapshot, by severity.\n"
         "# TYPE kb_diagnostics gauge\n";
  for (Severity s : {Severity::error, Severity::warning, Severity::note}) {
    out << "kb_diagnostics{severity=\"" << to_string(s) << "\"} " << snap.diagnostics_of(s) << "\n";
  }
  out << "# HELP kb_watch_inotify Whether file changes are watched with inotify (0: polling or "
         "none).\n"
         "# TYPE kb_watch_inotify gauge\n"
      << "kb_watch_inotify " << (kb.uses_inotify() ? 1 : 0) << "\n";
  return out.str();
}

}  // namespace kb::http
