#!/usr/bin/env python3
"""`kb build` at 1k/10k/100k records against sqlite3 importing the same records as JSON
lines into an FTS5 table (the cost of the index alone).

    bench_build.py [SIZES...]        default: 1000 10000 100000

Prints medians of RUNS runs (wall, peak RSS, MB/s of YAML) and kb/sqlite3 ratios. The
page cache is warm for both: each tool's first, untimed run reads the files in.
Target: 100k records in < 30 s and < 1 GiB peak RSS on 2 cores.
"""
import os
import sys

import benchlib as b

SQL = """CREATE TABLE raw(j TEXT);
.mode ascii
.separator "\\037" "\\n"
.import {jsonl} raw
CREATE TABLE records(id TEXT PRIMARY KEY, kind TEXT, title TEXT, body TEXT);
INSERT INTO records SELECT j->>'id', j->>'kind', j->>'title', j->>'body' FROM raw;
CREATE VIRTUAL TABLE fts USING fts5(id UNINDEXED, title, body);
INSERT INTO fts SELECT id, title, body FROM records;
DROP TABLE raw;
"""


def sqlite_import(d, db):
    if os.path.exists(db):
        os.remove(db)
    sql = os.path.join(b.WORK, "import.sql")
    with open(sql, "w") as f:
        f.write(SQL.format(jsonl=os.path.join(d, "records.jsonl")))
    with open(sql) as stdin:
        return b.timed(["sqlite3", db], stdin=stdin)


def kb_build(d, db):
    if os.path.exists(db):
        os.remove(db)
    return b.timed([b.KB, "build", "--records", os.path.join(d, "records"), "--db", db,
                    "--today", b.TODAY])


def main():
    b.need(b.KB)
    b.need("sqlite3")
    sizes = [int(s) for s in sys.argv[1:]] or [1000, 10000, 100000]
    rows, saved = [], {}
    for n in sizes:
        d, man = b.corpus(n)
        mb = man["yaml_bytes"] / 1e6
        kdb, sdb = os.path.join(b.WORK, "bench-kb.db"), os.path.join(b.WORK, "bench-sqlite.db")
        kb_build(d, kdb)  # warm-up: page cache
        sqlite_import(d, sdb)
        kb_runs = [kb_build(d, kdb) for _ in range(b.RUNS)]
        sq_runs = [sqlite_import(d, sdb) for _ in range(b.RUNS)]
        kw, kr = b.median([r[0] for r in kb_runs]), b.median([r[1] for r in kb_runs])
        sw, sr = b.median([r[0] for r in sq_runs]), b.median([r[1] for r in sq_runs])
        kc, sc = b.median([r[2] for r in kb_runs]), b.median([r[2] for r in sq_runs])
        b.log("n=%d kb %s sqlite %s" % (n, kb_runs, sq_runs))
        fig = {"records": n, "yaml_mb": round(mb, 1), "kb_wall_s": round(kw, 2),
               "kb_rss_mib": round(kr), "kb_mb_s": round(mb / kw, 1),
               "sqlite_wall_s": round(sw, 2), "sqlite_rss_mib": round(sr),
               "wall_ratio": round(kw / sw, 2), "rss_ratio": round(kr / sr, 2),
               "kb_cpu_s": round(kc, 2), "sqlite_cpu_s": round(sc, 2),
               "cpu_ratio": round(kc / sc, 2), "load": b.loadavg(),
               "kb_db_mb": round(os.path.getsize(kdb) / 1e6, 1),
               "sqlite_db_mb": round(os.path.getsize(sdb) / 1e6, 1)}
        saved[str(n)] = fig
        rows.append([n, fig["yaml_mb"], fig["kb_wall_s"], fig["kb_cpu_s"], fig["kb_rss_mib"],
                     fig["kb_mb_s"], fig["sqlite_wall_s"], fig["sqlite_cpu_s"], fig["sqlite_rss_mib"],
                     "%.2fx" % fig["wall_ratio"], "%.2fx" % fig["cpu_ratio"],
                     "%.2fx" % fig["rss_ratio"], fig["load"]])
    b.table(["records", "YAML MB", "kb build s", "kb CPU s", "kb peak MiB", "kb MB/s",
             "sqlite3 s", "sqlite3 CPU s", "sqlite3 peak MiB", "wall kb/sqlite3",
             "CPU kb/sqlite3", "RSS kb/sqlite3", "load avg"], rows)
    b.save("build", saved)


if __name__ == "__main__":
    main()
