// Where a serving snapshot's memory goes, per component (bench/bench_memory.py reports
// the whole; this splits it).
//
//     memory_breakdown --records DIR | --db FILE [--today YYYY-MM-DD]
//
// --today defaults to the benchmarks' 2026-10-04 (benchlib.TODAY); a later date makes the
// generated corpus's verifications stale, and the diagnostics rows show what that costs.
// Opens the knowledge base exactly as `kb serve` does (a LiveKb: slim load, evidence,
// snapshot, check index, claim checks, malloc_trim), prints the heap in use and RSS, then
// measures each component by building it again beside the live one and taking the
// difference of the heap in use (mallinfo2) before and after: a copy of every Record,
// of each group of fields, of the per-file diagnostics, a second name index, evidence
// index, check index and snapshot tables. A copy is allocated to size, so a component
// whose vectors grew by doubling weighs a little more in the live snapshot than here.
// Built with -DKB_BUILD_BENCH=ON (target kb_memory_breakdown).

#include <malloc.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/snapshot.h"
#include "live/snapshot_impl.h"

namespace {

std::size_t in_use() {
  struct mallinfo2 m = ::mallinfo2();
  return m.uordblks + m.hblkhd;
}

double rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

double mib(std::size_t b) {
  return static_cast<double>(b) / (1024.0 * 1024.0);
}

std::size_t records_n = 1;

void row(const char* what, std::size_t bytes) {
  std::printf("| %s | %.1f | %zu |\n", what, mib(bytes), bytes / records_n);
}

// The heap a structure built by `make` holds while it is alive.
template <class Make>
std::size_t cost(Make make) {
  ::malloc_trim(0);
  const std::size_t before = in_use();
  auto keep = make();
  const std::size_t after = in_use();
  return after > before ? after - before : 0;
}

// Each record's `field` copied, for every record.
template <class Field>
std::size_t field_cost(const kb::Corpus& c, Field field) {
  return cost([&] {
    using T = std::decay_t<decltype(field(*c.records().front()))>;
    std::vector<T> out;
    out.reserve(c.records().size());
    for (const auto& r : c.records()) out.push_back(field(*r));
    return out;
  });
}

}  // namespace

int main(int argc, char** argv) {
  // kb turns SQLite's memory statistics off; this tool reads them, so it turns them on
  // and initialises SQLite before kb can.
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_initialize();
  kb::LiveOptions o;
  o.lint.today = "2026-10-04";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--records") == 0) o.records = argv[i + 1];
    if (std::strcmp(argv[i], "--db") == 0) o.db = argv[i + 1];
    if (std::strcmp(argv[i], "--today") == 0) o.lint.today = argv[i + 1];
  }
  if (o.records.empty() == o.db.empty()) {
    std::fprintf(stderr,
                 "usage: memory_breakdown --records DIR | --db FILE [--today YYYY-MM-DD]\n");
    return 2;
  }
  const double rss0 = rss_mib();
  const std::size_t heap0 = in_use();
  kb::LiveKb live(o);
  ::malloc_trim(0);
  const double rss1 = rss_mib();
  const std::size_t heap1 = in_use();
  auto snap = live.current();
  const kb::Corpus& c = snap->corpus();
  records_n = c.records().size();

  std::printf("records: %zu, files: %zu, sizeof(Record) %zu, sizeof(FileResult) %zu\n",
              c.records().size(), c.files().size(), sizeof(kb::Record), sizeof(kb::FileResult));
  std::printf(
      "RSS before %.1f MiB, after load %.1f MiB; heap in use %.1f MiB "
      "(of it SQLite %.1f MiB); RSS - heap %.1f MiB\n\n",
      rss0, rss1, mib(heap1 - heap0), mib(static_cast<std::size_t>(sqlite3_memory_used())),
      rss1 - mib(heap1));
  std::printf("| component | MiB | bytes/record |\n|---|---|---|\n");
  row("Records (copy of each, make_shared)", cost([&] {
        std::vector<std::shared_ptr<const kb::Record>> out;
        for (const auto& r : c.records()) out.push_back(std::make_shared<kb::Record>(*r));
        return out;
      }));
  row("  ids, files, titles, hashes",
      field_cost(c, [](const kb::Record& r) { return r.id + r.file + r.title + r.content_hash; }));
  row("  references (citations, or their dates)", field_cost(c, [](const kb::Record& r) {
        return std::make_pair(r.references, r.kept_reference_dates);
      }));
  row("  affects, related, oracles", field_cost(c, [](const kb::Record& r) {
        auto v = r.affects;
        v.insert(v.end(), r.related.begin(), r.related.end());
        v.insert(v.end(), r.oracles.begin(), r.oracles.end());
        return v;
      }));
  row("  applies_when", field_cost(c, [](const kb::Record& r) { return r.applies_when; }));
  row("  fixes", field_cost(c, [](const kb::Record& r) { return r.fixes; }));
  row("  detection, impact",
      field_cost(c, [](const kb::Record& r) { return std::make_pair(r.detection, r.impact); }));
  row("  bodies kept (symptom ... notes)", field_cost(c, [](const kb::Record& r) {
        return r.symptom + r.root_cause + r.workaround + r.notes + r.description + r.method +
               r.pass_criterion + r.source_text;
      }));
  row("  tags, aliases, strings of gotchas",
      field_cost(c, [](const kb::Record& r) { return std::make_pair(r.tags, r.aliases); }));
  // A part is one pointer in records of other namespaces; its copy is as deep as the live one.
  row("  engine parts (releases, images, ...)",
      field_cost(c, [](const kb::Record& r) { return r.engine; }));
  row("  result parts (subject, failures, ...)",
      field_cost(c, [](const kb::Record& r) { return r.result; }));
  row("  setting", field_cost(c, [](const kb::Record& r) { return r.setting; }));
  row("FileResults (structs, names, diagnostics)", cost([&] {
        std::vector<kb::FileResult> out;
        for (const auto& f : c.files()) {
          kb::FileResult copy;
          copy.file = f->file;
          copy.diagnostics = f->diagnostics;
          out.push_back(std::move(copy));
        }
        return out;
      }));
  std::size_t with_diags = 0, diags = 0;
  for (const auto& f : c.files()) {
    with_diags += !f->diagnostics.empty();
    diags += f->diagnostics.size();
  }
  std::printf("|   (%zu files hold %zu diagnostics) | | |\n", with_diags, diags);
  row("corpus diagnostics (copy)", cost([&] { return c.diagnostics(); }));
  row("snapshot diagnostics with claims (copy)", cost([&] { return snap->diagnostics(); }));
  row("name index (rebuilt)", cost([&] {
        auto n = std::make_unique<kb::NameIndex>();
        for (const auto& r : c.records()) n->add(*r);
        n->finish();
        return n;
      }));
  row("evidence index (rebuilt)", cost([&] { return kb::EvidenceIndex::build(c); }));
  row("check index (rebuilt)", cost([&] { return kb::CheckIndex::build(c, snap->evidence()); }));
  row("snapshot rows, sort keys, referencing, stamps (rebuilt)", cost([&] {
        auto d = std::make_unique<kb::SnapshotData>();
        kb::build_snapshot_data(*d, c, snap->evidence(), nullptr, nullptr);
        return d;
      }));
  std::printf("\nSQLite in use now: %.1f MiB\n",
              mib(static_cast<std::size_t>(sqlite3_memory_used())));
  return 0;
}
