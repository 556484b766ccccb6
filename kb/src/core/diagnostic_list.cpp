#include "kb/diagnostic_list.h"

#include <functional>
#include <limits>
#include <unordered_set>

#include "core/diagnostic_order.h"
#include "kb/error.h"

namespace kb {

DiagnosticList::DiagnosticList(const std::vector<Diagnostic>& diags) {
  Builder b;
  for (const auto& d : diags) b.add(d);
  *this = b.finish();
}

Diagnostic DiagnosticList::operator[](std::size_t i) const {
  const Entry& e = entries_.at(i);
  Diagnostic d;
  d.severity = e.severity;
  d.code = view(e.code);
  d.file = view(e.file);
  d.line = e.line;
  d.column = e.column;
  d.message = view(e.message);
  d.hint = view(e.hint);
  d.record = view(e.record);
  return d;
}

bool DiagnosticList::before(std::size_t a, std::size_t b) const {
  const Entry& x = entries_.at(a);
  const Entry& y = entries_.at(b);
  return diagnostic_sort_key(view(x.file), x.line, x.column, view(x.code)) <
         diagnostic_sort_key(view(y.file), y.line, y.column, view(y.code));
}

void DiagnosticList::reorder(const std::vector<std::uint32_t>& order) {
  if (order.size() != entries_.size())
    throw Error(Errc::internal, "a diagnostic order of another length");
  std::vector<Entry> out;
  out.reserve(order.size());
  for (std::uint32_t i : order) out.push_back(entries_.at(i));
  entries_ = std::move(out);
}

// Every string is interned while the list is built: a stale-verification warning's hint
// and code are the same for every record, and its message for every record verified on
// the same day; a record's file and id repeat for each of its diagnostics. The set goes
// with the builder.
struct DiagnosticList::Builder::Interned {
  // Spans hashed and compared by the text they cover, so the set holds no copies.
  struct Hash {
    const std::string* text;
    std::size_t operator()(Span s) const {
      return std::hash<std::string_view>{}(std::string_view(*text).substr(s.offset, s.size));
    }
  };
  struct Equal {
    const std::string* text;
    bool operator()(Span a, Span b) const {
      const std::string_view t(*text);
      return t.substr(a.offset, a.size) == t.substr(b.offset, b.size);
    }
  };

  DiagnosticList list;
  std::unordered_set<Span, Hash, Equal> seen{64, Hash{&list.text_}, Equal{&list.text_}};

  Span span(std::string_view s) {
    if (s.empty()) return {};
    std::string& text = list.text_;
    if (text.size() + s.size() > std::numeric_limits<std::uint32_t>::max())
      throw Error(Errc::internal, "too much diagnostic text to hold (4 GiB)");
    // Appended, then taken back when the same text is there already.
    const Span added{static_cast<std::uint32_t>(text.size()), static_cast<std::uint32_t>(s.size())};
    text.append(s);
    auto [it, inserted] = seen.insert(added);
    if (!inserted) text.resize(added.offset);
    return *it;
  }
};

DiagnosticList::Builder::Builder() : interned_(std::make_unique<Interned>()) {}
DiagnosticList::Builder::~Builder() = default;

void DiagnosticList::Builder::add(const Diagnostic& d) {
  Interned& in = *interned_;
  Entry e;
  e.code = in.span(d.code);
  e.file = in.span(d.file);
  e.message = in.span(d.message);
  e.hint = in.span(d.hint);
  e.record = in.span(d.record);
  e.line = d.line;
  e.column = d.column;
  e.severity = d.severity;
  in.list.entries_.push_back(e);
  in.list.counts_[static_cast<std::size_t>(d.severity)]++;
}

DiagnosticList DiagnosticList::Builder::finish() {
  DiagnosticList out = std::move(interned_->list);
  interned_ = std::make_unique<Interned>();
  out.text_.shrink_to_fit();
  out.entries_.shrink_to_fit();
  return out;
}

}  // namespace kb
