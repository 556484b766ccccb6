#pragma once

#include <stdexcept>
#include <string>

namespace kb {

/// Kinds of operational failure; the server maps each to one HTTP status.
enum class Errc {
  invalid_argument,  ///< the caller asked for something malformed
  not_found,         ///< the thing asked for does not exist
  io,                ///< a file could not be read or written
  database,          ///< SQLite failed
  too_large,         ///< an input exceeded a configured limit
  timeout,           ///< a query ran past its time limit
  internal,          ///< a bug
};

/// "invalid-argument", "not-found", ...
const char* errc_code(Errc e);

/// An operational failure (cannot open the DB, cannot write a file).
class Error : public std::runtime_error {
 public:
  Error(Errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// What kind of failure this is.
  Errc code() const noexcept { return code_; }

 private:
  Errc code_;
};

}  // namespace kb
