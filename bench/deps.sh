#!/usr/bin/env bash
# Installs the peers the benchmarks measure kb against, and the tools they measure with
# (Debian 12). Idempotent: does nothing when everything is present. Run as root.
set -euo pipefail
# --fuzz: only what fuzz/run.sh needs beyond the build dependencies of scripts/deps.sh.
pkgs=(sqlite3 hugo nginx-light wrk time python3 curl procps)
if [ "${1:-}" = "--fuzz" ]; then pkgs=(clang-14 libclang-rt-14-dev); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "bench deps: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
