#!/usr/bin/env bash
# An installed kb brings its knowledge base: `cmake --install BUILD --prefix P` puts
# P/bin/kb and P/share/kb/records, and kb run from a directory without ./records (no
# --records, no environment) uses them.
# usage: run.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix/usr" >/dev/null
test -x "$prefix/usr/bin/kb" || { echo "FAIL no $prefix/usr/bin/kb"; exit 1; }
test -d "$prefix/usr/share/kb/records/gotchas" || { echo "FAIL no share/kb/records"; exit 1; }
work=$(mktemp -d -p "$prefix")
cd "$work"
unset KB_RECORDS KB_DB
out=$("$prefix/usr/bin/kb" version)
echo "$out"
grep -q "from $prefix/usr/share/kb/records" <<<"$out" || { echo "FAIL version does not name the installed records"; exit 1; }
# ... read through the index built from them, while no installed record is newer.
grep -q "(index $prefix/usr/share/kb/kb.db)" <<<"$out" || { echo "FAIL version does not use the installed index"; exit 1; }
printf 'engines: [{engine: vllm, version: 0.26.0}]\nconfig: {prefix_caching: true}\n' > d.yaml
set +e
"$prefix/usr/bin/kb" check d.yaml -f json > out.json
code=$?
set -e
[ "$code" -eq 1 ] || [ "$code" -eq 0 ] || { echo "FAIL kb check exited $code"; exit 1; }
grep -q '"gotchas/apc-warm-hit-differs-from-cold"' out.json || { echo "FAIL no finding from the installed records"; exit 1; }
# The environment points elsewhere, and the command line wins over it.
mkdir -p empty
set +e
KB_RECORDS="$work/empty" "$prefix/usr/bin/kb" check d.yaml >/dev/null 2>&1
code=$?
set -e
[ "$code" -eq 2 ] || { echo "FAIL KB_RECORDS of an empty tree should fail closed (exit 2), got $code"; exit 1; }
KB_RECORDS="$work/empty" "$prefix/usr/bin/kb" version --records "$prefix/usr/share/kb/records" | grep -q "records, " || { echo "FAIL --records does not win over KB_RECORDS"; exit 1; }
# An installed record edited after the index was built: the records win over the index.
touch -d '+1 minute' "$prefix/usr/share/kb/records/gotchas/apc-warm-hit-differs-from-cold.yaml"
if "$prefix/usr/bin/kb" version | grep -q "(index "; then
  echo "FAIL a record newer than the index still reads the index"; exit 1
fi
"$prefix/usr/bin/kb" check d.yaml -f json -o edited.json --fail-on never
grep -q '"gotchas/apc-warm-hit-differs-from-cold"' edited.json ||
  { echo "FAIL no finding from the edited installed records"; exit 1; }
echo "install: ok"
