#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "check_inputs.h"
#include "check_json.h"
#include "check_print.h"
#include "commands.h"
#include "json.h"
#include "kb/atomic_write.h"
#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/file_read.h"
#include "kb/resolver.h"
#include "kb/store.h"
#include "kb/text.h"
#include "probe.h"

namespace kb::cli {
namespace {

namespace fs = std::filesystem;

struct CheckConfig {
  std::string records = "records";
  std::string db;
  std::vector<std::string> inputs;
  std::string input_kind;
  std::string format = "text";
  std::string output;  ///< write the report here (whole, atomically) instead of stdout
  std::string fail_on{to_string(GotchaSeverity::blocker)};
  std::string ignore;
  std::string today;
  std::string explain;
  std::string base_url;
  std::vector<std::string> endpoints;  ///< URL or ROLE=URL
  std::vector<std::string> sets;       ///< --set KEY=VALUE: facts the files do not state
  std::vector<std::string> traffic;    ///< --traffic WORD: what the requests do
  std::string save_endpoint;
  double endpoint_timeout = 10;
  bool print_deployment = false;
  std::string colour = "auto";  ///< --color: auto | always | never
  bool each = false;            ///< check every input on its own
  bool quiet = false;           ///< only errors on stderr
  bool allow_unknown = false;
  bool allow_invalid_records = false;
};

// `--endpoint [ROLE=]URL`: asks the server what it is through the engines' probe routes
// and turns the answer into an endpoint document (kb/src/deploy/read_endpoint.cpp).
// An unreachable server fails closed.
void probe_endpoints(const CheckConfig& cfg, const Corpus& corpus, std::vector<DeployInput>& out,
                     std::vector<Diagnostic>& diags) {
  const auto specs = client::probe_specs(corpus);
  for (const std::string& arg : cfg.endpoints) {
    std::string role, url = arg;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.find("://") > eq) {
      role = arg.substr(0, eq);
      url = arg.substr(eq + 1);
    }
    client::Endpoint endpoint;
    try {
      endpoint = client::parse_endpoint(url);
    } catch (const Error& e) {
      diags.push_back({Severity::error, diag_code("check.endpoint-invalid"), url, 0, 0,
                       std::string("not a server URL: ") + e.what(),
                       "write http://host:port or ROLE=http://host:port", ""});
      continue;
    }
    client::ClientOptions options;
    options.timeout_seconds = cfg.endpoint_timeout;
    client::Http http(endpoint, options);
    client::EndpointProbe p = client::probe(http, specs);
    if (!p.refused.empty()) {
      diags.push_back({Severity::error, diag_code("limits.endpoint-answer"), url, 0, 0,
                       "kb stopped asking the server: " + p.refused,
                       "check that the URL is the server's; raise --endpoint-timeout for a "
                       "slow one",
                       ""});
      continue;
    }
    if (!p.reachable) {
      diags.push_back({Severity::error, diag_code("check.endpoint-unreachable"), url, 0, 0,
                       "the server does not answer: " +
                           (p.problems.empty() ? std::string("no answer") : p.problems.front()),
                       "check the URL and that the server is up", ""});
      continue;
    }
    out.push_back({url, client::endpoint_document(p, url, role)});
  }
}

// `--set KEY=VALUE` and `--traffic WORD`: facts the operator states, for every service
// of the deployment (a flat one: the deployment itself). They win over what the files say,
// and --print-deployment shows them "via --set". KEY is a settings record's key or synonym,
// or `model`; a traffic WORD is a traffic setting's key or synonym (true), or a value of
// one. A name no record knows is an error with a did-you-mean.
void apply_stated(const CheckConfig& cfg, const Corpus& corpus, Deployment& d,
                  std::vector<Diagnostic>& diags) {
  auto unknown = [&](const std::string& where, const std::string& msg, const std::string& name) {
    std::string hint = "name a setting's key or synonym (kb vocab WORD says which spells what)";
    auto cands = corpus.names().candidates(Kind::setting, name, 1);
    if (!cands.empty()) {
      const Record* r = corpus.find(cands.front().id);
      hint = "did you mean '" +
             (r && r->kind == Kind::setting ? r->setting->key.str() : cands.front().id) + "'?";
    }
    diags.push_back(
        {Severity::error, diag_code("check.unknown-setting"), where, 0, 0, msg, hint, ""});
  };
  auto put = [&](const std::string& key, const std::string& value, const std::string& setting,
                 const std::string& via) {
    auto one = [&](std::vector<Setting>& config) {
      Setting s;
      s.key = key;
      s.value = value;
      s.raw_key = key;
      s.raw_value = value;
      s.setting = setting;
      s.via = via;
      auto it = std::find_if(config.begin(), config.end(),
                             [&](const Setting& x) { return x.key == key; });
      if (it != config.end()) {
        *it = std::move(s);
      } else {
        config.push_back(std::move(s));
      }
    };
    if (d.services.empty()) {
      one(d.config);
    } else {
      for (Service& svc : d.services) one(svc.config);
    }
  };
  for (const std::string& arg : cfg.sets) {
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.push_back({Severity::error, diag_code("check.unknown-setting"), "--set", 0, 0,
                       "--set " + arg + ": not KEY=VALUE", "write --set gpu=H100", ""});
      continue;
    }
    const std::string key = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (key == "model") {
      if (d.services.empty()) d.model = value;
      for (Service& svc : d.services) svc.model = value;
      continue;
    }
    auto id = corpus.target(Kind::setting, key);
    const Record* rec = id ? corpus.find(*id) : nullptr;
    if (!rec || rec->kind != Kind::setting) {
      unknown("--set", "--set " + key + ": no setting '" + key + "'", key);
      continue;
    }
    put(rec->setting->key, value, rec->id, "--set " + key);
  }
  for (const std::string& word : cfg.traffic) {
    const Record* found = nullptr;
    std::string value = "true";
    for (const auto& r : corpus.records()) {
      if (r->kind != Kind::setting || r->setting->scope != setting_scope::kTraffic) continue;
      const SettingDef& def = *r->setting;
      bool named = text::lower(def.key.str()) == text::lower(word);
      for (const std::string& syn : def.synonyms)
        named = named || text::lower(syn) == text::lower(word);
      if (named && def.type == setting_type::kBool) {
        found = r.get();
        value = "true";
        break;
      }
      if (def.type == setting_type::kEnum) {
        if (auto meaning = resolve_value(r->id, def, word).target) {
          found = r.get();
          value = *meaning;
          break;
        }
      }
    }
    if (!found) {
      unknown("--traffic", "--traffic " + word + ": no traffic setting spells it", word);
      continue;
    }
    put(found->setting->key, value, found->id, "--traffic " + word);
  }
}

