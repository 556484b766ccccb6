#include "kb/model.h"

#include "kb/error.h"

namespace kb {

std::string_view kind_namespace(Kind k) {
  switch (k) {
    case Kind::gotcha: return "gotchas";
    case Kind::engine: return "engines";
    case Kind::oracle: return "oracles";
    case Kind::result: return "results";
  }
  return "gotchas";
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::gotcha: return "gotcha";
    case Kind::engine: return "engine";
    case Kind::oracle: return "oracle";
    case Kind::result: return "result";
  }
  return "gotcha";
}

std::optional<Kind> parse_kind(std::string_view s) {
  for (Kind k : {Kind::gotcha, Kind::engine, Kind::oracle, Kind::result}) {
    if (s == kind_namespace(k) || s == kind_name(k)) return k;
  }
  return std::nullopt;
}

namespace {
void predicate_slots(const Predicate& p, std::vector<RefSlot>& out) {
  if (p.op == Predicate::Op::engine) out.push_back({&p.engine, Kind::engine});
  for (const auto& c : p.children) predicate_slots(c, out);
}
}  // namespace

std::vector<RefSlot> reference_slots(const Record& r) {
  std::vector<RefSlot> out;
  for (const auto& v : r.affects) out.push_back({&v, Kind::engine});
  if (r.applies_when) predicate_slots(*r.applies_when, out);
  for (const auto& v : r.related) out.push_back({&v, Kind::gotcha});
  for (const auto& v : r.oracles) out.push_back({&v, Kind::oracle});
  if (!r.oracle.raw.empty()) out.push_back({&r.oracle, Kind::oracle});
  for (const auto& v : r.subject.engines) out.push_back({&v, Kind::engine});
  for (const auto& v : r.evidence_for) out.push_back({&v, Kind::gotcha});
  return out;
}

std::string_view display_name(const Record& r) {
  if (!r.name.empty()) return r.name;
  if (!r.title.empty()) return r.title;
  return r.id;
}

const char* errc_code(Errc e) {
  switch (e) {
    case Errc::invalid_argument: return "invalid-argument";
    case Errc::not_found: return "not-found";
    case Errc::io: return "io";
    case Errc::database: return "database";
    case Errc::too_large: return "too-large";
    case Errc::timeout: return "timeout";
    case Errc::internal: return "internal";
  }
  return "internal";
}

}  // namespace kb
