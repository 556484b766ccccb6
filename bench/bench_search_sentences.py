#!/usr/bin/env python3
"""Search for a stream of distinct symptom sentences under wrk, beside the sqlite3 CLI
running the FTS5 queries the server runs for each sentence, on the same index file.

    bench_search_sentences.py INDEX.db [KB_BINARY ...]     default binary: $KB
    bench_search_sentences.py --records N [KB_BINARY ...]  INDEX.db = $BENCH_WORK/index-N.db,
                                                           built by `kb build` from the
                                                           generated corpus if missing

Target (issue): at 100k records, over a stream of distinct symptom sentences (no query
repeated, so no kept ranking helps), search p99 <= 20 ms at 16 connections.

Sentences: SENTENCES (default 120,000: three 5 s runs at each of 16 and 64 connections
send ~65,000 at 2,200 req/s) distinct ones of 3-10 words, seeded (SEED, default
1): a run of 1-4 words of a phrasing from tests/data/search/phrasings.tsv, with terms of
the index's own vocabulary (fts5vocab, drawn by their number of occurrences) and stop
words put in among them. Written once to $BENCH_WORK/sentences-INDEX-N-SEED.txt (and the
request paths beside it, .paths); delete them to draw again.

kb: each binary serves INDEX.db (`kb serve --db`). The first COLD (200) sentences are sent
one at a time on one connection right after it starts (cold: nothing ranked; the same
sentences for each binary, each a fresh server). Then the bench waits until the server
ranks in memory (GET /healthz: `search.ranking` is "memory"; FTS5 ranks until then), and
wrk (2 threads, SECONDS_PER_RUN s,
RUNS runs, at each of CONNS, default "16 64", --timeout 60s) sends
`GET /api/v1/search?q=SENTENCE` (default limit, 20), bench/sentences.lua walking the list
past the cold ones so that no sentence is sent twice in any run of any binary: each run
starts past the last one sent, each wrk thread taking every other one. A run that would
send all that are left stops with an error (raise SENTENCES). Medians over the runs of
p50, p99 and req/s; non-2xx summed (must be 0; their statuses and first body are logged:
a search past the server's query budget, 2 s, answers 503 `timeout`).

Peer: the sqlite3 CLI on the same file, CONNS processes at once (at each of CONNS), each
running PEER_QUERIES (10) sentences of its own: the first CONNS x PEER_QUERIES after the
cold ones (where kb's first wrk run starts). For each sentence, what Store::search
(kb/src/store/store_search.cpp) runs: the words split at white space (at most 32, those
with a letter or digit), stop words dropped unless none are left, each quoted for FTS5;
a one-word query first looks for a record of that id; then up to three parts, each one
plain FTS5 MATCH ranked by bm25 with kb's weights (bench_search.py's RANK) keeping the best
256 rows, the non-gotchas of them looked up to put gotchas first, and the rows not shown
yet read back with snippets until there are 20: every word; if fewer than 20, the last
word as a prefix (3+ characters); if still fewer and there are several words, any word.
Whether a part runs depends on the rows found so far, so each part's ranking is
conditioned on the count of hits kept in a temporary table. The server also asks, for each
of a sentence's first 8 words of 4+ bytes, whether that word alone finds anything (its
typo suggestion, server/search_suggest.cpp): a search of the word with limit 1. With
PEER_PROBES=1 the peer runs those too. Timing: `.timer on`, each sentence's statements'
real times summed; p50/p99 over every sentence; q/s = sentences / the processes' wall
time. The peer also runs the COLD sentences one after another in one process.
"""
import http.client
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import time
import urllib.parse

import benchlib as b
from bench_search import RANK

SECONDS = int(os.environ.get("SECONDS_PER_RUN", "5"))
CONNS = [int(c) for c in os.environ.get("CONNS", "16 64").split()]
SENTENCES = int(os.environ.get("SENTENCES", "120000"))
SEED = int(os.environ.get("SEED", "1"))
COLD = int(os.environ.get("COLD", "200"))
PEER_QUERIES = int(os.environ.get("PEER_QUERIES", "10"))
PEER_PROBES = os.environ.get("PEER_PROBES") == "1"
THREADS = 2
LIMIT = 20  # the route's default limit
TARGET_P99_MS = 20.0
PHRASINGS = os.path.join(b.REPO, "tests", "data", "search", "phrasings.tsv")
LUA = os.path.join(b.REPO, "bench", "sentences.lua")
SAMPLE_ROWS = 5000  # rows read for the words the index's stems come from
STOP = ["the", "is", "when", "after", "a", "on", "with", "in", "of", "to", "and", "but", "it",
        "my", "then", "again", "while", "for", "at", "from", "this", "still"]

