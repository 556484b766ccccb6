// The driver of the readers: picks one per input (by content, or `--input-kind`), reads
// it, and merges what every input said into one deployment.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <tuple>

#include "corpus/vocab.h"
#include "deploy/catalog.h"
#include "deploy/config_files.h"
#include "deploy/reader.h"
#include "deploy/routed_roles.h"
#include "deploy/settings_reader.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "schema/setting_values.h"

namespace kb {
namespace deploy {
namespace {

const std::vector<std::unique_ptr<Reader>>& readers() {
  static const auto list = [] {
    std::vector<std::unique_ptr<Reader>> v;
    v.push_back(endpoint_reader());  // before deployment: it has `engines` too
    v.push_back(kubernetes_reader());
    v.push_back(compose_reader());
    v.push_back(values_reader());  // before deployment: a chart's values are YAML too
    v.push_back(deployment_reader());
    v.push_back(packages_reader());
    v.push_back(image_reader());
    v.push_back(shell_reader());
    return v;
  }();
  return list;
}

const Reader* by_name(std::string_view name) {
  for (const auto& r : readers()) {
    if (r->name() == name) return r.get();
  }
  return nullptr;
}

const Reader* pick(const DeployInput& in, const Context& ctx) {
  if (!ctx.options.kind.empty()) return by_name(ctx.options.kind);
  for (const auto& r : readers()) {
    if (r->accepts(in.file, in.text, ctx)) return r.get();
  }
  // YAML or JSON nothing else claims: the hand-written format, which says what is wrong.
  const std::string_view t = in.text;
  const auto first = t.find_first_not_of(" \t\r\n");
  if (in.file.ends_with(".yaml") || in.file.ends_with(".yml") || in.file.ends_with(".json") ||
      (first != std::string_view::npos && t[first] == '{')) {
    return by_name("deployment");
  }
  return nullptr;
}

std::string file_label(const std::string& file) {
  return file == "-" ? "stdin" : file;
}

// A prefill or decode side only a workload's name gives stands when the deployment has
// the other side too: llm-d names its aggregated Deployment `decode`, and a lone "decode"
// with nothing to prefill for it is a monolithic server (`both`). Said as not read.
void lone_name_roles(Deployment& d, const Vocabulary& vocab) {
  auto role_of = [&](const Service& s) { return stated_role(vocab, s); };
  bool has[2] = {false, false};  // prefill, decode
  for (const Service& s : d.services) {
    const std::string r = role_of(s);
    if (r == service_role::kPrefill) has[0] = true;
    if (r == service_role::kDecode) has[1] = true;
  }
  for (Service& s : d.services) {
    const std::string r = role_of(s);
    const bool lone =
        (r == service_role::kPrefill && !has[1]) || (r == service_role::kDecode && !has[0]);
    if (!lone) continue;
    // A side the service's name gives, or a chart's section (llm-d-modelservice's `decode`
    // runs aggregated when `prefill` makes no pods).
    auto it = std::find_if(s.config.begin(), s.config.end(), [](const Setting& x) {
      return x.key == service_role::kKey &&
             (x.raw_key == "name" || (x.raw_key == "platform" && x.via.starts_with("values ")));
    });
    if (it == s.config.end()) continue;
    d.not_understood.push_back(
        {it->file, it->pos, it->via,
         (it->raw_key == "name" ? "names a " : "gives a ") + r + " side, but no " +
             std::string(r == service_role::kPrefill ? service_role::kDecode
                                                     : service_role::kPrefill) +
             " service is given; read as " + std::string(service_role::kBoth)});
    s.config.erase(it);
  }
}

// A shared engine in every service: it completes the version of an engine the service
// runs without one, or is added where the service's role runs what is installed.
void apply_shared(Service& svc, const DeployedEngine& shared, const Vocabulary& vocab) {
  for (DeployedEngine& e : svc.engines) {
    if (e.id != shared.id) continue;
    if (e.version.empty() && !shared.version.empty()) {
      e.version = shared.version;
      e.version_pos = shared.version_pos;
      e.file = shared.file;
      e.pos = shared.pos;
      e.end = shared.end;
      e.via = e.via.empty() ? shared.via : e.via + "; version from " + shared.via;
    }
    return;
  }
  // Not where the role runs only what its command names: `pip install vllm` in a script
  // does not make its `mooncake_master` or its load generator a vLLM server.
  if (runs_shipped(vocab, stated_role(vocab, svc))) svc.engines.push_back(shared);
}

}  // namespace

Diagnostic diag(Severity s, std::string code, const std::string& file, Pos pos, std::string message,
                std::string hint) {
  return {s, std::move(code), file, pos.line, pos.column, std::move(message), std::move(hint), ""};
}

}  // namespace deploy

const std::vector<std::string>& input_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> out;
    for (const auto& r : deploy::readers()) out.emplace_back(r->name());
    return out;
  }();
  return kinds;
}

