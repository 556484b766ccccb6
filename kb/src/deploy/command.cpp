#include "deploy/command.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>
#include <string>

#include "core/text_util.h"
#include "corpus/vocab.h"
#include "deploy/catalog.h"
#include "deploy/settings_reader.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/text.h"

namespace kb::deploy {
namespace {

// Shell builtins and utilities a launch script runs around its server (`ulimit -n 65536;
// echo head; ...`): none of them serves.
bool shell_utility(std::string_view program) {
  static const std::set<std::string, std::less<>> kUtilities = {
      ".",     "[",     "cat",  "cd",     "chmod", "cp",    "date", "echo",  "false",  "ln",
      "ls",    "mkdir", "mv",   "printf", "pwd",   "rm",    "set",  "sleep", "source", "test",
      "touch", "trap",  "true", "ulimit", "umask", "unset", "wait", "whoami"};
  return kUtilities.count(program) > 0;
}

std::string slug(std::string_view id) {
  return std::string(text::id_slug(id));
}

// The index of the script of `sh [-opts] -c SCRIPT`, or 0.
std::size_t shell_script_index(const std::vector<Word>& argv) {
  if (argv.empty() || !is_shell(argv[0].text)) return 0;
  for (std::size_t i = 1; i + 1 < argv.size(); ++i) {
    const std::string& a = argv[i].text;
    if (a.size() < 2 || a[0] != '-') return 0;
    if (a.find('c') != std::string::npos && a[1] != '-') {
      // `bash -lc -- 'script'`: `--` ends the options; the script follows it.
      if (argv[i + 1].text == "--") return i + 2 < argv.size() ? i + 2 : 0;
      return i + 1;
    }
  }
  return 0;
}

// Adds `e` to `list`, or completes the entry of the same engine that lacks a version.
void add_engine(std::vector<DeployedEngine>& list, DeployedEngine e) {
  for (DeployedEngine& x : list) {
    if (x.id != e.id) continue;
    if (x.version.empty() && !e.version.empty()) {
      x.version = e.version;
      x.version_pos = e.version_pos;
      if (x.file != e.file) {
        // A fact keeps one file: the version's, which decides ranges.
        x.file = e.file;
        x.pos = e.pos;
        x.end = e.end;
      }
      x.via = x.via.empty() ? e.via : x.via + "; version from " + e.via;
    } else if (x.version.empty() && e.version.empty() && e.via.starts_with("image ") &&
               x.via.find("image ") == std::string::npos) {
      // Named by the command, shipped by the image too: whatever the tag hides, two
      // services of that image run the same build (a check compares them so).
      x.via += "; shipped by " + e.via;
    }
    return;
  }
  list.push_back(std::move(e));
}

}  // namespace

std::string shown_value(std::string_view name, std::string_view value) {
  const std::string low = text::lower(name);
  for (std::string_view secret : {"token", "secret", "passw", "key", "credential"}) {
    if (low.find(secret) != std::string::npos) return "***";
  }
  return std::string(value);
}

std::size_t fact_cost(const EnvVar& e) {
  return Budget::kFactOverhead + e.name.size() + e.value.size() + e.file.size() + e.source.size();
}

std::size_t fact_cost(const std::vector<EnvVar>& env) {
  std::size_t n = 0;
  for (const EnvVar& e : env) n += fact_cost(e);
  return n;
}

std::size_t fact_cost(const Process& p) {
  // Its command line is the input's own text (what a variable added is charged as it
  // expands); what it shares with other processes is a copy.
  std::size_t n = fact_cost(p.env);
  for (const auto* keys : {&p.keys, &p.engine_keys}) {
    for (const KeyFact& k : *keys) {
      n += Budget::kFactOverhead + k.key.size() + k.value.size() + k.file.size() + k.via.size();
    }
  }
  return n + Budget::kFactOverhead * 4 * (p.packages.size() + p.implied.size());
}

// The engines an entry point says its process runs besides its own (`dynamo.vllm` runs
// vLLM; `trtllm-llmapi-launch` runs TensorRT-LLM), found at [pos, end) of `file`.
void Interpreter::launched_engines(const Entrypoint& ep, const std::string& file, Pos pos, Pos end,
                                   const std::string& via, std::vector<DeployedEngine>& out) const {
  for (const RefValue& launched : ep.engines) {
    auto id = ctx_.corpus.target(Kind::engine, launched.raw);
    if (!id) continue;
    DeployedEngine l;
    l.name = slug(*id);
    l.id = *id;
    l.file = file;
    l.pos = pos;
    l.end = end;
    l.via = via + " (runs " + slug(*id) + ")";
    add_engine(out, std::move(l));
  }
}

Interpreter::Interpreter(const Context& ctx, Facts& out, std::string_view source)
    : ctx_(ctx), out_(out), source_(source), lines_(source) {}

void Interpreter::add(const Process& p) {
  // A process is a copy of what its artifact shares with others (a pod's labels, a graph's
  // environment, a script's exports): charged, so that sharing cannot multiply memory.
  if (!ctx_.budget->spend(fact_cost(p), p.pos, "the facts of a process")) return;
  if (!p.image_entrypoint && !p.argv.empty() && depth_ < 8) {
    // A launcher (`srun`, `mpirun`, `torchrun`): what is read is the command behind it.
    std::vector<std::string> words;
    for (const Word& w : p.argv) words.push_back(w.text);
    if (auto wrap = ctx_.catalog.wrapper(words)) {
      struct Nest {
        int& depth;
        explicit Nest(int& d) : depth(++d) {}
        ~Nest() { --depth; }
      } nest(depth_);
      Process q = p;
      q.argv.assign(p.argv.begin() + static_cast<std::ptrdiff_t>(wrap->start), p.argv.end());
      if (wrap->python) q.argv.insert(q.argv.begin(), Word{"python", p.argv[0].pos, p.argv[0].end});
      const std::string name(base_name(p.argv[0].text));
      q.launched_by = p.launched_by.empty() ? name : p.launched_by + ", " + name;
      // A launcher of an engine (`trtllm-llmapi-launch`) runs it when nothing else says so.
      launched_engines(*wrap->entrypoint, p.file, p.argv[0].pos, p.argv[0].end,
                       "command " + p.argv[0].text, q.implied);
      add(q);
      return;
    }
  }
  const std::size_t script = shell_script_index(p.argv);
  // Scripts nest as deep as their quoting allows; beyond a few levels it is not a deployment.
  if (script == 0 || depth_ >= 8) {
    add_one(p);
    return;
  }
  struct Nest {
    int& depth;
    explicit Nest(int& d) : depth(++d) {}
    ~Nest() { --depth; }
  } nest(depth_);
  // `sh -c "pip install ... && exec vllm serve ..."`: each engine command of the script.
  const Word& text = p.argv[script];
  Locator where{&lines_, source_, 0, false, text.pos};
  // Search from the script's own line on, so an earlier identical word is not taken.
  if (text.pos.line > 0) where.base = lines_.start_of(text.pos.line);
  Process base = p;
  base.argv.clear();
  // `sh -c SCRIPT NAME ARG...` (a manifest's `command: [sh, -c, 'exec vllm serve "$@"', --]`
  // with its `args:`): the script's "$@" is the ARGs, NAME being its $0.
  std::string body = text.text;
  if (script + 2 < p.argv.size()) {
    std::string args;
    for (std::size_t i = script + 2; i < p.argv.size(); ++i) {
      std::string q = "'";
      for (char c : p.argv[i].text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      args += (args.empty() ? "" : " ") + q + "'";
    }
    // One pass, so that an argument's own "$@" is not replaced again; each replacement is
    // charged, so that a script of many "$@" cannot multiply its arguments' size.
    bool replaced = false;
    std::string out;
    for (std::size_t i = 0; i < body.size();) {
      std::size_t len = 0;
      for (const char* all : {"\"$@\"", "$@", "\"$*\"", "$*"}) {
        if (body.compare(i, std::strlen(all), all) == 0) {
          len = std::strlen(all);
          break;
        }
      }
      if (len == 0) {
        out += body[i++];
        continue;
      }
      if (!ctx_.budget->spend(args.size(), text.pos, "the arguments a script's \"$@\" stands for"))
        return;
      out += args;
      i += len;
      replaced = true;
    }
    body = std::move(out);
    // Words are then searched for only within the script's own text: the ARGs stand after
    // it, and finding them there would carry the search past the script's later words.
    if (replaced && text.end.line > 0) {
      const std::size_t end = lines_.start_of(text.end.line) + std::size_t(text.end.column - 1);
      if (end <= source_.size() && end > where.base) where.source = source_.substr(0, end);
    }
  }
  Script script_read = read_script(body, where, base, ctx_, out_);
  std::vector<Process>& procs = script_read.processes;
  const std::size_t before = out_.services.size();
  const std::size_t joins_before = joins_;
  // Programs of the script that neither serve nor join a cluster and are no shell utility:
  // one of them may be what serves (`/app/start.sh`), so the script is not just a join.
  std::size_t unknown_programs = 0;
  for (Process& q : procs) {
    q.quiet = true;
    const std::size_t services = out_.services.size(), joins = joins_;
    add_one(q);
    if (out_.services.size() == services && joins_ == joins &&
        (q.argv.empty() || !shell_utility(base_name(q.argv.front().text)))) {
      ++unknown_programs;
    }
  }
  const std::size_t made = out_.services.size() - before;
  for (std::size_t i = before; i < out_.services.size(); ++i) {
    if (made > 1) out_.services[i].name += "#" + std::to_string(i - before + 1);
  }
  if (made == 0 && joins_ > joins_before && unknown_programs == 0) {
    // The script only joins a cluster (`$KUBERAY_GEN_RAY_START_CMD` on a Ray worker): the
    // container serves nothing itself, whatever its image ships.
    out_.unread.push_back({p.file, p.pos, "'" + p.name + "' (" + join_via_ + ")",
                           "joins a cluster another service serves from; not a service itself"});
    return;
  }
  if (made == 0) {
    // The script starts nothing kb knows: the container is what its image is.
    Process image_only = p;
    image_only.argv.clear();
    image_only.packages = script_read.packages;
    add_one(image_only);
  }
}

void Interpreter::add_one(const Process& p) {
  std::vector<DeployedEngine> engines;
  std::vector<std::string> shipped;  // engines only the image ships
  std::string entry_engine;
  std::vector<Word> args;
  bool positional_model = false;
  std::optional<EntryMatch> entry;
  if (!p.argv.empty() && !p.image_entrypoint) {
    std::vector<std::string> words;
    for (const Word& w : p.argv) words.push_back(w.text);
    entry = ctx_.catalog.entrypoint(words);
  }
  if (p.init && !entry) return;
  if (entry && entry->entrypoint->serves == false) {
    // `ray start`: the process lends its node to a cluster; it is no service.
    ++joins_;
    join_via_ = "command " + entry->text;
    if (!p.quiet) {
      out_.unread.push_back({p.file, p.pos, "'" + p.name + "' (" + join_via_ + ")",
                             "joins a cluster another service serves from; not a service itself"});
    }
    return;
  }
  if (entry) {
    entry_engine = entry->engine->id;
    const Word& first = p.argv.front();
    const Word& last = p.argv[entry->words - 1];
    DeployedEngine e;
    e.name = slug(entry->engine->id);
    e.id = entry->engine->id;
    e.file = p.file;
    e.pos = first.pos;
    e.end = last.end;
    e.via = "command " + entry->text;
    if (!p.launched_by.empty()) e.via += " (launched by " + p.launched_by + ")";
    engines.push_back(std::move(e));
    // A launcher runs another engine, whose flags follow (`python3 -m dynamo.vllm`).
    launched_engines(*entry->entrypoint, p.file, first.pos, last.end, "command " + entry->text,
                     engines);
    args.assign(p.argv.begin() + static_cast<std::ptrdiff_t>(entry->words), p.argv.end());
    // A router, cache server or client loads no model: its first word is no model
    // (`lmcache server localhost 65432`).
    positional_model =
        !entry->entrypoint->command.empty() &&
        runs_shipped(ctx_.vocab, role_value(ctx_.vocab, entry->entrypoint->role.str()));
  } else if (p.image_entrypoint) {
    args = p.argv;
    // The image's own entry point (`vllm serve`): a first word that is no flag is the model.
    positional_model = true;
  } else if (!p.argv.empty()) {
    args.assign(p.argv.begin() + 1, p.argv.end());
    // A script's other commands (echo, curl, a benchmark client) are not services unless
    // they pass flags only engines take.
    if (p.quiet && p.implied.empty() && !passes_engine_flags(ctx_.vocab, args)) return;
  }
  if (!p.image.text.empty()) {
    if (auto ref = parse_image(p.image.text)) {
      for (EngineHit& hit : ctx_.catalog.image_engines(*ref)) {
        DeployedEngine e;
        e.name = slug(hit.id);
        e.id = hit.id;
        e.version = hit.version;
        e.file = p.file;
        e.pos = p.image.pos;
        e.end = p.image.end;
        if (!e.version.empty()) e.version_pos = p.image.pos;
        e.via = hit.via;
        if (hit.shipped) shipped.push_back(hit.id);
        add_engine(engines, std::move(e));
      }
      if (!engines.empty() && !ref->tag.empty() && version_from_tag(ref->tag).empty()) {
        out_.unread.push_back({p.file, p.image.pos, "image " + p.image.text,
                               "the tag '" + ref->tag + "' gives no version"});
      }
    }
  }
  // A plugin found only in the image (LMCache in lmcache/vllm-openai) beside the engine it
  // plugs into runs only when a setting enables it: the resolver decides.
  for (DeployedEngine& e : engines) {
    if (!e.via.starts_with("image ")) continue;
    const Record* rec = ctx_.corpus.find(e.id);
    if (!rec || rec->kind != Kind::engine) continue;
    for (const EngineRelation& rel : rec->engine->relations) {
      if (rel.type != relation_type::kPluginOf) continue;
      auto host = ctx_.corpus.target(Kind::engine, rel.engine.raw);
      const bool beside = host && std::any_of(engines.begin(), engines.end(),
                                              [&](const auto& x) { return x.id == *host; });
      if (beside) e.needs_enabling = true;
    }
  }
  for (const DeployedEngine& pkg : p.packages) {
    // Installed beside the command (`pip install vllm` earlier in the script) is like
    // shipped by the image: a service whose role runs only what its command names (a
    // `mooncake_master`, a benchmark client) does not run it.
    const bool named = std::any_of(engines.begin(), engines.end(),
                                   [&](const DeployedEngine& x) { return x.id == pkg.id; });
    if (!named) shipped.push_back(pkg.id);
    add_engine(engines, pkg);
  }
  // A platform's pod whose image and command name no engine runs what the platform starts
  // (KServe's LLMInferenceService: vLLM).
  if (engines.empty() && !p.implied.empty()) {
    for (const DeployedEngine& e : p.implied) add_engine(engines, e);
    if (entry_engine.empty()) entry_engine = p.implied.front().id;
  }

  if (engines.empty() && p.image.text.empty() && p.image_entrypoint) {
    // A container with arguments and no image or command (a kustomize patch: the base
    // gives both): the flags it passes are the only evidence, taken when they are one
    // engine's own (`--kv-transfer-config` is vLLM's). Its version stays unknown.
    const Word* telling = nullptr;
    const std::string id = engine_of_flags(ctx_.vocab, ctx_.corpus, args, &telling);
    if (!id.empty() && telling) {
      DeployedEngine e;
      e.name = slug(id);
      e.id = id;
      e.file = p.file;
      e.pos = telling->pos;
      e.end = telling->end;
      e.via = "flag " + telling->text.substr(0, telling->text.find('=')) + ", which only " +
              std::string(slug(id)) + " takes (no image or command given)";
      engines.push_back(std::move(e));
      entry_engine = id;
    }
  }
  if (engines.empty()) {
    std::string why = p.gpu;
    if (why.empty() && passes_engine_flags(ctx_.vocab, args.empty() ? p.argv : args)) {
      why = "it passes flags that only engines take";
    }
    std::string what;
    if (!p.image.text.empty()) what = "image " + p.image.text;
    if (!p.argv.empty()) {
      what += std::string(what.empty() ? "" : ", ") +
              (p.image_entrypoint ? "arguments " : "command ") + p.argv[0].text;
    }
    if (!why.empty()) {
      const Pos at = !p.image.text.empty() ? p.image.pos : !p.argv.empty() ? p.argv[0].pos : p.pos;
      out_.diagnostics.push_back(
          diag(ctx_.options.allow_unknown ? Severity::warning : Severity::error,
               diag_code("deploy.unidentified-engine"), p.file, at,
               "'" + p.name + "' runs an engine kb cannot identify (" +
                   (what.empty() ? "no image or command" : what) + "): " + why,
               "add its image to an engine record's `images` or its command to `entrypoints`, or "
               "pass --allow-unknown to check without it"));
    } else if (!p.quiet) {
      out_.unread.push_back({p.file, p.pos,
                             "'" + p.name + "'" + (what.empty() ? "" : " (" + what + ")"),
                             "runs no engine kb knows"});
    }
    return;
  }

  Service svc;
  svc.name = p.name;
  svc.file = p.file;
  svc.pos = p.pos;
  svc.engines = std::move(engines);
  SettingsReader settings(ctx_, out_, svc, entry_engine);
  if (entry && !entry->entrypoint->role.empty()) {
    settings.entrypoint_role(entry->entrypoint->role, p.argv.front(), p.file,
                             "command " + entry->text);
  }
  if (entry && !entry->entrypoint->implies.empty()) {
    settings.entrypoint_implies(entry->entrypoint->implies, entry->entrypoint->versions,
                                p.argv.front(), p.file, "command " + entry->text);
  }
  if (!p.role.text.empty()) settings.platform_role(p.role, p.file, p.role_via);
  if (p.keys_of.empty()) {
    settings.keys(p.keys);
  } else {
    settings.chart_keys(p.keys, p.keys_of, p.settings_in);
  }
  settings.env(p.env);
  settings.args(args, p.file, positional_model);
  if (!p.workload.text.empty()) settings.name_role(p.workload, p.file);
  settings.finish();
  if (!p.engine_keys.empty() && !entry_engine.empty()) {
    // A chart's mapping of the engine's arguments (Ray Serve LLM's engine_kwargs): as the
    // engine's --config file, under what the service says otherwise.
    SettingsReader from_args(ctx_, out_, svc, entry_engine);
    from_args.config_file(p.engine_keys, entry_engine);
    from_args.finish();
  }
  if (svc.model.empty() && !p.model.text.empty()) {
    svc.model = p.model.text;
    svc.model_pos = p.model.pos;
  }
  // A service whose role does not run the engines its image merely ships or its script
  // installs (the role record says which: a router, a cache server, a client; Dynamo's
  // frontend in a vllm-runtime image is not a vLLM server) runs only those its command
  // names.
  if (!shipped.empty() && !runs_shipped(ctx_.vocab, stated_role(ctx_.vocab, svc))) {
    auto only_shipped = [&](const DeployedEngine& e) {
      return std::find(shipped.begin(), shipped.end(), e.id) != shipped.end() &&
             e.via.find("command ") != 0;
    };
    svc.engines.erase(std::remove_if(svc.engines.begin(), svc.engines.end(), only_shipped),
                      svc.engines.end());
  }
  out_.services.push_back(std::move(svc));
}

void read_requirement(const Word& spec, const std::string& file, const std::string& via,
                      const Context& ctx, std::vector<DeployedEngine>& engines,
                      std::vector<Unread>& unread) {
  std::string_view s = text::trim(spec.text);
  if (auto semi = s.find(';'); semi != std::string_view::npos) s = text::trim(s.substr(0, semi));
  std::size_t n = 0;
  while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '-' ||
                          s[n] == '_' || s[n] == '.')) {
    ++n;
  }
  const std::string name(s.substr(0, n));
  std::string_view rest = text::trim(s.substr(n));
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    rest =
        close == std::string_view::npos ? std::string_view() : text::trim(rest.substr(close + 1));
  }
  const Record* engine = name.empty() ? nullptr : ctx.catalog.package(name);
  if (!engine) {
    unread.push_back({file, spec.pos, std::string(s), "no engine record lists this package"});
    return;
  }
  DeployedEngine e;
  e.name = slug(engine->id);
  e.id = engine->id;
  e.file = file;
  e.pos = spec.pos;
  e.end = spec.end;
  e.via = via + " " + std::string(s);
  if (rest.starts_with("==")) {
    std::string version(text::trim(rest.substr(rest.starts_with("===") ? 3 : 2)));
    if (version.find_first_of("*,<>!~") == std::string::npos) {
      e.version = version;
      e.version_pos = spec.pos;
    }
  }
  add_engine(engines, std::move(e));
}

}  // namespace kb::deploy
