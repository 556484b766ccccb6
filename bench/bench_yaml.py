#!/usr/bin/env python3
"""The YAML front ends kb could parse records with, on the generated corpus: yaml-cpp's
event parser (used until the libyaml switch), libyaml's (used now) and libfyaml's. One
thread, files in memory, every event's position read; prints MB/s per front end.

    bench_yaml.py [RECORDS]          default: 100000

Needs g++ and libyaml-cpp-dev, libyaml-dev, libfyaml-dev (Debian 12) to build
bench/yaml_frontends.cpp into $BENCH_WORK.
"""
import os
import subprocess
import sys

import benchlib as b


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    d, _ = b.corpus(n)
    exe = os.path.join(b.WORK, "yaml_frontends")
    subprocess.run(["g++", "-O2", "-std=c++20", os.path.join(b.REPO, "bench", "yaml_frontends.cpp"),
                    "-lyaml-cpp", "-lyaml", "-lfyaml", "-o", exe], check=True)
    b.log("load %.1f" % b.loadavg())
    subprocess.run([exe, os.path.join(d, "records")], check=True)


if __name__ == "__main__":
    main()
