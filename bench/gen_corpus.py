#!/usr/bin/env python3
"""Generates a synthetic kb corpus and its equivalents for the peers the benchmarks use.

    gen_corpus.py --records N --out DIR [--seed S] [--typo-rate R]

writes, under DIR:
  records/{gotchas,engines,oracles,results}/*.yaml   the kb record tree (N files)
  records.jsonl                                      one JSON object per record (sqlite3 peer)
  hugo/                                              a Hugo site with one page per record
  manifest.json                                      counts, bytes, ids to probe, typos made

Shape follows kb/src/schema/schema_table.cpp and the shipped records/: gotchas carry Markdown bodies of
1-4 KB over symptom/root_cause/workaround/notes, 1-6 affects (some with version ranges),
related links, applies_when predicates and oracles; results point at an oracle and the
gotchas they are evidence for. With --typo-rate 0 (the default) the tree lints clean;
with R > 0 that fraction of references in gotchas is misspelt by one character, so
`kb build` fails until `kb repair` fixes them (or leaves them dangling). Same seed, same
bytes.
"""
import argparse
import bisect
import itertools
import json
import os
import random
import shutil

SEVERITIES = ["blocker", "major", "major", "minor", "minor", "minor", "info"]
KINDS = ["correctness", "config", "performance", "availability", "security", "observability"]
FAMILIES = ["disaggregation", "kv-offload", "prefix-cache", "scheduling", "quantization",
            "speculative-decoding", "networking", "memory", "tokenization", "sampling"]
# Deployment features and the values each takes: gotchas narrow on them, deployments set them.
CONFIG = {
    "kv_transfer": ["pd", "shared", "none"], "kv_offload": ["cpu", "disk", "none"],
    "prefix_caching": ["true", "false"], "connector": ["lmcache", "nixl", "mooncake"],
    "tp_size": ["1", "2", "4", "8"], "attention_backend": ["flashinfer", "triton", "flash_attn"],
    "kv_dtype": ["fp8", "auto", "bf16"], "block_size": ["16", "32", "64"],
    "batch_invariant": ["1", "0"], "spec_decode": ["eagle", "ngram", "none"],
    "quantization": ["awq", "fp8", "gptq", "none"], "max_num_seqs": ["64", "256", "1024"],
    "chunked_prefill": ["true", "false"], "enable_lora": ["true", "false"],
    "cuda_graphs": ["true", "false"], "pipeline_parallel": ["1", "2", "4"],
    "dp_size": ["1", "2", "4"],
}
CONFIG_KEYS = sorted(CONFIG)
CONFIG_VALUES = sorted({v for vs in CONFIG.values() for v in vs})
# Engine popularity is Zipf(ZIPF_S) over the engines: a few carry most gotchas.
ZIPF_S = 0.9
# How many engines a gotcha affects: mostly one to three.
AFFECTS_COUNT = [1, 2, 3, 4, 5, 6]
AFFECTS_CUM = list(itertools.accumulate([55, 28, 12, 3, 1, 1]))
DOMAIN = ("kv cache block prefill decode transfer connector layout tensor parallel "
          "scheduler batch token prompt offload tier hash namespace attention kernel "
          "backend dtype quantized weights adapter lora rdma ucx nixl mooncake lmcache "
          "vllm sglang dynamo router worker replica latency throughput timeout deadlock "
          "hang crash leak divergence mismatch corruption eviction allocator pinned "
          "memory gpu cuda graph capture stream sampler logits temperature seed "
          "determinism invariant checksum fingerprint version upgrade regression "
          "config flag default env variable restart warmup cold warm hit miss").split()
