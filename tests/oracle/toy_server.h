#pragma once

// A small OpenAI-compatible server for the oracle tests: a deterministic toy model
// (each next token is a hash of the context), a toy prefix cache keyed by a salt (the
// request field `salt_field` names, vLLM's cache_salt by default) and prompt, and faults
// switched on per prompt. Runs in-process (integration tests) or as
// the kb_toy_openai_server binary (CLI tests).

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kb_toy {

/// A fault, applied to the prompts whose text contains `match` (every prompt when empty).
struct Fault {
  enum class Kind {
    diverge,        ///< tokens from `arg` on differ from the model's, always
    cache_diverge,  ///< the same, but only when the request is a cache hit
    http500,        ///< answers 500
    slow,           ///< waits `arg` milliseconds before answering
    random,         ///< ignores temperature 0: random tokens
    truncate,       ///< stops after `arg` tokens with finish_reason "length"
    empty,          ///< answers no text and no tokens
  };
  Kind kind = Kind::diverge;
  std::string match;
  int arg = 0;
};

/// Parses KIND[:MATCH[:ARG]], e.g. "cache-diverge::5" or "http500:bravo"; throws on error.
Fault parse_fault(const std::string& spec);

struct ToyOptions {
  std::string model = "toy-model";
  std::string version = "0.26.0";  ///< what /version (or /get_server_info) reports
  bool version_route = true;       ///< answer GET /version like vLLM
  bool sglang = false;             ///< answer GET /get_server_info like SGLang instead
  /// Prometheus text GET /metrics answers (an `*_info` metric's labels are settings);
  /// empty: no /metrics route.
  std::string metrics;
  bool token_ids = true;           ///< honour return_token_ids
  bool report_cached = false;      ///< report usage.prompt_tokens_details.cached_tokens
  bool ignore_salt = false;        ///< key the cache on the prompt alone
  std::string salt_field = "cache_salt";  ///< the request field the salt is read from
  std::vector<Fault> faults;
};

/// One completion request as the server saw it.
struct Seen {
  std::string path;
  std::string prompt;  ///< the prompt text, or the messages' contents joined
  std::string salt;
  bool hit = false;
};

class ToyServer {
 public:
  explicit ToyServer(ToyOptions options);
  ~ToyServer();
  ToyServer(const ToyServer&) = delete;
  ToyServer& operator=(const ToyServer&) = delete;

  /// Binds to 127.0.0.1 on `port` (0: any free port), serves on a thread; returns the port.
  int start(int port = 0);
  /// Stops serving and joins the thread.
  void stop();
  /// Every completion request so far, in arrival order.
  std::vector<Seen> seen() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kb_toy