# --- sentences ---------------------------------------------------------------------------


def phrasing_words():
    """Each phrasing's words (the second column; '#' lines are the header)."""
    out = []
    with open(PHRASINGS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "\t" not in line:
                continue
            words = line.rstrip("\n").split("\t", 1)[1].split()
            if words:
                out.append(words)
    return out


def vocabulary(index):
    """The index's terms and how often each occurs (fts5vocab), in a fixed order. A term is
    a Porter stem (`upgrad`); each is written as the word it most often stems from in the
    first SAMPLE_ROWS rows' titles and symptoms (`upgrade`), when one does."""
    db = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    db.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, fts, row)")
    rows = db.execute("SELECT term, cnt FROM temp.vocab ORDER BY term").fetchall()
    seen = {}
    for title, symptom in db.execute("SELECT title, symptom FROM fts WHERE rowid <= ?",
                                     (SAMPLE_ROWS,)):
        for w in re.findall(r"[a-z0-9]+", ("%s %s" % (title, symptom)).lower()):
            seen[w] = seen.get(w, 0) + 1
    # Each word's stem, by the index's own tokenizer: one row a word, read back by fts5vocab.
    words = sorted(seen)
    db.execute("CREATE VIRTUAL TABLE temp.stems USING fts5(w, tokenize = '%s')" % TOKENIZER)
    db.executemany("INSERT INTO temp.stems(rowid, w) VALUES (?, ?)", enumerate(words))
    db.execute("CREATE VIRTUAL TABLE temp.stemv USING fts5vocab(temp, stems, instance)")
    surface = {}
    for term, rowid in db.execute("SELECT term, doc FROM temp.stemv"):
        w = words[rowid]
        if term not in surface or (seen[w], w) > (seen[surface[term]], surface[term]):
            surface[term] = w
    db.close()
    return [(surface.get(t, t), c) for t, c in rows if len(t) >= 2]


