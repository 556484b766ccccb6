"""Shared helpers of the benchmark scripts: corpora, timing, servers, wrk, reporting.

Environment: KB (the kb binary, default build-g/cli/kb, a Release build), BENCH_WORK
(scratch directory, default /tmp/kb-bench), RUNS (repetitions, default 3, at least 3).
Every network call is to 127.0.0.1.
"""
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB = os.environ.get("KB", os.path.join(REPO, "build-g", "cli", "kb"))
WORK = os.environ.get("BENCH_WORK", "/tmp/kb-bench")
RUNS = max(3, int(os.environ.get("RUNS", "3")))
# The generator's corpus is dated for this day; KB_TODAY measures at another (verifications
# older than 90 days before it are stale, and each stale one is a warning the server holds).
TODAY = os.environ.get("KB_TODAY", "2026-10-04")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def need(tool):
    if shutil.which(tool) is None and not os.path.exists(tool):
        sys.exit("missing %s: run bench/deps.sh (and build kb in Release into build-g)" % tool)


def corpus(n, typo_rate=0.0, seed=1):
    """The generated corpus of n records (cached under WORK); returns (dir, manifest)."""
    d = os.path.join(WORK, "corpus-%d-%g-%d" % (n, typo_rate, seed))
    man = os.path.join(d, "manifest.json")
    if not os.path.exists(man):
        log("generating %d records into %s" % (n, d))
        subprocess.run([sys.executable, os.path.join(REPO, "bench", "gen_corpus.py"),
                        "--records", str(n), "--out", d, "--seed", str(seed),
                        "--typo-rate", str(typo_rate)], check=True)
    with open(man) as f:
        return d, json.load(f)


def timed(cmd, ok=(0,), **kw):
    """Runs cmd under /usr/bin/time -v; returns (wall s, peak RSS MiB, CPU s = user + sys).
    CPU time is reported beside wall time because the machine may be shared: it is what
    the work costs whatever else runs. An exit status outside `ok` fails."""
    stats = os.path.join(WORK, "time-v.txt")
    t0 = time.perf_counter()
    kw.setdefault("stdout", subprocess.DEVNULL)
    r = subprocess.run(["/usr/bin/time", "-v", "-o", stats] + cmd, **kw)
    if r.returncode not in ok:
        sys.exit("%s exited %d" % (" ".join(cmd), r.returncode))
    wall = time.perf_counter() - t0
    with open(stats) as f:
        text = f.read()
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    cpu = sum(float(re.search(r"%s time \(seconds\): ([\d.]+)" % k, text).group(1))
              for k in ("User", "System"))
    return wall, rss_kb / 1024.0, cpu


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def median(xs):
    return statistics.median(xs)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_mib(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def nodelay_shim():
    """bench/nodelay_shim.c built into WORK: LD_PRELOAD it to set TCP_NODELAY on accepted
    sockets (KB_NODELAY_SHIM=1 measures kb serve as it would be with that fix)."""
    so = os.path.join(WORK, "nodelay_shim.so")
    if not os.path.exists(so):
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", so,
                        os.path.join(REPO, "bench", "nodelay_shim.c"), "-ldl"], check=True)
    return so


class Server:
    """`kb serve` (or any command) on 127.0.0.1:port, waited for until /healthz answers."""

    def __init__(self, args, port, health="/healthz", timeout=600, env=None):
        self.port = port
        self.log = open(os.path.join(WORK, "server-%d.log" % port), "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited: %s" % " ".join(args))
            try:
                status, _ = get(port, health)
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not come up: %s" % " ".join(args))

    def rss_mib(self, field="VmRSS"):
        return rss_mib(self.proc.pid, field)

    def tree_rss_mib(self):
        """RSS of the process and its children (nginx's workers)."""
        kids = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True,
                              text=True).stdout.split()
        return self.rss_mib() + sum(rss_mib(int(k)) for k in kids)

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.proc.pid))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def get(port, path, conn=None, method="GET", body=None, headers=None):
    """One request on a (possibly kept-alive) connection; returns (status, bytes)."""
    own = conn is None
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        if own:
            c.close()


def kb_serve(records=None, db=None, port=None, extra=()):
    port = port or free_port()
    args = [KB, "serve", "--host", "127.0.0.1", "--port", str(port), "--today", TODAY]
    args += ["--records", records] if records else ["--db", db]
    env = None
    if os.environ.get("KB_NODELAY_SHIM") == "1":
        env = dict(os.environ, LD_PRELOAD=nodelay_shim())
    return Server(args + list(extra), port, env=env)


def kb_serve_timed(kb, db):
    """`kb serve --db DB` with binary `kb` (made the module's KB), and the seconds it took
    to answer."""
    global KB
    KB = kb
    t0 = time.perf_counter()
    srv = kb_serve(db=db)
    return srv, time.perf_counter() - t0


def wrk(url, conns, seconds=10, script=None, threads=2):
    """wrk's requests/s, p99 (ms) and non-2xx count for one run."""
    cmd = ["wrk", "-t%d" % threads, "-c%d" % conns, "-d%ds" % seconds, "--latency", url]
    if script:
        cmd[1:1] = ["-s", script]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)\b", out)
    scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p99_ms": float(p99.group(1)) * scale,
            "non2xx": int(bad.group(1)) if bad else 0,
            "socket_errors": errors.group(1) if errors else ""}


def wrk_median(url, conns, seconds=10, script=None):
    runs = [wrk(url, conns, seconds, script) for _ in range(RUNS)]
    return {"rps": median([r["rps"] for r in runs]), "p99_ms": median([r["p99_ms"] for r in runs]),
            "non2xx": sum(r["non2xx"] for r in runs),
            "socket_errors": "; ".join(r["socket_errors"] for r in runs if r["socket_errors"])}


def save(name, data):
    """Adds one benchmark's figures to WORK/results.json (a KB_NODELAY_SHIM=1 run is saved
    as NAME_nodelay)."""
    if os.environ.get("KB_NODELAY_SHIM") == "1":
        name += "_nodelay"
    path = os.path.join(WORK, "results.json")
    allres = {}
    if os.path.exists(path):
        with open(path) as f:
            allres = json.load(f)
    allres[name] = data
    with open(path, "w") as f:
        json.dump(allres, f, indent=1)


def table(header, rows):
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(str(c) for c in r) + " |")
    sys.stdout.flush()


os.makedirs(WORK, exist_ok=True)
