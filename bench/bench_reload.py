#!/usr/bin/env python3
"""Incremental reload: time from a record file written (closed) to the API serving the
change, with `kb serve --records` watching a 10k and a 100k tree.

    bench_reload.py [SIZES...]       default: 10000 100000

Each edit rewrites one gotcha's title to a fresh token (atomically: write a temp file in
the same directory, rename over); the clock stops at the first GET of that record whose
body holds the token. Polling uses one kept-alive connection, back to back (~1 ms).
The peer is the same server's GET of an unchanged record (no reload cost): the floor.
Target: < 300 ms at 100k records.
"""
import http.client
import json
import os
import shutil
import sys
import time

import benchlib as b

EDITS = 7


def edit_once(tree, slug, token):
    path = os.path.join(tree, "gotchas", slug + ".yaml")
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    lines = [("title: %s" % json.dumps("Reload probe " + token)) if ln.startswith("title:") else ln
             for ln in lines]
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.rename(tmp, path)


def measure(n):
    src, man = b.corpus(n)
    tree = os.path.join(b.WORK, "reload-tree")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    shutil.copytree(os.path.join(src, "records"), tree)
    slug = man["probe_gotcha"].split("/", 1)[1]
    t0 = time.perf_counter()
    server = b.kb_serve(records=tree)
    startup = time.perf_counter() - t0
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    url = "/api/v1/gotchas/" + slug
    lat = []
    try:
        for i in range(EDITS):
            token = "tok%d%d" % (n, i)
            edit_once(tree, slug, token)
            t = time.perf_counter()
            deadline = t + 30
            while time.perf_counter() < deadline:
                status, body = b.get(server.port, url, conn=conn)
                if status == 200 and token.encode() in body:
                    break
            else:
                raise RuntimeError("edit %s not served within 30 s" % token)
            lat.append((time.perf_counter() - t) * 1000)
            time.sleep(0.5)  # let the watcher settle before the next edit
        floor = []
        for _ in range(50):
            t = time.perf_counter()
            b.get(server.port, url, conn=conn)
            floor.append((time.perf_counter() - t) * 1000)
        rss = server.rss_mib()
    finally:
        conn.close()
        server.stop()
    b.log("n=%d reload ms %s" % (n, ["%.0f" % x for x in lat]))
    return {"records": n, "startup_s": round(startup, 2), "median_ms": round(b.median(lat), 1),
            "max_ms": round(max(lat), 1), "get_ms": round(b.median(floor), 2),
            "rss_mib": round(rss), "edits": EDITS}


def main():
    b.need(b.KB)
    sizes = [int(s) for s in sys.argv[1:]] or [10000, 100000]
    rows, saved = [], {}
    for n in sizes:
        fig = measure(n)
        saved[str(n)] = fig
        rows.append([n, fig["median_ms"], fig["max_ms"], fig["get_ms"],
                     "%.0fx" % (fig["median_ms"] / max(fig["get_ms"], 0.01)), fig["startup_s"]])
    b.table(["records", "edit->served median ms", "max ms", "GET unchanged ms (floor)",
             "ratio", "server start s"], rows)
    b.save("reload", saved)


if __name__ == "__main__":
    main()
