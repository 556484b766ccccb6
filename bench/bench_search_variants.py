#!/usr/bin/env python3
"""FTS5 query plans for one search on an index `kb build` wrote (Xapian beside FTS5:
bench_search_xapian.py): what a word found in most records costs each way.

    bench_search_variants.py INDEX.db [WORD ...]     default: the 3 words in most records

Every variant answers the same question — the `LIMIT` best hits for WORD, each with its
id, title and snippet — on one thread, warm (each query run once before timing). Figures
are CPU milliseconds per query: median and worst of REPS runs (default 30). Variants that need
another table (detail=column, contentless, external content) are built once into a
copy beside INDEX (`INDEX.variants.db`, kept for reruns; delete it to rebuild).
Single-thread cost is what sets the p99 under 16 connections on 2 cores: each request
waits for the ones queued before it.
"""
import os
import sqlite3
import statistics
import sys
import time

REPS = int(os.environ.get("REPS", "30"))
LIMIT = int(os.environ.get("LIMIT", "36"))  # the server asks for limit + 16 (20 + 16)
TOP_N = int(os.environ.get("TOP_N", "1000"))
RANK = "bm25(0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0)"
BM25 = "bm25(fts, 0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0)"
RANK6 = "bm25(10.0, 4.0, 2.0, 2.0, 1.0, 1.0)"  # the same weights on a table without id/hash
SNIP = "snippet(fts, -1, char(2), char(3), '…', 24)"
COLS = "title, symptom, root_cause, workaround, notes, other"


def timed(fn, reps=REPS):
    """CPU ms of this process per call (SQLite runs in it): median and worst.
    CPU time, not wall time, because the machine is shared: it is what a query costs."""
    fn()
    xs = []
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        xs.append((time.process_time() - t0) * 1000)
    xs.sort()
    return statistics.median(xs), xs[-1]


def common_words(db, n):
    db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, row)")
    return [(t, d) for t, d in db.execute(
        "SELECT term, doc FROM temp.vocab ORDER BY doc DESC LIMIT ?", (n,))]


def variants_db(path):
    """A copy of the full-text rows in other FTS5 layouts (built once)."""
    vpath = path + ".variants.db"
    if os.path.exists(vpath):
        return sqlite3.connect(vpath)
    tmp = vpath + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    v = sqlite3.connect(tmp)
    v.execute("ATTACH ? AS src", (path,))
    tok = "tokenize = 'porter unicode61 remove_diacritics 2'"
    v.execute("CREATE TABLE docs(rowid INTEGER PRIMARY KEY, id, content_hash, %s)" % COLS)
    v.execute("INSERT INTO docs SELECT rowid, id, content_hash, %s FROM src.fts" % COLS)
    for name, opts in (("fcol", "detail=column"), ("fext", "content='docs'"),
                       ("fnone", "content=''")):
        t0 = time.perf_counter()
        v.execute("CREATE VIRTUAL TABLE %s USING fts5(%s, %s, %s)" % (name, COLS, opts, tok))
        v.execute("INSERT INTO %s(rowid, %s) SELECT rowid, %s FROM docs" % (name, COLS, COLS))
        v.commit()
        print("built %s (%s) in %.1f s" % (name, opts, time.perf_counter() - t0), file=sys.stderr)
    v.execute("DETACH src")
    v.close()
    os.rename(tmp, vpath)
    return sqlite3.connect(vpath)