Deployment deploy::read_inputs(const Corpus& corpus, const Vocabulary& vocab,
                               const std::vector<DeployInput>& inputs, const ReadOptions& options,
                               std::vector<Diagnostic>& diags) {
  using namespace deploy;
  Deployment d;
  for (const auto& in : inputs) d.file += (d.file.empty() ? "" : ", ") + in.file;
  const Catalog catalog(corpus);
  std::size_t input_bytes = 0;
  for (const DeployInput& in : inputs) input_bytes += in.text.size();
  Budget budget(input_bytes);
  const Context ctx{corpus, vocab, catalog, options, &budget};
  if (!options.kind.empty() && !by_name(options.kind)) {
    diags.push_back(diag(Severity::error, diag_code("deploy.unknown-kind"), "", {},
                         "'" + options.kind + "' is not a kind of input kb reads",
                         "one of kubernetes, compose, values, deployment, packages, image, "
                         "shell"));
    return d;
  }
  // Inputs a reader claims by content first; what is left (YAML nothing claims, or kb's
  // own format) may be a config file one of them names.
  std::vector<std::optional<Facts>> by_input(inputs.size());
  std::vector<std::size_t> left;
  auto unknown_kind = [&](const DeployInput& in) {
    if (in.from_directory) {
      diags.push_back(diag(Severity::note, diag_code("deploy.skipped"), in.file, {},
                           "not a kind of input kb reads; skipped", ""));
    } else {
      diags.push_back(diag(Severity::error, diag_code("deploy.unknown-kind"), in.file, {},
                           "not a kind of input kb reads",
                           "kb reads Kubernetes manifests, compose files, shell scripts, package "
                           "lists, image references and deployment files; name the kind with "
                           "--input-kind"));
    }
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const DeployInput& in = inputs[i];
    if (options.stopped()) break;
    if (in.text.size() > kMaxDeploymentBytes) {
      diags.push_back(
          diag(Severity::error, diag_code("limits.file-size"), in.file, {},
               "the file is larger than " + std::to_string(kMaxDeploymentBytes) + " bytes", ""));
      continue;
    }
    const Reader* r = pick(in, ctx);
    if (options.kind.empty() && (!r || r->name() == "deployment")) {
      left.push_back(i);
      continue;
    }
    if (!r) {
      unknown_kind(in);
      continue;
    }
    budget.reading(in.file);
    by_input[i] = r->read(in, ctx);
  }
  const std::vector<bool> config_file = join_config_files(inputs, left, by_input, ctx, diags);
  for (std::size_t i : left) {
    if (config_file[i] || options.stopped()) continue;
    const Reader* r = pick(inputs[i], ctx);
    if (!r) {
      unknown_kind(inputs[i]);
      continue;
    }
    budget.reading(inputs[i].file);
    by_input[i] = r->read(inputs[i], ctx);
  }
  std::vector<Facts> read;
  std::vector<const DeployInput*> read_from;  // the input each Facts was read from
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!by_input[i]) continue;
    read.push_back(std::move(*by_input[i]));
    read_from.push_back(&inputs[i]);
  }
  for (std::size_t i = 0; i < read.size(); ++i) {
    const Facts& f = read[i];
    diags.insert(diags.end(), f.diagnostics.begin(), f.diagnostics.end());
    // Fail closed across inputs: a file named on the command line that gives no service
    // and no engine adds nothing kb can check, yet beside another file the whole check
    // would pass. Only a file found by walking a directory may be such a bystander.
    const bool adds = !f.services.empty() || !f.shared_engines.empty() ||
                      (f.whole && (!f.whole->engines.empty() || !f.whole->services.empty() ||
                                   !f.whole->config.empty()));
    if (read.size() > 1 && !adds && !read_from[i]->from_directory &&
        count_severity(f.diagnostics, Severity::error) == 0) {
      diags.push_back(diag(options.allow_unknown ? Severity::warning : Severity::error,
                           diag_code("deploy.no-engine"), read_from[i]->file, {},
                           "this input names no engine kb knows and adds nothing to the other "
                           "inputs' services, so the deployment is not read whole",
                           "check that its images, commands or packages are in an engine record, "
                           "leave it out if it runs no engine, or pass --allow-unknown"));
    }
  }
  if (auto overrun = budget.diagnostic()) diags.push_back(std::move(*overrun));
  // One hand-written deployment alone is checked as it always was.
  if (read.size() == 1 && read[0].whole && inputs.size() == 1) {
    Deployment whole = std::move(*read[0].whole);
    whole.not_understood.insert(whole.not_understood.end(), read[0].unread.begin(),
                                read[0].unread.end());
    return whole;
  }
  std::vector<DeployedEngine> shared;
  // Sets, not scans: a hostile input may hold many thousands of services or unread words.
  std::set<std::tuple<std::string, int, int, std::string>> seen_services, seen_unread;
  std::set<std::string> names;
  // A hand-written file of only settings (`config: {gpu: H100}`) or a model, beside the
  // files that run the engines: facts about those services, merged into each of them,
  // not a service of its own.
  std::vector<Setting> stated;
  std::vector<std::pair<std::string, Pos>> stated_model;  // (model, where) with its file
  std::vector<std::string> stated_files;
  const bool others_run = std::any_of(read.begin(), read.end(), [](const Facts& f) {
    return !f.services.empty() ||
           (f.whole && (!f.whole->engines.empty() || !f.whole->services.empty()));
  });
  for (Facts& f : read) {
    if (f.whole && others_run && f.whole->engines.empty() && f.whole->services.empty() &&
        (!f.whole->config.empty() || !f.whole->model.empty())) {
      for (Setting s : f.whole->config) {
        if (s.file.empty()) s.file = f.whole->file;
        if (s.via.empty()) s.via = "stated in " + file_label(f.whole->file);
        stated.push_back(std::move(s));
      }
      if (!f.whole->model.empty()) stated_model.push_back({f.whole->model, f.whole->model_pos});
      stated_files.push_back(f.whole->file);
      f.unread.insert(f.unread.end(), f.whole->not_understood.begin(),
                      f.whole->not_understood.end());
      f.whole.reset();
    }
  }
  for (Facts& f : read) {
    if (f.whole) {
      for (Service s : f.whole->effective_services()) {
        if (s.name.empty()) s.name = file_label(f.whole->file);
        f.services.push_back(std::move(s));
      }
      f.unread.insert(f.unread.end(), f.whole->not_understood.begin(),
                      f.whole->not_understood.end());
    }
    for (Service& s : f.services) {
      // The same input given twice says nothing new.
      if (!seen_services.emplace(s.file, s.pos.line, s.pos.column, s.name).second) continue;
      // Two services of one name: told apart by what does not depend on how a path was
      // typed (`./x`, absolute), so that findings' fingerprints stay the same: the other
      // file's name, else an ordinal.
      if (names.count(s.name)) {
        const bool same_file =
            std::any_of(d.services.begin(), d.services.end(),
                        [&](const Service& x) { return x.name == s.name && x.file == s.file; });
        std::string base = s.name;
        if (!same_file) {
          base = s.file == "-" ? "stdin/" + s.name
                               : std::filesystem::path(s.file).filename().string() + "/" + s.name;
        }
        std::string name = base;
        for (int n = 2; names.count(name); ++n) name = base + "#" + std::to_string(n);
        s.name = std::move(name);
      }
      names.insert(s.name);
      d.services.push_back(std::move(s));
    }
    for (DeployedEngine& e : f.shared_engines) {
      auto same = std::find_if(shared.begin(), shared.end(),
                               [&](const DeployedEngine& x) { return x.id == e.id; });
      if (same == shared.end()) {
        shared.push_back(std::move(e));
      } else if (same->version.empty() && !e.version.empty()) {
        *same = std::move(e);
      }
    }
    for (Unread& u : f.unread) {
      // An exported variable reaches every command of a script: say it once.
      if (seen_unread.emplace(u.file, u.pos.line, u.pos.column, u.text).second) {
        d.not_understood.push_back(std::move(u));
      }
    }
  }
  if (d.services.empty()) {
    d.engines = std::move(shared);
  } else {
    for (Service& s : d.services) {
      for (const DeployedEngine& e : shared) apply_shared(s, e, vocab);
      // What a hand-written file states fills what the service does not say itself.
      for (const Setting& st : stated) {
        if (const Setting* own = s.find(st.key)) {
          if (own->value != st.value) {
            d.not_understood.push_back(
                {st.file, st.pos, st.key + ": " + st.value,
                 "service '" + s.name + "' says " + st.key + ": " + own->value + " itself"});
          }
          continue;
        }
        s.config.push_back(st);
      }
      if (s.model.empty() && !stated_model.empty()) {
        s.model = stated_model.front().first;
        s.model_pos = stated_model.front().second;
      }
    }
  }
  routed_roles(d, vocab);
  lone_name_roles(d, vocab);
  const bool errors = count_severity(diags, Severity::error) > 0;
  if (!errors && d.services.empty() && d.engines.empty() && !read.empty()) {
    diags.push_back(diag(options.allow_unknown ? Severity::warning : Severity::error,
                         diag_code("deploy.no-engine"), inputs.size() == 1 ? inputs[0].file : "",
                         {}, "the input names no engine kb knows, so no gotcha can be ruled out",
                         "check that the image, command or packages of each service are in an "
                         "engine record, or pass --allow-unknown"));
  }
  return d;
}

}  // namespace kb
