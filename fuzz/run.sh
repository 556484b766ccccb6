#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan), replays every saved crash input
# under tests/data/fuzz/<target>/ through its target as a fixed check, then fuzzes each
# target for SECONDS. `make test` runs it with 10 s, `make fuzz FUZZ_SECONDS=N` longer.
#   fuzz/run.sh SECONDS [TARGET...]      targets: KB_FUZZ_TARGETS of fuzz/CMakeLists.txt
# Seed corpora are copied from tests/data/ (and records/) at run time into
# $BUILD/fuzz-corpus/<target>, which keeps what the fuzzer learns between runs; saved
# crash inputs are seeds too. A crash leaves its input in $BUILD/fuzz-artifacts/<target>/
# and makes this script exit 1; keep it as tests/data/fuzz/<target>/<what-it-broke>.
# One input may take 30 s before it counts as a hang: the loader's alias-bomb fixture
# (tests/data/invalid/limits.nodes.yaml) takes ~2 s under ASan, and far more on a busy
# machine. Environment: FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (default 2),
# FUZZ_SKIP_BUILD=1 (run the binaries already built), FUZZ_SEED=N (libFuzzer's -seed:
# `make test` fixes it, so a test run explores the same inputs from the same seeds and a
# red run is reproducible; `make fuzz` leaves it random to find new ones).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
# shellcheck disable=SC2207  # the names are words
[ ${#targets[@]} -eq 0 ] && targets=($(sed -n 's/^set(KB_FUZZ_TARGETS \(.*\))$/\1/p' fuzz/CMakeLists.txt))
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-2}

if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
  # -O1 and line tables only: the build is most of what CI pays for, and stack traces
  # still name file and line.
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DKB_BUILD_FUZZERS=ON -DKB_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_FLAGS_FUZZ="-O1 -gline-tables-only" >/dev/null
  cmake --build "$build" -j"$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}") >/dev/null
fi

seed() {  # seed TARGET DIR: copies the target's seeds from the repository into DIR
  local t=$1 dir=$2
  case $t in
    record_loader)
      find tests/data/valid tests/data/invalid tests/data/hostile records -type f \
        \( -name '*.yaml' -o -name '*.yml' \) -exec cp -t "$dir" {} + 2>/dev/null || true ;;
    deployment)
      cp tests/data/deployments/* "$dir" ;;
    readers)  # the first byte picks the reader: 0 guesses, 1..6 kubernetes .. shell
      local i=0 f
      for f in tests/data/deploy/*.*; do
        printf "\\$(printf '%03o' $((i % 7)))" >"$dir/r$i"
        cat "$f" >>"$dir/r$i"
        i=$((i + 1))
      done ;;
    version)
      grep -rhoE 'versions?: *"?[^"},]+(, *[^"},]+)*' tests/data records 2>/dev/null |
        sed -E 's/^versions?: *"?//' | sort -u | awk -v d="$dir" '
          { f = sprintf("%s/v%03d", d, NR); printf "%s\n%s\n%s", $0, $0, $0 > f; close(f) }' ;;
    markdown)
      find records tests/data/hostile tests/data/seeds -type f -exec cp -t "$dir" {} + 2>/dev/null || true ;;
    http)  # the saved inputs under tests/data/fuzz/http/ are its seeds (copied below)
      ;;
    search)
      local i=0
      for q in mooncake 'kv cache' '"prefix' 'NEAR(a b)' 'a OR b' '日本語' 'pd*' '-x' '^hit'; do
        printf '%s' "$q" >"$dir/q$((i++))"
      done ;;
  esac
  if [ -d "tests/data/fuzz/$t" ]; then cp tests/data/fuzz/"$t"/* "$dir" 2>/dev/null || true; fi
}

fail() {  # fail TARGET LOG WHAT
  echo "fuzz_$1: FAILED $3, see $2" >&2
  grep -E 'ERROR|invariant broken|runtime error|SUMMARY|Running: ' "$2" | head -6 >&2 || true
  status=1
}

status=0
for t in "${targets[@]}"; do
  bin=$build/fuzz/fuzz_$t
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$artifacts"
  # Files given as arguments are run once each: the saved crash inputs must still pass.
  saved=()
  [ -d "tests/data/fuzz/$t" ] && mapfile -t saved < <(find "tests/data/fuzz/$t" -type f | sort)
  if [ ${#saved[@]} -gt 0 ]; then
    log=$build/fuzz-$t-regressions.log
    if ! "$bin" -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" "${saved[@]}" \
        >"$log" 2>&1; then
      fail "$t" "$log" "on a saved crash input"
      continue
    fi
  fi

  corpus=$build/fuzz-corpus/$t
  seeds=$(mktemp -d)
  mkdir -p "$corpus"
  seed "$t" "$seeds"
  flags=()
  [ -f "fuzz/$t.dict" ] && flags=(-dict="fuzz/$t.dict")
  [ -n "${FUZZ_SEED:-}" ] && flags+=(-seed="$FUZZ_SEED")
  log=$build/fuzz-$t.log
  if "$bin" "${flags[@]}" -max_total_time="$seconds" -max_len=16384 -timeout=30 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$corpus" "$seeds" >"$log" 2>&1; then
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
    echo "fuzz_$t: ok, ${#saved[@]} saved inputs replayed, ${seconds}s, $execs runs, $cov, corpus $(ls "$corpus" | wc -l)"
  else
    fail "$t" "$log" "while fuzzing; input in $artifacts/"
  fi
  rm -rf "$seeds"
done
exit $status
