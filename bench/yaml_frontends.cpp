// How fast each YAML front end kb could use turns the record files into events, one
// thread, files already in memory: yaml-cpp's event parser (what kb/src/yaml/yaml_tree.cpp
// drives now), libyaml's and libfyaml's. Every event's line and column is read, as
// kb's tree builder needs them for diagnostics.
//
//   g++ -O2 -std=c++20 bench/yaml_frontends.cpp -lyaml-cpp -lyaml -lfyaml -o yaml_frontends
//   ./yaml_frontends RECORDS_DIR            (bench/bench_yaml.py runs it)

#include <libfyaml.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <yaml.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Counter final : YAML::EventHandler {
  long events = 0, marks = 0;
  void mark(const YAML::Mark& m) {
    ++events;
    marks += m.line + m.column;
  }
  void OnDocumentStart(const YAML::Mark& m) override { mark(m); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { mark(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { mark(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                const std::string& v) override {
    mark(m);
    marks += static_cast<long>(v.size());
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    mark(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    mark(m);
  }
  void OnMapEnd() override {}
};

long yaml_cpp(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  Counter c;
  while (parser.HandleNextDocument(c)) {
  }
  return c.events + c.marks;
}

long libyaml(const std::string& text) {
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(text.data()),
                               text.size());
  long n = 0;
  for (;;) {
    yaml_event_t e;
    if (!yaml_parser_parse(&p, &e)) {
      n = -1;
      break;
    }
    n += 1 + static_cast<long>(e.start_mark.line + e.start_mark.column);
    if (e.type == YAML_SCALAR_EVENT) n += static_cast<long>(e.data.scalar.length);
    const bool end = e.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&e);
    if (end) break;
  }
  yaml_parser_delete(&p);
  return n;
}

long libfyaml(const std::string& text) {
  fy_parse_cfg cfg{};
  cfg.flags = FYPCF_QUIET;
  fy_parser* p = fy_parser_create(&cfg);
  fy_parser_set_string(p, text.data(), text.size());
  long n = 0;
  while (fy_event* e = fy_parser_parse(p)) {
    const fy_mark* m = fy_event_start_mark(e);
    n += 1 + (m ? m->line + m->column : 0);
    if (e->type == FYET_SCALAR) {
      size_t len = 0;
      fy_token_get_text(e->scalar.value, &len);
      n += static_cast<long>(len);
    }
    fy_parser_event_free(p, e);
  }
  if (fy_parser_get_stream_error(p)) n = -1;
  fy_parser_destroy(p);
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s RECORDS_DIR\n", argv[0]);
    return 2;
  }
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(argv[1])) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    texts.push_back(s.str());
    bytes += texts.back().size();
  }
  std::printf("%zu files, %.1f MB\n", texts.size(), bytes / 1e6);
  struct Front {
    const char* name;
    long (*parse)(const std::string&);
  } fronts[] = {{"yaml-cpp 0.7 events", yaml_cpp},
                {"libyaml 0.2.5 events", libyaml},
                {"libfyaml 0.7.12 events", libfyaml}};
  for (const auto& f : fronts) {
    const auto t0 = std::chrono::steady_clock::now();
    long check = 0, failed = 0;
    for (const auto& t : texts) {
      long n = f.parse(t);
      if (n < 0) ++failed;
      check += n;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%-24s %7.2f s  %6.1f MB/s  %6.1f us/file  failed %ld  (check %ld)\n", f.name, s,
                bytes / 1e6 / s, s * 1e6 / texts.size(), failed, check);
  }
  return 0;
}
