#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"

namespace kb {

/// A snapshot's diagnostics, held packed: each one's text is in one shared buffer, and a
/// code, hint, file or record id said by several diagnostics is stored once. A
/// `Diagnostic` is five `std::string`s (~470 bytes with their text); a server whose
/// records' verifications went stale holds one `evidence.stale` warning per gotcha, so
/// at 100k records this list is what idle memory grows with as the knowledge base ages
/// (bench/RESULTS.md, round 11). Read back as `Diagnostic` values, in the order added.
class DiagnosticList {
 public:
  DiagnosticList() = default;
  /// Packs `diags`, keeping their order.
  explicit DiagnosticList(const std::vector<Diagnostic>& diags);

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  /// The `i`th diagnostic, unpacked.
  Diagnostic operator[](std::size_t i) const;
  /// How many have severity `s`.
  std::size_t count(Severity s) const { return counts_[static_cast<std::size_t>(s)]; }
  /// Bytes held on the heap by the list (its text and entries).
  std::size_t heap_bytes() const { return text_.capacity() + entries_.capacity() * sizeof(Entry); }
  /// Whether the `a`th comes before the `b`th in sort_diagnostics()' order (file, line,
  /// column, code), compared packed.
  bool before(std::size_t a, std::size_t b) const;
  /// Puts the list in `order`: the `k`th becomes what was the `order[k]`th. `order` must
  /// be a permutation of 0 .. size() - 1.
  void reorder(const std::vector<std::uint32_t>& order);

  /// Iterates by value: `for (const auto& d : list)` binds each unpacked Diagnostic.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Diagnostic;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = Diagnostic;
    const_iterator(const DiagnosticList* list, std::size_t i) : list_(list), i_(i) {}
    Diagnostic operator*() const { return (*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }
    bool operator!=(const const_iterator& o) const { return i_ != o.i_; }

   private:
    const DiagnosticList* list_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, entries_.size()}; }

  /// Appends diagnostics one at a time; finish() hands over the list, its buffers trimmed.
  class Builder {
   public:
    Builder();
    ~Builder();
    Builder(const Builder&) = delete;
    Builder& operator=(const Builder&) = delete;
    void add(const Diagnostic& d);
    DiagnosticList finish();

   private:
    struct Interned;
    std::unique_ptr<Interned> interned_;
  };

 private:
  /// A string of `text_`.
  struct Span {
    std::uint32_t offset = 0, size = 0;
  };
  struct Entry {
    Span code, file, message, hint, record;
    std::int32_t line = 0, column = 0;
    Severity severity = Severity::error;
  };
  std::string_view view(Span s) const { return std::string_view(text_).substr(s.offset, s.size); }

  std::string text_;
  std::vector<Entry> entries_;
  std::size_t counts_[3] = {0, 0, 0};
};

/// Counts diagnostics of one severity.
inline std::size_t count_severity(const DiagnosticList& diags, Severity s) {
  return diags.count(s);
}

}  // namespace kb
