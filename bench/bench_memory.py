#!/usr/bin/env python3
"""Serving memory and start time, `--records` and `--db`, of one or two kb binaries in one
run (the second is the build before a change: compare them side by side).

    bench_memory.py [RECORDS]          default: 100000
    KB_BASE=/path/to/older/kb bench_memory.py 100000

For each binary: `kb build` of the generated tree (wall, peak RSS), then `kb serve
--records` and `kb serve --db` on it: seconds until /healthz answers, RSS idle, and RSS
after a walk that asks for 2,000 distinct records' JSON and pages, 200 searches and the
generator's deployment check (each record's answer is built once per snapshot and kept,
so a walk over many records is what makes a server grow). Peer: the index file's size.
"""
import json
import os
import random
import sys
import time

import benchlib as b


def walk(port, man, ids):
    body = json.dumps(man["deployment"]) if "deployment" in man else None
    for i, rid in enumerate(ids):
        status, _ = b.get(port, "/api/v1/" + rid)
        assert status == 200, (rid, status)
        if i % 4 == 0:
            status, _ = b.get(port, "/" + rid)
            assert status == 200, (rid, status)
    for w in ["layout", "cache", "cuda", "prefill", "leak", "hang", "timeout", "rdma"] * 25:
        status, _ = b.get(port, "/api/v1/search?q=" + w)
        assert status == 200, (w, status)
    if body:
        status, _ = b.get(port, "/api/v1/check", method="POST", body=body.encode(),
                          headers={"Content-Type": "application/json"})
        assert status == 200, status


def measure(kb, d, man, ids):
    b.KB = kb
    db = os.path.join(b.WORK, "memory.db")
    wall, peak, cpu = b.timed([kb, "build", "--records", os.path.join(d, "records"), "--db", db,
                               "--today", b.TODAY])
    out = {"build_s": round(wall, 1), "build_cpu_s": round(cpu, 1), "build_peak_mib": round(peak),
           "db_mib": round(os.path.getsize(db) / 2**20)}
    for mode, kw in (("records", {"records": os.path.join(d, "records")}), ("db", {"db": db})):
        t0 = time.perf_counter()
        s = b.kb_serve(**kw)
        start = time.perf_counter() - t0
        time.sleep(2)
        idle = s.rss_mib()
        try:
            walk(s.port, man, ids)
            after = s.rss_mib()
            peak_rss = s.rss_mib("VmHWM")
        finally:
            s.stop()
        out[mode] = {"start_s": round(start, 1), "rss_idle_mib": round(idle),
                     "rss_after_mib": round(after), "rss_peak_mib": round(peak_rss)}
    return out


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    d, man = b.corpus(n)
    rng = random.Random(7)
    files = []
    for ns in ("gotchas", "engines", "oracles"):
        for f in os.listdir(os.path.join(d, "records", ns)):
            files.append(ns + "/" + f.rsplit(".", 1)[0])
    ids = rng.sample(sorted(files), min(2000, len(files)))
    kbs = [("kb", b.KB)]
    if os.environ.get("KB_BASE"):
        kbs.append(("base", os.environ["KB_BASE"]))
    rows, saved = [], {"records": n, "load": b.loadavg()}
    for name, kb in kbs:
        b.log("measuring %s (%s), load %.1f" % (name, kb, b.loadavg()))
        m = measure(kb, d, man, ids)
        saved[name] = m
        for mode in ("records", "db"):
            rows.append([name, mode, m[mode]["start_s"], m[mode]["rss_idle_mib"],
                         m[mode]["rss_after_mib"], m[mode]["rss_peak_mib"], m["db_mib"],
                         m["build_s"], m["build_peak_mib"]])
    b.table(["kb", "serve", "start s", "RSS idle MiB", "RSS after walk MiB", "peak MiB",
             "index MiB", "build s", "build peak MiB"], rows)
    print("\nload average at the end: %.1f" % b.loadavg())
    b.save("memory", saved)


if __name__ == "__main__":
    main()