def main():
    path = sys.argv[1]
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    words = sys.argv[2:] or [w for w, _ in common_words(db, 3)]
    total = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    v = variants_db(path) if os.environ.get("VARIANTS", "1") == "1" else None
    rows = []
    for w in words:
        m = '"%s"' % w
        df = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (m,)).fetchone()[0]

        def row(name, fn):
            p50, p99 = timed(fn)
            rows.append((w, df, name, p50, p99))
            print("%-10s %-62s %8.2f %8.2f" % (w, name, p50, p99), flush=True)

        q = lambda sql, *a, con=db: con.execute(sql, a).fetchall()
        row("doclist scan: count(*) MATCH", lambda: q("SELECT count(*) FROM fts WHERE fts MATCH ?", m))
        row("unranked LIMIT k + snippet", lambda: q(
            "SELECT id, title, %s FROM fts WHERE fts MATCH ? LIMIT ?" % SNIP, m, LIMIT))
        row("main: first 2000 rowids, ORDER BY rank LIMIT k + snippet", lambda: q(
            "SELECT id, title, rank, %s FROM fts WHERE fts MATCH ? AND rank MATCH ? AND rowid <= "
            "(SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1 OFFSET 1999) ORDER BY rank LIMIT ?"
            % SNIP, m, RANK, m, LIMIT))
        row("ORDER BY rank LIMIT k (bm25 weights as rank) + snippet", lambda: q(
            "SELECT id, title, rank, %s FROM fts WHERE fts MATCH ? AND rank MATCH ? "
            "ORDER BY rank LIMIT ?" % SNIP, m, RANK, LIMIT))
        row("ORDER BY bm25(...) LIMIT k + snippet", lambda: q(
            "SELECT id, title, %s AS score, %s FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?"
            % (BM25, SNIP), m, LIMIT))
        row("ORDER BY rank, default bm25() (no weights)", lambda: q(
            "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?", m, LIMIT))
        # Two steps: the top TOP_N rowids of the word, ranked once and kept; a query reads
        # the first k and makes snippets for those rows alone.
        t0 = time.process_time()
        top = q("SELECT rowid, rank FROM fts WHERE fts MATCH ? AND rank MATCH ? ORDER BY rank "
                "LIMIT ?", m, RANK, TOP_N)
        build_ms = (time.process_time() - t0) * 1000
        rows.append((w, df, "  (ranking the top %d once)" % TOP_N, build_ms, build_ms))
        print("%-10s %-62s %8.2f" % (w, "  (ranking the top %d once)" % TOP_N, build_ms))

        def two_step():
            out = []
            for rowid, score in top[:LIMIT]:
                out += q("SELECT id, title, %s FROM fts WHERE fts MATCH ? AND rowid = ?" % SNIP,
                         m, rowid)
            return out
        row("two-step: kept top-N, then snippet per shown rowid", two_step)

        def two_step_in():
            ids = ",".join(str(r) for r, _ in top[:LIMIT])
            return q("SELECT id, title, %s FROM fts WHERE fts MATCH ? AND rowid IN (%s)"
                     % (SNIP, ids), m)
        row("two-step: kept top-N, snippets via rowid IN (...)", two_step_in)

        def rerank_in():  # exact bm25 for a candidate set (multi-word queries)
            ids = ",".join(str(r) for r, _ in top)
            return q("SELECT rowid, rank FROM fts WHERE fts MATCH ? AND rank MATCH ? AND rowid IN "
                     "(%s) ORDER BY rank LIMIT ?" % ids, m, RANK, LIMIT)
        if os.environ.get("RERANK") == "1":  # 19 s at 100k: bm25 counts the word's rows per IN value
            row("re-rank %d candidates by bm25 (rowid IN, ORDER BY rank)" % TOP_N, rerank_in)
        if v is not None:
            qv = lambda sql, *a: v.execute(sql, a).fetchall()
            for t, label in (("fcol", "detail=column"), ("fext", "external content"),
                             ("fnone", "contentless")):
                row("%s: ORDER BY rank LIMIT k" % label, lambda t=t: qv(
                    "SELECT rowid FROM %s WHERE %s MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?"
                    % (t, t), m, RANK6, LIMIT))
                if t != "fnone":
                    row("%s: ORDER BY rank LIMIT k + snippet" % label, lambda t=t: qv(
                        "SELECT rowid, snippet(%s, -1, char(2), char(3), '…', 24) FROM %s WHERE "
                        "%s MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?" % (t, t, t),
                        m, RANK6, LIMIT))
            row("detail=column: doclist scan count(*)", lambda: qv(
                "SELECT count(*) FROM fcol WHERE fcol MATCH ?", m))
    print("\n%d records; k = %d; CPU ms per query, one thread, %d runs" % (total, LIMIT, REPS))
    print("| word | records with it | variant | median CPU ms | worst CPU ms |\n|---|---|---|---|---|")
    for w, df, name, p50, p99 in rows:
        print("| %s | %d | %s | %.2f | %.2f |" % (w, df, name, p50, p99))


if __name__ == "__main__":
    main()
