#!/usr/bin/env python3
"""Soak test: `kb serve` on a 10k-record tree under wrk load for 60 s while 200 edits land
(valid, broken, repaired, deleted, new), then a kill -9 during `kb build`.

    soak.py [--records 10000] [--seconds 60] [--edits 200]

Passes (exit 0) when all of these hold:
- zero 5xx, counted by status class over every wrk response (bench/soak.lua) and every
  checker request;
- every response comes from one whole snapshot. The script models the tree: after each
  edit it computes the content hash kb gives that state (a sum of FNV-1a shares, one per file: its path,
  bytes hash and stale flag, as kb/src/corpus/corpus.cpp does), so each ETag names one tree
  state. Two checker threads poll the edited records and require, per response: the
  JSON `snapshot` field (lists, search) equal to the ETag header; the same body for the
  same ETag and URL; a known ETag's record body to carry exactly that state's title and
  stale flag (404 when the state has no such record); and per thread, states never going
  backwards; every search hit of an edited record to carry that state's title. Search
  answers under one ETag may still differ in which hits and ranks come back
  (`search_drift`, counted): the FTS index is shared by snapshots and synced ahead of
  the one serving, so bm25 statistics move and hits changed since are dropped. An ETag
  naming no state (a reload that read the tree while an edit
  landed) is counted and reported, not failed: that is a filesystem race, not a mixed
  snapshot;
- RSS and open fds back to their starting level. Start = after a 10 s warm-up under the
  same load with ten edits, two of each kind (thread stacks, SQLite page cache, malloc arenas and the
  buffers of a reload are allocated by then);
  end = 5 s after the load stops. Fds must match, except that the server's pool of
  read connections to its own FTS index (search.db and its -wal, at most one per
  request served at once: 16 wrk connections + 2 checkers, 36 fds) may have grown to
  the concurrency it met; any
  other fd left open (socket, record file) fails. RSS may exceed the start by max(32 MiB, 25 %): glibc keeps freed memory in
  per-thread arenas instead of returning it, and one snapshot at 10k is ~30 MiB, so two
  snapshots alive at once at the end of a reload is the expected ceiling; a leak of one
  snapshot per edit (200 x ~30 MiB) would exceed it many times over;
- `PRAGMA integrity_check` is ok on every index built: a `kb build` runs beside the
  load every 40 edits (a build that meets a broken file must fail and write nothing),
  and the server's own FTS index is checked at the end;
- kill -9 during `kb build` at several points leaves the previous index byte-identical
  (or, when the kill lands after the build renamed its finished file into place, that
  new index whole)
  and readable.
Everything is on 127.0.0.1; every loop is bounded by a deadline.
"""
import argparse
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter

import benchlib as b

OFFSET = 1469598103934665603  # kb's text::fnv1a seed (kb/src/core/text_util.h)
WRK_CONNS = 16  # wrk connections of the load; each request served at once may hold a search.db reader


def fnv1a(data, h=OFFSET):
    for c in data:
        h ^= c
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def title_of(data):
    m = re.search(rb"^title: (.*)$", data, re.M)
    return json.loads(m.group(1)) if m else None


