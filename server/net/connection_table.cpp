#include "connection_table.h"

namespace kb::http::net {
namespace {

bool may_evict(ConnState s) {
  return s == ConnState::idle || s == ConnState::reading || s == ConnState::closing;
}

}  // namespace

ConnectionTable::~ConnectionTable() {
  for (auto& [id, c] : by_id_) {
    if (c->fd >= 0) stats_.open[static_cast<std::size_t>(c->state)]--;
  }
}

Connection& ConnectionTable::add(int fd, std::string peer, int peer_port, ParserLimits limits) {
  auto c = std::make_unique<Connection>(limits);
  c->id = next_id_++;
  c->fd = fd;
  c->peer = std::move(peer);
  c->peer_port = peer_port;
  Connection& ref = *c;
  by_peer_[ref.peer].insert(ref.id);
  by_id_.emplace(ref.id, std::move(c));
  ++open_;
  stats_.open[static_cast<std::size_t>(ConnState::idle)]++;
  return ref;
}

Connection* ConnectionTable::find(std::uint64_t id) {
  auto it = by_id_.find(id);
  return it == by_id_.end() || it->second->fd < 0 ? nullptr : it->second.get();
}

void ConnectionTable::set_state(Connection& c, ConnState state) {
  if (c.state == state) return;
  if (c.fd >= 0) {
    stats_.open[static_cast<std::size_t>(c.state)]--;
    stats_.open[static_cast<std::size_t>(state)]++;
  }
  c.state = state;
}

void ConnectionTable::set_buffered(Connection& c, std::size_t bytes) {
  if (bytes == c.buffered) return;
  std::size_t& peer = buffered_by_peer_[c.peer];
  peer = peer - c.buffered + bytes;
  buffered_ = buffered_ - c.buffered + bytes;
  c.buffered = bytes;
  if (peer == 0) buffered_by_peer_.erase(c.peer);
  stats_.buffered_bytes = buffered_;
}

std::size_t ConnectionTable::buffered(const std::string& peer) const {
  auto it = buffered_by_peer_.find(peer);
  return it == buffered_by_peer_.end() ? 0 : it->second;
}

void ConnectionTable::retire(Connection& c) {
  set_buffered(c, 0);
  stats_.open[static_cast<std::size_t>(c.state)]--;
  --open_;
  auto peer = by_peer_.find(c.peer);
  if (peer != by_peer_.end()) {
    peer->second.erase(c.id);
    if (peer->second.empty()) by_peer_.erase(peer);
  }
  retired_.push_back(c.id);
  c.fd = -1;
}

void ConnectionTable::collect() {
  for (std::uint64_t id : retired_) by_id_.erase(id);
  retired_.clear();
}

std::size_t ConnectionTable::count(const std::string& peer) const {
  auto it = by_peer_.find(peer);
  return it == by_peer_.end() ? 0 : it->second.size();
}

Connection* ConnectionTable::evictable(const std::set<std::uint64_t>* among) {
  // Two passes, oldest first: connections already answered and closing, then the ones
  // idle or still sending a request. Never one whose request is being answered.
  for (const bool closing_only : {true, false}) {
    auto consider = [&](Connection& c) {
      if (c.fd < 0 || !may_evict(c.state)) return false;
      return !closing_only || c.state == ConnState::closing;
    };
    if (among != nullptr) {
      for (std::uint64_t id : *among) {
        Connection* c = find(id);
        if (c != nullptr && consider(*c)) return c;
      }
    } else {
      for (auto& [id, c] : by_id_) {
        if (consider(*c)) return c.get();
      }
    }
  }
  return nullptr;
}

Connection* ConnectionTable::oldest_evictable(const std::string* peer) {
  if (peer == nullptr) return evictable(nullptr);
  auto it = by_peer_.find(*peer);
  return it == by_peer_.end() ? nullptr : evictable(&it->second);
}

Admission ConnectionTable::admit(const std::string& peer, std::size_t max_total,
                                 std::size_t max_per_peer) {
  Admission a;
  auto mine = by_peer_.find(peer);
  if (mine != by_peer_.end() && mine->second.size() >= max_per_peer) {
    a.limit = Limit::per_peer;
    Connection* victim = evictable(&mine->second);
    if (victim == nullptr)
      a.admit = false;
    else
      a.victim = victim->id;
    return a;
  }
  if (open_ >= max_total) {
    a.limit = Limit::global;
    Connection* victim = evictable(nullptr);
    if (victim == nullptr)
      a.admit = false;
    else
      a.victim = victim->id;
  }
  return a;
}

}  // namespace kb::http::net
