#!/usr/bin/python3
"""Xapian against FTS5 for one common word, on the rows of a kb index (issue 19's
"measure a search library built for this"). Needs Debian's python3-xapian, hence
/usr/bin/python3 (a pyenv python does not see it).

    bench_search_xapian.py INDEX.db [WORD]

Builds a Xapian database from the index's `fts` rows once (INDEX.db.xapian; the same
columns, their weights as wdf multipliers, positions kept for snippets), then, in this
one process and thread, the CPU time per query (median and worst of REPS) of:
  - FTS5 as kb ranks a word the first time: every match scored, `ORDER BY bm25() LIMIT k`;
  - FTS5 reading back k ranked rows with snippets (what a search costs once ranked);
  - Xapian's top k by BM25 (`get_mset(0, k)`), which may stop early;
  - the same with Xapian's snippets.
WORD defaults to the term in most rows.
"""
import os
import sqlite3
import sys
import time

import xapian

REPS = int(os.environ.get("REPS", "7"))
K = 36
COLS = "title, symptom, root_cause, workaround, notes, other"
BM25 = "bm25(fts, 0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0)"


def cpu_ms(fn):
    times = []
    for _ in range(REPS):
        t0 = time.process_time()
        fn()
        times.append((time.process_time() - t0) * 1000)
    times.sort()
    return times[len(times) // 2], times[-1]


def build(index, xpath):
    t0, c0 = time.perf_counter(), time.process_time()
    wdb = xapian.WritableDatabase(xpath + ".tmp", xapian.DB_CREATE_OR_OVERWRITE)
    tg = xapian.TermGenerator()
    src = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    n = 0
    wdb.begin_transaction(False)
    for rowid, rid, *cols in src.execute("SELECT rowid, id, %s FROM fts" % COLS):
        doc = xapian.Document()
        tg.set_document(doc)
        for text, wt in zip(cols, (10, 4, 2, 2, 1, 1)):
            if text:
                tg.index_text(text, wt)
                tg.increase_termpos()
        doc.set_data(rid)
        doc.add_value(0, "\n".join(c or "" for c in cols))
        wdb.replace_document(rowid, doc)
        n += 1
    wdb.commit_transaction()
    wdb.close()
    os.rename(xpath + ".tmp", xpath)
    return n, time.perf_counter() - t0, time.process_time() - c0


def main():
    index = sys.argv[1]
    db = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    if len(sys.argv) > 2:
        word = sys.argv[2]
    else:
        db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, row)")
        word = db.execute("SELECT term FROM temp.vocab ORDER BY doc DESC LIMIT 1").fetchone()[0]
    df = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", ('"%s"' % word,)).fetchone()[0]
    total = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    xpath = index + ".xapian"
    if not os.path.exists(xpath):
        n, wall, cpu = build(index, xpath)
        print("built the Xapian database: %d documents, %.1f s wall, %.1f s CPU" % (n, wall, cpu))
    xdb = xapian.Database(xpath)
    match = '"%s"' % word
    ranked = [r[0] for r in db.execute(
        "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY %s LIMIT ?" % BM25, (match, K))]
    ids = ",".join(str(r) for r in ranked)

    def fts_rank():
        db.execute("SELECT rowid, %s FROM fts WHERE fts MATCH ? ORDER BY 2 LIMIT ?" % BM25,
                   (match, K)).fetchall()

    def fts_read_back():
        db.execute("SELECT rowid, id, title, snippet(fts, -1, char(2), char(3), '…', 24) FROM fts"
                   " WHERE fts MATCH ? AND rowid IN (%s)" % ids, (match,)).fetchall()

    enq = xapian.Enquire(xdb)
    enq.set_query(xapian.Query(word))
    enq.set_weighting_scheme(xapian.BM25Weight())

    def x_top():
        return [(m.docid, m.weight) for m in enq.get_mset(0, K)]

    def x_snippets():
        mset = enq.get_mset(0, K)
        return [(m.document.get_data(), mset.snippet(m.document.get_value(0), 180)) for m in mset]

    print("\n`%s`: in %d of %d rows; k = %d; CPU ms per query, one thread, %d runs\n"
          % (word, df, total, K, REPS))
    print("| variant | median CPU ms | worst CPU ms |\n|---|---|---|")
    for name, fn in (("FTS5: rank every match, `ORDER BY bm25() LIMIT k`", fts_rank),
                     ("FTS5: read back k ranked rows with snippets", fts_read_back),
                     ("Xapian: `get_mset(0, k)` (BM25)", x_top),
                     ("Xapian: `get_mset(0, k)` + `MSet.snippet`", x_snippets)):
        p50, worst = cpu_ms(fn)
        print("| %s | %.2f | %.2f |" % (name, p50, worst))
    overlap = len(set(ranked) & {d for d, _ in x_top()})
    print("\nrows in both top %d lists: %d (the two BM25s differ: FTS5 weights columns in "
          "the score, Xapian multiplies within-document frequencies)" % (K, overlap))


if __name__ == "__main__":
    main()