SYLLABLES = ["ka", "ve", "lo", "mi", "ta", "ro", "pe", "su", "na", "di", "qu", "zo",
             "fe", "ba", "ni", "tor", "len", "mar", "cas", "dun", "rix", "pol", "ven"]


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        # A Zipf-ish vocabulary: domain words are frequent, pseudo-words make the long tail
        # that full-text indexes must also store.
        words = set()
        while len(words) < 6000:
            words.add("".join(self.rng.choice(SYLLABLES) for _ in range(self.rng.randint(2, 4))))
        self.tail = sorted(words)
        self.rng.shuffle(self.tail)

    def word(self):
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(DOMAIN)
        idx = int(len(self.tail) * (self.rng.random() ** 3))
        return self.tail[idx]

    def sentence(self, lo=6, hi=18):
        words = [self.word() for _ in range(self.rng.randint(lo, hi))]
        r = self.rng.random()
        if r < 0.15:
            words[self.rng.randrange(len(words))] = "`" + self.rng.choice(CONFIG_KEYS) + "`"
        elif r < 0.22:
            words.append("(see #%d)" % self.rng.randint(1000, 60000))
        elif r < 0.26:
            words.append("[upstream](https://github.com/vllm-project/vllm/issues/%d)"
                         % self.rng.randint(1000, 60000))
        text = " ".join(words)
        return text[0].upper() + text[1:] + "."

    def markdown(self, target):
        """Markdown of about `target` bytes: paragraphs, sometimes a list or a code block."""
        parts, size = [], 0
        while size < target:
            r = self.rng.random()
            if r < 0.12:
                block = "\n".join("- " + self.sentence(4, 10) for _ in range(self.rng.randint(2, 5)))
            elif r < 0.18:
                block = "```\n%s=%s\n```" % (self.rng.choice(CONFIG_KEYS),
                                             self.rng.choice(CONFIG_VALUES))
            else:
                block = " ".join(self.sentence() for _ in range(self.rng.randint(2, 5)))
            parts.append(block)
            size += len(block) + 2
        return "\n\n".join(parts)

    def date(self):
        return "20%02d-%02d-%02d" % (self.rng.randint(24, 26), self.rng.randint(1, 12),
                                     self.rng.randint(1, 28))

    def recent(self):
        """A verification date within the 90 days before 2026-10-04 (the benchmarks' --today),
        so `evidence.stale` stays quiet."""
        month = self.rng.randint(7, 9)
        return "2026-%02d-%02d" % (month, self.rng.randint(15 if month == 7 else 1, 28))

    def slug(self, n, words):
        return "-".join(self.word() for _ in range(words)).replace("`", "") + "-%d" % n


def q(s):
    """A YAML double-quoted scalar (JSON's escapes are valid YAML)."""
    return json.dumps(s, ensure_ascii=False)


def block(key, text):
    lines = ["%s: |-" % key]
    lines += [("  " + ln) if ln else "" for ln in text.split("\n")]
    return "\n".join(lines)


def typo(rng, name, taken):
    """`name` with one character changed, dropped or swapped; never another real name."""
    for _ in range(50):
        i = rng.randrange(len(name))
        op = rng.random()
        if op < 0.4:
            cand = name[:i] + rng.choice("abcdefghijklmnopqrstuvwxyz") + name[i + 1:]
        elif op < 0.7 and len(name) > 3:
            cand = name[:i] + name[i + 1:]
        else:
            j = min(i + 1, len(name) - 1)
            cand = name[:i] + name[j] + name[i] + name[j + 1:] if j > i else name + "x"
        if cand != name and cand not in taken and cand.strip("-") == cand and cand:
            return cand
    return name + "x"


class Engines:
    """The engines, most popular first, with their release histories: engine k is picked
    with weight 1/(k+1)^ZIPF_S and has released minors 0.1 .. 0.minors[k]."""

    def __init__(self, g, slugs):
        self.slugs = slugs
        self.cum = list(itertools.accumulate(1.0 / (k + 1) ** ZIPF_S for k in range(len(slugs))))
        self.minors = [g.rng.randint(30, 60) if k < 10 else g.rng.randint(6, 40)
                       for k in range(len(slugs))]

    def pick(self, rng, count):
        """`count` distinct engine indexes, by popularity."""
        out = []
        while len(out) < count:
            k = bisect.bisect(self.cum, rng.random() * self.cum[-1])
            if k not in out:
                out.append(k)
        return out

    def version(self, rng, k):
        v = "0.%d.%d" % (rng.randint(1, self.minors[k]), rng.randint(0, 9))
        if rng.random() < 0.1:
            v += "rc%d" % rng.randint(1, 3)
        return v

    def affected(self, rng, k):
        """(range, still open) of one gotcha on engine k: it appeared in some minor and was
        fixed 1-6 minors later, unless that is past the newest release (then it is open-ended),
        or, for a third of them, within its own minor by a patch release; one entry in
        thirty gives no range (every version)."""
        if rng.random() < 0.03:
            return "", True
        top = self.minors[k]
        lo = rng.randint(1, top)
        hi = lo + min(6, 1 + int(rng.expovariate(0.7)))
        if hi > top:
            return (">=0.%d.0" % lo if rng.random() < 0.7 else "~=0.%d" % lo), True
        r = rng.random()
        if r < 0.33:
            p = rng.randint(0, 7)
            return ">=0.%d.%d, <0.%d.%d" % (lo, p, lo, p + rng.randint(1, 2)), False
        if hi == lo + 1 and r < 0.6:
            return "==0.%d.*" % lo, False
        if lo <= 3 and r < 0.3:
            return "<0.%d" % hi, False
        return ">=0.%d.0, <0.%d" % (lo, hi), False


