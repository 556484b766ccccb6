// `kb check --explain GOTCHA`: every clause of a gotcha's predicate as true, false or
// unknown for each service of a deployment, with the facts each rests on.

#include "check/check_index_impl.h"
#include "check/check_resolve.h"
#include "kb/corpus.h"

namespace kb {
namespace {

using check::Truth;

std::string truth_name(Truth t) {
  return t == Truth::yes ? "true" : t == Truth::maybe ? "unknown" : "false";
}

Clause clause(const check::Node& n, const check::Env& env, const check::ServiceEnv& s) {
  using Op = Predicate::Op;
  Clause c;
  c.truth = truth_name(check::eval(n, env, s));
  if (n.op == Op::all || n.op == Op::any || n.op == Op::negate) {
    c.text = n.op == Op::all ? "all of" : n.op == Op::any ? "any of" : "not";
    for (const check::Node& child : n.children) c.children.push_back(clause(child, env, s));
    return c;
  }
  if (n.op == Op::any_service && n.children.size() == 1) {
    // Each service of the graph, with what the clause is for it.
    c.text = "some service of the deployment has";
    for (const check::ServiceEnv& other : env.services) {
      if (other.service->group != s.service->group) continue;
      Clause one = clause(n.children.front(), env, other);
      one.text = "service '" + other.service->name + "': " + one.text;
      c.children.push_back(std::move(one));
    }
    return c;
  }
  c.text = check::describe(n);
  std::vector<check::Why> why;
  check::explain(n, env, s, why);
  for (const check::Why& w : why) {
    std::string fact = w.text;
    if (w.pos.line > 0) {
      fact += " (" + w.file + ":" + std::to_string(w.pos.line) + ":" +
              std::to_string(w.pos.column) + ")";
    }
    // describe() already says what differs/compare test; only the facts under it are new.
    if (w.text != c.text) c.facts.push_back(std::move(fact));
  }
  return c;
}

}  // namespace

std::optional<Explanation> CheckIndex::explain(const Deployment& deployment, std::string_view id,
                                               const CheckOptions& options,
                                               std::vector<Diagnostic>& diags) const {
  if (!impl_) return std::nullopt;
  const Corpus& corpus = *impl_->corpus;
  auto target = corpus.target(Kind::gotcha, id);
  if (!target) return std::nullopt;
  const CompiledGotcha* g = nullptr;
  for (const auto& c : impl_->compiled) {
    if (c && c->record && c->record->id == *target) g = c.get();
  }
  if (!g) return std::nullopt;
  Deployment d = deployment;
  resolve_deployment(d, corpus, *impl_->vocab, options.allow_unknown, diags);
  check::Env env;
  prepare_env(*impl_, d.services, env);
  Explanation out;
  out.id = g->record->id;
  out.title = g->record->title;
  Truth best = Truth::no;
  for (const check::ServiceEnv& s : env.services) {
    Explanation::ServiceClauses sc;
    sc.service = s.service->name;
    sc.role = s.service->role;
    sc.root = clause(g->root, env, s);
    best = std::max(best, check::eval(g->root, env, s));
    out.services.push_back(std::move(sc));
  }
  out.result = best == Truth::yes     ? "applies"
               : best == Truth::maybe ? "may apply"
                                      : "does not apply";
  return out;
}

}  // namespace kb
