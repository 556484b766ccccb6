#!/usr/bin/env bash
# The OpenAPI test as ctest runs it: installs ajv, openapi-typescript and typescript
# (pinned in package-lock.json) into WORK_DIR, outside the source tree, then runs
# validate.mjs there against `kb serve` on RECORDS, and typed_client.mjs: client.ts
# compiled with `tsc --strict` against types generated from the document, which Redocly's
# recommended rules lint.
# usage: run.sh KB_BINARY RECORDS WORK_DIR
set -euo pipefail
kb=$(realpath "$1") records=$(realpath "$2") work=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "openapi test: $tool is missing" >&2; exit 1; }
done
mkdir -p "$work"
if ! cmp -s "$here/package-lock.json" "$work/package-lock.json" || [ ! -d "$work/node_modules/ajv" ] ||
  [ ! -d "$work/node_modules/openapi-typescript" ]; then
  cp "$here/package.json" "$here/package-lock.json" "$work/"
  (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$here/serve.mjs" "$here/validate.mjs" "$here/typed_client.mjs" "$here/client.ts" "$work/"
cd "$work"
node validate.mjs "$kb" "$records"
exec node typed_client.mjs "$kb" "$records"
