#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-14, ASan + UBSan) and runs each for SECONDS.
#   fuzz/run.sh SECONDS [TARGET...]      targets: record_loader deployment version markdown search
# Seed corpora are copied from tests/data/ (and records/) at run time into
# $BUILD/fuzz-corpus/<target>, which keeps what the fuzzer learns between runs; saved
# crash inputs under tests/data/fuzz/<target>/ are seeds too. A crash leaves its input
# in $BUILD/fuzz-artifacts/<target>/ and makes this script exit 1.
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (default 2), FUZZ_SKIP_BUILD=1
# (run the binaries already built).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(record_loader deployment version markdown search)
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-2}

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DKB_BUILD_FUZZERS=ON -DKB_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
if [ "${FUZZ_SKIP_BUILD:-0}" != 1 ]; then
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
    version)
      grep -rhoE 'versions?: *"?[^"},]+(, *[^"},]+)*' tests/data records 2>/dev/null |
        sed -E 's/^versions?: *"?//' | sort -u | awk -v d="$dir" '
          { f = sprintf("%s/v%03d", d, NR); printf "%s\n%s\n%s", $0, $0, $0 > f; close(f) }' ;;
    markdown)
      find records tests/data/hostile tests/data/seeds -type f -exec cp -t "$dir" {} + 2>/dev/null || true ;;
    search)
      local i=0
      for q in mooncake 'kv cache' '"prefix' 'NEAR(a b)' 'a OR b' '日本語' 'pd*' '-x' '^hit'; do
        printf '%s' "$q" >"$dir/q$((i++))"
      done ;;
  esac
  if [ -d "tests/data/fuzz/$t" ]; then cp tests/data/fuzz/"$t"/* "$dir" 2>/dev/null || true; fi
}

status=0
for t in "${targets[@]}"; do
  corpus=$build/fuzz-corpus/$t
  seeds=$(mktemp -d)
  artifacts=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$artifacts"
  seed "$t" "$seeds"
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  log=$build/fuzz-$t.log
  if "$build/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "$corpus" "$seeds" >"$log" 2>&1; then
    execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 || true)
    echo "fuzz_$t: ok, ${seconds}s, $execs runs, $cov, corpus $(ls "$corpus" | wc -l)"
  else
    echo "fuzz_$t: FAILED, see $log; input in $artifacts/" >&2
    grep -E 'ERROR|invariant broken|runtime error|SUMMARY' "$log" | head -5 >&2 || true
    status=1
  fi
  rm -rf "$seeds"
done
exit $status
