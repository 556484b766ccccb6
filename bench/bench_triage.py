#!/usr/bin/env python3
"""`kb triage` on a large log beside `grep -E -f` of the same signatures, the floor.

    bench_triage.py [SIZE_MB] [KB_BINARY ...]      default 1024 MB, binary $KB

Target (issue 36): `kb triage` reads a 1 GB log at >= 200 MB/s.

The log: serving-engine lines as vLLM, SGLang, LMCache and NIXL print them (timestamps,
request ids, throughput figures, varied on every line), with one line in 50,000 being a
line a shipped gotcha's signature names: each literal signature as printed inside a
longer line, and each regex signature with its numbers filled in. Written once to
$BENCH_WORK/triage-SIZE.log (seeded, same bytes every time).

The peer: GNU grep counting the lines that match any signature (`grep -E -c -f SIGS LOG`),
SIGS being every signature of records/ as an extended regex (literals escaped). Each tool
runs RUNS times after one warm-up (the log stays in the page cache; both read it from
memory): medians of wall time, CPU time and peak RSS. kb must name every gotcha whose
signature was put in the log and count as many matching lines as grep.
"""
import json
import os
import random
import re
import subprocess
import sys

import yaml

import benchlib as b

SEED = int(os.environ.get("SEED", "1"))
EVERY = 50_000  # one signature line per this many lines


def signatures(records):
    """(gotcha id, literal or None, regex or None) for each signature of the records."""
    out = []
    folder = os.path.join(records, "gotchas")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".yaml"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            rec = yaml.safe_load(f) or {}
        for sig in ((rec.get("detection") or {}).get("signatures") or []):
            out.append(("gotchas/" + name[:-5], sig.get("literal"), sig.get("regex")))
    return out


def ere(literal):
    return re.sub(r"([.\[\]\\*+?{}()|^$])", r"\\\1", literal)


def example(regex, rng):
    """A line the regex matches: its digit runs filled in (the shipped ones need no more)."""
    text = regex.replace("[0-9]+", "\0").replace("\\d+", "\0")
    text = re.sub(r"\\(.)", r"\1", text)
    line = re.sub("\0", lambda _: str(rng.randint(1, 4096)), text)
    if not re.search(regex, line):
        sys.exit("cannot make a line for the signature /%s/: give it a literal" % regex)
    return line


NOISE = [
    "INFO {d} {t} [loggers.py:{n}] Engine 000: Avg prompt throughput: {f} tokens/s, Avg generation throughput: {g} tokens/s, Running: {r} reqs, Waiting: 0 reqs, GPU KV cache usage: {p}%, Prefix cache hit rate: {q}%",
    "INFO:     10.0.{a}.{b}:{port} - \"POST /v1/chat/completions HTTP/1.1\" 200 OK",
    "[{d} {t}] Prefill batch. #new-seq: {r}, #new-token: {n}, #cached-token: {c}, token usage: 0.{p}, #running-req: {r}, #queue-req: 0",
    "[{d} {t}] Decode batch. #running-req: {r}, #token: {n}, token usage: 0.{p}, cuda graph: True, gen throughput (token/s): {f}, #queue-req: 0",
    "[LMCache INFO] Stored {n} out of total {c} tokens. size: 0.{p} gb, cost {f} ms, throughput: {g} GB/s; offload_time: {q}.{r} ms (cache_engine.py:{n})",
    "[LMCache INFO] Retrieved {c} out of {n} required tokens (from {c} total tokens). size: 0.{p} gb, cost {f} ms, throughput: {g} GB/s; (cache_engine.py:{n})",
    "DEBUG {d} {t} [nixl_connector.py:{n}] NIXL transfer done for request cmpl-{h}-0: {c} blocks in {f} ms",
    "INFO {d} {t} [async_llm.py:{n}] Added request chatcmpl-{h}.",
    "WARNING {d} {t} [scheduler.py:{n}] Sequence group cmpl-{h} is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. total_num_cumulative_preemption={r}",
]


