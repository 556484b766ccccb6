// The "Am I affected?" page: the form, and what POST /api/v1/check answered for it, from
// the API's own JSON answer (so the page and the API cannot disagree). The static site
// gets the same page without the form, pointing at `kb check` and the API.

#include <nlohmann/json.hpp>

#include <set>

#include "kb/deploy.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int int_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// "line 3, column 10" in the pasted text; another file (none today) is named.
std::string where(const json& j) {
  const int line = int_of(j, "line");
  if (line <= 0) return {};
  std::string out;
  const std::string file = text_of(j, "file");
  if (!file.empty() && file != "request") out = file + ", ";
  out += "line " + std::to_string(line);
  if (const int column = int_of(j, "column"); column > 0)
    out += ", column " + std::to_string(column);
  return out;
}

List option_list(const std::vector<std::pair<std::string, std::string>>& values,
                 const std::string& chosen) {
  List out;
  for (const auto& [value, label] : values) {
    Data o;
    set(o, "value", value);
    set(o, "label", label);
    set(o, "selected", value == chosen);
    out.push_back(std::move(o));
  }
  return out;
}

// The role of each service the check read, by name.
std::string role_of(const json& answer, const std::string& service) {
  const json* services = nullptr;
  if (auto d = answer.find("deployment"); d != answer.end() && d->is_object()) {
    if (auto s = d->find("services"); s != d->end() && s->is_array()) services = &*s;
  }
  if (!services) return {};
  for (const auto& s : *services) {
    if (text_of(s, "name") == service) return text_of(s, "role");
  }
  return {};
}

// The pasted text's lines, to quote a finding's lines with their numbers.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// A quoted line, cut so a minified paste does not make a page of one line.
constexpr std::size_t kQuotedChars = 200;

Data finding_item(const Links& links, const json& answer, const json& f,
                  const std::vector<std::string_view>& pasted) {
  Data d;
  const std::string id = text_of(f, "id");
  set(d, "id", id);
  set(d, "href", links.page(id));
  set(d, "title", text_of(f, "title"));
  set(d, "severity", text_of(f, "severity"));
  set(d, "status", text_of(f, "status"));
  set(d, "evidence", text_of(f, "evidence"));
  set(d, "possible", f.value("possible", false));
  const std::string service = text_of(f, "service");
  put(d, "service", service);
  put(d, "role", role_of(answer, service));
  // Every service it hits, as the API lists them.
  List hit;
  if (auto list = f.find("services"); list != f.end() && list->is_array() && !service.empty()) {
    for (const auto& x : *list) {
      Data h;
      set(h, "name", text_of(x, "name"));
      put(h, "role", text_of(x, "role"));
      hit.push_back(std::move(h));
    }
  }
  set(d, "has_services", !hit.empty());
  set(d, "services", std::move(hit));
  // Every fix advice, per engine and version.
  List fixes;
  if (auto list = f.find("fixes"); list != f.end() && list->is_array()) {
    for (const auto& x : *list) {
      const std::string advice = text_of(x, "advice");
      if (!advice.empty()) fixes.emplace_back(advice);
    }
  }
  set(d, "has_fixes", !fixes.empty());
  set(d, "fixes", std::move(fixes));
  List why;
  if (auto w = f.find("why"); w != f.end() && w->is_array()) {
    for (const auto& line : *w) {
      if (line.is_string()) why.emplace_back(line.get<std::string>());
    }
  }
  set(d, "has_why", !why.empty());
  set(d, "why", std::move(why));
  List locations;
  if (auto l = f.find("locations"); l != f.end() && l->is_array()) {
    for (const auto& loc : *l) {
      const std::string at = where(loc);
      if (at.empty()) continue;
      Data x;
      set(x, "where", at);
      // The line itself, numbered as in the paste.
      const int line = int_of(loc, "line");
      const std::string file = text_of(loc, "file");
      if ((file.empty() || file == "request") && line > 0 &&
          static_cast<std::size_t>(line) <= pasted.size()) {
        std::string_view text = pasted[static_cast<std::size_t>(line) - 1];
        std::string quoted(text.substr(0, kQuotedChars));
        if (text.size() > kQuotedChars) quoted += "…";
        set(x, "number", std::to_string(line));
        set(x, "line", quoted);
      }
      locations.push_back(std::move(x));
    }
  }
  set(d, "has_locations", !locations.empty());
  set(d, "locations", std::move(locations));
  put(d, "workaround", text_of(f, "workaround"));
  return d;
}

