#!/usr/bin/env bash
# The SARIF test as ctest runs it: installs ajv, ajv-formats and yaml (pinned in
# package-lock.json) into WORK_DIR, outside the source tree, then runs validate.mjs there:
# every SARIF log kb check and kb lint write on the upstream corpus and the invalid record
# fixtures, against the vendored OASIS SARIF 2.1.0 schema and GitHub's upload rules.
# usage: run.sh KB_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
kb=$(realpath "$1") source=$(realpath "$2") work=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "sarif test: $tool is missing" >&2; exit 1; }
done
mkdir -p "$work"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules/ajv-formats" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$here/validate.mjs" "$work/validate.mjs"
cd "$work"
exec node validate.mjs "$kb" "$source" "$work"
