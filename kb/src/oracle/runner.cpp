// The two runner kinds: which requests each sends for one prompt, in which order, and
// how their answers become passed, failed (with the first diverging token) or error;
// and the driver that runs every prompt of every trial on worker threads.

#include <chrono>
#include <mutex>
#include <random>
#include <thread>

#include "core/text_util.h"
#include "kb/oracle.h"

namespace kb::oracle {
namespace {

class One {
 public:
  One(const RunnerSpec& spec, const std::vector<Prompt>& prompts, std::size_t prompt, int trial,
      const Sender& send, Isolator& isolator, const std::atomic<bool>* stop)
      : spec_(spec), prompt_(prompts[prompt]), send_(send), isolator_(isolator), stop_(stop) {
    out_.prompt = prompt;
    out_.trial = trial;
  }

  Outcome run() {
    try {
      if (spec_.kind == RunnerKind::monolithic_equivalence) {
        monolithic();
      } else {
        cold_vs_warm();
      }
    } catch (const Stopped&) {
      out_.verdict = Verdict::skipped;
      out_.message = "not run: stopped";
    }
    return out_;
  }

 private:
  struct Stopped {};

  Request request(Target target, std::string role) const {
    Request r;
    r.target = target;
    r.prompt = &prompt_;
    r.max_tokens = spec_.max_tokens;
    r.token_ids_field = spec_.token_ids_field;
    r.role = std::move(role);
    return r;
  }

  // Makes `r` one the server cannot have cached, keyed by `key`.
  void isolate(Request& r, const std::string& key) const {
    if (spec_.isolation == Isolation::cache_salt) {
      r.salt_field = spec_.salt_field;
      r.salt = key;
    } else if (spec_.isolation == Isolation::nonce) {
      r.nonce = "kb-nonce " + key + "\n";
    }
  }

  // An answer that arrives after the stop may have been cut by it: the prompt is not run.
  Generation get(const Request& r) {
    if (stop_ != nullptr && stop_->load()) throw Stopped{};
    Generation g = send_(r);
    if (stop_ != nullptr && stop_->load()) throw Stopped{};
    return g;
  }

  void error(std::string message) {
    out_.verdict = Verdict::error;
    out_.message = std::move(message);
  }

  // True when `g` can be compared; otherwise records the error.
  bool usable(const Generation& g, const std::string& role) {
    if (auto problem = unusable(g, spec_.max_tokens)) {
      error(role + ": " + *problem);
      return false;
    }
    return true;
  }

  // A request meant to be cold that the server says it answered from its cache.
  bool cold(const Generation& g, const std::string& role, const std::string& hint) {
    if (g.cached_tokens <= 0) return true;
    error(role + ": " + std::to_string(g.cached_tokens) +
          " prompt tokens came from the prefix cache; " + hint);
    return false;
  }

  // Two requests that must agree; records nondeterminism when they do not.
  bool agree(const Generation& a, const Generation& b, const std::string& what) {
    auto d = first_divergence(a, b);
    if (!d) return true;
    error("nondeterministic at temperature 0: " + what + " differ at " +
          (d->by_text ? "character " : "token ") + std::to_string(d->position));
    return false;
  }

  void fail(const Divergence& d, int run, const std::string& what) {
    out_.verdict = Verdict::failed;
    out_.failure.prompt = static_cast<std::int64_t>(out_.prompt);
    out_.failure.trial = out_.trial;
    out_.failure.run = run;
    out_.failure.position = d.position;
    out_.failure.compared = d.by_text ? failure_compared::kText : failure_compared::kTokens;
    out_.failure.expected = d.expected;
    out_.failure.got = d.got;
    out_.message =
        what + " at " + (d.by_text ? "character " : "token ") + std::to_string(d.position);
  }

  void monolithic() {
    const Request b = request(Target::baseline, "baseline");
    const Generation base = get(b);
    if (!usable(base, "baseline") ||
        !cold(base, "baseline", "the baseline must run with prefix caching off")) {
      return;
    }
    if (spec_.determinism_check) {
      const Generation again = get(b);
      if (!usable(again, "baseline, second request") ||
          !cold(again, "baseline, second request",
                "the baseline must run with prefix caching off") ||
          !agree(base, again, "two identical requests to the baseline")) {
        return;
      }
      if (spec_.isolation == Isolation::cache_salt && !subject_is_deterministic()) return;
    }
    const Generation sub = get(request(Target::subject, "subject"));
    if (!usable(sub, "subject")) return;
    if (auto d = first_divergence(base, sub)) {
      fail(*d, 0, "the subject diverges from the baseline");
      return;
    }
    out_.verdict = Verdict::passed;
  }

  // Two cold requests to the subject, each isolated by its own salt, must agree.
  bool subject_is_deterministic() {
    Request r = request(Target::subject, "subject, cold control");
    isolate(r, isolator_.next());
    const Generation a = get(r);
    isolate(r, isolator_.next());
    const Generation b = get(r);
    const std::string hint = "the server did not honour the isolation field";
    return usable(a, r.role) && usable(b, r.role) && cold(a, r.role, hint) &&
           cold(b, r.role, hint) && agree(a, b, "two cold requests to the subject");
  }

