#!/usr/bin/env bash
# Installs the peers the benchmarks measure kb against, and the tools they measure with
# (Debian 12). Idempotent: does nothing when everything is present. Run as root.
set -euo pipefail
pkgs=(sqlite3 hugo nginx-light wrk time python3 curl procps)
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