class Model:
    """The record tree as kb sees it: per file, current bytes and the last good bytes."""

    def __init__(self, root):
        self.root = root
        self.cur, self.good = {}, {}
        self.good_since = {}
        for dirpath, _, files in os.walk(root):
            for f in files:
                if f.endswith(".yaml"):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    with open(os.path.join(dirpath, f), "rb") as fh:
                        self.cur[rel] = self.good[rel] = fh.read()
                    self.good_since[rel] = 0.0
        self.file_hash = {rel: "%016x" % fnv1a(v) for rel, v in self.good.items()}
        self.broken = set()

    def content_hash(self):
        # kb/src/corpus/corpus.cpp: a seed plus one share per file, summed mod 2^64.
        total = fnv1a(b"kb-corpus-v2")
        for rel in self.cur:
            h = fnv1a(rel.encode())
            if rel in self.broken:
                rec = self.file_hash.get(rel) if rel in self.good else None
                h = fnv1a((rec or "-").encode(), h)
                h = fnv1a(b"s" if rec else b"f", h)
            else:
                h = fnv1a(self.file_hash[rel].encode(), h)
                h = fnv1a(b"f", h)
            total = (total + h) & 0xFFFFFFFFFFFFFFFF
        return "%016x" % total

    def write(self, rel, data, valid):
        path = os.path.join(self.root, rel)
        tmp = os.path.join(os.path.dirname(path), ".soak.tmp")
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, path)
        self.cur[rel] = data
        if valid:
            self.good[rel] = data
            self.file_hash[rel] = "%016x" % fnv1a(data)
            self.good_since[rel] = time.time()
            self.broken.discard(rel)
        else:
            self.broken.add(rel)

    def delete(self, rel):
        os.remove(os.path.join(self.root, rel))
        for d in (self.cur, self.good, self.file_hash, self.good_since):
            d.pop(rel, None)
        self.broken.discard(rel)

    def view(self, rels):
        """(title, stale) of each file in rels as the server should show it; None if absent."""
        out = {}
        for rel in rels:
            if rel not in self.cur or (rel in self.broken and rel not in self.good):
                out[rel] = None
            else:
                out[rel] = (title_of(self.good[rel]), rel in self.broken)
        return out


def set_title(data, title):
    return re.sub(rb"^title: .*$", ("title: " + json.dumps(title)).encode(), data, count=1,
                  flags=re.M)


def unreferenced_gotchas(root, want):
    """Gotchas no other record names: deleting them leaves no dangling reference."""
    named = set()
    for dirpath, _, files in os.walk(root):
        for f in files:
            with open(os.path.join(dirpath, f), "rb") as fh:
                text = re.sub(rb"^id: .*$", b"", fh.read(), count=1, flags=re.M)
                for m in re.finditer(rb"gotchas/([a-z0-9.-]+)", text):
                    named.add(m.group(1).decode())
    free = sorted(f[:-5] for f in os.listdir(os.path.join(root, "gotchas"))
                  if f[:-5] not in named)
    return ["gotchas/%s.yaml" % s for s in free[:want]]


