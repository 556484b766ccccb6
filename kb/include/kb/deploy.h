#pragma once

// The artifacts `kb check` reads a deployment from -- Kubernetes manifests (Dynamo and
// LeaderWorkerSet included), compose files, shell scripts and command lines, package
// lists, image references and the hand-written deployment format -- and how they are
// handed to the readers.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// One input of `kb check`: a file's (or stdin's) text and the name it is reported under.
struct DeployInput {
  std::string file;  ///< as given on the command line; "-" for stdin
  std::string text;
  bool from_directory = false;  ///< found by walking a directory: skipped, not refused,
                                ///< when no reader accepts it
};

/// How inputs are read.
struct ReadOptions {
  /// The reader to use for every input (one of `input_kinds()`); empty: chosen by content.
  std::string kind;
  /// A service that clearly runs an engine kb cannot identify is a warning, not an error.
  bool allow_unknown = false;
  /// Asked between inputs and commands: when it says true, reading stops early and the
  /// deployment is incomplete (the caller, who asked it to stop, knows). Unset: never.
  std::function<bool()> stop;

  /// Whether `stop` says to stop.
  bool stopped() const { return stop && stop(); }
};

/// The reader names, in the order they are asked: endpoint, kubernetes, compose,
/// deployment, packages, image, shell.
const std::vector<std::string>& input_kinds();

}  // namespace kb