  void cold_vs_warm() {
    const std::string hint = "the isolation (" + std::string(to_string(spec_.isolation)) +
                             ") did not keep the request cold";
    Request c = request(Target::subject, "cold run");
    isolate(c, isolator_.next());
    const Generation first = get(c);
    if (!usable(first, c.role) || !cold(first, c.role, hint)) return;
    if (spec_.determinism_check && spec_.isolation == Isolation::cache_salt) {
      Request again = c;
      again.role = "second cold run";
      isolate(again, isolator_.next());
      const Generation second = get(again);
      if (!usable(second, again.role) || !cold(second, again.role, hint) ||
          !agree(first, second, "two cold runs")) {
        return;
      }
    }
    std::vector<Generation> warm;
    for (int w = 1; w <= spec_.warm_runs; ++w) {
      Request r = c;
      r.role = "warm run " + std::to_string(w);
      warm.push_back(get(r));
    }
    // With a nonce there is no second cold run to compare; repeated warm runs of the
    // same request must at least agree with each other.
    if (spec_.determinism_check && spec_.isolation == Isolation::nonce) {
      const Generation* seen = nullptr;
      for (const auto& g : warm) {
        if (unusable(g, spec_.max_tokens)) continue;
        if (seen != nullptr && !agree(*seen, g, "warm runs of the identical request")) return;
        if (seen == nullptr) seen = &g;
      }
    }
    std::string warm_error;
    for (int w = 1; w <= spec_.warm_runs; ++w) {
      const Generation& g = warm[w - 1];
      if (auto problem = unusable(g, spec_.max_tokens)) {
        if (warm_error.empty()) warm_error = "warm run " + std::to_string(w) + ": " + *problem;
        continue;
      }
      if (auto d = first_divergence(first, g)) {
        fail(*d, w, "warm run " + std::to_string(w) + " diverges from the cold run");
        return;
      }
    }
    if (!warm_error.empty()) {
      error(warm_error);
      return;
    }
    out_.verdict = Verdict::passed;
  }

  const RunnerSpec& spec_;
  const Prompt& prompt_;
  const Sender& send_;
  Isolator& isolator_;
  const std::atomic<bool>* stop_;
  Outcome out_;
};

std::uint64_t fresh_seed() {
  std::random_device rd;
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(now);
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::passed:
      return "passed";
    case Verdict::failed:
      return "failed";
    case Verdict::error:
      return "error";
    case Verdict::skipped:
      break;
  }
  return "skipped";
}

Isolator::Isolator(std::uint64_t seed) : seed_(seed) {}

std::string Isolator::next() {
  return "kb-" + text::hex64(seed_).substr(0, 12) + "-" + std::to_string(counter_.fetch_add(1));
}

Outcome run_one(const RunnerSpec& spec, const std::vector<Prompt>& prompts, std::size_t prompt,
                int trial, const Sender& send, Isolator& isolator, const std::atomic<bool>* stop) {
  return One(spec, prompts, prompt, trial, send, isolator, stop).run();
}

RunReport run(const RunnerSpec& spec, const std::vector<Prompt>& prompts,
              const std::function<Sender()>& make_sender, const RunOptions& options) {
  RunReport report;
  const std::size_t total = prompts.size() * static_cast<std::size_t>(std::max(spec.trials, 0));
  report.outcomes.resize(total);
  for (std::size_t i = 0; i < total; ++i) {
    report.outcomes[i].prompt = i % prompts.size();
    report.outcomes[i].trial = static_cast<int>(i / prompts.size()) + 1;
    report.outcomes[i].message = "not run: stopped";
  }
  Isolator isolator(options.seed != 0 ? options.seed : fresh_seed());
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::size_t finished = 0;
  auto stopped = [&] { return options.stop != nullptr && options.stop->load(); };
  auto work = [&] {
    const Sender send = make_sender();
    for (std::size_t i = next++; i < total && !stopped(); i = next++) {
      Outcome o;
      try {
        o = run_one(spec, prompts, report.outcomes[i].prompt, report.outcomes[i].trial, send,
                    isolator, options.stop);
      } catch (const std::exception& e) {
        o = report.outcomes[i];
        o.verdict = Verdict::error;
        o.message = std::string("internal error: ") + e.what();
      }
      std::lock_guard<std::mutex> lock(mu);
      report.outcomes[i] = std::move(o);
      Tally& t = report.tally;
      switch (report.outcomes[i].verdict) {
        case Verdict::passed:
          ++t.passed;
          break;
        case Verdict::failed:
          ++t.failed;
          break;
        case Verdict::error:
          ++t.errors;
          break;
        case Verdict::skipped:
          continue;
      }
      ++finished;
      if (options.progress) options.progress(finished, total, t);
    }
  };
  const std::size_t workers =
      std::min<std::size_t>(total, static_cast<std::size_t>(std::max(options.concurrency, 1)));
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(work);
  if (workers > 0) work();
  for (auto& t : threads) t.join();
  for (const auto& o : report.outcomes) {
    if (o.verdict == Verdict::skipped) ++report.tally.skipped;
  }
  report.incomplete = report.tally.skipped > 0;
  return report;
}

}  // namespace kb::oracle