// The summary: counts per severity and the gate's verdict, as `kb check --fail-on` gives it.
void summary(const CheckForm& form, const CheckOutcome& o, Data& d) {
  const json& answer = *o.answer;
  if (!answer.contains("counts")) return;
  const json& counts = answer["counts"];
  List list;
  for (std::string_view s : kSeverities) {
    Data c;
    set(c, "severity", std::string(s));
    set(c, "count", std::to_string(int_of(counts, std::string(s).c_str())));
    list.push_back(std::move(c));
  }
  set(d, "counts", std::move(list));
  put(d, "ignored", int_of(counts, "ignored") > 0 ? std::to_string(int_of(counts, "ignored")) : "");
  const std::size_t found = answer.contains("findings") ? answer["findings"].size() : 0;
  set(d, "gate", "kb check --fail-on " + form.fail_on);
  std::string verdict;
  if (o.fail_closed) {
    verdict = "would exit 2: the deployment cannot be checked whole (" + std::to_string(found) +
              (found == 1 ? " finding" : " findings") + " so far; there may be more).";
    set(d, "verdict_class", std::string("warn"));
  } else if (answer.value("fails", false)) {
    verdict = "would fail (exit 1): a finding is at or above " + form.fail_on + ".";
    set(d, "verdict_class", std::string("warn"));
  } else {
    verdict =
        "would pass (exit 0): " + (found == 0 ? std::string("no gotcha hits this deployment.")
                                              : "no finding is at or above " + form.fail_on + ".");
    set(d, "verdict_class", std::string("ok"));
  }
  set(d, "verdict", verdict);
  set(d, "has_summary", true);
}

void result(const Links& links, const CheckForm& form, const CheckOutcome& o, Data& d) {
  set(d, "checked", true);
  set(d, "fail_closed", o.fail_closed);
  set(d, "form_error", !o.error_code.empty() && !o.fail_closed);
  put(d, "error_code", o.error_code);
  put(d, "error_message", o.error_message);
  if (!o.answer || !o.answer->is_object()) return;
  const json& answer = *o.answer;
  summary(form, o, d);
  List findings;
  const auto pasted = lines_of(form.deployment);
  // What to change, once each: every fix advice and every finding's workaround.
  List changes;
  std::set<std::string> seen;
  if (auto f = answer.find("findings"); f != answer.end() && f->is_array()) {
    for (const auto& x : *f) {
      findings.push_back(finding_item(links, answer, x, pasted));
      if (auto list = x.find("fixes"); list != x.end() && list->is_array()) {
        for (const auto& fix : *list) {
          const std::string advice = text_of(fix, "advice");
          if (advice.starts_with("upgrade") && seen.insert(advice).second)
            changes.emplace_back(advice);
        }
      }
    }
  }
  set(d, "has_changes", !changes.empty());
  set(d, "changes", std::move(changes));
  set(d, "has_findings", !findings.empty());
  set(d, "findings", std::move(findings));
  List diags;
  if (auto list = answer.find("diagnostics"); list != answer.end() && list->is_array()) {
    for (const auto& x : *list) {
      Data row;
      set(row, "severity", text_of(x, "severity"));
      set(row, "code", text_of(x, "code"));
      put(row, "where", where(x));
      set(row, "message", text_of(x, "message"));
      put(row, "hint", text_of(x, "hint"));
      diags.push_back(std::move(row));
    }
  }
  set(d, "has_diagnostics", !diags.empty());
  set(d, "diagnostics", std::move(diags));
}

}  // namespace

std::string Renderer::check(const View& v, const CheckForm& form,
                            const CheckOutcome* outcome) const {
  (void)v;
  const bool live = impl_->style == LinkStyle::live;
  // The static page is check/index.html, one directory down.
  const Links links(impl_->style, live ? 0 : 1);
  Data d = page_data(links, "Am I affected?");
  set(d, "live", live);
  std::vector<std::pair<std::string, std::string>> kinds = {{"", "detect from content"}};
  List names;
  for (const auto& k : input_kinds()) {
    kinds.emplace_back(k, k);
    names.emplace_back(k);
  }
  set(d, "kind_options", option_list(kinds, form.kind));
  set(d, "kinds", std::move(names));
  std::vector<std::pair<std::string, std::string>> severities;
  for (std::string_view s : kSeverities) severities.emplace_back(s, s);
  set(d, "fail_on_options", option_list(severities, form.fail_on));
  set(d, "deployment", form.deployment);
  set(d, "ignore", form.ignore);
  set(d, "allow_unknown", form.allow_unknown);
  set(d, "allow_invalid_records", form.allow_invalid_records);
  if (outcome) result(links, form, *outcome, d);
  return impl_->templates.render("check", d);
}

}  // namespace kb::pages
