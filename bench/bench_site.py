#!/usr/bin/env python3
"""`kb site` against `hugo` building the same records as pages from equivalent Markdown.

    bench_site.py [SIZES...]         default: 1000 10000

Both get the same records (gen_corpus.py writes hugo/ with one content page per record
and minimal layouts: title, two params, the rendered Markdown; list pages per section).
Prints median wall time of RUNS runs, HTML pages written, and time per page.
Target: kb site per page at most 0.8x hugo's (ratio <= 0.8), both into an empty directory.

Every run writes into a directory of its own that does not exist yet, and nothing is
removed until the last run is timed. The root filesystem here is ext4 without a journal,
which passes over inodes freed in the last 60 s, or 360 s once their inode table block
is dirty again (as creating files makes it), each time it allocates one: with the
previous run's 30,000 files removed just before, each file created scanned past them
(`recently_deleted` in a profile, 40 % of kb's system time). That cost belongs to the
removal, not to the tool that runs next, so the script also waits QUIET seconds
(default 370) after clearing earlier runs' output.
"""
import os
import shutil
import sys
import time

import benchlib as b


def pages(d):
    return sum(1 for _, _, files in os.walk(d) for f in files if f.endswith(".html"))


RUNS_DIR = os.path.join(b.WORK, "site-runs")
QUIET = int(os.environ.get("QUIET", "370"))


def clear_runs():
    """Removes earlier runs' output, then waits until ext4 reuses the inodes it freed."""
    for old in (RUNS_DIR, os.path.join(b.WORK, "site-kb"), os.path.join(b.WORK, "site-hugo")):
        if os.path.exists(old):
            shutil.rmtree(old)
    os.makedirs(RUNS_DIR)
    os.sync()
    time.sleep(QUIET)


def new_dir(name):
    """A directory that does not exist yet, its parent's earlier writes on disk."""
    os.sync()
    time.sleep(1)
    return os.path.join(RUNS_DIR, name)


def kb_site(d, out):
    return b.timed([b.KB, "site", "--records", os.path.join(d, "records"), "--out", out,
                    "--today", b.TODAY])


def hugo(d, out):
    return b.timed(["hugo", "--quiet", "--source", os.path.join(d, "hugo"), "--destination", out,
                    "--cacheDir", os.path.join(b.WORK, "hugo-cache"), "--noBuildLock"])


def main():
    b.need(b.KB)
    b.need("hugo")
    sizes = [int(s) for s in sys.argv[1:]] or [1000, 10000]
    rows, saved = [], {}
    for n in sizes:
        d, _ = b.corpus(n)
        clear_runs()
        kb_site(d, new_dir("kb-%d-warm" % n))
        hugo(d, new_dir("hugo-%d-warm" % n))
        k, h = [], []
        for i in range(b.RUNS):  # alternating, so a slow spell of the machine hits both
            k.append(kb_site(d, new_dir("kb-%d-%d" % (n, i))))
            h.append(hugo(d, new_dir("hugo-%d-%d" % (n, i))))
        kp = pages(os.path.join(RUNS_DIR, "kb-%d-0" % n))
        hp = pages(os.path.join(RUNS_DIR, "hugo-%d-0" % n))
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
    shutil.rmtree(RUNS_DIR)


if __name__ == "__main__":
    main()
