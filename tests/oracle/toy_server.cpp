#include "toy_server.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>

namespace kb_toy {

using nlohmann::json;

namespace {

const char* const kWords[] = {"amber", "birch", "cedar",  "delta", "ember", "fjord", "grove",
                              "heron", "inlet", "jetty",  "kelp",  "larch", "marsh", "north",
                              "ocean", "pier",  "quay",   "reef",  "shoal", "tide",  "umber",
                              "vale",  "wharf", "yarrow", "zephyr"};
constexpr std::uint64_t kVocab = sizeof(kWords) / sizeof(kWords[0]);

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0x100000001b3ull;
}

std::uint64_t hash_text(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::size_t word_count(const std::string& s) {
  std::size_t n = 0;
  bool in = false;
  for (char c : s) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space && !in) ++n;
    in = !space;
  }
  return n;
}

}  // namespace

Fault parse_fault(const std::string& spec) {
  Fault f;
  const auto a = spec.find(':');
  const std::string kind = spec.substr(0, a);
  std::string rest = a == std::string::npos ? "" : spec.substr(a + 1);
  const auto b = rest.rfind(':');
  if (b != std::string::npos) {
    f.arg = std::stoi(rest.substr(b + 1));
    rest = rest.substr(0, b);
  }
  f.match = rest == "*" ? "" : rest;
  if (kind == "diverge")
    f.kind = Fault::Kind::diverge;
  else if (kind == "cache-diverge")
    f.kind = Fault::Kind::cache_diverge;
  else if (kind == "http500")
    f.kind = Fault::Kind::http500;
  else if (kind == "slow")
    f.kind = Fault::Kind::slow;
  else if (kind == "random")
    f.kind = Fault::Kind::random;
  else if (kind == "truncate")
    f.kind = Fault::Kind::truncate;
  else if (kind == "empty")
    f.kind = Fault::Kind::empty;
  else
    throw std::invalid_argument("unknown fault '" + kind + "'");
  return f;
}

struct ToyServer::Impl {
  ToyOptions options;
  httplib::Server server;
  std::thread thread;
  mutable std::mutex mu;
  std::set<std::string> cache;
  std::vector<Seen> seen;
  std::mt19937_64 rng{std::random_device{}()};

  const Fault* fault(Fault::Kind kind, const std::string& prompt) const {
    for (const auto& f : options.faults) {
      if (f.kind == kind && prompt.find(f.match) != std::string::npos) return &f;
    }
    return nullptr;
  }

  void routes() {
    server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      json models = {{"object", "list"},
                     {"data",
                      {{{"id", options.model},
                        {"object", "model"},
                        {"owned_by", "toy"},
                        {"max_model_len", 4096}}}}};
      res.set_content(models.dump(), "application/json");
    });
    if (options.sglang) {
      server.Get("/get_server_info", [this](const httplib::Request&, httplib::Response& res) {
        json info = {{"version", options.version}, {"tp_size", 1}, {"disable_radix_cache", false}};
        res.set_content(info.dump(), "application/json");
      });
    } else if (options.version_route) {
      server.Get("/version", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(json{{"version", options.version}}.dump(), "application/json");
      });
    }
    if (!options.metrics.empty()) {
      server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(options.metrics, "text/plain; version=0.0.4");
      });
    }
    server.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
      complete(req, res, false);
    });
    server.Post(
        "/v1/chat/completions",
        [this](const httplib::Request& req, httplib::Response& res) { complete(req, res, true); });
  }

  static void error(httplib::Response& res, int status, const std::string& message) {
    res.status = status;
    res.set_content(json{{"error", {{"message", message}, {"code", status}}}}.dump(),
                    "application/json");
  }

  void complete(const httplib::Request& req, httplib::Response& res, bool chat) {
    json body = json::parse(req.body, nullptr, false);
    if (!body.is_object()) return error(res, 400, "not JSON");
    if (body.value("model", "") != options.model) return error(res, 404, "no such model");
    std::string prompt;
    if (chat) {
      if (!body.contains("messages") || !body["messages"].is_array())
        return error(res, 400, "no messages");
      for (const auto& m : body["messages"])
        prompt += m.value("role", "") + ": " + m.value("content", "") + "\n";
    } else {
      if (!body.contains("prompt") || !body["prompt"].is_string())
        return error(res, 400, "no prompt");
      prompt = body["prompt"].get<std::string>();
    }
    const int max_tokens = body.value("max_tokens", 16);
    const double temperature = body.value("temperature", 1.0);
    const std::string& field = options.salt_field;
    const std::string salt = body.contains(field) && body[field].is_string()
                                 ? body[field].get<std::string>()
                                 : "";
    bool hit = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      const std::string key = (options.ignore_salt ? "" : salt) + "\x1f" + prompt;
      hit = !cache.insert(key).second;
      seen.push_back({req.path, prompt, salt, hit});
    }
    if (const Fault* f = fault(Fault::Kind::slow, prompt)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(f->arg));
    }
    if (fault(Fault::Kind::http500, prompt)) return error(res, 500, "toy fault: internal error");

    std::vector<std::uint64_t> ids;
    std::string finish = "length";
    int count = max_tokens;
    if (const Fault* f = fault(Fault::Kind::truncate, prompt)) count = std::min(count, f->arg);
    if (fault(Fault::Kind::empty, prompt)) {
      count = 0;
      finish = "stop";
    }
    const bool random = temperature != 0.0 || fault(Fault::Kind::random, prompt) != nullptr;
    const Fault* diverge = fault(Fault::Kind::diverge, prompt);
    const Fault* cache_diverge = hit ? fault(Fault::Kind::cache_diverge, prompt) : nullptr;
    std::uint64_t h = hash_text(prompt);
    for (int i = 0; i < count; ++i) {
      std::uint64_t t = 1 + h % kVocab;
      if (random) {
        std::lock_guard<std::mutex> lock(mu);
        t = 1 + rng() % kVocab;
      }
      if ((diverge && i >= diverge->arg) || (cache_diverge && i >= cache_diverge->arg)) {
        t = 1 + t % kVocab;  // the next word: a different token, still deterministic
      }
      ids.push_back(t);
      h = mix(h, t);
    }
    std::string text;
    for (auto t : ids) text += std::string(" ") + kWords[t - 1];
    json choice = {{"index", 0}, {"finish_reason", finish}};
    if (chat) {
      choice["message"] = {{"role", "assistant"}, {"content", text}};
    } else {
      choice["text"] = text;
    }
    if (options.token_ids && body.value("return_token_ids", false)) choice["token_ids"] = ids;
    json usage = {{"prompt_tokens", word_count(prompt)}, {"completion_tokens", ids.size()}};
    if (options.report_cached) {
      usage["prompt_tokens_details"] = {{"cached_tokens", hit ? word_count(prompt) : 0}};
    }
    json answer = {{"id", "toy"},
                   {"object", chat ? "chat.completion" : "text_completion"},
                   {"model", options.model},
                   {"choices", json::array({choice})},
                   {"usage", usage}};
    res.set_content(answer.dump(), "application/json");
  }
};

ToyServer::ToyServer(ToyOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->routes();
}

ToyServer::~ToyServer() {
  stop();
}

int ToyServer::start(int port) {
  int bound = port == 0 ? impl_->server.bind_to_any_port("127.0.0.1")
                        : (impl_->server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (bound <= 0) throw std::runtime_error("toy server: cannot bind");
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
  return bound;
}

void ToyServer::stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::vector<Seen> ToyServer::seen() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->seen;
}

}  // namespace kb_toy
