// Listing gotchas: filters, facets and keyset pagination over the rows a snapshot
// precomputed, so a page costs one pass over the gotchas and no SQL.

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "kb/error.h"
#include "kb/snapshot.h"
#include "kb/text.h"
#include "live/snapshot_impl.h"

namespace kb {
namespace {

constexpr std::string_view kReproduced[] = {"reproduced", "not-reproduced", "no-evidence"};
constexpr std::string_view kTokenVersion = "v1";
constexpr std::size_t kMaxTokenBytes = 2048;
constexpr std::size_t kMaxFilterValues = 32;

char severity_char(std::string_view severity) {
  return static_cast<char>('0' + severity_rank(severity));
}

// Newest first: each digit inverted, so a plain string comparison sorts dates descending;
// records without a date sort last.
std::string inverted_date(std::string_view date) {
  if (date.size() != 10) return std::string(10, '~');
  std::string out(date);
  for (char& c : out) {
    if (c >= '0' && c <= '9') c = static_cast<char>('9' - (c - '0'));
  }
  return out;
}

std::size_t sort_index(std::string_view sort) {
  for (std::size_t i = 0; i < kSortCount; ++i) {
    if (kGotchaSorts[i] == sort) return i;
  }
  throw Error(Errc::invalid_argument, "sort must be one of severity, id, updated");
}

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(std::string_view in) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : in) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kB64[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kB64[(acc << (6 - bits)) & 63];
  return out;
}

std::optional<std::string> unbase64url(std::string_view in) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = c ? std::char_traits<char>::find(kB64, 64, c) : nullptr;
    if (!p) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::vector<std::string> split_values(std::string_view field, std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto comma = list.find(',', start);
    auto part = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (!part.empty()) out.emplace_back(part);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.size() > kMaxFilterValues) {
    throw Error(Errc::invalid_argument,
                std::string(field) + ": at most " + std::to_string(kMaxFilterValues) + " values");
  }
  return out;
}

template <std::size_t N>
std::vector<std::string> enum_values(std::string_view field, std::string_view list,
                                     const std::string_view (&allowed)[N]) {
  auto values = split_values(field, list);
  for (const auto& v : values) {
    if (std::find(std::begin(allowed), std::end(allowed), v) != std::end(allowed)) continue;
    std::string all;
    for (auto a : allowed) all += (all.empty() ? "" : ", ") + std::string(a);
    throw Error(Errc::invalid_argument, std::string(field) + " must be one of " + all);
  }
  return values;
}

