// Search's ranking in memory, built (store_ranker.h): FTS5's postings read once through
// fts5vocab, each term's rows with their weighted occurrences and positions, packed.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>

#include "store/store_ranker.h"

namespace kb {
namespace {

// The weights search ranks with (store_search.cpp's bm25 call), by column name; id and
// content_hash are not indexed.
int column_weight(std::string_view col) {
  if (col == "title") return 10;
  if (col == "symptom") return 4;
  if (col == "root_cause" || col == "workaround") return 2;
  return 1;  // notes, other
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

}  // namespace

std::shared_ptr<const MemRanker> MemRanker::build(sqlite3* db, const std::atomic<bool>* stop,
                                                  std::uint32_t keep_from_rows) {
  auto r = std::shared_ptr<MemRanker>(new MemRanker());
  r->keep_from_rows_ = keep_from_rows;
  try {
    // One read transaction, unless the connection is in one already (an in-memory index's
    // only connection, mid-update): then that one.
    const bool own = sqlite3_get_autocommit(db) != 0;
    if (own) sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    struct End {
      sqlite3* db;
      bool own;
      ~End() {
        if (own) sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      }
    } end{db, own};
    {
      sql::Stmt rows(db, "SELECT id FROM fts_docsize ORDER BY id");
      while (rows.step()) r->rowids_.push_back(rows.int64(0));
    }
    r->lengths_.assign(r->rowids_.size(), 0);
    r->other_.assign(r->rowids_.size(), false);
    {
      sql::Stmt others(db, "SELECT rowid FROM records WHERE kind != 'gotcha' ORDER BY rowid");
      std::size_t at = 0;
      while (others.step()) {
        const std::int64_t id = others.int64(0);
        while (at < r->rowids_.size() && r->rowids_[at] < id) ++at;
        if (at < r->rowids_.size() && r->rowids_[at] == id) r->other_[at] = true;
      }
    }
    sqlite3_exec(db,
                 "CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_fts_instance USING "
                 "fts5vocab(main, fts, instance)",
                 nullptr, nullptr, nullptr);
    // Column numbers as FTS5 numbers them (its positions are sorted by them), with the
    // weight search ranks each with.
    std::vector<std::string> columns;
    {
      sql::Stmt cols(db, "SELECT * FROM fts LIMIT 0");
      for (int i = 0; i < cols.columns(); ++i) {
        columns.push_back(cols.name(i));
        r->weights_.push_back(static_cast<std::uint32_t>(column_weight(columns.back())));
      }
    }
    sql::Stmt inst(db, "SELECT term, doc, col, offset FROM temp.kb_fts_instance");
    // Rows come by term, then rowid, then column and offset: one posting per (term, row),
    // whose weight sums its occurrences' column weights, and whose positions follow.
    std::string term;
    bool have_term = false, first_posting = true;
    std::int64_t doc = -1;
    std::uint32_t row = 0, last_row = 0, df = 0;
    std::uint64_t weight = 0;
    std::string last_col;
    std::uint64_t col_number = 0;
    std::vector<std::uint64_t> keys;
    constexpr std::uint64_t kOffsetBits = 24;
    auto flush_posting = [&] {
      if (doc < 0) return;
      put_varint(r->postings_, first_posting ? row : row - last_row);
      put_varint(r->postings_, weight);
      std::sort(keys.begin(), keys.end());
      const std::size_t pos_start = r->positions_.size();
      put_varint(r->positions_, keys.size());
      std::uint64_t prev = 0;
      for (std::uint64_t k : keys) {
        put_varint(r->positions_, k - prev);
        prev = k;
      }
      put_varint(r->postings_, r->positions_.size() - pos_start);
      keys.clear();
      first_posting = false;
      last_row = row;
      ++df;
      weight = 0;
      doc = -1;
    };
    auto end_term = [&] {
      if (!have_term) return;
      flush_posting();
      r->df_.push_back(df);
      df = 0;
      first_posting = true;
    };
    std::size_t n = 0;
    while (inst.step()) {
      if (stop && (++n & 0xffff) == 0 && stop->load(std::memory_order_relaxed)) return nullptr;
      const std::string_view tv = inst.view(0);
      if (!have_term || tv != term) {
        end_term();
        term.assign(tv);
        have_term = true;
        r->term_at_.push_back(static_cast<std::uint32_t>(r->terms_.size()));
        r->post_at_.push_back(r->postings_.size());
        r->pos_at_.push_back(r->positions_.size());
        r->terms_ += term;
      }
      const std::int64_t d = inst.int64(1);
      if (d != doc) {
        flush_posting();
        doc = d;
        auto it = std::lower_bound(r->rowids_.begin(), r->rowids_.end(), d);
        if (it == r->rowids_.end() || *it != d) return nullptr;  // docsize and index disagree
        row = static_cast<std::uint32_t>(it - r->rowids_.begin());
      }
      const std::string_view cv = inst.view(2);
      if (cv != last_col) {
        last_col.assign(cv);
        auto c = std::find(columns.begin(), columns.end(), cv);
        if (c == columns.end()) return nullptr;  // a column the table does not have
        col_number = static_cast<std::uint64_t>(c - columns.begin());
      }
      const std::int64_t offset = inst.int64(3);
      // A column of 16M tokens or more: FTS5 answers (no record field is near that).
      if (offset < 0 || static_cast<std::uint64_t>(offset) >= (1ull << kOffsetBits)) return nullptr;
      keys.push_back(col_number << kOffsetBits | static_cast<std::uint64_t>(offset));
      weight += r->weights_[col_number];
      ++r->lengths_[row];
    }
    end_term();
    r->term_at_.push_back(static_cast<std::uint32_t>(r->terms_.size()));
    r->post_at_.push_back(r->postings_.size());
    r->pos_at_.push_back(r->positions_.size());
  } catch (const std::exception&) {
    return nullptr;
  }
  std::uint64_t total = 0;
  for (std::uint32_t l : r->lengths_) total += l;
  r->avgdl_ = r->rowids_.empty()
                  ? 0.0
                  : static_cast<double>(static_cast<std::int64_t>(total)) /
                        static_cast<double>(static_cast<std::int64_t>(r->rowids_.size()));
  r->norm_.resize(r->lengths_.size());
  for (std::size_t row = 0; row < r->lengths_.size(); ++row) {
    const double D = static_cast<double>(r->lengths_[row]);
    r->norm_[row] = kK1 * (1 - kB + kB * D / r->avgdl_);
  }
  std::vector<std::uint32_t>().swap(r->lengths_);
  r->postings_.shrink_to_fit();
  r->positions_.shrink_to_fit();
  r->terms_.shrink_to_fit();
  // The commonest words' shares, kept before any search needs them: they cost a search
  // the most to work out (one per row holding the word), and searches name them the most.
  // Commonest first, into part of the kept budget (the rest is for phrases and the words
  // searches bring).
  std::vector<std::size_t> common;
  for (std::size_t t = 0; t < r->terms(); ++t) {
    if (r->df_[t] >= r->keep_from_rows_) common.push_back(t);
  }
  std::stable_sort(common.begin(), common.end(),
                   [&](std::size_t a, std::size_t b) { return r->df_[a] > r->df_[b]; });
  for (std::size_t t : common) {
    if (stop && stop->load(std::memory_order_relaxed)) return nullptr;
    const std::size_t cost = std::size_t{r->df_[t]} * 12;
    if (r->kept_bytes_ + cost > kPrekeptBytes) break;
    r->term_shares(t);
  }
  return r;
}

}  // namespace kb
