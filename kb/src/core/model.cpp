#include "kb/model.h"

#include "kb/error.h"

namespace kb {

std::string_view kind_namespace(Kind k) {
  switch (k) {
    case Kind::gotcha:
      return "gotchas";
    case Kind::engine:
      return "engines";
    case Kind::oracle:
      return "oracles";
    case Kind::result:
      return "results";
    case Kind::setting:
      return "settings";
    case Kind::model:
      return "models";
  }
  return "gotchas";
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::gotcha:
      return "gotcha";
    case Kind::engine:
      return "engine";
    case Kind::oracle:
      return "oracle";
    case Kind::result:
      return "result";
    case Kind::setting:
      return "setting";
    case Kind::model:
      return "model";
  }
  return "gotcha";
}

std::string_view to_string(GotchaSeverity s) {
  return kSeverityNames[static_cast<std::size_t>(s)];
}

std::string_view to_string(GotchaStatus s) {
  return kStatusNames[static_cast<std::size_t>(s)];
}

std::optional<GotchaSeverity> parse_gotcha_severity(std::string_view s) {
  for (GotchaSeverity g : kAllGotchaSeverities) {
    if (s == to_string(g)) return g;
  }
  return std::nullopt;
}

std::optional<GotchaStatus> parse_gotcha_status(std::string_view s) {
  for (GotchaStatus g : kAllGotchaStatuses) {
    if (s == to_string(g)) return g;
  }
  return std::nullopt;
}

int severity_rank(std::string_view severity) {
  const auto parsed = parse_gotcha_severity(severity);
  return parsed ? static_cast<int>(*parsed) : static_cast<int>(std::size(kAllGotchaSeverities));
}

int severity_rank(const std::optional<GotchaSeverity>& severity) {
  return severity ? static_cast<int>(*severity) : static_cast<int>(std::size(kAllGotchaSeverities));
}

// "" (not a default string_view): a null pointer would bind as SQL NULL.
std::string_view to_string(const std::optional<GotchaSeverity>& s) {
  return s ? to_string(*s) : std::string_view("");
}

std::string_view to_string(const std::optional<GotchaStatus>& s) {
  return s ? to_string(*s) : std::string_view("");
}

std::optional<Kind> parse_kind(std::string_view s) {
  for (Kind k : kAllKinds) {
    if (s == kind_namespace(k) || s == kind_name(k)) return k;
  }
  return std::nullopt;
}

namespace {

void operand_slot(const Operand& o, std::vector<RefSlot>& out) {
  if (!o.is_literal && !o.key.raw.empty()) out.push_back({&o.key, Kind::setting});
}

void predicate_slots(const Predicate& p, std::vector<RefSlot>& out) {
  switch (p.op) {
    case Predicate::Op::engine:
      if (p.engine) out.push_back({&*p.engine, Kind::engine});
      break;
    case Predicate::Op::config:
      for (const auto& t : p.config) out.push_back({&t.key, Kind::setting});
      break;
    case Predicate::Op::config_set:
      for (const auto& k : p.keys) out.push_back({&k, Kind::setting});
      break;
    case Predicate::Op::differs:
      if (p.engine && !p.engine->raw.empty()) out.push_back({&*p.engine, Kind::engine});
      for (const auto& k : p.keys) out.push_back({&k, Kind::setting});
      break;
    case Predicate::Op::compare:
      operand_slot(p.compare->left, out);
      operand_slot(p.compare->right, out);
      break;
    default:
      break;
  }
  for (const auto& c : p.children) predicate_slots(c, out);
}

}  // namespace

std::vector<RefSlot> reference_slots(const Record& r) {
  std::vector<RefSlot> out;
  for (const auto& v : r.affects) out.push_back({&v, Kind::engine});
  if (r.applies_when) predicate_slots(*r.applies_when, out);
  for (const auto& v : r.related) out.push_back({&v, Kind::gotcha});
  for (const auto& v : r.oracles) out.push_back({&v, Kind::oracle});
  for (const auto& f : r.fixes) {
    if (!f.engine.raw.empty()) out.push_back({&f.engine, Kind::engine});
  }
  if (r.detection) {
    for (const auto& v : r.detection->oracles) out.push_back({&v, Kind::oracle});
    for (const auto& sig : r.detection->signatures) {
      if (!sig.engine.raw.empty()) out.push_back({&sig.engine, Kind::engine});
    }
  }
  for (const auto& rel : r.engine->relations) out.push_back({&rel.engine, Kind::engine});
  for (const auto& img : r.engine->images) {
    for (const auto& v : img.engines) out.push_back({&v, Kind::engine});
  }
  for (const auto& ep : r.engine->entrypoints) {
    for (const auto& v : ep.engines) out.push_back({&v, Kind::engine});
    for (const auto& kv : ep.implies) out.push_back({&kv.key, Kind::setting});
  }
  for (const auto& res : r.engine->resources) {
    for (const auto& v : res.engines) out.push_back({&v, Kind::engine});
  }
  for (const auto& ch : r.engine->charts) {
    for (const auto& v : ch.engines) out.push_back({&v, Kind::engine});
    if (!ch.keys_of.raw.empty()) out.push_back({&ch.keys_of, Kind::engine});
  }
  for (const auto& rel : r.engine->releases) {
    for (const auto& v : rel.bundles) out.push_back({&v, Kind::engine});
  }
  for (const auto& e : r.setting->engines) out.push_back({&e.engine, Kind::engine});
  if (!r.setting->file_of.raw.empty()) out.push_back({&r.setting->file_of, Kind::engine});
  for (const auto& v : r.setting->values) {
    for (const auto& e : v.engines) out.push_back({&e, Kind::engine});
    for (const auto& kv : v.implies) out.push_back({&kv.key, Kind::setting});
  }
  for (const auto& kv : r.traits) out.push_back({&kv.key, Kind::setting});
  if (!r.result->oracle.raw.empty()) out.push_back({&r.result->oracle, Kind::oracle});
  for (const auto& v : r.result->subject.engines) out.push_back({&v, Kind::engine});
  for (const auto& v : r.result->evidence_for) out.push_back({&v, Kind::gotcha});
  return out;
}

std::string_view display_name(const Record& r) {
  if (!r.engine->name.empty()) return r.engine->name;
  if (!r.title.empty()) return r.title;
  return r.id;
}

const char* errc_code(Errc e) {
  switch (e) {
    case Errc::invalid_argument:
      return "invalid-argument";
    case Errc::not_found:
      return "not-found";
    case Errc::io:
      return "io";
    case Errc::database:
      return "database";
    case Errc::too_large:
      return "too-large";
    case Errc::timeout:
      return "timeout";
    case Errc::internal:
      return "internal";
  }
  return "internal";
}

}  // namespace kb
