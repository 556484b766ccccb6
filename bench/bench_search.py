#!/usr/bin/env python3
"""Search for the worst common word under wrk, beside the sqlite3 CLI running the same
FTS5 query on the same index file.

    bench_search.py INDEX.db [KB_BINARY ...]       default binary: $KB

The word is the one found in most records (the index's most frequent term). Each binary serves INDEX.db (`kb serve --db`), one after the other; the
first search of the word is timed alone (cold: nothing ranked yet), then wrk runs at 16
and 64 connections (2 threads, SECONDS_PER_RUN s, RUNS runs, medians of p50/p99 and
req/s) on `GET /api/v1/search?q=WORD` (default limit). The peer: CONNS sqlite3 processes
at once, each running the query QUERIES times with `.timer on`, on the same file; its
p50/p99 are of every statement's wall time. The peer's query is what FTS5 offers for
"the best 36 rows with snippets" (the server asks for limit + 16 = 36).
Target at 100k: search p99 <= 20 ms at 16 connections.

With GET=1, each binary's server also answers GET of one gotcha's JSON and of its
HTML page under wrk beside nginx serving the same bytes as files (bench_http.py's
nginx), at the same connection counts: target GET >= 0.7x nginx req/s.
CONNS (default "16 64") picks the connection counts.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys
import time

import benchlib as b

SECONDS = int(os.environ.get("SECONDS_PER_RUN", "5"))
CONNS = [int(c) for c in os.environ.get("CONNS", "16 64").split()]
QUERIES = int(os.environ.get("QUERIES", "20"))
RANK = "bm25(0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0)"
PEER_SQL = ("SELECT id, title, rank, snippet(fts, -1, char(2), char(3), '…', 24) FROM fts "
            "WHERE fts MATCH '\"{w}\"' AND rank MATCH '{r}' ORDER BY rank LIMIT 36;")


def worst_word(index):
    """The indexed term in most rows that, searched as written, finds those rows."""
    db = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, row)")
    total = db.execute("SELECT count(*) FROM fts").fetchone()[0]
    for term, docs in db.execute("SELECT term, doc FROM temp.vocab ORDER BY doc DESC LIMIT 20"):
        n = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", ('"%s"' % term,)).fetchone()[0]
        if n == docs:
            return term, docs, total
    sys.exit("no common word found")


def wrk(url, conns):
    """wrk's p50, p99 (ms) and req/s, medians of RUNS runs."""
    runs = []
    for _ in range(b.RUNS):
        out = subprocess.run(["wrk", "-t2", "-c%d" % conns, "-d%ds" % SECONDS, "--latency", url],
                             check=True, capture_output=True, text=True).stdout
        ms = lambda pct: (lambda m: float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[
            m.group(2)])(re.search(r"%s%%\s+([\d.]+)(us|ms|s)\b" % pct, out))
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        runs.append({"p50": ms(50), "p99": ms(99),
                     "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
                     "non2xx": int(bad.group(1)) if bad else 0})
    return {k: (sum(r[k] for r in runs) if k == "non2xx" else b.median([r[k] for r in runs]))
            for k in runs[0]}


