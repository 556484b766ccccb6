#!/usr/bin/env bash
# Runs every benchmark and the soak test; figures go to stdout and $BENCH_WORK/results.json
# (default /tmp/kb-bench), which bench/RESULTS.md is written from. Needs a Release kb in
# build-g (cmake -S . -B build-g -DCMAKE_BUILD_TYPE=Release && cmake --build build-g
# --target kb) and the peers (bash bench/deps.sh). About 75 minutes on an idle 2-core
# machine, most of it the 100k-record runs; the corpora (1k, 10k, 100k: ~400 MB) are
# generated once and kept under $BENCH_WORK.
set -euo pipefail
cd "$(dirname "$0")"
export RUNS=${RUNS:-3} SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
step() { echo; echo "## $*  ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"; }
step soak;            python3 soak.py
step http 100k;       python3 bench_http.py 100000
step http 100k with TCP_NODELAY; KB_NODELAY_SHIM=1 python3 bench_http.py 100000
step reload;          python3 bench_reload.py 10000 100000
step build;           python3 bench_build.py 1000 10000 100000
step site;            python3 bench_site.py 1000 10000
step done
