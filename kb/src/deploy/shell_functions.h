#pragma once

// Shell functions a script defines (`NAME() {` ... `}` on lines of their own), found so
// that a script is read as sh runs it: each body where the function is called.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kb::deploy {

/// A shell function the script defines: `NAME() {` (or `function NAME {`) on a line of its
/// own, its body up to a line holding only `}` indented no deeper than the header.
struct Function {
  std::string name;
  std::size_t begin = 0;     ///< the header's first byte
  std::size_t body = 0;      ///< the body's first byte (after `{`)
  std::size_t body_end = 0;  ///< the closing line's first byte
  std::size_t end = 0;       ///< past the closing line
  bool called = false;
};

/// The functions `text` defines, outermost only, in order. A one-line function
/// (`f() { a; }`) is none: it is read where it stands. Linear in the text.
std::vector<Function> find_functions(std::string_view text);

/// `text[from, to)` with the bytes of the functions of `fns` inside it (headers, bodies,
/// closing lines) made blanks, so that what is left keeps every position.
std::string without(std::string_view text, const std::vector<Function>& fns, std::size_t from,
                    std::size_t to);

}  // namespace kb::deploy
