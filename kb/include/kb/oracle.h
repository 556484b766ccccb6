#pragma once

// Running an oracle against live servers, minus the HTTP: what a runner kind does, in
// which order it asks for which generations, how two generations compare, and how the
// outcomes become a result record. The requests themselves go through a Sender that the
// caller provides (kb_client talks to OpenAI-compatible servers; tests use fakes).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"
#include "kb/results_import.h"

namespace kb::oracle {

/// The built-in procedures an oracle record's `runner.kind` can name.
enum class RunnerKind { monolithic_equivalence, cold_vs_warm };

/// How a cold run keeps the server from answering it out of its prefix cache.
enum class Isolation {
  none,        ///< nothing (monolithic-equivalence: the baseline runs without a cache)
  cache_salt,  ///< a fresh value in the request field `salt_field` names (vLLM: cache_salt)
  nonce,       ///< a fresh line prepended to the prompt, so no prefix is shared
};

/// "monolithic-equivalence", "cold-vs-warm".
std::string_view to_string(RunnerKind k);
/// "none", "cache_salt", "nonce".
std::string_view to_string(Isolation i);

/// A runner with every parameter filled in (defaults for those the record leaves out).
struct RunnerSpec {
  RunnerKind kind = RunnerKind::monolithic_equivalence;
  int max_tokens = 64;  ///< generated tokens asked for per request
  int trials = 1;       ///< times the whole prompt set is run
  int warm_runs = 3;    ///< cold-vs-warm: identical requests after the cold one
  Isolation isolation = Isolation::none;
  std::string salt_field;         ///< isolation cache_salt: the request field carrying the salt
  std::string token_ids_field;    ///< request flag asking for generated token ids; empty: text
  bool determinism_check = true;  ///< send the control requests that catch nondeterminism
  /// Whether the runner compares against a second server.
  bool needs_baseline() const { return kind == RunnerKind::monolithic_equivalence; }
  /// "max_tokens=64, trials=1, ..." for notes.
  std::string describe() const;
};

/// The runner of an oracle record, defaults filled in. Throws Error{invalid_argument}
/// when the record has no runner or one `kb lint` would refuse.
RunnerSpec runner_spec(const Record& oracle);
/// Sets parameter `name` of `spec` from text, as `--param NAME=VALUE` does. Throws
/// Error{invalid_argument} naming the parameter, with a did-you-mean, when it is unknown
/// for the kind or the value does not fit.
void set_param(RunnerSpec& spec, std::string_view name, std::string_view value);
/// Throws Error{invalid_argument} when parameters that depend on each other disagree:
/// isolation cache_salt with no `salt_field` to carry the salt.
void check_spec(const RunnerSpec& spec);

// ---- prompts ------------------------------------------------------------------------

/// One chat message.
struct Message {
  std::string role;
  std::string content;
};

/// One prompt: plain text for /v1/completions, or messages for /v1/chat/completions.
struct Prompt {
  std::string text;
  std::vector<Message> messages;
  int line = 0;  ///< line in the prompt file
  bool is_chat() const { return !messages.empty(); }
};

/// A prompt file read: the prompts, or diagnostics saying why not.
struct PromptSet {
  std::vector<Prompt> prompts;
  std::vector<Diagnostic> diagnostics;  ///< codes `prompts.*`; any error means no prompts
};

/// Reads JSON lines, one `{"prompt": "..."}` or `{"messages": [{"role", "content"}]}`
/// per line; blank lines and lines starting with `#` are skipped.
PromptSet parse_prompts(std::string_view text, const std::string& file);
/// The built-in prompt set (a data file compiled into kb): prompts sharing long prefixes.
PromptSet builtin_prompts();

// ---- generations and comparison ------------------------------------------------------

/// What one request returned, as far as the oracle is concerned.
struct Generation {
  std::string error;  ///< non-empty: the request failed (transport, status, timeout, shape)
  std::string text;
  std::vector<std::int64_t> token_ids;
  bool has_token_ids = false;
  std::string finish_reason;
  std::int64_t completion_tokens = -1;  ///< usage.completion_tokens; -1 unknown
  std::int64_t cached_tokens = -1;      ///< prompt tokens served from a cache; -1 unknown
};

/// Why a generation cannot be compared (failed, empty, cut short, aborted), or nullopt.
std::optional<std::string> unusable(const Generation& g, int max_tokens);

/// Where two generations first differ.
struct Divergence {
  std::int64_t position = 0;  ///< first differing token (or character, when by text)
  bool by_text = false;       ///< compared as text: one side had no token ids
  std::string expected;       ///< excerpt of the reference around the difference
  std::string got;            ///< excerpt of the other side
};

/// The first divergence of `got` from `expected`, comparing token ids when both have
/// them and Unicode characters of the text otherwise; nullopt when they are equal.
std::optional<Divergence> first_divergence(const Generation& expected, const Generation& got);

/// At most `max_bytes` of `text` starting near byte `at`, cut on UTF-8 boundaries, with
/// control characters as spaces, invalid bytes as U+FFFD and "…" where it was cut.
std::string excerpt(std::string_view text, std::size_t at, std::size_t max_bytes = 60);

// ---- running -----------------------------------------------------------------------

/// Which server a request goes to.
enum class Target { subject, baseline };

/// One request a runner wants sent.
struct Request {
  Target target = Target::subject;
  const Prompt* prompt = nullptr;
  int max_tokens = 64;
  std::string token_ids_field;  ///< ask for token ids with this flag; empty: do not
  std::string salt_field;       ///< isolation field name ("cache_salt"); empty: none
  std::string salt;             ///< its value
  std::string nonce;            ///< text to prepend to the prompt (or first message); empty: none
  std::string role;             ///< what it is for: "cold", "warm 2", "baseline", ...
};

/// Sends a request and waits for the generation; must not throw.
using Sender = std::function<Generation(const Request&)>;

/// How one comparison (a prompt in a trial) came out.
enum class Verdict { passed, failed, error, skipped };
/// "passed", "failed", "error", "skipped".
std::string_view to_string(Verdict v);

/// One prompt in one trial.
struct Outcome {
  std::size_t prompt = 0;  ///< 0-based
  int trial = 1;           ///< 1-based
  Verdict verdict = Verdict::skipped;
  Failure failure;      ///< when failed: where and what
  std::string message;  ///< when failed or error: one line saying why
};

/// Fresh isolation values (salts and nonces), unique per run and per call.
class Isolator {
 public:
  /// `seed` makes the values of a run unique; tests pass a fixed one.
  explicit Isolator(std::uint64_t seed);
  /// A new value, never returned before by this isolator.
  std::string next();

