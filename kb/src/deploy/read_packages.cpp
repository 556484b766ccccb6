// Package lists: `pip freeze` and pinned `requirements.txt` (`name==version`; a range or
// `name @ url` gives no version), `uv.lock` (`[[package]]` name and version),
// `pip list --format json`, `pip list`'s columns and `conda list` (conda's own packages by
// their conda names, pip's by their PyPI names). Packages are engines through the
// engine records' `packages`; the rest is listed as not understood.

#include "core/text_util.h"
#include "deploy/catalog.h"
#include "deploy/command.h"
#include "deploy/shell_words.h"
#include "deploy/yaml_docs.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// `name`, `name[extra]`, then nothing, a version operator, `@`, or `;` markers.
bool requirement_line(std::string_view line, bool* pinned) {
  std::size_t i = 0;
  while (i < line.size() && name_char(line[i])) ++i;
  if (i == 0) return false;
  std::string_view rest = text::trim(line.substr(i));
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return false;
    rest = text::trim(rest.substr(close + 1));
  }
  if (pinned) *pinned = rest.starts_with("==") || rest.starts_with("@");
  if (rest.empty() || rest[0] == ';' || rest[0] == '@' || rest[0] == '#') return true;
  for (std::string_view op : {"==", ">=", "<=", "~=", "!=", ">", "<"}) {
    if (rest.starts_with(op)) return true;
  }
  return false;
}

