#!/usr/bin/env python3
"""`kb site` against `hugo` building the same records as pages from equivalent Markdown.

    bench_site.py [SIZES...]         default: 1000 10000

Both get the same records (gen_corpus.py writes hugo/ with one content page per record
and minimal layouts: title, two params, the rendered Markdown; list pages per section).
Prints median wall time of RUNS runs, HTML pages written, and time per page.
Target: kb site per page at most 0.8x hugo's (ratio <= 0.8), both into an empty directory.
"""
import os
import shutil
import sys
import time

import benchlib as b


def pages(d):
    return sum(1 for _, _, files in os.walk(d) for f in files if f.endswith(".html"))


def fresh(out):
    """Both tools write into an empty directory whose removal has reached the disk: the
    root filesystem here is ext4 mounted with `discard`, where deleting 30,000 files
    costs the next run seconds of I/O it did not cause."""
    if os.path.exists(out):
        shutil.rmtree(out)
    os.sync()
    time.sleep(3)  # the discards of that removal trail the sync


def kb_site(d, out):
    fresh(out)
    return b.timed([b.KB, "site", "--records", os.path.join(d, "records"), "--out", out,
                    "--today", b.TODAY])


def hugo(d, out):
    fresh(out)
    return b.timed(["hugo", "--quiet", "--source", os.path.join(d, "hugo"), "--destination", out,
                    "--cacheDir", os.path.join(b.WORK, "hugo-cache"), "--noBuildLock"])


def main():
    b.need(b.KB)
    b.need("hugo")
    sizes = [int(s) for s in sys.argv[1:]] or [1000, 10000]
    rows, saved = [], {}
    for n in sizes:
        d, _ = b.corpus(n)
        kout, hout = os.path.join(b.WORK, "site-kb"), os.path.join(b.WORK, "site-hugo")
        kb_site(d, kout)  # warm-up
        hugo(d, hout)
        k = [kb_site(d, kout) for _ in range(b.RUNS)]
        h = [hugo(d, hout) for _ in range(b.RUNS)]
        kp, hp = pages(kout), pages(hout)
        kw, hw = b.median([r[0] for r in k]), b.median([r[0] for r in h])
        kc, hc = b.median([r[2] for r in k]), b.median([r[2] for r in h])
        fig = {"records": n, "kb_s": round(kw, 2), "kb_cpu_s": round(kc, 2),
               "hugo_cpu_s": round(hc, 2), "load": b.loadavg(), "kb_pages": kp,
               "kb_ms_page": round(kw * 1000 / kp, 3), "kb_rss_mib": round(b.median([r[1] for r in k])),
               "hugo_s": round(hw, 2), "hugo_pages": hp, "hugo_ms_page": round(hw * 1000 / hp, 3),
               "hugo_rss_mib": round(b.median([r[1] for r in h]))}
        fig["ratio"] = round(fig["kb_ms_page"] / fig["hugo_ms_page"], 2)
        saved[str(n)] = fig
        rows.append([n, fig["kb_s"], fig["kb_cpu_s"], kp, fig["kb_ms_page"], fig["kb_rss_mib"],
                     fig["hugo_s"], fig["hugo_cpu_s"], hp, fig["hugo_ms_page"],
                     fig["hugo_rss_mib"], "%.2fx" % fig["ratio"], fig["load"]])
    b.table(["records", "kb site s", "kb CPU s", "kb pages", "kb ms/page", "kb peak MiB",
             "hugo s", "hugo CPU s", "hugo pages", "hugo ms/page", "hugo peak MiB",
             "per page kb/hugo", "load avg"], rows)
    b.save("site", saved)


if __name__ == "__main__":
    main()
