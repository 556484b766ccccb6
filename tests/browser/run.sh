#!/usr/bin/env bash
# The browser test as ctest runs it: installs playwright-core (pinned in package-lock.json)
# into WORK_DIR, outside the source tree, then runs e2e.mjs there.
# usage: run.sh KB_BINARY RECORDS_DIR WORK_DIR
set -euo pipefail
kb=$(realpath "$1") records=$(realpath "$2") work=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm /usr/bin/chromium; do
  command -v "$tool" >/dev/null || { echo "browser test: $tool is missing (make test-deps installs Chromium)" >&2; exit 1; }
done
mkdir -p "$work"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules/playwright-core" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$here/e2e.mjs" "$work/e2e.mjs"
cd "$work"
exec node e2e.mjs "$kb" "$records" "$work"
