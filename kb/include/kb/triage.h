#pragma once

/// Which gotchas a log names: the `detection.signatures` of live gotchas, each a literal or
/// an ECMAScript regex, matched line by line. A log is fed in pieces of any size (a file is
/// streamed); memory is bounded by the longest line kept (`max_line_bytes`) and the lines
/// kept per gotcha, never by the log's size.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

class Corpus;

struct TriageOptions {
  std::size_t max_line_bytes = 4096;  ///< a longer line is matched on its first bytes
  std::size_t lines_per_gotcha = 5;   ///< matching lines kept (all are counted)
};

/// One line of the log that a signature matched.
struct TriageLine {
  std::size_t line = 0;  ///< 1-based
  std::string text;      ///< the line, without its end, cut at max_line_bytes
};

/// A gotcha whose signatures matched lines of the log.
struct TriageMatch {
  std::string id;
  std::string title;
  std::string severity;
  std::string status;
  std::string workaround;               ///< the first paragraph, plain text
  std::vector<std::string> signatures;  ///< the signatures that matched, as written
  std::vector<std::string> engines;     ///< engines that print them ("nixl >=0.4.0"); "" any
  std::size_t count = 0;                ///< matching lines
  std::vector<TriageLine> lines;        ///< the first `lines_per_gotcha` of them
};

struct TriageReport {
  std::vector<TriageMatch> matches;  ///< worst severity first, then by id
  std::size_t lines = 0;             ///< lines read
  std::size_t bytes = 0;             ///< bytes read
  std::size_t long_lines = 0;        ///< lines longer than max_line_bytes (matched on a prefix)
  std::size_t signatures = 0;        ///< signatures tried
};

/// Reads one log. Not thread-safe; one per log.
class Triage {
 public:
  explicit Triage(const Corpus& corpus, TriageOptions options = {});
  ~Triage();
  Triage(const Triage&) = delete;
  Triage& operator=(const Triage&) = delete;
  /// More of the log.
  void feed(std::string_view bytes);
  /// The last line (if it has no end) is read; the report.
  TriageReport finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kb