def fixed_in(versions):
    """The first version outside a closed range Engines.affected draws."""
    if versions.startswith("=="):
        minor = int(versions[2:].split(".")[1])
        return "0.%d.0" % (minor + 1)
    upper = versions.split("<")[-1].strip()
    return upper if upper.count(".") == 2 else upper + ".0"


def feature(g):
    """A deployment feature a gotcha needs: settings, a key set, or a setting it must not have."""
    r = g.rng.random()
    if r < 0.7:
        keys = g.rng.sample(CONFIG_KEYS, 1 if g.rng.random() < 0.7 else 2)
        return "{config: {%s}}" % ", ".join("%s: %s" % (k, q(g.rng.choice(CONFIG[k])))
                                            for k in keys)
    if r < 0.85:
        return "{config_set: [%s]}" % g.rng.choice(CONFIG_KEYS)
    k = g.rng.choice(CONFIG_KEYS)
    return "{not: {config: {%s: %s}}}" % (k, q(g.rng.choice(CONFIG[k])))


def applies_when(g, atoms):
    """A predicate over the gotcha's own engine atoms ("{engine: x, versions: ...}"): most
    gotchas need a feature besides the engine, a few need only features."""
    engines = atoms[0] if len(atoms) == 1 else "{any: [%s]}" % ", ".join(atoms)
    r = g.rng.random()
    if r < 0.6:
        return "{all: [%s, %s]}" % (engines, feature(g))
    if r < 0.75:
        return "{all: [%s, {any: [%s, %s]}]}" % (engines, feature(g), feature(g))
    if r < 0.93:
        return engines
    return "{all: [%s, %s]}" % (feature(g), feature(g))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, required=True, help="total record files")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--typo-rate", type=float, default=0.0)
    ap.add_argument("--no-peers", action="store_true", help="only the record tree")
    args = ap.parse_args()

    g = Gen(args.seed)
    n = args.records
    n_eng = max(8, n // 100)
    n_orc = max(4, n // 100)
    n_res = max(4, n * 15 // 100)
    n_got = max(1, n - n_eng - n_orc - n_res)

    out = args.out
    rec_dir = os.path.join(out, "records")
    if os.path.exists(out):
        shutil.rmtree(out)
    for ns in ("gotchas", "engines", "oracles", "results", "settings"):
        os.makedirs(os.path.join(rec_dir, ns))

    engines = [g.slug(i, 1) for i in range(n_eng)]
    eng = Engines(g, engines)
    oracles = [g.slug(i, 2) for i in range(n_orc)]
    gotchas = [g.slug(i, 4) for i in range(n_got)]
    results = [g.slug(i, 3) for i in range(n_res)]
    taken = set(engines) | set(oracles) | set(gotchas) | set(results)
    typos = []
    docs = []  # (id, kind, title, body) for the peers

    def ref(name, field, rid):
        if args.typo_rate > 0 and g.rng.random() < args.typo_rate:
            bad = typo(g.rng, name, taken)
            typos.append({"record": rid, "field": field, "from": bad, "to": name})
            return bad
        return name

    def write(ns, slug, text):
        with open(os.path.join(rec_dir, ns, slug + ".yaml"), "w", encoding="utf-8") as f:
            f.write(text)

    for i, e in enumerate(engines):
        desc = " ".join(g.sentence() for _ in range(2))
        name = e.replace("-", " ").title()
        write("engines", e, "\n".join([
            "id: engines/%s" % e, "name: %s" % q(name), "repo: example-org/%s" % e,
            "url: https://github.com/example-org/%s" % e, "kind: inference-engine",
            block("description", desc), ""]))
        docs.append(("engines/" + e, "engine", name, desc))

    for o in oracles:
        title = g.sentence(5, 9).rstrip(".")
        method = g.markdown(g.rng.randint(300, 900))
        write("oracles", o, "\n".join([
            "id: oracles/%s" % o, "title: %s" % q(title), block("method", method),
            "pass_criterion: %s" % q(g.sentence(5, 10)), ""]))
        docs.append(("oracles/" + o, "oracle", title, method))

    # Every config key the predicates and the deployment use is a setting (kb check and
    # kb lint resolve keys against settings/ records): an enum of the values drawn.
    for key in CONFIG_KEYS:
        write("settings", key.lower().replace("_", "-"), "\n".join(
            ["id: settings/%s" % key.lower().replace("_", "-"), "title: %s" % q(key),
             "key: %s" % key, "type: enum", "values:"] +
            ["  - {value: %s}" % q(v) for v in CONFIG[key]] + [""]))

    status = {}
    for i, s in enumerate(gotchas):
        rid = "gotchas/" + s
        title = g.sentence(6, 12).rstrip(".")
        body_size = g.rng.randint(1024, 4096)
        shares = [g.rng.random() + 0.3 for _ in range(4)]
        fields = [g.markdown(int(body_size * w / sum(shares))) for w in shares]
        picked = eng.pick(g.rng, min(len(engines), AFFECTS_COUNT[bisect.bisect(
            AFFECTS_CUM, g.rng.random() * AFFECTS_CUM[-1])]))
        ranges = [eng.affected(g.rng, k) for k in picked]
        still_open = any(o for _, o in ranges)
        r = g.rng.random()
        if r < 0.04:
            status[s] = "withdrawn"
        elif still_open:
            status[s] = "open" if r < 0.85 else "mitigated"
        else:
            status[s] = "fixed" if r < 0.8 else "mitigated"
        lines = ["id: %s" % rid, "title: %s" % q(title),
                 "severity: %s" % g.rng.choice(SEVERITIES),
                 "status: %s" % status[s], "kind: %s" % g.rng.choice(KINDS),
                 "family: %s" % g.rng.choice(FAMILIES), "created: %s" % g.date(),
                 "updated: %s" % g.date(), "affects:"]
        atoms = []
        for k, (e, (versions, _)) in enumerate(zip(picked, ranges)):
            name = ref(engines[e], "affects[%d]" % k, rid)
            if versions:
                lines.append("  - {engine: %s, versions: %s}" % (name, q(versions)))
                atoms.append("{engine: %s, versions: %s}" % (engines[e], q(versions)))
            else:
                lines.append("  - %s" % name)
                atoms.append("{engine: %s}" % engines[e])
        if status[s] == "fixed":
            # Which release fixed it, per engine whose range closes (lint wants it said).
            fixes = [(engines[e], fixed_in(v)) for e, (v, o) in zip(picked, ranges) if not o]
            lines.append("fixes:")
            lines += ["  - {engine: %s, fixed_in: %s, resolution: fixed}" % (e, q(f))
                      for e, f in fixes if f]
        if g.rng.random() < 0.8:
            lines.append("applies_when: %s" % applies_when(g, atoms))
        lines += [block("symptom", fields[0]), block("root_cause", fields[1]),
                  block("workaround", fields[2]), block("notes", fields[3])]
        if n_got > 1 and g.rng.random() < 0.8:
            rel = {gotchas[g.rng.randrange(n_got)] for _ in range(g.rng.randint(1, 3))} - {s}
            if rel:
                lines.append("related: [%s]" % ", ".join(
                    "gotchas/" + ref(r, "related[%d]" % k, rid) for k, r in enumerate(sorted(rel))))
        if g.rng.random() < 0.6:
            orc = sorted(set(g.rng.sample(oracles, g.rng.randint(1, 2))))
            lines.append("oracles: [%s]" % ", ".join(
                ref(o, "oracles[%d]" % k, rid) for k, o in enumerate(orc)))
        lines.append("references:")
        for _ in range(g.rng.randint(1, 3)):
            lines.append("  - {type: issue, repo: vllm-project/vllm, number: %d, state: open, "
                         "as_of: %s}" % (g.rng.randint(1000, 60000), g.recent()))
        lines.append("")
        write("gotchas", s, "\n".join(lines))
        docs.append((rid, "gotcha", title, "\n\n".join(fields)))

    for r in results:
        ran = eng.pick(g.rng, g.rng.randint(1, min(3, len(engines))))
        subj = ", ".join("{engine: %s, version: %s}" % (engines[k], q(eng.version(g.rng, k)))
                         for k in ran)
        cfg = ", ".join("%s: %s" % (k, q(g.rng.choice(CONFIG[k])))
                        for k in g.rng.sample(CONFIG_KEYS, g.rng.randint(1, 3)))
        ev = sorted({gotchas[g.rng.randrange(n_got)] for _ in range(g.rng.randint(1, 2))})
        title = g.sentence(5, 10).rstrip(".")
        notes = g.sentence() + " " + g.sentence()
        passed, failed = g.rng.randint(0, 5), g.rng.randint(0, 5)
        if any(status[e] in ("fixed", "withdrawn") for e in ev):
            # Evidence of a fixed gotcha passes: a failing one is evidence.fixed-but-failing.
            passed, failed = max(1, passed), 0
        write("results", r, "\n".join([
            "id: results/%s" % r, "title: %s" % q(title),
            "oracle: oracles/%s" % g.rng.choice(oracles), "date: %s" % g.recent(),
            "subject:", "  engines: [%s]" % subj, "  config: {%s}" % cfg,
            "passed: %d" % passed, "failed: %d" % failed,
            "evidence_for: [%s]" % ", ".join("gotchas/" + e for e in ev),
            "source: {type: issue, repo: vllm-project/vllm, number: %d}" % g.rng.randint(1000, 60000),
            block("notes", notes), ""]))
        docs.append(("results/" + r, "result", title, notes))

    yaml_bytes = 0
    for root, _, files in os.walk(rec_dir):
        yaml_bytes += sum(os.path.getsize(os.path.join(root, f)) for f in files)

    if not args.no_peers:
        write_peers(out, docs)

    manifest = {
        "records": len(docs), "seed": args.seed, "typo_rate": args.typo_rate,
        "yaml_bytes": yaml_bytes, "gotchas": n_got, "engines": n_eng, "oracles": n_orc,
        "results": n_res, "probe_gotcha": "gotchas/" + gotchas[n_got // 2],
        "probe_engine": "engines/" + engines[0], "search_term": DOMAIN[7],
        "typos": typos, "deployment": deployment(eng),
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


def deployment(eng):
    """What a realistic deployment runs: the most popular engine beside three others, each
    a few minors behind its newest release, with a handful of features set."""
    ranks = [k for k in (0, 2, 5, 20) if k < len(eng.slugs)]
    return {"engines": [{"engine": eng.slugs[k], "version": "0.%d.1" % max(1, eng.minors[k] - 3)}
                        for k in ranks],
            "config": {"kv_transfer": "pd", "connector": "nixl", "prefix_caching": "true",
                       "attention_backend": "flashinfer", "tp_size": "4", "kv_dtype": "auto"}}


def write_peers(out, docs):
    with open(os.path.join(out, "records.jsonl"), "w", encoding="utf-8") as f:
        for rid, kind, title, body in docs:
            f.write(json.dumps({"id": rid, "kind": kind, "title": title, "body": body},
                               ensure_ascii=False) + "\n")
    hugo = os.path.join(out, "hugo")
    os.makedirs(os.path.join(hugo, "layouts", "_default"))
    with open(os.path.join(hugo, "config.toml"), "w") as f:
        f.write('baseURL = "/"\ntitle = "kb peer"\ndisableKinds = ["taxonomy", "term"]\n'
                'relativeURLs = true\n')
    layouts = {
        "baseof.html": "<!doctype html><html><head><meta charset=\"utf-8\"><title>"
                       "{{ .Title }}</title></head><body>{{ block \"main\" . }}{{ end }}"
                       "</body></html>\n",
        "single.html": "{{ define \"main\" }}<h1>{{ .Title }}</h1><p>{{ .Params.kind }} "
                       "{{ .Params.rid }}</p>{{ .Content }}{{ end }}\n",
        "list.html": "{{ define \"main\" }}<h1>{{ .Title }}</h1><ul>{{ range .Pages }}"
                     "<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}"
                     "</ul>{{ end }}\n",
    }
    for name, text in layouts.items():
        with open(os.path.join(hugo, "layouts", "_default", name), "w") as f:
            f.write(text)
    for rid, kind, title, body in docs:
        ns, slug = rid.split("/", 1)
        d = os.path.join(hugo, "content", ns)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, slug + ".md"), "w", encoding="utf-8") as f:
            f.write("---\ntitle: %s\nkind: %s\nrid: %s\n---\n\n%s\n" % (q(title), kind, rid, body))


if __name__ == "__main__":
    main()
