#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/store.h"
#include "store/write_queue.h"

namespace {

std::shared_ptr<const kb::Record> record(const std::string& id) {
  auto r = std::make_shared<kb::Record>();
  r->id = id;
  return r;
}

std::string gotcha(const std::string& title, const std::string& symptom) {
  return "title: " + title + "\nseverity: minor\nstatus: open\nsymptom: " + symptom + "\n";
}

}  // namespace

TEST_CASE("write queue: records are written in push order, all of them by finish",
          "[write_queue]") {
  std::vector<std::string> written;  // only the queue's thread appends
  kb::WriteQueue q([&](const kb::Record& r, bool stale) { written.push_back(r.id + (stale ? "!" : "")); },
                   2);  // a small queue: the pushes below wait for room
  for (int i = 0; i < 50; ++i) q.push(record("gotchas/r" + std::to_string(i)), i == 7);
  q.finish();
  REQUIRE(written.size() == 50);
  CHECK(written[0] == "gotchas/r0");
  CHECK(written[7] == "gotchas/r7!");
  CHECK(written[49] == "gotchas/r49");
  CHECK_THROWS_AS(q.push(record("gotchas/late"), false), kb::Error);
}

TEST_CASE("write queue: a failed write stops the queue and is thrown to the loaders",
          "[write_queue]") {
  std::atomic<int> writes{0};
  kb::WriteQueue q(
      [&](const kb::Record& r, bool) {
        ++writes;
        if (r.id == "gotchas/bad") throw kb::Error(kb::Errc::database, "disk full");
      },
      4);
  q.push(record("gotchas/ok"), false);
  q.push(record("gotchas/bad"), false);
  // Some push after the failure throws it; none is written after it.
  bool thrown = false;
  for (int i = 0; i < 1000 && !thrown; ++i) {
    try {
      q.push(record("gotchas/after" + std::to_string(i)), false);
    } catch (const kb::Error& e) {
      thrown = true;
      CHECK(e.code() == kb::Errc::database);
      CHECK(std::string(e.what()) == "disk full");
    }
  }
  CHECK(thrown);
  try {
    q.finish();
    FAIL("finish did not throw the failed write");
  } catch (const kb::Error& e) {
    CHECK(std::string(e.what()) == "disk full");
  }
  CHECK(writes == 2);
}

TEST_CASE("write queue: cancel stops it, nothing is written after", "[write_queue]") {
  std::atomic<int> writes{0};
  kb::WriteQueue q([&](const kb::Record&, bool) { ++writes; }, 8);
  q.cancel();  // never started: nothing to stop
  CHECK_THROWS_AS(q.push(record("gotchas/a"), false), kb::Error);
  q.finish();
  CHECK(writes == 0);
}

TEST_CASE("write queue: loading threads pushing while a write fails or the update is "
          "cancelled neither hang nor lose a record",
          "[write_queue]") {
  for (int round = 0; round < 60; ++round) {
    const bool fails = round % 3 == 0;  // the 50th write throws
    const bool cancelled = round % 5 == 1;
    std::atomic<int> writes{0};
    kb::WriteQueue q(
        [&](const kb::Record&, bool) {
          if (++writes == 50 && fails) throw kb::Error(kb::Errc::database, "disk full");
        },
        4);
    std::atomic<int> refused{0};
    std::vector<std::thread> loaders;
    for (int t = 0; t < 4; ++t) {
      loaders.emplace_back([&] {
        for (int i = 0; i < 100; ++i) {
          try {
            q.push(record("gotchas/x"), false);
          } catch (const kb::Error&) {
            ++refused;
            return;
          }
        }
      });
    }
    if (cancelled) q.cancel();
    for (auto& t : loaders) t.join();
    bool finished = true;
    try {
      q.finish();
    } catch (const kb::Error&) {
      finished = false;
    }
    INFO("round " << round);
    if (cancelled) continue;  // whatever was queued when it stopped is dropped
    if (fails) {
      CHECK_FALSE(finished);
      CHECK(writes == 50);  // nothing after the failed write
    } else {
      CHECK(finished);
      CHECK(writes == 400);
      CHECK(refused == 0);
    }
  }
}

TEST_CASE("store: records put into a new index from several threads are all there, an id "
          "put twice once",
          "[write_queue][store]") {
  std::vector<kb::FileResult> files;
  for (int i = 0; i < 300; ++i) {
    std::string n = std::to_string(i);
    files.push_back(kb::load_record_text("gotchas/g" + n + ".yaml",
                                         gotcha("Gotcha " + n, "Symptom number " + n + ".")));
  }
  // A second file claiming an id already put: the later one replaces the earlier.
  kb::FileResult twice =
      kb::load_record_text("gotchas/g5.yaml", gotcha("Replaced five", "Zebra crossing."));
  kb::Store store = kb::Store::open_writable(":memory:");
  store.begin_update();
  std::thread a([&] {
    for (std::size_t i = 0; i < files.size(); i += 2) store.put(files[i]);
  });
  std::thread b([&] {
    for (std::size_t i = 1; i < files.size(); i += 2) store.put(files[i]);
  });
  a.join();
  b.join();
  store.put(twice);
  auto corpus = kb::Corpus::from_files("put", std::move(files));
  store.finish_update(nullptr, *corpus, kb::EvidenceIndex::build(*corpus));
  CHECK(store.meta("records") == std::optional<std::string>("300"));
  CHECK(store.match("symptom").size() == 299);  // g5's first text is gone with its row
  auto zebra = store.search("zebra", 5);
  REQUIRE(zebra.size() == 1);
  CHECK(zebra[0].id == "gotchas/g5");
  CHECK(zebra[0].title == "Replaced five");
  CHECK(store.match("number").size() == 299);
}