def make_sentences(index, n, seed):
    """n distinct sentences of 3-10 words, the same for the same index, n and seed."""
    rng = random.Random(seed)
    phrasings = phrasing_words()
    vocab = vocabulary(index)
    terms = [t for t, _ in vocab]
    cum, total = [], 0
    for _, c in vocab:
        total += c
        cum.append(total)
    out, seen = [], set()
    while len(out) < n:
        length = rng.randint(3, 10)
        ph = rng.choice(phrasings)
        k = rng.randint(1, min(4, len(ph), length))
        start = rng.randrange(len(ph) - k + 1)
        words = ph[start:start + k]
        while len(words) < length:
            if rng.random() < 0.3:
                w = rng.choice(STOP)
            else:
                w = rng.choices(terms, cum_weights=cum)[0]
            words.insert(rng.randint(0, len(words)), w)
        s = " ".join(words)
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def sentences_file(index):
    """The sentences (written once) and the file of their request paths."""
    base = os.path.join(b.WORK, "sentences-%s-%d-%d" % (
        os.path.splitext(os.path.basename(index))[0], SENTENCES, SEED))
    txt, paths = base + ".txt", base + ".paths"
    if not (os.path.exists(txt) and os.path.exists(paths)):
        b.log("drawing %d sentences from %s's vocabulary into %s" % (SENTENCES, index, txt))
        sents = make_sentences(index, SENTENCES, SEED)
        for path, lines in ((txt, sents), (paths, [
                "/api/v1/search?q=" + urllib.parse.quote(s, safe="") for s in sents])):
            with open(path + ".tmp", "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in lines))
            os.replace(path + ".tmp", path)
    with open(txt, encoding="utf-8") as f:
        sents = f.read().split("\n")[:-1]
    assert len(sents) == len(set(sents)) == SENTENCES, "sentences file %s is damaged" % txt
    return sents, paths


# --- what Store::search runs, as SQL -------------------------------------------------------

STOP_WORDS = set("""a an and are as at be been but by can do does for from has have how i if in
into is it its me my of on or our so than that the their then there these this to was we were
what when where which while who why will with you your gets get got after again""".split())
WEIGHTS = RANK[len("bm25("):-1]  # bench_search.py's bm25 column weights, kb's
SNIPPET = "snippet(fts, -1, char(2), char(3), '…', 24)"
RANKED_ROWS = 256  # kRankedRows: the rows a ranking keeps
TOKENIZER = "porter unicode61 remove_diacritics 2"  # the fts table's (kb/src/store/store.cpp)


def search_terms(text):
    """search_terms() then content_terms() of store_search.cpp."""
    terms = [t for t in re.split(r"[ \t\n\v\f\r\0]+", text)
             if any((c.isascii() and c.isalnum()) or ord(c) >= 0x80 for c in t)][:32]
    kept = [t for t in terms if t.encode().lower().decode() not in STOP_WORDS]
    return kept or terms


def terms_query(terms, prefix_last):
    q = " ".join('"%s"' % t.replace('"', '""') for t in terms)
    return q + "*" if prefix_last else q


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def search_sql(text, limit, hits):
    """The statements Store::search(text, limit) runs, its hits gathered in table `hits`."""
    terms = search_terms(text)
    if not terms:
        return []
    exact = terms_query(terms, False)
    out = []
    if len(terms) == 1:  # named_record(): a pasted id or gotcha slug comes first
        t = terms[0].encode().lower().decode()
        out.append("INSERT INTO temp.%s SELECT rowid, id, title, %s, content_hash FROM fts "
                   "WHERE fts MATCH %s AND rowid = coalesce((SELECT rowid FROM records WHERE id=%s), "
                   "(SELECT rowid FROM records WHERE id=%s));"
                   % (hits, SNIPPET, lit(exact), lit(t), lit("gotchas/" + t)))
    parts = [exact]
    if len(terms[-1]) >= 3:
        parts.append(terms_query(terms, True))
    if len(terms) > 1:
        parts.append(" OR ".join(terms_query([t], False) for t in terms))
    for i, q in enumerate(parts):
        # A later part runs only while there are fewer than `limit` hits: the count is the
        # outer loop (CROSS JOIN keeps it so), so FTS5 is not asked at all when it fails.
        cond = "" if i == 0 else \
            "(SELECT count(*) AS n FROM temp.%s) AS c CROSS JOIN " % hits
        more = "" if i == 0 else " AND c.n < %d" % limit
        out += [
            "DELETE FROM temp.r;",
            # ranking(): the best 256 rows by bm25 ...
            "INSERT INTO temp.r(rid, score) SELECT fts.rowid, bm25(fts, %s) AS score FROM %sfts "
            "WHERE fts MATCH %s%s ORDER BY score LIMIT %d;"
            % (WEIGHTS, cond, lit(q), more, RANKED_ROWS),
            # ... gotchas_first(): the others among them looked up ...
            "UPDATE temp.r SET other = 1 WHERE rid IN (SELECT rowid FROM records WHERE "
            "kind != 'gotcha' AND rowid IN (SELECT rid FROM temp.r));",
            # ... read_hits(): the rows not shown yet, with snippets, until there are `limit`
            "INSERT INTO temp.%s SELECT rowid, id, title, %s, content_hash FROM fts WHERE fts "
            "MATCH %s AND rowid IN (SELECT rid FROM temp.r WHERE rid NOT IN (SELECT rid FROM "
            "temp.%s) ORDER BY other, score LIMIT max(0, %d - (SELECT count(*) FROM temp.%s)));"
            % (hits, SNIPPET, lit(q), hits, limit, hits)]
    return out


def sentence_sql(text):
    """Everything the server's search of `text` asks SQLite, then the hits, then a marker."""
    out = []
    if PEER_PROBES:  # corrected_query(): does each of the first 8 words of 4+ bytes find anything?
        for w in text.split()[:8]:
            if len(w.encode()) >= 4:
                out += search_sql(w, 1, "probe") + ["DELETE FROM temp.probe;"]
    out += search_sql(text, LIMIT, "hits")
    out += ["SELECT rid, id, title FROM temp.hits;", "DELETE FROM temp.hits;", ".print @@"]
    return "\n".join(out) + "\n"


PEER_SETUP = """PRAGMA temp_store = MEMORY;
CREATE TEMP TABLE r(rid INTEGER PRIMARY KEY, score REAL, other INTEGER NOT NULL DEFAULT 0);
CREATE TEMP TABLE hits(rid INTEGER PRIMARY KEY, id, title, snippet, content_hash);
CREATE TEMP TABLE probe(rid INTEGER PRIMARY KEY, id, title, snippet, content_hash);
.timer on
"""


def peer(index, slices, ids=None):
    """One sqlite3 CLI per slice, all at once; each sentence's summed statement times (ms).
    The ids each sentence found are appended to `ids`, if given."""
    files = []
    for i, sl in enumerate(slices):
        script = os.path.join(b.WORK, "peer-%d.sql" % i)
        with open(script, "w", encoding="utf-8") as f:
            f.write(PEER_SETUP + "".join(sentence_sql(s) for s in sl))
        files.append((open(script, encoding="utf-8"), open(script[:-4] + ".out", "w+"),
                      open(script[:-4] + ".err", "w+")))
    t0 = time.perf_counter()
    procs = [subprocess.Popen(["sqlite3", "-readonly", index], stdin=i, stdout=o, stderr=e)
             for i, o, e in files]
    for p in procs:
        p.wait()
    wall = time.perf_counter() - t0
    times, rows = [], []
    for p, (i, o, e), sl in zip(procs, files, slices):
        for f in (o, e):
            f.seek(0)
        out, err = o.read(), e.read()
        for f in (i, o, e):
            f.close()
        if p.returncode != 0 or err.strip():
            sys.exit("sqlite3 peer failed (%s): %s" % (i.name, err[:2000]))
        chunks = out.split("@@\n")[:-1]
        assert len(chunks) == len(sl), (len(chunks), len(sl))
        for c in chunks:
            times.append(sum(float(t) * 1000 for t in re.findall(r"Run Time: real ([\d.]+)", c)))
            hits = [line.split("|")[1] for line in c.splitlines()
                    if not line.startswith("Run Time")]
            rows.append(len(hits))
            if ids is not None:
                ids.append(sorted(hits))
    return stats(times, wall) | {"hits_p50": b.median(rows)}


def stats(times, wall=None):
    t = sorted(times)
    out = {"p50": b.median(t), "p99": t[min(len(t) - 1, int(len(t) * 0.99))], "max": t[-1],
           "n": len(t)}
    if wall:
        out["rps"] = len(t) / wall
    return out


# --- kb --------------------------------------------------------------------------------------


def cold(port, paths, ids):
    """The paths sent one at a time on one kept-alive connection; ms each, hits each. The ids
    each found are appended to `ids`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times, hits, corrected = [], [], 0
    for p in paths:
        t0 = time.perf_counter()
        status, body = b.get(port, p, conn=conn)
        times.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            sys.exit("%s answered %d: %s" % (p, status, body[:300]))
        doc = json.loads(body)
        hits.append(len(doc["hits"]))
        ids.append(sorted(h["id"] for h in doc["hits"]))
        corrected += bool(doc.get("corrected"))
    conn.close()
    return stats(times) | {"hits_p50": b.median(hits), "no_hits": hits.count(0),
                           "corrected": corrected}


def wait_ranking(port, limit=600):
    """Seconds until the server ranks in memory (GET /healthz: search.ranking), at most limit."""
    t0 = time.time()
    while time.time() - t0 < limit:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/healthz")
        body = json.loads(conn.getresponse().read())
        conn.close()
        if body.get("search", {}).get("ranking") == "memory":
            return time.time() - t0
        time.sleep(0.5)
    sys.exit("the server's ranking in memory was not ready after %d s" % limit)


def parse_ms(out, pct):
    m = re.search(r"^\s*%s%%\s+([\d.]+)(us|ms|s)\b" % pct, out, re.M)
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


class Stream:
    """Where the next wrk run starts in the sentence list."""

    def __init__(self, paths_file, total, first):
        self.file, self.total, self.next = paths_file, total, first

    def wrk(self, port, conns):
        """One wrk run from self.next on; returns p50, p99, req/s, non-2xx, sentences sent."""
        first = self.next
        if self.total - first < conns + THREADS:
            sys.exit("sentences exhausted before a run at %d connections: %d of %d left; "
                     "raise SENTENCES" % (conns, self.total - first, self.total))
        env = dict(os.environ, KB_BENCH_PATHS=self.file, KB_BENCH_FIRST=str(first),
                   KB_BENCH_END=str(self.total), KB_BENCH_THREADS=str(THREADS))
        r = subprocess.run(["wrk", "-t%d" % THREADS, "-c%d" % conns, "-d%ds" % SECONDS,
                            "--timeout", "60s", "--latency", "-s", LUA,
                            "http://127.0.0.1:%d" % port], capture_output=True, text=True, env=env)
        if r.returncode != 0:
            sys.exit("wrk failed (exit %d) from sentence %d:\n%s%s" % (r.returncode, first,
                                                                     r.stdout, r.stderr))
        out = r.stdout
        used = {int(t): int(n) for t, n in re.findall(r"^sentences-used (\d+) (\d+)$", out, re.M)}
        assert len(used) == THREADS, out
        # Thread t sent first + t + k*THREADS for k < used[t]: the next run starts past them all.
        self.next = max(first + t + (n - 1) * THREADS + 1 for t, n in used.items() if n) \
            if any(used.values()) else first
        bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        errors = re.search(r"Socket errors: (.*)", out)
        for line in re.findall(r"^non-2xx \d+ (.*)$", out, re.M):
            b.log("  non-2xx answers: %s" % line)
        return {"p50": parse_ms(out, 50), "p99": parse_ms(out, 99),
                "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
                "non2xx": int(bad.group(1)) if bad else 0,
                "errors": errors.group(1) if errors else "",
                "sent": sum(used.values()), "first": first}

    def wrk_median(self, port, conns):
        runs = []
        for i in range(b.RUNS):
            runs.append(self.wrk(port, conns))
            b.log("  run %d at %d conns: %s" % (i + 1, conns, runs[-1]))
        return {"p50": b.median([r["p50"] for r in runs]), "p99": b.median([r["p99"] for r in runs]),
                "rps": b.median([r["rps"] for r in runs]),
                "non2xx": sum(r["non2xx"] for r in runs),
                "errors": "; ".join(r["errors"] for r in runs if r["errors"]),
                "sent": sum(r["sent"] for r in runs), "runs": runs}


def index_for_records(n):
    """$BENCH_WORK/index-N.db: `kb build` of the generated corpus (bench_build.py's), once."""
    import bench_build
    db = os.path.join(b.WORK, "index-%d.db" % n)
    if not os.path.exists(db):
        d, _ = b.corpus(n)
        b.log("building %s" % db)
        wall, rss, cpu = bench_build.kb_build(d, db + ".tmp")
        os.replace(db + ".tmp", db)
        b.log("built in %.1f s (%.1f s CPU, peak %.0f MiB)" % (wall, cpu, rss))
    return db


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    if args[0] == "--records":
        binaries = args[2:] or [b.KB]
        b.KB = binaries[0]  # builds the index if it is missing
        b.need(b.KB)
        index = index_for_records(int(args[1]))
    else:
        index, binaries = args[0], args[1:] or [b.KB]
    for tool in ["wrk", "sqlite3"] + binaries:
        b.need(tool)
    sents, paths_file = sentences_file(index)
    with open(paths_file, encoding="utf-8") as f:
        paths = f.read().split("\n")[:-1]
    words = [len(s.split()) for s in sents]
    b.log("%d sentences, %d-%d words (mean %.1f), e.g. %r" % (
        len(sents), min(words), max(words), sum(words) / len(words), sents[:3]))
    rows_db = sqlite3.connect("file:%s?mode=ro" % index, uri=True)
    total = rows_db.execute("SELECT count(*) FROM records").fetchone()[0]
    rows_db.close()
    stream = Stream(paths_file, len(paths), COLD)
    saved = {"index": index, "records": total, "sentences": len(sents), "seed": SEED,
             "seconds": SECONDS, "runs": b.RUNS, "peer_probes": PEER_PROBES, "load": {}}
    table, cold_ids, peer_ids = [], {}, []
    for kb in binaries:
        srv, start = b.kb_serve_timed(kb, index)
        try:
            la = b.loadavg()
            kb_ids = []
            c = cold(srv.port, paths[:COLD], kb_ids)
            b.log("%s: started in %.1f s; cold sequential %s" % (kb, start, c))
            ready = wait_ranking(srv.port)
            b.log("%s: ranking in memory ready %.1f s after the cold run" % (kb, ready))
            res = {"start_s": start, "cold": c, "load_cold": la, "ranking_ready_s": ready}
            for conns in CONNS:
                la = b.loadavg()
                res[str(conns)] = stream.wrk_median(srv.port, conns) | {"load": la}
            res["rss_mib"] = srv.rss_mib()
        finally:
            srv.stop()
        saved[kb] = res
        cold_ids[kb] = kb_ids
    # The peer: the sentences after the cold ones, a slice per process; then the cold ones in
    # one process, one after another.
    for conns in CONNS:
        la = b.loadavg()
        slices = [sents[COLD + i * PEER_QUERIES:COLD + (i + 1) * PEER_QUERIES] for i in range(conns)]
        saved["sqlite3_%d" % conns] = peer(index, slices) | {"load": la}
        b.log("sqlite3 at %d: %s" % (conns, saved["sqlite3_%d" % conns]))
    la = b.loadavg()
    saved["sqlite3_cold"] = peer(index, [sents[:COLD]], peer_ids) | {"load": la}
    for kb in binaries:  # the peer's queries are the server's: the same hits (as sets)
        saved[kb]["cold"]["same_hits_as_peer"] = sum(
            k == p for k, p in zip(cold_ids[kb], peer_ids))
    b.log("sqlite3 sequential: %s" % saved["sqlite3_cold"])
    saved["load"]["end"] = b.loadavg()

    print("\n%s: %d records; %d distinct sentences (seed %d), none sent twice; %d s x %d runs, "
          "medians; peer: sqlite3 CLI, %d sentences a process%s"
          % (index, total, len(sents), SEED, SECONDS, b.RUNS, PEER_QUERIES,
             ", with the server's typo probes" if PEER_PROBES else ""))
    for kb in binaries:
        r = saved[kb]
        for conns in CONNS:
            k, p = r[str(conns)], saved["sqlite3_%d" % conns]
            table.append([kb, "%d conns" % conns, "%.2f" % k["p50"], "%.2f" % k["p99"],
                          "%.1f" % k["rps"], k["non2xx"], "%.1f" % p["p50"], "%.1f" % p["p99"],
                          "%.1f" % p["rps"], "%.1fx" % (p["p99"] / k["p99"]),
                          "%.1f / %.1f" % (k["load"], p["load"])])
        c, p = r["cold"], saved["sqlite3_cold"]
        table.append([kb, "cold, sequential (%d)" % COLD, "%.2f" % c["p50"],
                      "%.2f (max %.1f)" % (c["p99"], c["max"]), "", 0, "%.1f" % p["p50"],
                      "%.1f (max %.1f)" % (p["p99"], p["max"]), "",
                      "%.1fx" % (p["p99"] / c["p99"]), "%.1f / %.1f" % (r["load_cold"], p["load"])])
    b.table(["kb", "run", "kb p50 ms", "kb p99 ms", "kb req/s", "non-2xx", "sqlite3 p50 ms",
             "sqlite3 p99 ms", "sqlite3 q/s", "p99 sqlite3/kb", "load kb / peer"], table)
    for kb in binaries:
        r = saved[kb]
        k16 = r.get("16")
        print("%s: p99 sqlite3/kb %s; cold: median %d hits, %d of %d sentences found nothing, "
              "%d found the same hits as the peer; %d sentences sent under wrk; socket errors: %s"
              % (
                  kb, ", ".join("%.1fx at %d" % (saved["sqlite3_%d" % n]["p99"] / r[str(n)]["p99"], n)
                                for n in CONNS),
                  r["cold"]["hits_p50"], r["cold"]["no_hits"], COLD,
                  r["cold"]["same_hits_as_peer"],
                  sum(r[str(n)]["sent"] for n in CONNS),
                  "; ".join(r[str(n)]["errors"] for n in CONNS if r[str(n)]["errors"]) or "none"))
        if k16:
            ok = k16["p99"] <= TARGET_P99_MS and k16["non2xx"] == 0
            print("%s: target p99 <= %.0f ms at 16 connections: %s (p99 %.2f ms, non-2xx %d)" % (
                kb, TARGET_P99_MS, "MET" if ok else "MISSED", k16["p99"], k16["non2xx"]))
    print("load average at the end: %.1f" % saved["load"]["end"])
    print("JSON " + json.dumps(saved, separators=(",", ":")))
    b.save("search_sentences", saved)


if __name__ == "__main__":
    main()
