// Which connection makes room for a new one: the peer's (or anyone's) oldest that is
// closing, idle or still sending its request, never one being answered; and the state
// counts /metrics reads.

#include <catch2/catch.hpp>

#include "net/connection_table.h"

using kb::http::net::ConnectionStats;
using kb::http::net::ConnectionTable;
using kb::http::net::ConnState;
using kb::http::net::Limit;

namespace {

std::int64_t open_in(const ConnectionStats& s, ConnState state) {
  return s.open[static_cast<std::size_t>(state)].load();
}

}  // namespace

TEST_CASE("under the limits every connection is admitted", "[net][connections]") {
  ConnectionStats stats;
  ConnectionTable t(stats);
  t.add(10, "10.0.0.1", 1, {});
  t.add(11, "10.0.0.1", 2, {});
  const auto a = t.admit("10.0.0.1", 3, 3);
  CHECK(a.admit);
  CHECK_FALSE(a.victim);
  CHECK(t.size() == 2);
  CHECK(t.count("10.0.0.1") == 2);
  CHECK(t.count("10.0.0.2") == 0);
}

TEST_CASE("over the per-peer limit, that peer's oldest idle or reading one goes",
          "[net][connections]") {
  ConnectionStats stats;
  ConnectionTable t(stats);
  auto& a1 = t.add(10, "10.0.0.1", 1, {});
  auto& other = t.add(11, "10.0.0.2", 1, {});
  auto& a2 = t.add(12, "10.0.0.1", 2, {});
  auto& a3 = t.add(13, "10.0.0.1", 3, {});
  t.set_state(a1, ConnState::handling);
  t.set_state(other, ConnState::reading);
  t.set_state(a2, ConnState::reading);
  t.set_state(a3, ConnState::idle);
  auto a = t.admit("10.0.0.1", 100, 3);
  CHECK(a.admit);
  REQUIRE(a.victim);
  CHECK(*a.victim == a2.id);  // a1 is being answered; a2 is older than a3
  CHECK(a.limit == Limit::per_peer);
  // A connection already closing goes before older idle ones.
  t.set_state(a3, ConnState::closing);
  a = t.admit("10.0.0.1", 100, 3);
  REQUIRE(a.victim);
  CHECK(*a.victim == a3.id);
  // When every one of the peer's is being answered or written, the new one is refused.
  t.set_state(a2, ConnState::writing);
  t.set_state(a3, ConnState::handling);
  a = t.admit("10.0.0.1", 100, 3);
  CHECK_FALSE(a.admit);
  CHECK(a.limit == Limit::per_peer);
  // Another peer is not affected.
  CHECK(t.admit("10.0.0.3", 100, 3).admit);
}

TEST_CASE("over the global limit, anyone's oldest idle or reading one goes", "[net][connections]") {
  ConnectionStats stats;
  ConnectionTable t(stats);
  auto& a = t.add(10, "10.0.0.1", 1, {});
  auto& b = t.add(11, "10.0.0.2", 1, {});
  t.set_state(a, ConnState::writing);
  t.set_state(b, ConnState::reading);
  auto adm = t.admit("10.0.0.3", 2, 10);
  CHECK(adm.admit);
  REQUIRE(adm.victim);
  CHECK(*adm.victim == b.id);
  CHECK(adm.limit == Limit::global);
  t.set_state(b, ConnState::handling);
  adm = t.admit("10.0.0.3", 2, 10);
  CHECK_FALSE(adm.admit);
  CHECK(adm.limit == Limit::global);
  CHECK(t.oldest_evictable(nullptr) == nullptr);
}

TEST_CASE("state counts follow the connections until they are retired", "[net][connections]") {
  ConnectionStats stats;
  {
    ConnectionTable t(stats);
    auto& a = t.add(10, "p", 1, {});
    auto& b = t.add(11, "p", 2, {});
    CHECK(open_in(stats, ConnState::idle) == 2);
    t.set_state(a, ConnState::reading);
    CHECK(open_in(stats, ConnState::idle) == 1);
    CHECK(open_in(stats, ConnState::reading) == 1);
    const auto id = a.id;
    t.retire(a);
    CHECK(a.fd == -1);
    CHECK(t.find(id) == nullptr);
    CHECK(open_in(stats, ConnState::reading) == 0);
    CHECK(t.size() == 1);
    CHECK(t.count("p") == 1);
    t.collect();
    int seen = 0;
    t.for_each([&](auto& c) {
      ++seen;
      CHECK(c.id == b.id);
    });
    CHECK(seen == 1);
  }
  CHECK(open_in(stats, ConnState::idle) == 0);
}

TEST_CASE("request bytes held are summed per peer and in all, and go with the connection",
          "[net][connections]") {
  ConnectionStats stats;
  ConnectionTable t(stats);
  auto& a1 = t.add(10, "10.0.0.1", 1, {});
  auto& a2 = t.add(11, "10.0.0.1", 2, {});
  auto& b = t.add(12, "10.0.0.2", 1, {});
  t.set_buffered(a1, 100);
  t.set_buffered(a2, 50);
  t.set_buffered(b, 7);
  CHECK(t.buffered("10.0.0.1") == 150);
  CHECK(t.buffered("10.0.0.2") == 7);
  CHECK(t.buffered() == 157);
  CHECK(stats.buffered_bytes.load() == 157);
  t.set_buffered(a1, 20);
  CHECK(t.buffered("10.0.0.1") == 70);
  t.retire(a2);
  CHECK(t.buffered("10.0.0.1") == 20);
  CHECK(t.buffered() == 27);
  t.set_buffered(b, 0);
  CHECK(t.buffered("10.0.0.2") == 0);
  CHECK(stats.buffered_bytes.load() == 20);
  t.collect();
}