std::shared_ptr<const Corpus> load_corpus(const CheckConfig& cfg) {
  const std::string db = cfg.db.empty() ? installed_index(cfg.records) : cfg.db;
  if (db.empty()) return Corpus::load(cfg.records);
  Store store = Store::open_readonly(db);
  return Corpus::from_store(store, db);
}

// `snapshot` is the knowledge base's content hash (empty before it is loaded).
void print(const CheckReport& shown, const CheckConfig& cfg, std::string_view snapshot) {
  // --quiet: only errors among the diagnostics printed on stderr (text and markdown).
  CheckReport quiet_copy;
  const bool stderr_format = cfg.format == "text" || cfg.format == "markdown";
  if (cfg.quiet && stderr_format) {
    quiet_copy = shown;
    std::erase_if(quiet_copy.diagnostics,
                  [](const Diagnostic& d) { return d.severity != Severity::error; });
  }
  const CheckReport& report = cfg.quiet && stderr_format ? quiet_copy : shown;
  if (cfg.format == "json") {
    std::cout << json::versioned(json::findings_json(report, cfg.base_url), snapshot).dump(2)
              << "\n";
  } else if (cfg.format == "sarif") {
    nlohmann::json log = json::sarif_json(report, KB_VERSION, cfg.base_url);
    if (!snapshot.empty()) log["runs"][0]["properties"]["snapshot"] = snapshot;
    std::cout << log.dump(2) << "\n";
  } else if (cfg.format == "markdown") {
    for (const auto& d : report.diagnostics) std::cerr << format_diagnostic(d) << "\n";
    print_findings_markdown(std::cout, report, cfg.base_url);
  } else {
    print_findings_text(std::cout, std::cerr, report, cfg.base_url,
                        cfg.output.empty() && !cfg.each && colour_wanted(cfg.colour, 1));
  }
}