std::size_t leading(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

struct Line {
  std::string_view text;
  std::size_t offset;
};

std::vector<Line> lines_of(std::string_view text) {
  std::vector<Line> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t nl = text.find('\n', i);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(i, end - i);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back({line, i});
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  return out;
}

enum class Format { none, json, uv_lock, pip_list, conda_list, requirements };

Format sniff(std::string_view path, std::string_view text) {
  const std::string_view t = text::trim(text);
  if (!t.empty() && t[0] == '[' && t.find("\"name\"") != std::string_view::npos &&
      t.find("\"version\"") != std::string_view::npos) {
    return Format::json;
  }
  if (path.ends_with("uv.lock") || text.find("\n[[package]]") != std::string_view::npos ||
      text.starts_with("[[package]]")) {
    return Format::uv_lock;
  }
  // `conda list`: a comment header, then NAME VERSION BUILD [CHANNEL] columns.
  if (text.starts_with("# packages in environment at") ||
      text.find("\n# packages in environment at") != std::string_view::npos) {
    return Format::conda_list;
  }
  auto lines = lines_of(text);
  std::size_t first = 0;
  while (first < lines.size() && text::trim(lines[first].text).empty()) ++first;
  if (first + 1 < lines.size() && text::trim(lines[first].text).starts_with("Package") &&
      lines[first].text.find("Version") != std::string_view::npos &&
      text::trim(lines[first + 1].text).starts_with("---")) {
    return Format::pip_list;
  }
  const std::string_view base = base_name(path);
  const bool txt = base.ends_with(".txt") || base.ends_with(".in");
  std::size_t entries = 0, pins = 0;
  for (const Line& l : lines) {
    std::string_view line = text::trim(l.text);
    if (line.empty() || line[0] == '#' || line[0] == '-') continue;
    bool pinned = false;
    if (!requirement_line(line, &pinned)) return Format::none;
    ++entries;
    pins += pinned;
  }
  return entries > 0 && (txt || pins > 0) ? Format::requirements : Format::none;
}

class PackagesReader final : public Reader {
 public:
  std::string_view name() const override { return "packages"; }

  bool accepts(std::string_view path, std::string_view text, const Context&) const override {
    return sniff(path, text) != Format::none;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    if (auto bad = text::invalid_utf8_offset(in.text); bad != std::string_view::npos) {
      out.diagnostics.push_back(diag(Severity::error, diag_code("encoding.utf8"), in.file,
                                     text::offset_to_pos(in.text, bad), "bytes that are not UTF-8",
                                     "save the file as UTF-8"));
      return out;
    }
    const LineIndex index(in.text);
    auto add = [&](std::string spec, std::size_t offset, std::size_t length, const char* via) {
      Word w{std::move(spec), index.at(offset), index.at(offset + length)};
      read_requirement(w, in.file, via, ctx, out.shared_engines, out.unread);
    };
    switch (sniff(in.file, in.text)) {
      case Format::json:
        json(in, ctx, out);
        break;
      case Format::uv_lock:
        uv_lock(in, index, ctx, out);
        break;
      case Format::pip_list: {
        auto lines = lines_of(in.text);
        bool body = false;
        for (const Line& l : lines) {
          std::string_view line = text::trim(l.text);
          if (line.starts_with("---")) {
            body = true;
            continue;
          }
          if (!body || line.empty()) continue;
          auto space = line.find_first_of(" \t");
          if (space == std::string_view::npos) continue;
          const std::string name(line.substr(0, space));
          const std::string_view rest = text::trim(line.substr(space));
          const std::string version(rest.substr(0, rest.find_first_of(" \t")));
          add(name + "==" + version, l.offset + leading(l.text), line.size(), "pip list");
        }
        break;
      }
      case Format::conda_list:
        conda_list(in, index, ctx, out);
        break;
      default:
        requirements(in, ctx, out, add);
    }
    return out;
  }

 private:
  // Each package of a conda environment: conda's own (UCX, Open MPI: what pip cannot
  // show) by the records' conda names, and those pip installed (channel `pypi`) by their
  // PyPI names.
  static void conda_list(const DeployInput& in, const LineIndex& index, const Context& ctx,
                         Facts& out) {
    for (const Line& l : lines_of(in.text)) {
      const std::string_view line = text::trim(l.text);
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string_view> cols;
      for (std::size_t i = 0; i < line.size();) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) cols.push_back(line.substr(start, i - start));
      }
      const Pos pos = index.at(l.offset + leading(l.text));
      const Pos end = index.at(l.offset + leading(l.text) + line.size());
      if (cols.size() < 2) {
        out.unread.push_back({in.file, pos, std::string(line), "not NAME VERSION BUILD [CHANNEL]"});
        continue;
      }
      const bool pip = cols.size() >= 4 && cols[3] == "pypi";
      const Record* engine = ctx.catalog.package(cols[0], pip ? "pypi" : "conda");
      if (!engine && !pip) engine = ctx.catalog.package(cols[0], "pypi");
      if (!engine) {
        out.unread.push_back({in.file, pos, std::string(cols[0]) + " " + std::string(cols[1]),
                              "no engine record lists this package"});
        continue;
      }
      DeployedEngine e;
      e.name = std::string(text::id_slug(engine->id));
      e.id = engine->id;
      e.file = in.file;
      e.pos = pos;
      e.end = end;
      e.version = std::string(cols[1]);
      e.version_pos = pos;
      e.via = "conda list " + std::string(cols[0]) + " " + std::string(cols[1]);
      out.shared_engines.push_back(std::move(e));
    }
  }

  template <typename Add>
  static void requirements(const DeployInput& in, const Context&, Facts& out, Add& add) {
    const LineIndex index(in.text);
    for (const Line& l : lines_of(in.text)) {
      std::string_view line = l.text;
      if (auto hash = line.find(" #"); hash != std::string_view::npos) line = line.substr(0, hash);
      if (!line.empty() && line.back() == '\\') line.remove_suffix(1);
      const std::size_t lead = leading(line);
      line = text::trim(line);
      if (line.empty() || line[0] == '#') continue;
      if (line.starts_with("-e ") || line.starts_with("--editable")) {
        // `-e git+https://...#egg=name`: the package, without a version.
        auto egg = line.find("#egg=");
        if (egg != std::string_view::npos) {
          add(std::string(line.substr(egg + 5)), l.offset + lead + egg + 5, line.size() - egg - 5,
              "pip");
        } else {
          out.unread.push_back({in.file, index.at(l.offset + lead), std::string(line),
                                "an editable install without #egg= names no package"});
        }
        continue;
      }
      if (line[0] == '-') {
        if (!line.starts_with("--hash")) {
          out.unread.push_back({in.file, index.at(l.offset + lead), std::string(line),
                                "options and the files they name are not read"});
        }
        continue;
      }
      auto hash_opt = line.find(" --hash");
      if (hash_opt != std::string_view::npos) line = text::trim(line.substr(0, hash_opt));
      add(std::string(line), l.offset + lead, line.size(), "pip");
    }
  }

  static void uv_lock(const DeployInput& in, const LineIndex& index, const Context& ctx,
                      Facts& out) {
    std::string name, version;
    std::size_t name_offset = 0, name_len = 0;
    bool in_package = false;
    auto flush = [&] {
      if (in_package && !name.empty()) {
        Word w{version.empty() ? name : name + "==" + version, index.at(name_offset),
               index.at(name_offset + name_len)};
        read_requirement(w, in.file, "uv.lock", ctx, out.shared_engines, out.unread);
      }
      name.clear();
      version.clear();
    };
    auto value = [](std::string_view line) {
      auto eq = line.find('=');
      std::string_view v = text::trim(line.substr(eq + 1));
      if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
      return std::string(v);
    };
    for (const Line& l : lines_of(in.text)) {
      std::string_view line = text::trim(l.text);
      if (line.starts_with('[')) {
        flush();
        in_package = line == "[[package]]";
        continue;
      }
      if (!in_package) continue;
      if (line.starts_with("name") && line.find('=') != std::string_view::npos &&
          text::trim(line.substr(0, line.find('='))) == "name") {
        name = value(line);
        name_offset = l.offset + leading(l.text);
        name_len = line.size();
      } else if (line.starts_with("version") && line.find('=') != std::string_view::npos &&
                 text::trim(line.substr(0, line.find('='))) == "version") {
        version = value(line);
      }
    }
    flush();
  }

  static void json(const DeployInput& in, const Context& ctx, Facts& out) {
    std::vector<yaml::Node> docs;
    if (!parse_documents(in.text, in.file, docs, out.diagnostics)) return;
    for (const yaml::Node& doc : docs) {
      if (!doc.is_seq()) continue;
      for (const yaml::Node& item : doc.items) {
        const yaml::Node* name = item.find("name");
        const yaml::Node* version = item.find("version");
        if (!name || !name->is_scalar()) continue;
        std::string spec = name->value;
        if (version && version->is_scalar()) spec += "==" + version->value;
        Word w{spec, name->pos, scalar_end(*name, in.text)};
        read_requirement(w, in.file, "pip list", ctx, out.shared_engines, out.unread);
      }
    }
  }
};

}  // namespace

std::unique_ptr<Reader> packages_reader() {
  return std::make_unique<PackagesReader>();
}

}  // namespace kb::deploy