 private:
  std::uint64_t seed_;
  std::atomic<std::uint64_t> counter_{0};
};

/// Runs one prompt in one trial: sends the runner's requests in order and compares.
/// Stops between requests once `*stop` is true (the outcome is then skipped).
Outcome run_one(const RunnerSpec& spec, const std::vector<Prompt>& prompts, std::size_t prompt,
                int trial, const Sender& send, Isolator& isolator,
                const std::atomic<bool>* stop = nullptr);

/// Totals so far.
struct Tally {
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t skipped = 0;
  std::int64_t done() const { return passed + failed + errors; }
};

/// Options of a whole run.
struct RunOptions {
  int concurrency = 1;                      ///< prompts in flight at once
  const std::atomic<bool>* stop = nullptr;  ///< set (e.g. by SIGINT) to stop early
  /// Called after each comparison (from worker threads, one at a time).
  std::function<void(std::size_t finished, std::size_t total, const Tally&)> progress;
  std::uint64_t seed = 0;  ///< isolation values; 0: from the clock and random_device
};

/// Every outcome of a run, in (trial, prompt) order.
struct RunReport {
  std::vector<Outcome> outcomes;
  Tally tally;
  bool incomplete = false;  ///< stopped before every comparison was made
};

/// "prompt 3", or "prompt 3, trial 2" when the run has several trials: an outcome's name
/// in notes and reports.
std::string case_name(const Outcome& o, int trials);

/// Runs every prompt `spec.trials` times. `make_sender` is called once per worker thread.
RunReport run(const RunnerSpec& spec, const std::vector<Prompt>& prompts,
              const std::function<Sender()>& make_sender, const RunOptions& options);

// ---- the result ----------------------------------------------------------------------

/// Failures a result record keeps; the rest are counted in its notes.
inline constexpr std::size_t kMaxRecordedFailures = 20;

/// What the result record says besides the counts.
struct ResultContext {
  std::string oracle;  ///< oracle id
  std::string oracle_title;
  std::string date;  ///< YYYY-MM-DD
  std::string id;    ///< "results/x"; empty: default_result_id() plus the time
  std::string time;  ///< HHMMSS appended to a default id; empty: none
  Subject subject;   ///< engines, config and model
  std::vector<std::string> evidence_for;
  std::string prompts_from;  ///< "the built-in prompt set" or the file name
  std::size_t prompt_count = 0;
  std::vector<std::string> observations;  ///< lines for the notes (probe findings, ...)
};

/// The result record of a run: counts, failures (the first kMaxRecordedFailures), the
/// errors and the runner's parameters in the notes, `incomplete` when it was stopped.
ResultSpec result_spec(const RunnerSpec& spec, const RunReport& report, const ResultContext& ctx);

/// One oracle's run, for the JUnit report.
struct SuiteRun {
  const RunnerSpec* spec;
  const RunReport* report;
  const ResultSpec* result;
};

/// Runs as a JUnit XML report: a test suite per oracle, a test case per prompt and
/// trial; `kb results import` reads one suite back to the same counts.
std::string junit_report(const std::vector<SuiteRun>& runs);

}  // namespace kb::oracle
