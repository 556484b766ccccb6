#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "kb/error.h"

namespace kb::cli {
namespace {

constexpr std::string_view kEnd = "<!-- END GENERATED -->";

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(Errc::io, "cannot read '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void write_all(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !(out << text)) throw Error(Errc::io, "cannot write '" + path + "'");
}

int update_generated(const std::string& path, std::string_view begin_marker,
                     const std::string& generated, std::string_view who) {
  std::string text = read_all(path);
  auto begin = text.find(begin_marker);
  auto end = begin == std::string::npos ? std::string::npos : text.find(kEnd, begin);
  if (begin == std::string::npos || end == std::string::npos) {
    std::cerr << who << ": " << path << " has no '" << begin_marker << "' ... '" << kEnd
              << "' section to update\n";
    return kExitUsage;
  }
  begin += begin_marker.size();
  const std::string fresh = "\n" + generated + "\n";
  if (text.compare(begin, end - begin, fresh) == 0) return kExitOk;
  text.replace(begin, end - begin, fresh);
  write_all(path, text);
  std::cerr << who << ": updated " << path << "\n";
  return kExitOk;
}

}  // namespace kb::cli
