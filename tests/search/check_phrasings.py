#!/usr/bin/env python3
"""Search measured as operators search: each phrasing of tests/data/search/phrasings.tsv
(written from the gotcha records, blind to what search returns) is sent to a live
`kb serve` over the shipped records, and to the static site's client-side search
(web/static/search.js, run in node over the index `kb site` writes). Prints top-1, top-5
and MRR (rank cut at 10) for both, each phrasing that misses the top 5, and how often the
two agree on the top 5; fails under the floors below.

usage: check_phrasings.py KB_BINARY REPO [--verbose]
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

# The floors this test holds search to (issue 36 asks for 90% and MRR 0.75 on phrasings
# it does not see): below them a change made search worse.
MIN_TOP5 = 0.90
MIN_MRR = 0.75
# Phrasings whose top 5 the static site and the server give alike, in the same order (the
# two rank the same columns with the same tokens and bm25; a tie in score may order two
# records differently).
MIN_PARITY = 0.95
CUT = 10

kb, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
verbose = "--verbose" in sys.argv
phrasings = []
with open(os.path.join(repo, "tests/data/search/phrasings.tsv"), encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        slug, sep, text = line.partition("\t")
        if not sep or not text.strip():
            sys.exit(f"phrasings.tsv:{n}: expected GOTCHA<TAB>PHRASING")
        if not os.path.isfile(os.path.join(repo, "records/gotchas", slug + ".yaml")):
            sys.exit(f"phrasings.tsv:{n}: no gotcha {slug}")
        phrasings.append(("gotchas/" + slug, text))
if len(phrasings) < 60:
    sys.exit("too few phrasings: the measure would prove nothing")


# Parity beyond the phrasings: queries made from the records themselves (a tag, a title's
# first two words, the start of a title word as a prefix, an id), every 7th record's.
import glob
import re
generated = []
for i, f in enumerate(sorted(glob.glob(os.path.join(repo, "records", "*", "*.yaml")))):
    if i % 7:
        continue
    text = open(f, encoding="utf-8").read()
    m = re.search(r"^title: *(.+)$", text, re.M)
    words = re.findall(r"[A-Za-z][A-Za-z0-9]+", m.group(1)) if m else []
    if len(words) >= 2:
        generated.append(" ".join(words[:2]))
    long = [w for w in words if len(w) >= 6]
    if long:
        generated.append(long[0][:4])
    t = re.search(r"^tags: *\[([^\]]+)\]", text, re.M)
    if t:
        generated.append(t.group(1).split(",")[0].strip())
    generated.append(os.path.basename(f)[:-5].replace("-", " "))
# Words search takes for another (settings/symptom's synonyms, engines' aliases, settings'
# synonyms), alone, plural, and in a sentence: both searches expand them alike.
import yaml
for f in sorted(glob.glob(os.path.join(repo, "records", "settings", "*.yaml")) +
                glob.glob(os.path.join(repo, "records", "engines", "*.yaml"))):
    rec = yaml.safe_load(open(f, encoding="utf-8")) or {}
    words = list(rec.get("aliases") or []) + list(rec.get("synonyms") or [])
    if rec.get("scope") == "symptom":
        for v in rec.get("values") or []:
            words += list(v.get("synonyms") or []) if isinstance(v, dict) else []
    for k, w in enumerate(words[:12]):
        w = str(w)
        # (A plural only of a lower-case word: "UCX_TLSs" finds nothing, and the server
        # then searches its suggestion, which the static site has none of.)
        generated.append(w + "s" if k % 3 == 0 and re.fullmatch(r"[a-z]+", w) else w)
        if k % 2 == 0:
            generated.append("vllm " + w + " after restart")
# A pasted id or gotcha slug finds its record first.
pasted = []
for f in sorted(glob.glob(os.path.join(repo, "records", "*", "*.yaml")))[::11]:
    ns, slug = f.split(os.sep)[-2], os.path.basename(f)[:-5]
    pasted.append((ns + "/" + slug, ns + "/" + slug))
    if ns == "gotchas":
        pasted.append((ns + "/" + slug, slug))
generated += [q for _, q in pasted]
pasted_at = len(generated) - len(pasted)
# A name written as one word typed as two (`MultiConnector` as "multi connector"): both
# searches join the words into the name alike, each query exactly (no tie can differ).
split = []
for f in sorted(glob.glob(os.path.join(repo, "records", "settings", "*.yaml"))):
    rec = yaml.safe_load(open(f, encoding="utf-8")) or {}
    for v in rec.get("values") or []:
        for w in ([v.get("value")] + list(v.get("synonyms") or [])) if isinstance(v, dict) else [v]:
            w = str(w)
            if re.fullmatch(r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+", w):
                split.append(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", w).lower() + " ignored")
split_at = len(generated)
generated += split


def score(ranked_lists):
    top1 = top5 = 0
    rr = 0.0
    misses = []
    for (want, text), ids in zip(phrasings, ranked_lists):
        rank = ids.index(want) + 1 if want in ids[:CUT] else None
        if rank:
            rr += 1.0 / rank
            top1 += rank == 1
            top5 += rank <= 5
        if not rank or rank > 5:
            misses.append((want, text, rank, ids[:3]))
    n = len(phrasings)
    return top1 / n, top5 / n, rr / n, misses


work = tempfile.mkdtemp(prefix="kb-phrasings-")
server = None
try:
    # The server's search.
    # Port 0: the kernel picks a free one, which kb serve names on its first line.
    server = subprocess.Popen([kb, "serve", "--records", os.path.join(repo, "records"),
                               "--port", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = server.stderr.readline()
    m = re.search(r"on (http://[0-9.:]+)/", first)
    if not m:
        sys.exit("kb serve did not say where it listens: " + first)
    base = m.group(1)
    # Whatever else it says is read, so a full pipe never stops it.
    threading.Thread(target=server.stderr.read, daemon=True).start()
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1).read()
            break
        except Exception:
            time.sleep(0.1)
    else:
        sys.exit("kb serve did not answer /healthz")
    served = []
    for text in [t for _, t in phrasings] + generated:
        url = base + "/api/v1/search?" + urllib.parse.urlencode({"q": text, "limit": CUT})
        body = json.load(urllib.request.urlopen(url, timeout=10))
        served.append([h["id"] for h in body["hits"]])
    served, served_generated = served[:len(phrasings)], served[len(phrasings):]

    # The static site's search: search.js as the page runs it, in node with a small DOM.
    site = os.path.join(work, "site")
    subprocess.run([kb, "site", "--records", os.path.join(repo, "records"), "--out", site],
                   check=True, stdout=subprocess.DEVNULL)
    runner = os.path.join(work, "run.js")
    with open(runner, "w") as f:
        f.write(r"""