bool any_of(const std::vector<std::string>& wanted, std::string_view value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

// Engine filter values resolve like references do; one that names nothing is an error
// with the resolver's best guess, not an empty page that looks like good news.
std::vector<std::string> engine_values(const Corpus& corpus, std::string_view list) {
  std::vector<std::string> out;
  for (const auto& v : split_values("engine", list)) {
    auto id = corpus.target(Kind::engine, v);
    if (!id) {
      std::string msg = "engine: no engine '" + v + "'";
      auto candidates = corpus.names().candidates(Kind::engine, v, 1);
      if (!candidates.empty())
        msg += "; did you mean '" + std::string(text::id_slug(candidates.front().id)) + "'?";
      throw Error(Errc::invalid_argument, msg);
    }
    out.emplace_back(text::id_slug(*id));
  }
  return out;
}

struct Filters {
  std::vector<std::string> engine, severity, status, family, reproduced;
  bool include_withdrawn = false;
  bool use_ids = false;
  std::unordered_set<std::string> ids;  ///< full-text matches, when use_ids

  bool match(const GotchaRow& row, const Record& r) const {
    if (row.withdrawn && !include_withdrawn) return false;
    if (use_ids && !ids.count(r.id)) return false;
    if (!any_of(severity, to_string(r.severity)) || !any_of(status, to_string(r.status)) ||
        !any_of(family, r.family) || !any_of(reproduced, to_string(row.reproduced))) {
      return false;
    }
    if (engine.empty()) return true;
    bool found = false;
    for_each_engine(row, [&](std::string_view e) { found = found || any_of(engine, e); });
    return found;
  }
};

FacetCounts sorted_counts(const std::unordered_map<std::string, std::size_t>& counts) {
  FacetCounts out(counts.begin(), counts.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace

std::string sort_key(std::size_t sort, const Record& r) {
  switch (sort) {
    case 0:
      return severity_char(to_string(r.severity)) + r.id;
    case 2:
      return inverted_date(r.updated) + r.id;
    default:
      return r.id;
  }
}

std::string encode_page_token(std::string_view sort, std::string_view key) {
  std::string raw(kTokenVersion);
  raw += '\n';
  raw += sort;
  raw += '\n';
  raw += key;
  return base64url(raw);
}

std::string decode_page_token(std::string_view token, std::string_view sort) {
  const std::string bad = "page_token is not a token this listing handed out";
  if (token.size() > kMaxTokenBytes) throw Error(Errc::invalid_argument, bad);
  auto raw = unbase64url(token);
  if (!raw) throw Error(Errc::invalid_argument, bad);
  std::string prefix = std::string(kTokenVersion) + "\n" + std::string(sort) + "\n";
  if (!raw->starts_with(prefix) || raw->size() == prefix.size()) {
    throw Error(Errc::invalid_argument, bad + " (or it belongs to another sort order)");
  }
  return raw->substr(prefix.size());
}

GotchaPage Snapshot::gotchas(const GotchaQuery& q) const {
  const std::size_t sort = sort_index(q.sort);
  Filters f;
  f.severity = enum_values("severity", q.severity, kSeverityNames);
  f.status = enum_values("status", q.status, kStatusNames);
  f.reproduced = enum_values("reproduced", q.reproduced, kReproduced);
  f.family = split_values("family", q.family);
  f.engine = engine_values(corpus(), q.engine);
  f.include_withdrawn = q.include_withdrawn ||
                        (!f.status.empty() && any_of(f.status, to_string(GotchaStatus::withdrawn)));
  if (!q.q.empty()) {
    f.use_ids = true;
    if (store_) {
      for (auto& [id, hash] : store_->match(q.q, options_.query_budget)) {
        const Record* r = corpus().find(id);
        if (r && r->content_hash == hash) f.ids.insert(std::move(id));
      }
    }
  }
  std::string after;
  if (!q.page_token.empty()) after = decode_page_token(q.page_token, q.sort);

  const char* names[] = {"engine", "severity", "status", "family", "reproduced"};
  std::unordered_map<std::string, std::size_t> counts[std::size(names)];
  GotchaPage page;
  bool more = false;
  const auto& rows = *impl_->rows;
  const auto& order = impl_->sorts->order[sort];
  auto key_of = [&](std::uint32_t i) { return sort_key(sort, *corpus().records()[rows[i].index]); };
  // Rows before `first` sort at or before the token's key (keys are unique: they end in the id).
  std::size_t first = 0;
  if (!after.empty()) {
    first = static_cast<std::size_t>(
        std::partition_point(order.begin(), order.end(),
                             [&](std::uint32_t i) { return key_of(i) <= after; }) -
        order.begin());
  }
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    const std::uint32_t i = order[pos];
    const GotchaRow& row = rows[i];
    const Record& r = *corpus().records()[row.index];
    if (!f.match(row, r)) continue;
    ++page.total;
    for_each_engine(row, [&](std::string_view e) { ++counts[0][std::string(e)]; });
    ++counts[1][std::string(to_string(r.severity))];
    ++counts[2][std::string(to_string(r.status))];
    if (!r.family.empty()) ++counts[3][r.family];
    ++counts[4][std::string(to_string(row.reproduced))];
    if (pos < first) continue;
    if (page.items.size() < q.limit) {
      page.items.push_back(&r);
      if (page.items.size() == q.limit) page.next_page_token = encode_page_token(q.sort, key_of(i));
    } else {
      more = true;
    }
  }
  if (!more) page.next_page_token.clear();
  for (std::size_t k = 0; k < std::size(names); ++k)
    page.facets.emplace_back(names[k], sorted_counts(counts[k]));
  return page;
}

RecordPage Snapshot::records(Kind kind, std::string_view page_token, std::size_t limit) const {
  const std::string ns = std::string(kind_namespace(kind));
  const std::string prefix = ns + "/";
  const auto& all = corpus().records();
  auto by_id = [](const std::shared_ptr<const Record>& r, const std::string& id) {
    return r->id < id;
  };
  auto first = std::lower_bound(all.begin(), all.end(), prefix, by_id);
  auto last = first;
  while (last != all.end() && (*last)->id.starts_with(prefix)) ++last;
  RecordPage page;
  page.total = static_cast<std::size_t>(last - first);
  auto it = first;
  if (!page_token.empty()) {
    std::string after = decode_page_token(page_token, ns);
    it = std::upper_bound(
        first, last, after,
        [](const std::string& id, const std::shared_ptr<const Record>& r) { return id < r->id; });
  }
  for (; it != last && page.items.size() < limit; ++it) page.items.push_back(it->get());
  if (it != last && !page.items.empty())
    page.next_page_token = encode_page_token(ns, page.items.back()->id);
  return page;
}

}  // namespace kb
