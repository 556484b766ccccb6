// Roles a router gives the servers it names: a role value's `routed_by` settings (read
// from the router's own flags) against each server's `port` setting.

#include "deploy/routed_roles.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "deploy/settings_reader.h"

namespace kb::deploy {
namespace {

// The port a router's word names: `8100`, `host:8100`, `http://host:8100/v1`; "" none.
// Leading zeros dropped, so that `08100` and `8100` are one port.
std::string port_of(std::string_view w) {
  if (auto scheme = w.find("://"); scheme != std::string_view::npos) w.remove_prefix(scheme + 3);
  if (auto slash = w.find('/'); slash != std::string_view::npos) w = w.substr(0, slash);
  if (auto colon = w.rfind(':'); colon != std::string_view::npos) w.remove_prefix(colon + 1);
  while (w.size() > 1 && w.front() == '0') w.remove_prefix(1);
  if (w.empty() || w.size() > 5) return "";
  for (char c : w) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return "";
  }
  return std::string(w);
}

struct Naming {
  std::string role;
  std::size_t router = 0;  ///< index in the deployment's services
  /// The key of the router's setting that names the port: looked up when used (not a
  /// copy: it may hold thousands of parts, one Naming each; not a pointer: settings of a
  /// service change below).
  std::string key;
};

}  // namespace

void routed_roles(Deployment& d, const Vocabulary& vocab) {
  const Record* roles = vocab.setting(service_role::kKey);
  if (!roles) return;
  // (file, port) -> the routers naming it, and as what.
  std::map<std::pair<std::string, std::string>, std::vector<Naming>> named;
  for (const SettingValue& v : roles->setting->values) {
    for (const std::string& key : v.routed_by) {
      for (std::size_t i = 0; i < d.services.size(); ++i) {
        const Service& r = d.services[i];
        const Setting* s = r.find(key);
        if (!s || s->runtime) continue;
        const std::vector<std::string> words =
            s->parts.empty() ? std::vector<std::string>{s->value} : s->parts;
        for (const std::string& w : words) {
          const std::string port = port_of(w);
          if (port.empty()) continue;
          auto& by = named[{r.file, port}];
          // A router naming one port many times is one naming (kept once: every server on
          // the port reads the list).
          if (by.empty() || by.back().router != i || by.back().role != v.value.str())
            by.push_back({v.value.str(), i, key});
        }
      }
    }
  }
  if (named.empty()) return;
  for (std::size_t i = 0; i < d.services.size(); ++i) {
    Service& svc = d.services[i];
    const Setting* port = svc.find(service_role::kPortKey);
    if (!port || port->runtime) continue;
    auto it = named.find({svc.file, port_of(port->value)});
    if (it == named.end()) continue;
    std::set<std::string> given;
    const Naming* first = nullptr;
    for (const Naming& n : it->second) {
      if (n.router == i) continue;  // a router's own port is no server of its
      given.insert(n.role);
      if (!first) first = &n;
    }
    if (given.size() != 1) continue;  // none, or the port is named for two roles
    const std::string stated = stated_role(vocab, svc);
    if (!stated.empty() && stated != service_role::kBoth) continue;
    if (stated == first->role) continue;
    const Setting* named_by = d.services[first->router].find(first->key);
    if (!named_by) continue;
    // Copied before this service's settings change (the router may be this service).
    Setting by;
    by.raw_key = named_by->raw_key;
    by.file = named_by->file;
    by.pos = named_by->pos;
    by.end = named_by->end;
    const std::string role = first->role;
    const std::string router = d.services[first->router].name;
    const std::string says = by.raw_key + " of " + router + " names port " + port_of(port->value) +
                             " as a " + role + " server";
    auto own = std::find_if(svc.config.begin(), svc.config.end(),
                            [](const Setting& x) { return x.key == service_role::kKey; });
    if (own != svc.config.end()) {
      d.not_understood.push_back(
          {own->file, own->pos,
           own->via + (own->runtime ? " (set at run time)" : " = " + own->raw_value),
           "a connector mode, not the service's place: " + says});
      svc.config.erase(own);
    }
    Setting s;
    s.key = std::string(service_role::kKey);
    s.value = role;
    s.raw_key = "router";
    s.raw_value = role;
    s.via = by.raw_key + " " + port_of(port->value) + " of " + router;
    s.file = by.file;
    s.pos = by.pos;
    s.end = by.end;
    svc.config.push_back(std::move(s));
  }
}

}  // namespace kb::deploy
