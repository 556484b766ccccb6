// Reading a shell script into the processes it starts: wrappers (`exec`, `nohup`, `env`,
// `uv run`), `export`, `VAR=x cmd` prefixes, `pip install`, `docker run` / `podman run`.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "deploy/catalog.h"
#include "deploy/command.h"
#include "deploy/shell_functions.h"

namespace kb::deploy {
namespace {

// Words that may precede the program of a simple command without being it.
const std::set<std::string, std::less<>> kWrappers = {
    "exec", "nohup", "sudo", "time",  "command", "builtin", "then", "do",
    "else", "elif",  "if",   "while", "until",   "!",       "{",    "}"};

// `docker run` options that take a value (the rest are switches such as -d, --rm, -it).
const std::set<std::string, std::less<>> kRunValueOptions = {"-e",
                                                             "--env",
                                                             "-v",
                                                             "--volume",
                                                             "-p",
                                                             "--publish",
                                                             "--name",
                                                             "--network",
                                                             "--net",
                                                             "--device",
                                                             "--gpus",
                                                             "--entrypoint",
                                                             "-w",
                                                             "--workdir",
                                                             "-u",
                                                             "--user",
                                                             "--ipc",
                                                             "--shm-size",
                                                             "--env-file",
                                                             "--mount",
                                                             "--runtime",
                                                             "--ulimit",
                                                             "--cap-add",
                                                             "--cap-drop",
                                                             "--security-opt",
                                                             "-h",
                                                             "--hostname",
                                                             "--add-host",
                                                             "--label",
                                                             "-l",
                                                             "--memory",
                                                             "-m",
                                                             "--cpus",
                                                             "--platform",
                                                             "--pull",
                                                             "--restart",
                                                             "--log-driver",
                                                             "--log-opt",
                                                             "--tmpfs",
                                                             "--pid",
                                                             "--uts",
                                                             "--userns",
                                                             "--dns",
                                                             "--expose",
                                                             "--volumes-from",
                                                             "--cpuset-cpus",
                                                             "--group-add",
                                                             "--label-file",
                                                             "--annotation",
                                                             "--stop-signal",
                                                             "--health-cmd"};

// `pip install` options that take a value; a requirements file is not in the input.
const std::set<std::string, std::less<>> kPipValueOptions = {"-r",
                                                             "--requirement",
                                                             "-c",
                                                             "--constraint",
                                                             "-e",
                                                             "--editable",
                                                             "-i",
                                                             "--index-url",
                                                             "--extra-index-url",
                                                             "-f",
                                                             "--find-links",
                                                             "--target",
                                                             "-t",
                                                             "--prefix",
                                                             "--root",
                                                             "--python",
                                                             "--upgrade-strategy"};

EnvVar env_of(const Word& w, const std::string& file, const std::string& source) {
  const auto eq = w.text.find('=');
  EnvVar e;
  e.name = w.text.substr(0, eq);
  e.value = eq == std::string::npos ? std::string() : w.text.substr(eq + 1);
  e.file = file;
  e.pos = w.pos;
  e.end = w.end;
  e.source = source;
  return e;
}

// Where the package arguments of a `pip install` start, or 0.
std::size_t pip_install(const std::vector<Word>& w, std::size_t i) {
  auto at = [&](std::size_t k) -> std::string_view {
    return k < w.size() ? std::string_view(w[k].text) : std::string_view();
  };
  const std::string_view prog = base_name(at(i));
  if ((prog == "pip" || prog.starts_with("pip3")) && at(i + 1) == "install") return i + 2;
  if (is_python(prog) && at(i + 1) == "-m" && at(i + 2) == "pip" && at(i + 3) == "install")
    return i + 4;
  if (prog == "uv" && at(i + 1) == "pip" && at(i + 2) == "install") return i + 3;
  return 0;
}

// How deep function calls and `eval` nest before kb stops following them.
constexpr std::size_t kMaxCallDepth = 8;

}  // namespace

Script read_script(std::string_view text, const Locator& where, const Process& base,
                   const Context& ctx, Facts& out) {
  Script script;
  script.packages = base.packages;
  // Functions are read where they are called, with their arguments as $1, $2, ...; the
  // ones never called are read at the end, their arguments unknown. `eval STRING` reads
  // STRING as commands. Each is a frame on a stack of lexers over text that stays put.
  std::vector<Function> functions = find_functions(text);
  struct Frame {
    std::unique_ptr<std::string> text;
    std::unique_ptr<ShellLexer> lexer;
    std::vector<std::pair<std::string, std::optional<std::string>>> saved;  ///< $1.. before
    std::string call;  ///< " (NAME called at line N)" for a function's body
  };
  std::vector<Frame> stack;
  auto push = [&](std::string body, Locator at) {
    Frame f;
    f.text = std::make_unique<std::string>(std::move(body));
    f.lexer = std::make_unique<ShellLexer>(*f.text, at, ctx.budget);
    stack.push_back(std::move(f));
  };
  push(without(text, functions, 0, text.size()), where);
  std::size_t next_uncalled = 0;
  Vars vars;
  for (const EnvVar& e : base.env) {
    if (!e.runtime) vars[e.name] = e.value;
  }
  // Every command gets a copy of the container's environment and of what was exported
  // before it: that is what the budget is charged for each command.
  const std::size_t base_cost = fact_cost(base);
  std::vector<EnvVar> exported;
  std::map<std::string, std::size_t, std::less<>> exported_at;  // name -> index in `exported`
  std::size_t exported_cost = 0;
  const std::string& file = base.file;
  auto body_locator = [&](const Function& f) {
    Locator at = where;
    if (where.exact) at.base = where.base + f.body;
    return at;
  };
  auto next_command = [&]() -> std::optional<Command> {
    while (!stack.empty()) {
      if (auto cmd = stack.back().lexer->next(vars)) return cmd;
      for (auto& [name, value] : stack.back().saved) {
        if (value)
          vars[name] = *value;
        else
          vars.erase(name);
      }
      stack.pop_back();
      if (!stack.empty()) continue;
      // The functions no command called, read once each with unknown arguments.
      while (next_uncalled < functions.size() && functions[next_uncalled].called) ++next_uncalled;
      if (next_uncalled < functions.size()) {
        Function& f = functions[next_uncalled];
        f.called = true;
        for (const char* n : {"1", "2", "3", "4", "5", "6", "7", "8", "9"}) vars.erase(n);
        push(without(text, functions, f.body, f.body_end), body_locator(f));
      }
    }
    return std::nullopt;
  };
  while (auto cmd = next_command()) {
    if (ctx.options.stopped()) break;
    const std::vector<Word>& w = cmd->words;
    std::vector<EnvVar> prefix;
    std::size_t i = 0;
    while (i < w.size()) {
      const std::string& t = w[i].text;
      if (is_assignment(t)) {
        prefix.push_back(env_of(w[i], file, "env"));
        ++i;
      } else if (kWrappers.count(t)) {
        ++i;
      } else if (t == "env") {
        ++i;
        while (i < w.size() && (is_assignment(w[i].text) || w[i].text.starts_with('-'))) {
          if (is_assignment(w[i].text)) prefix.push_back(env_of(w[i], file, "env"));
          ++i;
        }
      } else if (t == "uv" && i + 1 < w.size() && w[i + 1].text == "run") {
        i += 2;
        while (i < w.size() && w[i].text.starts_with('-')) ++i;
      } else {
        break;
      }
    }
    if (i == w.size()) {
      for (const EnvVar& a : prefix) vars[a.name] = a.value;  // shell variables, not exported
      continue;
    }
    const std::string& prog = w[i].text;
    if (prog == "local" || prog == "declare" || prog == "typeset" || prog == "readonly") {
      // Shell variables, not exported (a function's `local x=$1`).
      for (std::size_t j = i + 1; j < w.size(); ++j) {
        if (is_assignment(w[j].text)) {
          const EnvVar e = env_of(w[j], file, prog);
          vars[e.name] = e.value;
        }
      }
      continue;
    }
    if (prog == "eval") {
      // `eval "$CMD &"`: the words, joined, are read as commands where eval stands.
      std::string joined;
      for (std::size_t j = i + 1; j < w.size(); ++j)
        joined += (joined.empty() ? "" : " ") + w[j].text;
      // Read again: charged to the budget like the text it is.
      if (!ctx.budget->spend(joined.size(), w[i].pos, "the text eval reads")) break;
      if (stack.size() < kMaxCallDepth && !joined.empty()) {
        push(std::move(joined), Locator{nullptr, {}, 0, false, w[i].pos});
      }
      continue;
    }
    if (auto fn = std::find_if(functions.begin(), functions.end(),
                               [&](const Function& f) { return f.name == prog; });
        fn != functions.end()) {
      // A call: the body is read now, its arguments as $1, $2, ...
      if (stack.size() >= kMaxCallDepth) continue;
      // Each call reads the body again: charged to the budget like the text it is.
      if (!ctx.budget->spend(fn->body_end - fn->body, w[i].pos, "a function's body, per call"))
        break;
      fn->called = true;
      std::vector<std::pair<std::string, std::optional<std::string>>> saved;
      for (std::size_t k = 1; k <= 9; ++k) {
        const std::string n = std::to_string(k);
        auto it = vars.find(n);
        saved.emplace_back(
            n, it == vars.end() ? std::nullopt : std::optional<std::string>(it->second));
        if (i + k < w.size())
          vars[n] = w[i + k].text;
        else
          vars.erase(n);
      }
      push(without(text, functions, fn->body, fn->body_end), body_locator(*fn));
      stack.back().saved = std::move(saved);
      // Each call starts its own processes: named by the call too.
      stack.back().call =
          " (" + fn->name + " called at line " + std::to_string(w[i].pos.line) + ")";
      for (std::size_t k = stack.size() - 1; k-- > 0;) {
        if (!stack[k].call.empty()) {
          stack.back().call += stack[k].call;
          break;
        }
      }
      continue;
    }
    if (prog == "export") {
      for (std::size_t j = i + 1; j < w.size(); ++j) {
        if (w[j].text.starts_with('-')) continue;
        EnvVar e = env_of(w[j], file, "export");
        if (!is_assignment(w[j].text)) {
          auto known = vars.find(e.name);
          if (known == vars.end()) continue;
          e.value = known->second;
        }
        vars[e.name] = e.value;
        exported_cost += fact_cost(e);
        auto [at, added] = exported_at.try_emplace(e.name, exported.size());
        if (added) {
          exported.push_back(std::move(e));
        } else {
          exported_cost -= fact_cost(exported[at->second]);
          exported[at->second] = std::move(e);
        }
      }
      continue;
    }
    if (const ShellFunction* fn = ctx.catalog.shell_function(prog)) {
      // A helper from a sourced file kb does not read: the record says what it sets.
      const auto at = i + static_cast<std::size_t>(std::max<std::int64_t>(fn->argument, 1));
      if (at < w.size() && !fn->sets.empty()) vars[fn->sets] = w[at].text;
      continue;
    }
    if (std::size_t k = pip_install(w, i)) {
      for (std::size_t j = k; j < w.size(); ++j) {
        const std::string& a = w[j].text;
        if (a.starts_with('-')) {
          const std::string name = a.substr(0, a.find('='));
          if (kPipValueOptions.count(name) && a.find('=') == std::string::npos) ++j;
          continue;
        }
        read_requirement(w[j], file, "pip install", ctx, script.packages, out.unread);
      }
      continue;
    }
    if (!ctx.budget->spend(base_cost + exported_cost + fact_cost(prefix), w[i].pos,
                           "the environment copied into each command")) {
      break;
    }
    Process q = base;
    q.argv.assign(w.begin() + static_cast<std::ptrdiff_t>(i), w.end());
    q.pos = w[i].pos;
    if (q.name.empty()) {
      q.name = (file == "-" ? std::string("stdin") : file) + ":" + std::to_string(w[i].pos.line);
      for (std::size_t k = stack.size(); k-- > 0;) {
        if (!stack[k].call.empty()) {
          q.name += stack[k].call;
          break;
        }
      }
    }
    const std::string_view program = base_name(prog);
    if ((program == "docker" || program == "podman" || program == "nerdctl") && i + 1 < w.size() &&
        w[i + 1].text == "run") {
      // docker run [OPTIONS] IMAGE [ARG...]: only the -e variables reach the process.
      q.env.clear();
      q.argv.clear();
      Word entrypoint;
      std::size_t j = i + 2;
      for (; j < w.size() && w[j].text.size() > 1 && w[j].text[0] == '-'; ++j) {
        const std::string& a = w[j].text;
        const auto eq = a.find('=');
        const std::string name = a.substr(0, eq);
        const bool takes = kRunValueOptions.count(name) && eq == std::string::npos;
        const Word value = eq != std::string::npos     ? Word{a.substr(eq + 1), w[j].pos, w[j].end}
                           : takes && j + 1 < w.size() ? w[j + 1]
                                                       : Word{};
        if (name == "-e" || name == "--env") {
          EnvVar e = env_of(value, file, "docker run -e");
          if (value.text.find('=') == std::string::npos) {
            auto known = vars.find(e.name);
            if (known == vars.end())
              e.runtime = true;
            else
              e.value = known->second;
          }
          q.env.push_back(std::move(e));
        } else if (name == "--gpus" ||
                   (name == "--device" && value.text.find("gpu") != std::string::npos) ||
                   (name == "--runtime" && value.text == "nvidia")) {
          q.gpu = "it is given GPUs (" + name + ")";
          q.gpu_pos = w[j].pos;
        } else if (name == "--entrypoint") {
          entrypoint = value;
        } else if (name == "--name" && base.name.empty()) {
          q.name = value.text;
        }
        if (takes) ++j;
      }
      if (j >= w.size()) continue;
      q.image = w[j];
      q.pos = w[i].pos;
      if (!entrypoint.text.empty()) q.argv.push_back(entrypoint);
      q.argv.insert(q.argv.end(), w.begin() + static_cast<std::ptrdiff_t>(j) + 1, w.end());
      q.image_entrypoint = entrypoint.text.empty();
      script.processes.push_back(std::move(q));
      continue;
    }
    q.env.insert(q.env.end(), exported.begin(), exported.end());
    q.env.insert(q.env.end(), prefix.begin(), prefix.end());
    script.processes.push_back(std::move(q));
  }
  const std::size_t packages_cost =
      Budget::kFactOverhead * 4 * script.packages.size();  // a DeployedEngine's strings
  for (Process& q : script.processes) {
    if (!ctx.budget->spend(packages_cost, q.pos, "the packages a script installs, in each command"))
      break;
    q.packages = script.packages;
    q.quiet = true;
  }
  return script;
}

}  // namespace kb::deploy
