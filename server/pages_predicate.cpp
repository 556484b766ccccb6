// `applies_when` as readers see it: one line per clause, nested clauses indented, every
// engine and setting linked to its page. Also which settings a predicate tests, which the
// setting and model pages list gotchas by.

#include <algorithm>

#include "pages_internal.h"

namespace kb::pages {

namespace {

// One piece of a clause line: plain text, a value in code, or a link.
Data part(std::string text, std::string href = {}, bool code = false) {
  Data d;
  set(d, "text", std::move(text));
  if (href.empty()) {
    set(d, "href", false);
  } else {
    set(d, "href", href);
  }
  set(d, "code", code);
  return d;
}

const Record* setting_of(const View& v, const RefValue& key) {
  const std::string id = target_id(v, key, Kind::setting);
  return id.empty() ? nullptr : v.corpus.find(id);
}

std::string key_name(const View& v, const RefValue& key) {
  const Record* s = setting_of(v, key);
  return s != nullptr ? s->setting->key : key.raw;
}

void key_part(const View& v, const Links& links, const RefValue& key, List& parts) {
  const Record* s = setting_of(v, key);
  parts.push_back(part(key_name(v, key), s != nullptr ? links.page(s->id) : std::string()));
}

// The readable operator of a config test.
std::string op_text(const std::string& op) {
  if (op == "eq") return " = ";
  if (op == "ne") return " ≠ ";
  if (op == "in") return " is one of ";
  if (op == "not_in") return " is none of ";
  if (op == "gt") return " > ";
  if (op == "gte") return " ≥ ";
  if (op == "lt") return " < ";
  if (op == "lte") return " ≤ ";
  return " " + op + " ";
}

void values_parts(const ConfigTest& t, List& parts) {
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    if (i > 0) parts.push_back(part(", "));
    parts.push_back(part(t.values[i], {}, true));
  }
}

std::string scope_text(const std::string& scope) {
  if (scope == "model") return "model trait ";
  if (scope == "hardware") return "hardware ";
  return {};
}

void operand_parts(const View& v, const Links& links, const Operand& o, List& parts) {
  if (o.is_literal) {
    parts.push_back(part(o.literal, {}, true));
    return;
  }
  if (!o.role.empty()) parts.push_back(part("the " + o.role + " services' "));
  key_part(v, links, o.key, parts);
}

Data line(int depth, List parts) {
  Data d;
  set(d, "depth", std::to_string(depth));
  set(d, "parts", std::move(parts));
  return d;
}

bool is_group(const Predicate& p) {
  return (p.op == Predicate::Op::all || p.op == Predicate::Op::any) && p.children.size() > 1;
}

void clauses(const View& v, const Links& links, const Predicate& p, int depth, List& out,
             List prefix = {}) {
  using Op = Predicate::Op;
  List parts = std::move(prefix);
  switch (p.op) {
    case Op::all:
    case Op::any:
      if (p.children.size() == 1) return clauses(v, links, p.children.front(), depth, out, parts);
      parts.push_back(part(p.op == Op::all ? "all of:" : "any of:"));
      out.push_back(line(depth, std::move(parts)));
      for (const auto& c : p.children) clauses(v, links, c, depth + 1, out);
      return;
    case Op::any_service:
    case Op::negate: {
      // One child, after words: its clause on the same line, a group under it.
      parts.push_back(part(p.op == Op::negate ? "not " : "some service of the deployment has "));
      if (p.children.empty()) break;
      const Predicate& child = p.children.front();
      if (!is_group(child)) return clauses(v, links, child, depth, out, std::move(parts));
      parts.push_back(part("(all of these):"));
      out.push_back(line(depth, std::move(parts)));
      clauses(v, links, child, depth + 1, out);
      return;
    }
    case Op::engine: {
      const std::string id = target_id(v, p.engine_ref(), Kind::engine);
      const Record* e = id.empty() ? nullptr : v.corpus.find(id);
      parts.push_back(part("engine "));
      parts.push_back(part(e != nullptr ? std::string(display_name(*e)) : p.engine_ref().raw.str(),
                           e != nullptr ? links.page(id) : std::string()));
      if (!p.engine_ref().versions.empty()) {
        parts.push_back(part(" "));
        parts.push_back(part(p.engine_ref().versions, {}, true));
      }
      break;
    }
    case Op::config:
      for (std::size_t i = 0; i < p.config.size(); ++i) {
        const ConfigTest& t = p.config[i];
        if (i > 0) parts.push_back(part(" and "));
        if (!p.scope.empty()) parts.push_back(part(scope_text(p.scope)));
        key_part(v, links, t.key, parts);
        parts.push_back(part(op_text(t.op)));
        values_parts(t, parts);
      }
      break;
    case Op::config_set:
      for (std::size_t i = 0; i < p.keys.size(); ++i) {
        if (i > 0) parts.push_back(part(" and "));
        key_part(v, links, p.keys[i], parts);
      }
      parts.push_back(part(p.keys.size() > 1 ? " are set explicitly" : " is set explicitly"));
      break;
    case Op::role:
      parts.push_back(part("role is "));
      for (std::size_t i = 0; i < p.roles.size(); ++i) {
        if (i > 0) parts.push_back(part(" or "));
        parts.push_back(part(p.roles[i], {}, true));
      }
      break;
    case Op::differs:
      if (!p.engine_ref().raw.empty()) {
        const std::string id = target_id(v, p.engine_ref(), Kind::engine);
        const Record* e = id.empty() ? nullptr : v.corpus.find(id);
        parts.push_back(part("prefill and decode run different versions of "));
        parts.push_back(
            part(e != nullptr ? std::string(display_name(*e)) : p.engine_ref().raw.str(),
                 e != nullptr ? links.page(id) : std::string()));
        break;
      }
      parts.push_back(part("prefill and decode differ in "));
      for (std::size_t i = 0; i < p.keys.size(); ++i) {
        if (i > 0) parts.push_back(part(", "));
        key_part(v, links, p.keys[i], parts);
      }
      break;
    case Op::compare:
      if (!p.compare) break;
      operand_parts(v, links, p.compare->left, parts);
      parts.push_back(part(" " + p.compare->cmp + " "));
      operand_parts(v, links, p.compare->right, parts);
      break;
  }
  out.push_back(line(depth, std::move(parts)));
}

void add_test(SettingTests& out, const View& v, const RefValue& key, std::string text) {
  const std::string id = target_id(v, key, Kind::setting);
  if (id.empty()) return;
  auto& texts = out[id];
  if (std::find(texts.begin(), texts.end(), text) == texts.end()) texts.push_back(std::move(text));
}

std::string operand_text(const View& v, const Operand& o) {
  if (o.is_literal) return o.literal;
  return (o.role.empty() ? "" : o.role + ".") + key_name(v, o.key);
}

}  // namespace

