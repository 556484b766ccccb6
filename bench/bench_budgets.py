#!/usr/bin/env python3
"""The worst case of each input budget (issue 33): every attack that once took kb down,
run through `kb check` under /usr/bin/time, beside `kb check` of a real script of the same
records as the floor. Prints the input's size, exit code, the diagnostic that stopped it,
wall and CPU time and peak RSS, and the RSS over the floor's.

  python3 bench/bench_budgets.py            (KB=build/cli/kb by default here)

Each run is capped with `ulimit -v` 4 GiB, as the attacks were measured: an unbounded
one fails with an exit code other than 2 instead of swapping.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KB = os.environ.get("KB", os.path.join(REPO, "build", "cli", "kb"))
RECORDS = os.path.join(REPO, "records")


def attacks():
    """(name, file name, text) of each attack, at the sizes the issue measured."""
    out = []
    s = "A=x\n" + "A=$A$A\n" * 30 + 'vllm serve "$A"\n'
    out.append(("shell variable doubling x30", "doubling.sh", s))
    y = 'a: &a "' + "x" * 400000 + '"\nb: [' + ", ".join(["*a"] * 100000) + "]\n"
    out.append(("YAML alias 400 KB x 100,000", "alias.yaml", y))
    s = "".join("export V%d=value-of-thirty-bytes-or-so\n" % i for i in range(1500))
    s += "vllm serve m\n" * 1500
    out.append(("export x commands (1,500 x 1,500)", "exports.sh", s))
    k = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
         "  - name: vllm\n    image: vllm/vllm-openai:v0.26.0\n    env:\n    - name: BIG\n"
         '      value: "' + "y" * 100000 + '"\n    args:\n' + '    - "$(BIG)"\n' * 20000)
    out.append(("Kubernetes $(VAR) 100 KB x 20,000", "var.yaml", k))
    k = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n"
    k += "".join("  K%d: v\n" % i for i in range(20000))
    k += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
    k += "".join("  - name: c%d\n    image: vllm/vllm-openai:v0.26.0\n"
                 "    envFrom: [{configMapRef: {name: cm}}]\n" % i for i in range(4000))
    out.append(("envFrom 20,000 keys x 4,000 containers", "envfrom.yaml", k))
    s = ""
    while len(s) < 520 * 1000:
        s += "sh -c 'echo starting; true' && sh -c \"echo done\"\n"
    out.append(("sh -c on every line, 520 KB", "shc.sh", s))
    s = ""
    while len(s) < 520 * 1000:
        s += 'sh -c "exec vllm serve m --port 8000"\n'
    out.append(("sh -c vllm serve, 13,000 lines", "shc-vllm.sh", s))
    return out


def run(path, work):
    """(exit code, wall s, CPU s, peak RSS MiB, the limits.* codes reported)."""
    stats = os.path.join(work, os.path.basename(path) + ".time")
    t0 = time.perf_counter()
    p = subprocess.run(["sh", "-c", 'ulimit -v 4194304; exec /usr/bin/time -v -o "$0" "$@"',
                        stats, KB, "check", path, "--records", RECORDS, "--format", "json"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    text = open(stats).read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    cpu = sum(float(x) for x in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", text))
    codes = []
    try:
        codes = sorted({d["code"] for d in json.loads(p.stdout).get("diagnostics", [])
                        if d["code"].startswith("limits.")})
    except ValueError:
        codes = ["(no JSON)"]
    return p.returncode, wall, cpu, rss, codes


def main():
    if not os.path.exists(KB):
        sys.exit("no kb binary at %s (set KB)" % KB)
    work = tempfile.mkdtemp(prefix="kb-budgets-")
    floor_path = os.path.join(REPO, "tests", "data", "deploy", "vllm-pd-lmcache.sh")
    floor = run(floor_path, work)
    print("%-40s %9s %4s %-18s %7s %7s %8s %9s" %
          ("input", "bytes", "exit", "stopped by", "wall s", "CPU s", "RSS MiB", "RSS-floor"))
    print("%-40s %9d %4d %-18s %7.2f %7.2f %8.1f %9s" %
          ("floor: vllm-pd-lmcache.sh", os.path.getsize(floor_path), floor[0], "-", floor[1],
           floor[2], floor[3], "-"))
    for name, file, text in attacks():
        path = os.path.join(work, file)
        with open(path, "w") as f:
            f.write(text)
        code, wall, cpu, rss, codes = run(path, work)
        print("%-40s %9d %4d %-18s %7.2f %7.2f %8.1f %9.1f" %
              (name, len(text), code, ",".join(codes) or "-", wall, cpu, rss, rss - floor[3]))


if __name__ == "__main__":
    main()
