#pragma once

// What the engine records say about recognising an engine in an artifact: its packages,
// container images and entry points. Built from a corpus for one read; nothing here names
// an engine.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/model.h"

namespace kb {
class Corpus;
}

namespace kb::deploy {

/// A container image reference: `[registry/]path[:tag][@digest]`.
struct ImageRef {
  std::string text;      ///< as written
  std::string registry;  ///< "nvcr.io"; empty for Docker Hub
  std::string path;      ///< "vllm/vllm-openai"; Docker Hub's "library/" dropped
  std::string tag;       ///< empty when none
  std::string digest;    ///< "sha256:..." or empty
};

/// Parses an image reference; nullopt when `text` cannot be one (spaces, empty parts).
std::optional<ImageRef> parse_image(std::string_view text);

/// The version a tag names: a leading `v` dropped, a suffix after `-` dropped unless it is
/// a PEP 440 pre-, post- or dev-release (`v0.26.0-rc1` -> `0.26.0rc1`); empty when the
/// tag names no version (`latest`, `nightly`, `${VERSION}`, `pr-429`, a build date such as
/// `2025-05-27-v1`, a bare number).
std::string version_from_tag(std::string_view tag);

/// PEP 503 normalisation of a package name: lower case, runs of `-`, `_`, `.` become `-`.
std::string normalize_package(std::string_view name);

/// An engine found in an artifact, with its version when the artifact gives one.
struct EngineHit {
  std::string id;        ///< "engines/vllm"
  std::string version;   ///< empty: not known
  std::string via;       ///< "image vllm/vllm-openai:v0.26.0"
  bool shipped = false;  ///< one of the other engines an image ships (`images[].engines`)
};

/// An entry point found at the start of a command line.
struct EntryMatch {
  const Record* engine = nullptr;
  const Entrypoint* entrypoint = nullptr;
  std::size_t words = 0;  ///< argv words it took (program, subcommands, `-m MODULE`)
  std::string text;       ///< "vllm serve", "python3 -m sglang.launch_server"
};

/// A launcher at the start of a command line (an entry point with `wraps`).
struct WrapMatch {
  const Record* engine = nullptr;
  const Entrypoint* entrypoint = nullptr;
  std::size_t start = 0;  ///< where the command behind it starts
  bool python = false;    ///< argv from `start` is what `python` takes (`-m MODULE`, a script)
};

/// The engine records of a corpus, indexed for recognition.
class Catalog {
 public:
  explicit Catalog(const Corpus& corpus);

  /// The engines an image runs: the engine whose repository it is (version from the tag),
  /// then the engines the image ships (versions from the engine's `releases[].bundles`
  /// for that version, when recorded). Empty when no record lists the repository.
  std::vector<EngineHit> image_engines(const ImageRef& ref) const;
  /// The engine record a PyPI package is, or nullptr.
  const Record* package(std::string_view name) const;
  /// The engine a package of `ecosystem` (pypi, conda, deb) is, by its normalised name.
  const Record* package(std::string_view name, std::string_view ecosystem) const;
  /// The longest entry point `argv` starts with (the program compared by its base name).
  std::optional<EntryMatch> entrypoint(const std::vector<std::string>& argv) const;
  /// The launcher `argv` starts with, and where the command it starts begins: after its
  /// options (those in `value_options` take the next word), the first word that starts an
  /// entry point, a launcher, a shell or Python; else the first word that is no option.
  /// None when `argv` starts no launcher, or nothing follows its options.
  std::optional<WrapMatch> wrapper(const std::vector<std::string>& argv) const;
  /// Whether any entry point starts with this program (base name compared), or the
  /// program is a Python interpreter.
  bool starts_entrypoint(std::string_view program) const;
  /// The platform resource an engine record declares for this `kind` and `apiVersion`
  /// (`resources:`), with the record that declares it; {nullptr, nullptr} when none.
  std::pair<const Record*, const PlatformResource*> resource(std::string_view kind,
                                                             std::string_view api_version) const;
  /// Every chart's values an engine record declares (`charts:`), with its record.
  std::vector<std::pair<const Record*, const ChartValues*>> charts() const;
  /// The shell function of this name an engine record declares (`shell_functions:`), or
  /// nullptr.
  const ShellFunction* shell_function(std::string_view name) const;

 private:
  const Corpus* corpus_ = nullptr;
  std::vector<const Record*> engines_;
};

/// The base name of a path: "/usr/bin/python3" -> "python3".
std::string_view base_name(std::string_view path);
/// Whether a program is a Python interpreter: python, python3, python3.12, with a path.
bool is_python(std::string_view program);
/// Whether the program (base name compared) is a POSIX shell: sh, bash, dash, zsh, ash.
bool is_shell(std::string_view program);

}  // namespace kb::deploy
