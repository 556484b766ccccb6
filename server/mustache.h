#pragma once

// The templates' data and their renderer: Mustache as kainjow's mustache.hpp renders it
// (the library the pages used before), byte for byte, for the tags pages use: variables
// ({{x}}, {{{x}}}, {{&x}}, {{.}}, dotted names), sections, inverted sections and
// comments. Partials are spliced in before parsing (pages_templates.cpp); a partial tag
// left over renders nothing, and set-delimiter tags are refused.
//
// kainjow keeps every object in a hash table and every value in its own heap cells, and
// renders through std::function callbacks and a string stream: for a page of a few
// hundred values that was most of its cost. Here an object is a short vector of
// members, a value holds its text inline, and a template is parsed once into nodes that
// render straight into one string.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb::pages {

class Data;
using List = std::vector<Data>;

/// A value a template shows: text, true or false, a list, or an object of named values.
class Data {
 public:
  enum class type { object, string, list, bool_true, bool_false };

  /// An empty object.
  Data() = default;
  Data(type t) : type_(t) {}  // NOLINT: implicit, as kainjow's, for Data(Data::type::list)
  Data(std::string text) : type_(type::string), text_(std::move(text)) {}  // NOLINT
  Data(const char* text) : type_(type::string), text_(text) {}             // NOLINT
  Data(bool b) : type_(b ? type::bool_true : type::bool_false) {}          // NOLINT
  Data(List items);                                                        // NOLINT

  Data(const Data&);
  Data(Data&&) noexcept;
  Data& operator=(const Data&);
  Data& operator=(Data&&) noexcept;
  ~Data();

  bool is_object() const { return type_ == type::object; }
  bool is_string() const { return type_ == type::string; }
  bool is_list() const { return type_ == type::list; }
  bool is_true() const { return type_ == type::bool_true; }
  bool is_false() const { return type_ == type::bool_false; }
  bool is_empty_list() const { return type_ == type::list && items_.empty(); }

  /// The text of a string; "" for anything else.
  const std::string& string_value() const { return text_; }
  /// The items of a list; none for anything else.
  const List& list_value() const { return items_; }
  /// The member `key` of an object, or nullptr (also for anything but an object).
  const Data* get(std::string_view key) const;
  /// Sets member `key` of an object, replacing one of that name; anything else is left
  /// as it is. The value is moved in, never copied.
  void set(std::string_view key, Data value);

  struct Member;
  /// An object's members, in the order they were first set.
  const std::vector<Member>& members() const { return members_; }

 private:
  type type_ = type::object;
  std::string text_;
  std::vector<Member> members_;  // an object's, in the order set
  List items_;                   // a list's
};

struct Data::Member {
  std::string key;
  Data value;
};

/// A template parsed once, rendered many times, from any number of threads.
class Template {
 public:
  /// Parses `text`. Throws std::invalid_argument with kainjow's message for an unclosed
  /// tag or section or an unopened section, and for a set-delimiter tag.
  explicit Template(std::string_view text);
  Template(Template&&) noexcept;
  Template& operator=(Template&&) noexcept;
  ~Template();

  /// The page for `data`; `{{x}}` values are HTML-escaped (escape_html).
  std::string render(const Data& data) const;

  struct Node;

 private:
  std::unique_ptr<Node> root_;
};

}  // namespace kb::pages