class Soak:
    def __init__(self, args):
        self.threads = args.threads
        self.args = args
        src, self.man = b.corpus(args.records)
        self.tree = os.path.join(b.WORK, "soak-tree")
        if os.path.exists(self.tree):
            shutil.rmtree(self.tree)
        shutil.copytree(os.path.join(src, "records"), self.tree)
        self.model = Model(self.tree)
        self.pool = unreferenced_gotchas(self.tree, 40)
        self.watched = list(self.pool)
        self.lock = threading.Lock()
        self.edit_lock = threading.Lock()
        self.states = {}  # content hash -> (state index, view of watched files)
        self.failures, self.unmatched, self.checked = [], 0, 0
        self.builds = []
        self.stop = threading.Event()
        self.checker_5xx = 0
        self.untagged_404 = 0
        self.search_drift = []
        self.record_state()

    def record_state(self):
        h = self.model.content_hash()
        with self.lock:
            if h not in self.states:
                self.states[h] = (len(self.states), self.model.view(self.watched))

    def fail(self, msg):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(msg)

    # -- the editor -------------------------------------------------------------------
    def edit(self, k, op, rng):
        m = self.model
        valid = [r for r in self.pool if r in m.cur and r not in m.broken]
        if op == "valid" and valid:
            rel = rng.choice(valid)
            m.write(rel, set_title(m.cur[rel], "Soak edit %d" % k), True)
        elif op == "broken":
            settled = [r for r in valid if time.time() - m.good_since[r] > 1.5]
            if not settled:
                return "skipped"
            rel = rng.choice(settled)
            m.write(rel, m.cur[rel] + b"\nsymptom: [unclosed\n", False)
        elif op == "repaired" and m.broken:
            rel = sorted(m.broken)[0]
            m.write(rel, set_title(m.good[rel], "Soak repaired %d" % k), True)
        elif op == "deleted" and len(valid) > 5:
            rel = rng.choice(valid)
            m.delete(rel)
            self.pool.remove(rel)
        elif op == "new":
            rel = "gotchas/soak-new-%d.yaml" % k
            template = m.good[self.watched[0]] if self.watched[0] in m.good else None
            template = template or next(iter(m.good.values()))
            data = re.sub(rb"^id: .*$", b"id: gotchas/soak-new-%d" % k, template, count=1, flags=re.M)
            with self.lock:
                self.watched.append(rel)
            m.write(rel, set_title(data, "Soak new %d" % k), True)
            self.pool.append(rel)
        else:
            return "skipped"
        self.record_state()
        return op

    def warm_up_edits(self):
        """Ten edits under the warm-up load, two of each kind, so every reload path has
        run before the start level is taken: its buffers (two snapshots alive during a
        swap, the FTS sync, and, for a record added or deleted, a rebuilt name index:
        ~100 MiB once at 10k, while a title edit reuses it) are then part of the
        baseline and what follows measures growth per edit."""
        rng = random.Random(3)
        ops = ["valid", "broken", "repaired", "deleted", "new"]
        for k in range(10):
            with self.edit_lock:
                self.edit(1000 + k, ops[k % len(ops)], rng)
            time.sleep(0.8)

    def editor(self):
        rng = random.Random(7)
        ops = ["valid", "broken", "repaired", "deleted", "new"]
        interval = (self.args.seconds - 8) / self.args.edits
        start = time.time()
        done = {}
        for k in range(self.args.edits):
            time.sleep(max(0.0, start + k * interval - time.time()))
            with self.edit_lock:
                op = self.edit(k, ops[k % len(ops)], rng)
            done[op] = done.get(op, 0) + 1
            if k % 40 == 39:
                threading.Thread(target=self.build, args=(k,)).start()
        self.ops = done

    def build(self, k):
        """`kb build` of the tree as it is after edit k (copied with edits paused for a
        moment, so a later broken edit cannot fail it), then integrity_check of the index."""
        db = os.path.join(b.WORK, "soak-build-%d.db" % k)
        copy = os.path.join(b.WORK, "soak-build-tree-%d" % k)
        for p in (db, copy):
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
        with self.edit_lock:
            shutil.copytree(self.tree, copy, ignore=shutil.ignore_patterns(".soak.tmp"))
        r = subprocess.run([b.KB, "build", "--records", copy, "--db", db, "--today",
                            b.TODAY], capture_output=True, text=True)
        shutil.rmtree(copy)
        ok = None
        if r.returncode == 0:
            ok = integrity(db)
            if not ok:
                self.fail("index %s fails integrity_check" % db)
        elif os.path.exists(db):
            self.fail("failed build %d left %s behind" % (k, db))
        with self.lock:
            self.builds.append({"after_edit": k, "exit": r.returncode, "integrity_ok": ok})

    # -- the checkers -----------------------------------------------------------------
    def checker(self, seed):
        rng = random.Random(seed)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        seen_bodies = {}
        last_state = -1
        deadline = time.time() + self.args.seconds + 30
        while not self.stop.is_set() and time.time() < deadline:
            with self.lock:
                rel = rng.choice(self.watched)
            if rng.random() < 0.2:
                path = "/api/v1/search?q=soak"
            else:
                path = "/api/v1/gotchas/" + rel[len("gotchas/"):-len(".yaml")]
            try:
                conn.request("GET", path)
                r = conn.getresponse()
                body = r.read()
            except (OSError, http.client.HTTPException) as e:
                self.fail("checker request %s failed: %s" % (path, e))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                continue
            if r.status >= 500:
                with self.lock:
                    self.checker_5xx += 1
                continue
            etag = (r.getheader("ETag") or "").strip('"')
            if not etag and r.status == 404:
                # Errors carry no ETag, so a 404 cannot be tied to a snapshot: counted only.
                with self.lock:
                    self.untagged_404 += 1
                continue
            if not etag:
                self.fail("%s %d without an ETag" % (path, r.status))
                continue
            key = (etag, path)
            digest = hashlib.sha256(body).hexdigest()
            doc = json.loads(body)
            if seen_bodies.setdefault(key, (digest, doc))[0] != digest:
                if path.startswith("/api/v1/search"):
                    # Counted, not failed: see `search_drift` in the module docstring.
                    with self.lock:
                        self.search_drift.append(describe(seen_bodies[key][1], doc))
                else:
                    self.fail("two bodies for %s under ETag %s: %s" % (
                        path, etag, describe(seen_bodies[key][1], doc)))
            if "snapshot" in doc and doc["snapshot"] != etag:
                self.fail("%s: body snapshot %s, ETag %s" % (path, doc["snapshot"], etag))
            with self.lock:
                self.checked += 1
                state = self.states.get(etag)
                if state is None:
                    self.unmatched += 1
                    continue
            index, view = state
            if index < last_state:
                self.fail("%s: state %d after state %d" % (path, index, last_state))
            last_state = index
            if path.startswith("/api/v1/search"):
                for hit in doc.get("hits", []):
                    hrel = hit.get("id", "") + ".yaml"
                    if hrel in view and (view[hrel] is None or view[hrel][0] != hit.get("title")):
                        self.fail("search hit %s in state %d: title %r, state has %r"
                                  % (hit.get("id"), index, hit.get("title"), view[hrel]))
                continue
            if rel not in view:
                continue
            want = view[rel]
            if want is None:
                if r.status != 404:
                    self.fail("%s in state %d: %d, expected 404" % (path, index, r.status))
            elif r.status != 200:
                self.fail("%s in state %d: %d, expected 200" % (path, index, r.status))
            elif (doc.get("title"), doc.get("stale")) != want:
                self.fail("%s in state %d: title/stale %r, expected %r"
                          % (path, index, (doc.get("title"), doc.get("stale")), want))
        conn.close()

    # -- the run ----------------------------------------------------------------------
    def requests_file(self):
        lines = ["GET /api/v1/gotchas/" + r[len("gotchas/"):-5] for r in self.pool[:10]]
        lines += ["GET /api/v1/gotchas/" + self.man["probe_gotcha"].split("/", 1)[1],
                  "GET /api/v1/gotchas?limit=20", "GET /api/v1/gotchas?severity=major&limit=5",
                  "GET /api/v1/search?q=" + self.man["search_term"], "GET /api/v1/search?q=soak",
                  "POST /api/v1/check", "GET /api/v1/" + self.man["probe_engine"],
                  "GET /healthz", "GET /api/v1/gotchas/no-such-record"]
        path = os.path.join(b.WORK, "soak-requests.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        body = os.path.join(b.WORK, "deployment.json")
        with open(body, "w") as f:
            json.dump({"engines": [{"engine": self.man["probe_engine"].split("/", 1)[1],
                                    "version": "0.26.0"}],
                       "config": {"kv_transfer": "pd", "prefix_caching": "true"}}, f)
        return path, body

    def wrk(self, seconds, conns=None):
        conns = conns or WRK_CONNS
        reqs, body = self.requests_file()
        env = dict(os.environ, KB_SOAK_REQUESTS=reqs, KB_BENCH_BODY=body)
        return subprocess.Popen(
            ["wrk", "-t2", "-c%d" % conns, "-d%ds" % seconds, "--latency", "-s",
             os.path.join(b.REPO, "bench", "soak.lua"), "http://127.0.0.1:%d/" % self.port],
            stdout=subprocess.PIPE, text=True, env=env)

    def run(self):
        extra = ["--threads", str(self.threads)] if self.threads else []
        server = b.kb_serve(records=self.tree, extra=extra)
        self.port = server.port
        report = {}
        try:
            initial = (b.get(self.port, "/api/v1/gotchas?limit=1")[1])
            served = json.loads(initial)["snapshot"]
            expected = self.model.content_hash()
            report["hash_model_matches"] = served == expected
            if served != expected:
                self.fail("initial snapshot %s, model says %s: the model does not match kb's "
                          "content hash, so state checks cannot match" % (served, expected))
            warm = self.wrk(10)
            self.warm_up_edits()
            warm.communicate()
            time.sleep(3)
            start_rss, start_fds = server.rss_mib(), server.fds()
            start_fd_list = fd_targets(server.proc.pid)
            load = self.wrk(self.args.seconds)
            threads = [threading.Thread(target=self.checker, args=(s,)) for s in (1, 2)]
            editor = threading.Thread(target=self.editor)
            for t in threads + [editor]:
                t.start()
            out, _ = load.communicate(timeout=self.args.seconds + 60)
            editor.join(timeout=120)
            self.stop.set()
            for t in threads:
                t.join(timeout=60)
            time.sleep(5)
            end_rss, end_fds = server.rss_mib(), server.fds()
            end_fd_list = fd_targets(server.proc.pid)
            report["fds_opened"] = sorted((Counter(end_fd_list) - Counter(start_fd_list)).elements())
            report["fds_closed"] = sorted((Counter(start_fd_list) - Counter(end_fd_list)).elements())
            time.sleep(10)
            report["rss_mib_after_15s"] = round(server.rss_mib(), 1)
            fxx = re.search(r"5xx=(\d+)", out)
            report["wrk"] = {
                "requests": int(re.search(r"(\d+) requests in", out).group(1)),
                "status": re.search(r"status (.*)", out).group(1),
                "p99": re.search(r"99%\s+(\S+)", out).group(1),
                "socket_errors": (re.search(r"Socket errors: (.*)", out) or [None, ""])[1]}
            report["fivexx"] = int(fxx.group(1)) + self.checker_5xx
            report["rss_mib"] = [round(start_rss, 1), round(end_rss, 1)]
            report["fds"] = [start_fds, end_fds]
            report["server_index_integrity"] = self.server_index_ok(server)
        finally:
            server.stop()
        report.update({"edits": self.ops, "states": len(self.states), "checked": self.checked,
                       "unmatched_etags": self.unmatched, "untagged_404": self.untagged_404,
                       "search_drift": len(self.search_drift),
                       "search_drift_examples": self.search_drift[:3],
                       "builds": self.builds,
                       "malloc_arena_max": os.environ.get("MALLOC_ARENA_MAX", "")})
        tolerance = max(32.0, 0.25 * report["rss_mib"][0])
        verdicts = {
            "zero 5xx": report["fivexx"] == 0,
            "whole snapshots": not self.failures and self.checked > 0,
            "fds back": not report["fds_closed"] and all(
                os.path.basename(f).startswith("search.db") for f in report["fds_opened"])
            and len(report["fds_opened"]) <= 2 * (WRK_CONNS + 2),
            "RSS back (+%.0f MiB)" % tolerance: report["rss_mib"][1] <= report["rss_mib"][0] + tolerance,
            "integrity of every index": report["server_index_integrity"] is not False and all(
                x["integrity_ok"] for x in self.builds if x["exit"] == 0)
            and any(x["exit"] == 0 for x in self.builds),
        }
        return report, verdicts

    def server_index_ok(self, server):
        """integrity_check of the SQLite files the server holds open (its FTS index)."""
        fd_dir = "/proc/%d/fd" % server.proc.pid
        dbs = set()
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.startswith("/") and not target.endswith(("-wal", "-shm", "-journal")) \
                    and os.path.isfile(target) and open(target, "rb").read(16) == b"SQLite format 3\0":
                dbs.add(target)
        if not dbs:
            return None
        return all(integrity(d) for d in dbs)


def describe(a, b):
    """What differs between two JSON answers: hit ids for search, else the keys."""
    if "hits" in a and "hits" in b:
        ia, ib = [h.get("id") for h in a["hits"]], [h.get("id") for h in b["hits"]]
        return "hits only in first %s, only in second %s" % (
            sorted(set(ia) - set(ib)), sorted(set(ib) - set(ia)))
    return "keys differing: %s" % sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def fd_targets(pid):
    out = []
    for fd in sorted(os.listdir("/proc/%d/fd" % pid), key=int):
        try:
            out.append(os.readlink("/proc/%d/fd/%s" % (pid, fd)))
        except OSError:
            pass
    return out


def integrity(db):
    r = subprocess.run(["sqlite3", "-readonly", db, "PRAGMA integrity_check;"],
                       capture_output=True, text=True)
    return r.returncode == 0 and r.stdout.strip() == "ok"


def meta_hash(db):
    r = subprocess.run(["sqlite3", "-readonly", db,
                        "SELECT value FROM meta WHERE key='content_hash';"],
                       capture_output=True, text=True)
    return r.stdout.strip()


def kill9_during_build(n):
    """Builds an index, then kills later builds of a changed tree at several points."""
    src, man = b.corpus(n)
    tree = os.path.join(b.WORK, "kill9-tree")
    if os.path.exists(tree):
        shutil.rmtree(tree)
    shutil.copytree(os.path.join(src, "records"), tree)
    dbdir = os.path.join(b.WORK, "kill9")
    if os.path.exists(dbdir):
        shutil.rmtree(dbdir)
    os.makedirs(dbdir)
    db = os.path.join(dbdir, "kb.db")
    cmd = [b.KB, "build", "--records", tree, "--db", db, "--today", b.TODAY]
    t0 = time.time()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    full = time.time() - t0
    with open(db, "rb") as f:
        before = hashlib.sha256(f.read()).hexdigest()
    probe = os.path.join(tree, man["probe_gotcha"] + ".yaml")
    with open(probe, "rb") as f:
        data = f.read()
    with open(probe, "wb") as f:
        f.write(set_title(data, "Changed before the killed build"))
    # What a build of the changed tree commits: a kill that lands after the atomic rename
    # (the build is done but has not exited) must leave exactly that, complete.
    ref_dir = os.path.join(b.WORK, "kill9-ref")
    if os.path.exists(ref_dir):
        shutil.rmtree(ref_dir)
    os.makedirs(ref_dir)
    ref_db = os.path.join(ref_dir, "kb.db")
    subprocess.run(cmd[:-4] + ["--db", ref_db, "--today", b.TODAY], check=True,
                   stdout=subprocess.DEVNULL)
    new_hash = meta_hash(ref_db)
    trials = []
    for frac in (0.05, 0.2, 0.4, 0.6, 0.8, 0.95):
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(full * frac)
        finished = p.poll() is not None
        if not finished:
            os.kill(p.pid, signal.SIGKILL)
        p.wait()
        with open(db, "rb") as f:
            after = hashlib.sha256(f.read()).hexdigest()
        same = after == before
        # Killed after its rename: the build had committed; the index is the new one, whole.
        committed = not same and not finished and meta_hash(db) == new_hash
        if finished or committed:  # later kills must keep this one
            before = after
        r = subprocess.run(["sqlite3", "-readonly", db, "SELECT count(*) FROM records;"],
                           capture_output=True, text=True)
        trials.append({"at": "%.0f%%" % (frac * 100), "finished_first": finished,
                       "identical": same, "committed_before_kill": committed,
                       "integrity_ok": integrity(db),
                       "readable_rows": r.stdout.strip(),
                       "left_behind": sorted(set(os.listdir(dbdir)) - {"kb.db"})})
        for extra in os.listdir(dbdir):
            if extra != "kb.db":
                os.remove(os.path.join(dbdir, extra))
    ok = all((t["identical"] or t["finished_first"] or t["committed_before_kill"])
             and t["integrity_ok"] for t in trials) \
        and any(not t["finished_first"] and not t["committed_before_kill"] for t in trials)
    return {"build_s": round(full, 2), "trials": trials}, ok


def main():
    ap = argparse.ArgumentParser(description="kb soak test")
    ap.add_argument("--records", type=int, default=10000)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--no-kill9", action="store_true", help="skip the kill -9 part")
    ap.add_argument("--threads", type=int, default=0, help="kb serve --threads (default: kb's)")
    args = ap.parse_args()
    b.need(b.KB)
    b.need("wrk")
    soak = Soak(args)
    report, verdicts = soak.run()
    if not args.no_kill9:
        kill, kill_ok = kill9_during_build(args.records)
        verdicts["kill -9 leaves the index identical"] = kill_ok
        report["kill9"] = kill
    report["failures"] = soak.failures
    report["verdicts"] = verdicts
    print(json.dumps(report, indent=1))
    for name, ok in verdicts.items():
        print("%-40s %s" % (name, "PASS" if ok else "FAIL"))
    b.save("soak", report)
    raise SystemExit(0 if all(verdicts.values()) else 1)


if __name__ == "__main__":
    main()