// Reading problems: text prints the diagnostics, the other formats their document.
int unusable(CheckReport& report, const CheckConfig& cfg, std::string_view snapshot = {}) {
  if (cfg.format == "text") {
    for (const auto& d : report.diagnostics) {
      if (!cfg.quiet || d.severity == Severity::error) std::cerr << format_diagnostic(d) << "\n";
    }
  } else if (cfg.print_deployment && cfg.format == "json") {
    std::cout << json::versioned(json::deployment_json(report), snapshot).dump(2) << "\n";
  } else {
    print(report, cfg, snapshot);
  }
  return kExitUsage;
}

int run_check(const CheckConfig& cfg) {
  CheckReport report;
  auto& diags = report.diagnostics;
  if (cfg.inputs.empty() && cfg.endpoints.empty()) {
    std::cerr << "kb check: give a deployment: PATH..., - for stdin, or --endpoint URL\n";
    return kExitUsage;
  }
  std::vector<DeployInput> inputs = gather(cfg.inputs, diags);
  IgnoreList ignores;
  // Without --ignore, .kbignore.yaml in the working directory or the nearest one above.
  std::string ignore_file = cfg.ignore;
  if (ignore_file.empty()) {
    std::error_code ec, missing;
    for (fs::path dir = fs::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
      if (fs::is_regular_file(dir / ".kbignore.yaml", missing)) {
        ignore_file = (dir / ".kbignore.yaml").string();
        break;
      }
      if (dir == dir.parent_path()) break;
    }
  }
  if (!ignore_file.empty()) {
    if (auto text = read_input(ignore_file, diags))
      ignores = parse_ignore_file(*text, ignore_file, diags);
    // An entry's paths are relative to the ignore file's directory, as .gitignore's are.
    std::error_code ec;
    const fs::path base = fs::absolute(fs::path(ignore_file), ec).parent_path();
    for (IgnoreEntry& e : ignores.entries) {
      for (std::string& p : e.paths) {
        if (!ec && !p.empty() && p.front() != '/') {
          const bool dir = p.back() == '/';
          p = (base / p).lexically_normal().generic_string();
          if (dir && p.back() != '/') p += '/';
        }
      }
    }
  }
  for (const auto& in : inputs)
    report.deployment.file += (report.deployment.file.empty() ? "" : ", ") + in.file;
  if (count_severity(diags, Severity::error) > 0) return unusable(report, cfg);

  auto corpus = load_corpus(cfg);
  if (!cfg.endpoints.empty()) {
    probe_endpoints(cfg, *corpus, inputs, diags);
    if (count_severity(diags, Severity::error) > 0) return unusable(report, cfg);
    if (!cfg.save_endpoint.empty()) {
      // One document per endpoint; a file holds one, so several go to FILE, FILE.2, ...
      std::size_t n = 0;
      for (const auto& in : inputs) {
        if (!in.text.starts_with("{\"kb_endpoint\"")) continue;
        const std::string path = cfg.save_endpoint + (n ? "." + std::to_string(n + 1) : "");
        write_atomic(path, in.text, IfExists::replace);
        ++n;
      }
    }
  }
  EvidenceIndex evidence = EvidenceIndex::build(*corpus);
  CheckIndex index = CheckIndex::build(*corpus, evidence);
  const CheckOptions options{cfg.allow_unknown};
  Deployment deployment = index.read(inputs, {cfg.input_kind, cfg.allow_unknown}, diags);
  apply_stated(cfg, *corpus, deployment, diags);
  report.deployment = deployment;
  if (count_severity(diags, Severity::error) > 0)
    return unusable(report, cfg, corpus->content_hash());
  // The gate fails closed: a knowledge base that did not load whole, or holds no gotchas,
  // cannot say "0 findings".
  const std::string source = cfg.db.empty() ? cfg.records : cfg.db;
  if (std::size_t errors = count_severity(corpus->diagnostics(), Severity::error)) {
    diags.push_back({cfg.allow_invalid_records ? Severity::warning : Severity::error,
                     diag_code("check.records-invalid"), source, 0, 0,
                     "the knowledge base has " + std::to_string(errors) +
                         " lint errors; gotchas in broken files are missing",
                     "run `kb lint`; --allow-invalid-records checks against what loaded", ""});
  }
  if (index.size() == 0) {
    diags.push_back({Severity::error, diag_code("check.empty-knowledge-base"), source, 0, 0,
                     "the knowledge base holds no gotchas", "point --records at the records/ tree",
                     ""});
  }
  if (!cfg.explain.empty()) {
    auto e = index.explain(deployment, cfg.explain, options, diags);
    for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
    if (!e) {
      std::cerr << "kb check: no gotcha '" << cfg.explain << "'\n";
      return kExitUsage;
    }
    if (cfg.format == "json") {
      std::cout << json::versioned(json::explanation_json(*e), corpus->content_hash()).dump(2)
                << "\n";
    } else {
      print_explanation_text(std::cout, *e);
    }
    return count_severity(diags, Severity::error) > 0 ? kExitUsage : kExitOk;
  }
  CheckReport checked = index.run(deployment, options);
  diags.insert(diags.end(), checked.diagnostics.begin(), checked.diagnostics.end());
  checked.diagnostics = std::move(diags);
  if (cfg.print_deployment) {
    if (cfg.format == "json") {
      std::cout << json::versioned(json::deployment_json(checked), corpus->content_hash()).dump(2)
                << "\n";
    } else {
      for (const auto& d : checked.diagnostics) std::cerr << format_diagnostic(d) << "\n";
      print_deployment_text(std::cout, checked);
    }
    return count_severity(checked.diagnostics, Severity::error) > 0 ? kExitUsage : kExitOk;
  }
  index.apply_ignores(checked, ignores, cfg.today);
  print(checked, cfg, corpus->content_hash());
  if (count_severity(checked.diagnostics, Severity::error) > 0) return kExitUsage;
  if (cfg.fail_on == "never") return kExitOk;
  return fails(checked, *parse_gotcha_severity(cfg.fail_on)) ? kExitProblems : kExitOk;
}

