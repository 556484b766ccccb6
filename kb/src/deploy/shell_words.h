#pragma once

// Splitting shell text into simple commands and words, the way sh would for the parts
// that matter to a deployment: quotes ('...', "...", $'...'), backslash escapes, line
// continuations, comments, `;` `&&` `||` `|` `&` and newlines between commands,
// redirections and here-documents dropped, and $VAR / ${VAR} / ${VAR:-default} expanded
// from the variables the script set (unknown ones are kept as written). Every word keeps
// the line and column it came from.

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/model.h"

namespace kb::deploy {

class Budget;

/// Line starts of a text, for offset -> line and column in O(log n).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);
  /// 1-based line and column (in bytes) of `offset`.
  Pos at(std::size_t offset) const;
  /// The offset where 1-based `line` starts (the text's size past its last line).
  std::size_t start_of(int line) const;

 private:
  std::vector<std::size_t> starts_;
  std::size_t size_ = 0;
};

/// Where the words of a text are in the input file. `exact`: the text is the file's own
/// bytes from `base`. Otherwise (a string inside a string, a YAML scalar) each word is
/// searched for in `source` from `base` on, and `fallback` is used when it is not found.
struct Locator {
  const LineIndex* index = nullptr;
  std::string_view source;
  std::size_t base = 0;
  bool exact = false;
  Pos fallback;
};

/// One word of a command line.
struct Word {
  std::string text;
  Pos pos;
  Pos end;  ///< just past its last character; 0 when not known
};

/// One simple command.
struct Command {
  std::vector<Word> words;
};

/// Shell variables as a script sets them.
using Vars = std::map<std::string, std::string>;

/// Lexes one script, a command at a time (so that variables set by one command expand in
/// the next).
class ShellLexer {
 public:
  /// Expanded variables are charged to `budget` when one is given; past it, a variable
  /// is kept as written.
  ShellLexer(std::string_view text, Locator where, Budget* budget = nullptr);
  /// The next non-empty simple command, words expanded with `vars`; nullopt at the end.
  std::optional<Command> next(const Vars& vars);

 private:
  bool word(const Vars& vars, Word& out);
  void expand(const Vars& vars, std::string& out, bool quoted);
  void skip_heredocs();
  Pos locate(std::size_t offset, const std::string& text, Pos* end);

  bool substitute(const std::string& value, std::string& out);
  Pos here() const;

  std::string_view text_;
  Locator where_;
  Budget* budget_ = nullptr;
  std::size_t i_ = 0;
  std::size_t search_from_ = 0;
  std::size_t search_end_ = 0;  ///< where a word of this text can no longer stand in the source
  std::vector<std::string> heredocs_;  ///< terminators pending at the end of the line
  bool split_ = false;     ///< the word read last has an unquoted expansion holding blanks
  bool unquoted_ = false;  ///< ... an unquoted expansion
  bool quoted_ = false;    ///< ... a quoted part (so an empty word stays a word)
};

/// Splits `text` as one command's words (no separators expected), with no variables.
std::vector<Word> split_words(std::string_view text, Locator where);

/// Whether `word` is an assignment `NAME=value` (NAME a shell identifier).
bool is_assignment(std::string_view word);

}  // namespace kb::deploy