def peer(index, word, conns):
    """sqlite3 CLI: conns processes at once, QUERIES statements each; p50/p99 ms."""
    script = ".timer on\n" + (PEER_SQL.format(w=word, r=RANK) + "\n") * QUERIES
    t0 = time.perf_counter()
    procs = [subprocess.Popen(["sqlite3", "-readonly", index], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(conns)]
    outs = [p.communicate(script)[0] for p in procs]
    wall = time.perf_counter() - t0
    times = sorted(float(t) * 1000 for o in outs for t in re.findall(r"Run Time: real ([\d.]+)", o))
    rows = sum(1 for line in outs[0].splitlines() if not line.startswith("Run Time")) // QUERIES
    return {"p50": b.median(times), "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
            "rps": len(times) / wall, "rows": rows}


def get_vs_nginx(srv, index, rows, kb):
    """GET of one gotcha's JSON and page: kb against nginx serving the same bytes."""
    import shutil
    import bench_http
    db = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    gid = db.execute("SELECT id FROM records WHERE kind='gotcha' ORDER BY id LIMIT 1 OFFSET 500")
    slug = gid.fetchone()[0].split("/", 1)[1]
    root = os.path.join(b.WORK, "nginx-root-search")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    paths = {"record JSON": ("/api/v1/gotchas/" + slug, "/get.json"),
             "record page": ("/gotchas/" + slug, "/page.html")}
    sizes = {}
    for key, (path, static) in paths.items():
        status, body = b.get(srv.port, path)
        assert status == 200, (path, status)
        with open(root + static, "wb") as f:
            f.write(body)
        sizes[key] = len(body)
    nginx = bench_http.start_nginx(root)
    out = {}
    try:
        for conns in CONNS:
            for key, (path, static) in paths.items():
                la = b.loadavg()
                k = b.wrk_median("http://127.0.0.1:%d%s" % (srv.port, path), conns, SECONDS)
                p = b.wrk_median("http://127.0.0.1:%d%s" % (nginx.port, static), conns, SECONDS)
                out["%s_%d" % (key, conns)] = {"kb": k, "nginx": p, "load": la, "bytes": sizes[key]}
                rows.append([kb, key, sizes[key], conns, "%.0f" % k["rps"], "%.2f" % k["p99_ms"],
                             "%.0f" % p["rps"], "%.2f" % p["p99_ms"],
                             "%.2fx" % (k["rps"] / p["rps"]), "%.1f" % la])
                b.log(" | ".join(str(c) for c in rows[-1]))
    finally:
        nginx.stop()
    return out


def main():
    index = sys.argv[1]
    binaries = sys.argv[2:] or [b.KB]
    word, df, total = worst_word(index)
    b.log("worst word: %s in %d of %d rows" % (word, df, total))
    path = "/api/v1/search?q=" + word
    rows, rows_get, saved = [], [], {"word": word, "rows_with_word": df, "rows": total}
    for kb in binaries:
        srv, start = b.kb_serve_timed(kb, index)
        try:
            t0 = time.perf_counter()
            status, body = b.get(srv.port, path)
            cold = (time.perf_counter() - t0) * 1000
            assert status == 200, status
            hits = len(json.loads(body)["hits"])
            t0 = time.perf_counter()
            b.get(srv.port, path)
            warm = (time.perf_counter() - t0) * 1000
            for conns in CONNS:
                la = b.loadavg()
                k = wrk("http://127.0.0.1:%d%s" % (srv.port, path), conns)
                p = peer(index, word, conns)
                saved["%s_%d" % (kb, conns)] = {"kb": k, "sqlite3": p, "load": la, "cold_ms": cold,
                                                "warm_ms": warm, "start_s": start, "hits": hits}
                rows.append([kb, conns, "%.1f" % cold, "%.2f" % warm, "%.2f" % k["p50"],
                             "%.2f" % k["p99"], "%.0f" % k["rps"], k["non2xx"], "%.2f" % p["p50"],
                             "%.2f" % p["p99"], "%.0f" % p["rps"], "%.1fx" % (p["p99"] / k["p99"]),
                             "%.1f" % la])
                b.log(" | ".join(str(c) for c in rows[-1]))
            if os.environ.get("GET") == "1":
                saved["get " + kb] = get_vs_nginx(srv, index, rows_get, kb)
        finally:
            srv.stop()
    print("\nq=%s: in %d of %d rows; %d hits per answer" % (word, df, total, hits))
    b.table(["kb", "conns", "first search ms", "second ms", "kb p50 ms", "kb p99 ms", "kb req/s",
             "non-2xx", "sqlite3 p50 ms", "sqlite3 p99 ms", "sqlite3 q/s", "p99 sqlite3/kb",
             "load"], rows)
    if rows_get:
        print()
        b.table(["kb", "request", "bytes", "conns", "kb req/s", "kb p99 ms", "nginx req/s",
                 "nginx p99 ms", "kb/nginx", "load"], rows_get)
    b.save("search", saved)


if __name__ == "__main__":
    main()