def write_log(path, size, sigs):
    """Writes about `size` bytes of log; returns the lines it put each gotcha's signatures on."""
    rng = random.Random(SEED)
    planted = {}
    lines_for = []
    for gid, lit, rx in sigs:
        if lit:
            lines_for.append((gid, "ERROR 12-03 04:12:09 [worker.py:311] " + lit + " (rank 0)"))
        elif rx:
            lines_for.append((gid, "ERROR 12-03 04:12:09 [worker.py:311] RuntimeError: " +
                              example(rx, rng)))
    tmp = path + ".tmp"
    written = 0
    count = 0
    with open(tmp, "w", encoding="utf-8") as f:
        while written < size:
            chunk = []
            for _ in range(10_000):
                count += 1
                if count % EVERY == 0 and lines_for:
                    gid, line = lines_for[(count // EVERY) % len(lines_for)]
                    planted[gid] = planted.get(gid, 0) + 1
                else:
                    line = rng.choice(NOISE).format(
                        d="12-03", t="%02d:%02d:%02d.%03d" % (rng.randrange(24), rng.randrange(60),
                                                             rng.randrange(60), rng.randrange(1000)),
                        n=rng.randrange(10, 99999), f="%.1f" % (rng.random() * 5000),
                        g="%.2f" % (rng.random() * 40), r=rng.randrange(1, 256),
                        p=rng.randrange(0, 99), q=rng.randrange(0, 99), a=rng.randrange(256),
                        b=rng.randrange(256), port=rng.randrange(1024, 65535),
                        c=rng.randrange(0, 32768), h="%016x" % rng.getrandbits(64))
                chunk.append(line)
            text = "\n".join(chunk) + "\n"
            f.write(text)
            written += len(text.encode("utf-8"))
    os.replace(tmp, path)
    with open(path + ".planted.json", "w") as f:
        json.dump(planted, f)
    return planted


def main():
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1024
    binaries = sys.argv[2:] or [b.KB]
    for tool in binaries + ["grep", "/usr/bin/time"]:
        b.need(tool)
    records = os.path.join(b.REPO, "records")
    sigs = signatures(records)
    if not sigs:
        sys.exit("no signatures in %s" % records)
    log_path = os.path.join(b.WORK, "triage-%d.log" % size_mb)
    if os.path.exists(log_path) and os.path.exists(log_path + ".planted.json"):
        with open(log_path + ".planted.json") as f:
            planted = json.load(f)
    else:
        b.log("writing %d MB of log to %s" % (size_mb, log_path))
        planted = write_log(log_path, size_mb * 1_000_000, sigs)
    size = os.path.getsize(log_path)
    pattern_file = os.path.join(b.WORK, "triage-signatures.ere")
    with open(pattern_file, "w", encoding="utf-8") as f:
        for _, lit, rx in sigs:
            f.write((ere(lit) if lit else rx) + "\n")

    def runs(cmd, ok):
        # Output to a file, never /dev/null: GNU grep stops at the first match when its
        # output is /dev/null (nothing would be seen), which times nothing.
        def once():
            with open(os.path.join(b.WORK, "triage-out.txt"), "w") as out:
                return b.timed(cmd, ok=ok, stdout=out)
        once()  # warm-up: the log into the page cache, the binary loaded
        got = [once() for _ in range(b.RUNS)]
        return tuple(b.median([g[i] for g in got]) for i in range(3))

    grep_cmd = ["grep", "-E", "-c", "-f", pattern_file, log_path]
    grep_count = int(subprocess.run(grep_cmd, capture_output=True, text=True).stdout.strip() or 0)
    gw, grss, gcpu = runs(grep_cmd, (0, 1))
    rows = [("grep -E -c -f (%d signatures)" % len(sigs), "%.2f" % gw, "%.2f" % gcpu,
             "%.0f" % (size / 1e6 / gw), "%.1f" % grss, grep_count, "", "1.00x")]
    saved = {"bytes": size, "signatures": len(sigs), "planted_lines": sum(planted.values()),
             "grep": {"wall_s": gw, "cpu_s": gcpu, "rss_mib": grss, "lines": grep_count}}
    ok = True
    for kb in binaries:
        cmd = [kb, "triage", log_path, "--records", records, "-f", "json"]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit("%s exited %d: %s" % (" ".join(cmd), out.returncode, out.stderr[-500:]))
        doc = json.loads(out.stdout)
        found = {m["id"]: m["count"] for m in doc["matches"]}
        missing = sorted(set(planted) - set(found))
        lines = sum(found.values())
        kw, krss, kcpu = runs(cmd, (0, 1))
        rate = size / 1e6 / kw
        rows.append((kb, "%.2f" % kw, "%.2f" % kcpu, "%.0f" % rate, "%.1f" % krss, lines,
                     "%d/%d" % (len(planted) - len(missing), len(planted)),
                     "%.2fx" % (gw / kw)))
        saved[kb] = {"wall_s": kw, "cpu_s": kcpu, "rss_mib": krss, "mb_per_s": rate,
                     "matching_lines": lines, "gotchas_found": sorted(found),
                     "gotchas_missed": missing}
        if missing:
            b.log("%s: missed %s" % (kb, ", ".join(missing)))
            ok = False
        print("%s: %.0f MB/s on %.0f MB (target >= 200 MB/s: %s); %d planted gotchas named, "
              "%d matching lines against grep's %d" % (
                  kb, rate, size / 1e6, "met" if rate >= 200 else "MISSED",
                  len(planted) - len(missing), lines, grep_count))
    print()
    print("%.0f MB log, %d signatures, %d planted lines; medians of %d runs after a warm-up; "
          "load %.1f" % (size / 1e6, len(sigs), sum(planted.values()), b.RUNS, b.loadavg()))
    b.table(["tool", "wall s", "CPU s", "MB/s", "peak RSS MiB", "matching lines",
             "gotchas named", "speed vs grep"], rows)
    print("JSON " + json.dumps(saved))
    b.save("triage", saved)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