List predicate_clauses(const View& v, const Links& links, const Predicate& p) {
  List out;
  clauses(v, links, p, 0, out);
  return out;
}

std::string config_test_text(const View& v, const ConfigTest& t) {
  std::string values;
  for (std::size_t i = 0; i < t.values.size(); ++i) values += (i > 0 ? ", " : "") + t.values[i];
  return key_name(v, t.key) + op_text(t.op) + values;
}

void tested_settings(const View& v, const Predicate& p, SettingTests& out) {
  using Op = Predicate::Op;
  for (const auto& c : p.children) tested_settings(v, c, out);
  switch (p.op) {
    case Op::config:
      for (const auto& t : p.config) add_test(out, v, t.key, config_test_text(v, t));
      break;
    case Op::config_set:
      for (const auto& k : p.keys) add_test(out, v, k, key_name(v, k) + " is set explicitly");
      break;
    case Op::differs:
      for (const auto& k : p.keys)
        add_test(out, v, k, "prefill and decode differ in " + key_name(v, k));
      break;
    case Op::compare: {
      if (!p.compare) break;
      const Comparison& c = *p.compare;
      const std::string text =
          operand_text(v, c.left) + " " + c.cmp + " " + operand_text(v, c.right);
      for (const Operand* o : {&c.left, &c.right}) {
        if (!o->is_literal) add_test(out, v, o->key, text);
      }
      break;
    }
    default:
      break;
  }
}

}  // namespace kb::pages
