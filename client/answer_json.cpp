#include "answer_json.h"

namespace kb::client {
namespace {

using nlohmann::json;

// Counts nesting and stops the parse at the first level past the limit: a deep answer
// costs a few bytes of state, never a stack of the values a DOM parse would build.
struct DepthGuard : nlohmann::json_sax<json> {
  int max_depth;
  int depth = 0;
  bool too_deep = false;

  explicit DepthGuard(int max) : max_depth(max) {}
  bool open() {
    too_deep = ++depth > max_depth;
    return !too_deep;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return --depth, true; }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return --depth, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }
};

}  // namespace

json parse_answer_json(std::string_view body, const std::string& url, std::string* refusal,
                       int max_depth) {
  if (refusal) refusal->clear();
  DepthGuard guard(max_depth);
  if (!json::sax_parse(body.begin(), body.end(), &guard, json::input_format_t::json, true)) {
    if (guard.too_deep && refusal) {
      *refusal = "the answer of " + url + " nests deeper than " + std::to_string(max_depth) +
                 " levels, kb's limit for a JSON answer";
    }
    return json(json::value_t::discarded);
  }
  return json::parse(body.begin(), body.end(), nullptr, false);
}

}  // namespace kb::client
