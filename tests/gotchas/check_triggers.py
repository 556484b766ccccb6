#!/usr/bin/env python3
"""Checks that each gotcha in tests/data/gotchas/cases.txt is reported by `kb check` on its
trigger deployment and not on its near misses, with the bundled records.

usage: check_triggers.py KB SOURCE_DIR
"""
import json
import os
import subprocess
import sys


def main():
    kb, src = sys.argv[1], sys.argv[2]
    base = os.path.join(src, "tests", "data", "gotchas")
    records = os.path.join(src, "records")
    failed = 0
    cases = 0
    with open(os.path.join(base, "cases.txt"), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            gotcha, want, *files = line.split()
            if want not in ("reports", "not") or not files:
                print(f"cases.txt:{n}: bad line: {line}")
                failed += 1
                continue
            cases += 1
            args = [kb, "check", "--records", records, "--format", "json"]
            args += [os.path.join(base, x) for x in files]
            run = subprocess.run(args, capture_output=True, text=True, timeout=120)
            if run.returncode not in (0, 1):
                print(f"cases.txt:{n}: kb check exited {run.returncode}: {run.stderr.strip()}")
                failed += 1
                continue
            ids = {x["id"] for x in json.loads(run.stdout)["findings"]}
            got = f"gotchas/{gotcha}" in ids
            if got != (want == "reports"):
                print(f"cases.txt:{n}: {gotcha} {'not ' if not got else ''}reported on {' '.join(files)}"
                      f", expected it {'to be' if want == 'reports' else 'not to be'}")
                failed += 1
    print(f"gotcha triggers: {cases - failed}/{cases} as expected")
    return 1 if failed or cases == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
