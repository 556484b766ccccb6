#include "oracle_plan.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/results_import.h"
#include "kb/text.h"

namespace kb::cli {
namespace {

Error usage(const std::string& message) {
  return Error(Errc::invalid_argument, message);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage("cannot read '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string utc_time() {
  std::time_t now = std::time(nullptr);
  std::tm tm = {};
  gmtime_r(&now, &tm);
  char buf[8];
  std::strftime(buf, sizeof buf, "%H%M%S", &tm);
  return buf;
}

class Planner {
 public:
  explicit Planner(const OracleConfig& cfg) : cfg_(cfg) {}

  OraclePlan make() {
    p_.corpus = Corpus::load(cfg_.records);
    choose_oracles();
    load_prompts();
    options();
    p_.subject = server(cfg_.subject, "--subject", cfg_.model);
    if (p_.needs_baseline) {
      p_.baseline = server(cfg_.baseline, "--baseline",
                           cfg_.baseline_model.empty() ? p_.subject.model : cfg_.baseline_model);
    }
    build_context();
    check_out();
    return std::move(p_);
  }

 private:
  const Record& resolve(Kind kind, const std::string& name) const {
    if (auto id = p_.corpus->target(kind, name)) {
      if (const Record* r = p_.corpus->find(*id)) return *r;
    }
    std::string msg = "no " + std::string(kind_name(kind)) + " '" + name + "' in " + cfg_.records;
    auto cands = p_.corpus->names().candidates(kind, name, 1);
    if (!cands.empty()) msg += "; did you mean '" + cands.front().id + "'?";
    throw usage(msg);
  }

  void choose_oracles() {
    if (cfg_.oracle.empty() == cfg_.for_gotcha.empty()) {
      throw usage("name one oracle, or a gotcha with --for (not both)");
    }
    std::vector<const Record*> records;
    if (!cfg_.for_gotcha.empty()) {
      const Record& g = resolve(Kind::gotcha, cfg_.for_gotcha);
      p_.gotcha = g.id;
      for (const auto& ref : g.oracles) records.push_back(&resolve(Kind::oracle, ref.raw));
      if (records.empty()) throw usage(g.id + " names no oracles (its `oracles:` field)");
      if (!cfg_.id.empty()) throw usage("--id names one result; --for writes one per oracle");
    } else {
      records.push_back(&resolve(Kind::oracle, cfg_.oracle));
    }
    for (const Record* r : records) {
      oracle::RunnerSpec spec = oracle::runner_spec(*r);
      if (cfg_.max_tokens > 0) spec.max_tokens = cfg_.max_tokens;
      if (cfg_.trials > 0) spec.trials = cfg_.trials;
      for (const auto& p : cfg_.params) {
        const auto eq = p.find('=');
        if (eq == std::string::npos) throw usage("--param '" + p + "': expected NAME=VALUE");
        oracle::set_param(spec, p.substr(0, eq), p.substr(eq + 1));
      }
      oracle::check_spec(spec);
      if (spec.needs_baseline() && cfg_.baseline.empty()) {
        throw usage(r->id +
                    " compares against a baseline: pass --baseline URL (a monolithic "
                    "server with prefix caching and every KV tier off)");
      }
      p_.needs_baseline = p_.needs_baseline || spec.needs_baseline();
      p_.oracles.emplace_back(r, spec);
    }
    if (!p_.needs_baseline && !cfg_.baseline.empty()) {
      std::cerr << "kb oracle run: warning: no oracle here uses --baseline; it is ignored\n";
    }
  }

  void load_prompts() {
    oracle::PromptSet set;
    if (cfg_.prompts.empty()) {
      set = oracle::builtin_prompts();
      prompts_from_ = "the built-in prompt set";
    } else {
      set = oracle::parse_prompts(read_file(cfg_.prompts), cfg_.prompts);
      prompts_from_ = "'" + cfg_.prompts.substr(cfg_.prompts.find_last_of('/') + 1) + "'";
    }
    for (const auto& d : set.diagnostics) std::cerr << format_diagnostic(d) << "\n";
    if (set.prompts.empty()) throw usage("no prompts to send");
    p_.prompts = std::move(set.prompts);
  }

  void options() {
    p_.options.timeout_seconds = cfg_.timeout;
    for (const auto& h : cfg_.headers) {
      auto parsed = client::parse_header(h);
      if (!parsed) throw usage("--header '" + h + "': expected 'Name: value'");
      p_.options.headers.push_back(*parsed);
    }
    p_.options.api_key = cfg_.api_key;
    if (p_.options.api_key.empty()) {
      if (const char* env = std::getenv("OPENAI_API_KEY")) p_.options.api_key = env;
    }
  }

  Server server(const std::string& url, const std::string& flag, const std::string& model) {
    std::optional<client::Endpoint> endpoint;
    try {
      endpoint = client::parse_endpoint(url);
    } catch (const Error& e) {
      throw usage(flag + " " + e.what());
    }
    Server s{*endpoint, {}, model};
    client::Http http(*endpoint, p_.options);
    s.probe = client::probe(http, client::probe_specs(*p_.corpus));
    if (!s.probe.refused.empty()) throw usage(flag + " " + url + ": " + s.probe.refused);
    if (!s.probe.reachable) {
      throw usage(flag + " " + url + ": " +
                  (s.probe.problems.empty() ? std::string("no answer") : s.probe.problems.front()));
    }
    for (const auto& p : s.probe.problems)
      std::cerr << "kb oracle run: " << flag << ": " << p << "\n";
    if (s.model.empty()) {
      if (s.probe.models.empty()) {
        throw usage(flag + " " + url + " names no model (GET /v1/models); pass --model NAME");
      }
      s.model = s.probe.models.front();
    } else if (!s.probe.models.empty() && std::find(s.probe.models.begin(), s.probe.models.end(),
                                                    s.model) == s.probe.models.end()) {
      std::string list;
      for (const auto& m : s.probe.models) list += (list.empty() ? "" : ", ") + m;
      throw usage(flag + " " + url + " does not serve model '" + s.model + "' (it serves " + list +
                  ")" + (flag == "--baseline" ? "; name its model with --baseline-model" : ""));
    }
    return s;
  }

  static std::string describe(const Server& s, const std::string& what) {
    std::string line = what + ": model " + s.model;
    for (const auto& e : s.probe.engines) {
      line += "; " + e.engine + (e.version.empty() ? "" : " " + e.version) + " (" + e.source + ")";
    }
    if (s.probe.engines.empty()) line += "; no engine recognised by its probe routes";
    return line + ".";
  }

  void build_context() {
    Subject subject;
    subject.model = p_.subject.model;
    for (const auto& e : p_.subject.probe.engines) {
      RefValue ref;
      ref.raw = e.engine;
      ref.versions = e.version;
      subject.engines.push_back(std::move(ref));
    }
    for (const auto& spec : cfg_.engines) {
      for (auto& ref : parse_subject_spec(spec)) {
        auto same = std::find_if(subject.engines.begin(), subject.engines.end(),
                                 [&](const RefValue& e) { return e.raw == ref.raw; });
        if (same != subject.engines.end()) {
          if (!ref.versions.empty()) same->versions = ref.versions;
        } else {
          subject.engines.push_back(std::move(ref));
        }
      }
    }
    for (std::size_t i = 0; i < subject.engines.size(); ++i) {
      subject.engines[i].field = "subject.engines[" + std::to_string(i) + "]";
    }
    if (subject.engines.empty()) {
      std::cerr << "kb oracle run: warning: the subject's engine is unknown (no probe route "
                   "answered); name it with --engine NAME[@VERSION]\n";
    }
    for (const auto& c : cfg_.config) {
      for (auto& entry : parse_config_spec(c)) subject.config.push_back(std::move(entry));
    }
    p_.context.date = cfg_.date.empty() ? today_date() : cfg_.date;
    p_.context.time = utc_time();
    p_.context.subject = std::move(subject);
    p_.context.evidence_for = cfg_.evidence_for;
    if (!p_.gotcha.empty()) p_.context.evidence_for.push_back(p_.gotcha);
    p_.context.prompts_from = prompts_from_;
    p_.context.prompt_count = p_.prompts.size();
    p_.context.observations.push_back(describe(p_.subject, "Subject"));
    if (p_.needs_baseline) p_.context.observations.push_back(describe(p_.baseline, "Baseline"));
    // Every reference must resolve before the servers are asked anything.
    ResultSpec probe_spec;
    probe_spec.oracle = p_.oracles.front().first->id;
    probe_spec.date = p_.context.date;
    probe_spec.subject = p_.context.subject;
    for (const auto& g : p_.context.evidence_for) probe_spec.evidence_for.push_back(g);
    probe_spec.id = cfg_.id;
    auto problems = canonicalize(*p_.corpus, probe_spec);
    if (!problems.empty()) {
      std::string all;
      for (const auto& p : problems) all += (all.empty() ? "" : "; ") + p;
      throw usage(all);
    }
    p_.context.subject = probe_spec.subject;
    p_.context.evidence_for.clear();
    for (const auto& g : probe_spec.evidence_for) {
      auto& list = p_.context.evidence_for;
      if (std::find(list.begin(), list.end(), g) == list.end()) list.push_back(g);
    }
  }

  void check_out() {
    if (cfg_.out.empty()) return;
    namespace fs = std::filesystem;
    if (!p_.gotcha.empty()) {
      if (fs::exists(cfg_.out) && !fs::is_directory(cfg_.out)) {
        throw usage("--out " + cfg_.out + " is a file; with --for it names a directory");
      }
      return;
    }
    if (fs::exists(cfg_.out)) {
      throw usage("--out " + cfg_.out + " already exists; a result is never overwritten");
    }
    if (cfg_.format == "yaml") {
      const std::string id = "results/" + fs::path(cfg_.out).stem().string();
      if (!cfg_.id.empty() && cfg_.id != id && cfg_.id != slug(id)) {
        throw usage("--id " + cfg_.id + " does not match --out: the file name decides the id");
      }
      p_.out_id = id;
    }
  }

  const OracleConfig& cfg_;
  OraclePlan p_;
  std::string prompts_from_;
};

}  // namespace

std::string slug(const std::string& id) {
  return std::string(text::id_slug(id));
}

OraclePlan make_plan(const OracleConfig& cfg) {
  return Planner(cfg).make();
}

}  // namespace kb::cli