const fs = require("fs"), vm = require("vm");
const [siteDir, queriesFile] = process.argv.slice(2);
const code = fs.readFileSync(siteDir + "/static/search.js", "utf8");
const indexCode = fs.readFileSync(siteDir + "/search-index.js", "utf8");
const out = [];
for (const q of JSON.parse(fs.readFileSync(queriesFile, "utf8"))) {
  const items = [];
  const node = (tag) => ({ tag, children: [], className: "", textContent: "", value: "",
    appendChild(c) { this.children.push(c); if (this.tag === "ol" || this.tag === "ul") items.push(c); return c; },
    setAttribute() {}, addEventListener() {}, removeAttribute() {}, style: {} });
  const elements = { results: node("ol"), "search-status": node("p"), q: node("input") };
  const document = {
    getElementById: (id) => elements[id] || null,
    createElement: node, createTextNode: (t) => ({ text: t }),
    querySelector: () => null, querySelectorAll: () => [],
  };
  const window = { location: { search: "?q=" + encodeURIComponent(q) } };
  const ctx = { window, document, URLSearchParams, console };
  vm.createContext(ctx);
  vm.runInContext(indexCode, ctx);
  vm.runInContext(code, ctx);
  // Each result names its record's id in a <code>.
  const idOf = (n) => { if (!n || typeof n !== "object") return null;
    if (n.tag === "code") return n.textContent;
    for (const c of n.children || []) { const id = idOf(c); if (id) return id; }
    return null; };
  out.push(items.slice(0, 10).map((li) => idOf(li) || ""));
}
console.log(JSON.stringify(out));
""")
    queries = os.path.join(work, "queries.json")
    with open(queries, "w") as f:
        json.dump([t for _, t in phrasings] + generated, f)
    node = shutil.which("node")
    static = None
    if node:
        res = subprocess.run([node, runner, site, queries], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit("static search runner failed:\n" + res.stderr[-2000:])
        static = json.loads(res.stdout)
        static, static_generated = static[:len(phrasings)], static[len(phrasings):]
finally:
    if server:
        server.terminate()
        server.wait()
    shutil.rmtree(work, ignore_errors=True)

failed = False
for name, lists in (("server", served), ("static site", static)):
    if lists is None:
        print(f"{name}: node is missing, not measured")
        failed = True
        continue
    top1, top5, mrr, misses = score(lists)
    print(f"{name}: {len(phrasings)} phrasings: top-1 {top1:.0%}, top-5 {top5:.0%}, "
          f"MRR {mrr:.3f}")
    for want, text, rank, got in misses if verbose else []:
        print(f"  {'#' + str(rank) if rank else 'none':>5}  {want}  <- {text!r}  (got {got})")
    if top5 < MIN_TOP5 or mrr < MIN_MRR:
        print(f"{name}: under the floor (top-5 {MIN_TOP5:.0%}, MRR {MIN_MRR})")
        failed = True
if served and static:
    same = sum(1 for a, b in zip(served, static) if a[:5] == b[:5])
    print(f"server and static site give the same top 5, in the same order, for "
          f"{same}/{len(phrasings)} phrasings")
    for (want, text), a, b in zip(phrasings, served, static):
        if a[:5] != b[:5] and verbose:
            print(f"  differ: {text!r}\n    server {a[:5]}\n    static {b[:5]}")
    if same / len(phrasings) < MIN_PARITY:
        failed = True
    same = sum(1 for a, b in zip(served_generated, static_generated) if a[:5] == b[:5])
    print(f"and for {same}/{len(generated)} queries made from the records (tags, title words, synonyms, "
          f"prefixes, ids)")
    for q, a, b in zip(generated, served_generated, static_generated):
        if a[:5] != b[:5] and verbose:
            print(f"  differ: {q!r}\n    server {a[:5]}\n    static {b[:5]}")
    if len(generated) < 50 or same / len(generated) < MIN_PARITY:
        failed = True
    for name, lists in (("server", served_generated), ("static site", static_generated)):
        wrong = [(q, want, got[:1]) for (want, q), got in
                 zip(pasted, lists[pasted_at:pasted_at + len(pasted)]) if got[:1] != [want]]
        print(f"{name}: {len(pasted) - len(wrong)}/{len(pasted)} pasted ids and slugs find "
              f"their record first")
        for q, want, got in wrong:
            print(f"  {q!r}: got {got}, want {want}")
        failed |= bool(wrong)
    differ = [(q, a[:5], b[:5]) for q, a, b in
              zip(split, served_generated[split_at:], static_generated[split_at:]) if a[:5] != b[:5]]
    print(f"{len(split) - len(differ)}/{len(split)} names typed as two words give the same top 5")
    for q, a, b in differ:
        print(f"  differ: {q!r}\n    server {a}\n    static {b}")
    failed |= len(split) < 3 or bool(differ)
sys.exit(1 if failed else 0)