// What a check prints to stdout, sent to `to` while it lives (for -o and --each).
struct Redirect {
  std::streambuf* old;
  explicit Redirect(std::streambuf* to) : old(std::cout.rdbuf(to)) {}
  ~Redirect() { std::cout.rdbuf(old); }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;
};

// `--each`: every input checked as a deployment of its own, the answers put together in
// input order; the exit code is the worst of them (2 over 1 over 0).
int run_each(const CheckConfig& cfg) {
  if (cfg.inputs.empty() || !cfg.endpoints.empty() || !cfg.explain.empty() ||
      cfg.print_deployment) {
    std::cerr << "kb check: --each takes PATHs (not --endpoint, --explain or "
                 "--print-deployment)\n";
    return kExitUsage;
  }
  int worst = kExitOk;
  nlohmann::json deployments = nlohmann::json::array();
  nlohmann::json sarif;
  std::ostringstream text;
  for (const std::string& input : cfg.inputs) {
    CheckConfig one = cfg;
    one.each = false;
    one.output.clear();
    one.inputs = {input};
    std::ostringstream out;
    int code = 0;
    {
      Redirect redirect(out.rdbuf());
      code = run_check(one);
    }
    worst = std::max(worst, code);
    if (cfg.format == "json") {
      nlohmann::json doc = nlohmann::json::parse(out.str(), nullptr, false);
      if (doc.is_discarded()) doc = {{"error", {{"code", "check-failed"}, {"message", input}}}};
      doc["input"] = input;
      doc["exit_code"] = code;
      deployments.push_back(std::move(doc));
    } else if (cfg.format == "sarif") {
      nlohmann::json log = nlohmann::json::parse(out.str(), nullptr, false);
      if (log.is_discarded() || !log.contains("runs")) continue;
      if (sarif.is_null()) {
        sarif = log;
      } else {
        for (auto& r : log["runs"]) sarif["runs"].push_back(std::move(r));
      }
    } else {
      text << (cfg.format == "markdown" ? "" : "== ") << input << "\n" << out.str() << "\n";
    }
  }
  std::string result;
  if (cfg.format == "json") {
    nlohmann::json all = json::versioned({{"deployments", std::move(deployments)}});
    all["exit_code"] = worst;
    result = all.dump(2) + "\n";
  } else if (cfg.format == "sarif") {
    result = sarif.dump(2) + "\n";
  } else {
    result = text.str();
  }
  if (cfg.output.empty()) {
    std::cout << result;
  } else {
    write_atomic(cfg.output, result, IfExists::replace);
  }
  return worst;
}

}  // namespace

