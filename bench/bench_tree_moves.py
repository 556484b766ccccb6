#!/usr/bin/env python3
"""Live reload when the tree itself moves: `kb serve --records` over a generated tree.

    bench_tree_moves.py [N]          default: 10000

1. idle CPU of the server (its own utime + stime over 5 s, so a busy machine does not
   count), before anything moves;
2. the root swapped (`mv records records.old; mv records.new records`): how long until
   the new tree is served, and idle CPU 5 s later (a watcher stuck polling shows here);
3. the biggest subfolder (gotchas/, ~83% of the records) moved out of the tree: how long
   until its records are gone from /api/v1/gotchas, then moved back: until they return.

KB=path/to/kb selects the binary (default build-g/cli/kb).
"""
import json
import os
import shutil
import sys
import time

import benchlib as b

IDLE_SECONDS = 5


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu_percent(server):
    # After the reload that served a change has finished its follow-up work (a binary
    # without the reload state gets 3 s for that).
    t0 = time.time()
    while time.time() - t0 < 60:
        health = json.loads(b.get(server.port, "/healthz")[1])
        if "reload" not in health:
            time.sleep(3)
            break
        if health["reload"]["state"] == "idle":
            break
        time.sleep(0.05)
    c0 = cpu_seconds(server.proc.pid)
    time.sleep(IDLE_SECONDS)
    return round(100 * (cpu_seconds(server.proc.pid) - c0) / IDLE_SECONDS, 1)


def wait_until(server, path, pred, limit=120):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < limit:
        status, body = b.get(server.port, path)
        if status == 200 and pred(json.loads(body)):
            return round((time.perf_counter() - t0) * 1000)
        time.sleep(0.005)
    raise RuntimeError("%s: condition not met within %d s" % (path, limit))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    b.need(b.KB)
    src, _ = b.corpus(n)
    tree = os.path.join(b.WORK, "moves-tree")
    for d in (tree, tree + ".old", tree + ".new", tree + "-gotchas"):
        shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(src, "records"), tree)
    shutil.copytree(os.path.join(src, "records"), tree + ".new")
    server = b.kb_serve(records=tree)
    out = {"records": n}
    try:
        total = json.loads(b.get(server.port, "/api/v1/gotchas?limit=0")[1])["total"]
        out["idle_cpu_pct_before"] = idle_cpu_percent(server)

        engine = sorted(os.listdir(os.path.join(tree, "engines")))[0][:-len(".yaml")]
        probe = os.path.join(tree + ".new", "engines", engine + ".yaml")
        with open(probe) as f:
            lines = f.read().split("\n")
        with open(probe, "w") as f:
            f.write("\n".join("name: From the new tree" if ln.startswith("name:") else ln
                              for ln in lines))
        c0 = cpu_seconds(server.proc.pid)
        os.rename(tree, tree + ".old")
        os.rename(tree + ".new", tree)
        out["root_swap_served_ms"] = wait_until(
            server, "/api/v1/engines/" + engine, lambda j: j.get("name") == "From the new tree")
        out["root_swap_cpu_s"] = round(cpu_seconds(server.proc.pid) - c0, 2)
        out["idle_cpu_pct_after_root_swap"] = idle_cpu_percent(server)
        health = json.loads(b.get(server.port, "/healthz")[1])
        out["watching_after_root_swap"] = health["watching"]

        c0 = cpu_seconds(server.proc.pid)
        os.rename(os.path.join(tree, "gotchas"), tree + "-gotchas")
        out["subfolder_away_gone_ms"] = wait_until(
            server, "/api/v1/gotchas?limit=0", lambda j: j["total"] == 0)
        c1 = cpu_seconds(server.proc.pid)
        os.rename(tree + "-gotchas", os.path.join(tree, "gotchas"))
        out["subfolder_back_served_ms"] = wait_until(
            server, "/api/v1/gotchas?limit=0", lambda j: j["total"] == total)
        c2 = cpu_seconds(server.proc.pid)
        out["subfolder_away_cpu_s"] = round(c1 - c0, 2)
        out["subfolder_back_cpu_s"] = round(c2 - c1, 2)
        out["idle_cpu_pct_after_moves"] = idle_cpu_percent(server)
    finally:
        server.stop()
    b.log(json.dumps(out))
    b.save("tree_moves", out)


if __name__ == "__main__":
    main()
