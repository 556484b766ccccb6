#include "tabular.h"

#include <memory>

#include "http_request.h"
#include "http_status.h"
#include "json.h"

namespace kb::http {

using nlohmann::json;

Format output_format(const Ctx& c) {
  std::string suffix;
  if (c.route && c.match_count() > 1) suffix = c.match(c.match_count() - 1);
  const std::string asked = param(c.req, "format");
  if (!suffix.empty() && !asked.empty() && suffix != asked) {
    throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                   "format: '" + asked + "' disagrees with the path's ." + suffix + " suffix",
                   json{{"parameter", "format"}, {"value", asked}});
  }
  const std::string f = suffix.empty() ? asked : suffix;
  if (f == "csv") return Format::csv;
  if (f == "ndjson") return Format::ndjson;
  return Format::json;
}

std::string csv_field(std::string_view s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ";" : "") + csv_cell(v[i]);
    return out;
  }
  return dump(v);
}

const json& column_value(const json& item, std::string_view column) {
  static const json kNull;
  const json* at = &item;
  while (!column.empty()) {
    const auto dot = column.find('.');
    const std::string key(column.substr(0, dot));
    if (!at->is_object() || !at->contains(key)) return kNull;
    at = &(*at)[key];
    column = dot == std::string_view::npos ? std::string_view() : column.substr(dot + 1);
  }
  return *at;
}

namespace {

void write_items(Format format, const std::vector<std::string_view>& columns,
                 const std::vector<json>& items, std::string& out) {
  for (const auto& item : items) {
    if (format == Format::ndjson) {
      out += dump(kb::json::versioned(item));
      out += '\n';
      continue;
    }
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ',';
      out += csv_field(csv_cell(column_value(item, columns[i])));
    }
    out += "\r\n";
  }
}

}  // namespace

void send_rows(const Ctx& c, Format format, const std::vector<std::string_view>& columns,
               std::vector<json> first, NextBatch next) {
  struct State {
    std::vector<json> pending;
    NextBatch next;
    bool more = true;
    bool header = true;
  };
  auto state = std::make_shared<State>();
  state->pending = std::move(first);
  state->next = std::move(next);
  state->more = static_cast<bool>(state->next);
  state->header = format == Format::csv;
  auto cols = std::make_shared<const std::vector<std::string_view>>(columns);
  const char* type =
      format == Format::csv ? "text/csv; charset=utf-8; header=present" : "application/x-ndjson";
  c.res.status = 200;
  c.res.set_chunked_content_provider(type,
                                     [state, cols, format](std::size_t, httplib::DataSink& sink) {
                                       std::string out;
                                       if (state->header) {
                                         for (std::size_t i = 0; i < cols->size(); ++i)
                                           out += (i ? "," : "") + csv_field((*cols)[i]);
                                         out += "\r\n";
                                         state->header = false;
                                       }
                                       // Write what is pending, fetch the next batch, until there
                                       // is something to send.
                                       bool finished = false;
                                       for (;;) {
                                         write_items(format, *cols, state->pending, out);
                                         state->pending.clear();
                                         if (!state->more) {
                                           finished = true;
                                           break;
                                         }
                                         state->more = state->next(state->pending);
                                         if (!out.empty()) break;
                                       }
                                       if (!out.empty()) sink.write(out.data(), out.size());
                                       if (finished) sink.done();
                                       return true;
                                     });
}

}  // namespace kb::http