void add_check(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<CheckConfig>();
  auto* sub = app.add_subcommand("check", "Which gotchas hit this deployment");
  sub->add_option("inputs", cfg->inputs,
                  "Deployment artifacts: Kubernetes manifests, compose files, shell scripts, "
                  "package lists, image references, deployment files, endpoint documents, "
                  "directories of them; - is stdin");
  sub->add_option("--endpoint", cfg->endpoints,
                  "[ROLE=]URL of a running OpenAI-compatible server to check (repeatable): "
                  "engines and versions from the engine records' probe routes, the model from "
                  "/v1/models, settings from /metrics info labels; unreachable fails (exit 2)")
      ->take_all()
      ->allow_extra_args(false);
  sub->add_option("--set", cfg->sets,
                  "KEY=VALUE: a fact the files do not state, for every service (repeatable): "
                  "hardware (--set gpu=H100), the model (--set model=Qwen/Qwen3-8B), any "
                  "setting by its key or synonym; it wins over what the files say")
      ->allow_extra_args(false);
  sub->add_option("--traffic", cfg->traffic,
                  "What the requests do (repeatable): a traffic setting's key or a value of one "
                  "(prompt_logprobs); gotchas that need traffic kb is not told of are possible")
      ->delimiter(',')
      ->allow_extra_args(false);
  sub->add_option("--save-endpoint", cfg->save_endpoint,
                  "Write what --endpoint learned to FILE, to check it later as an input");
  sub->add_option("--endpoint-timeout", cfg->endpoint_timeout,
                  "Seconds to wait for each endpoint request")
      ->check(CLI::Range(0.1, 600.0))
      ->capture_default_str();
  add_records_option(sub, cfg->records);
  sub->add_option("--db", cfg->db, "Check against a prebuilt index (kb build) instead of --records")
      ->excludes(sub->get_option("--records"));
  add_format_option(sub, cfg->format, {"text", "json", "sarif", "markdown"});
  sub->add_option("--input-kind", cfg->input_kind,
                  "Read every input as this kind instead of guessing")
      ->check(CLI::IsMember(input_kinds()));
  std::vector<std::string> fail_on(std::begin(kSeverityNames), std::end(kSeverityNames));
  fail_on.push_back("never");
  sub->add_option("--fail-on", cfg->fail_on,
                  "Exit 1 when a finding is at least this severe; never: findings never fail "
                  "(a check that cannot run whole still exits 2)")
      ->check(CLI::IsMember(fail_on))
      ->capture_default_str();
  sub->add_option("--ignore", cfg->ignore,
                  "Ignore file: ignore: [{id, reason, expires, paths}] (default: .kbignore.yaml "
                  "in the working directory or the nearest one above)");
  sub->add_option("--base-url", cfg->base_url,
                  "Where the kb pages are served (https://kb.example.com): findings link to them");
  sub->add_flag("--print-deployment", cfg->print_deployment,
                "Print what kb read (services, engines, settings, where each came from, what it "
                "could not read) instead of findings");
  sub->add_option(
      "--explain", cfg->explain,
      "Show every clause of this gotcha's predicate as true, false or unknown, per service");
  sub->add_flag("--allow-unknown", cfg->allow_unknown,
                "Unknown engines and settings, values that do not normalise, and services running "
                "an engine kb cannot identify are warnings instead of errors (exit 2)");
  sub->add_flag("--allow-invalid-records", cfg->allow_invalid_records,
                "Check against what loaded when the knowledge base has lint errors, instead of "
                "failing (exit 2)");
  add_date_option(sub, "--today", cfg->today,
                  "Date ignore expiries are measured against (YYYY-MM-DD; default today, UTC)");
  sub->add_option("--color", cfg->colour,
                  "Colour severities in text output: auto (a terminal, unless NO_COLOR is set or "
                  "TERM is dumb), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  sub->add_flag("-q,--quiet", cfg->quiet,
                "Print no notes or warnings on standard error, only errors (the report is "
                "unchanged)");
  sub->add_flag("--each", cfg->each,
                "Check each PATH on its own, as a deployment of its own (two P/D deployments "
                "given together are never paired); JSON prints {\"deployments\": [...]} in input "
                "order, SARIF one run per input; the exit code is the worst");
  sub->add_option("-o,--output", cfg->output,
                  "Write the report to FILE (whole, or not at all) instead of standard output; "
                  "diagnostics still go to standard error");
  sub->callback([&run, cfg] {
    run = [cfg] {
      if (cfg->each) return run_each(*cfg);
      if (cfg->output.empty()) return run_check(*cfg);
      // What the check prints to stdout goes to the file, written once it is whole.
      std::ostringstream report;
      int code = 0;
      {
        Redirect redirect(report.rdbuf());
        code = run_check(*cfg);
      }
      write_atomic(cfg->output, report.str(), IfExists::replace);
      return code;
    };
  });
}

}  // namespace kb::cli
