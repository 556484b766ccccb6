#!/usr/bin/env bash
# Installs the Debian 12 packages kb builds and tests with. Idempotent: does nothing
# when everything is present. Run as root (or with sudo available).
set -euo pipefail
build_pkgs=(build-essential cmake pkg-config libsqlite3-dev libyaml-dev libyaml-cpp-dev
  libcpp-httplib-dev nlohmann-json3-dev catch2 libmd4c-html0-dev libmd4c-dev
  libkainjow-mustache-dev libpugixml-dev libcli11-dev sqlite3)
# --fuzz: what fuzz/run.sh needs on top (libFuzzer and the sanitizer runtimes);
# --test: the browser test's, the format check's and the fuzzers' packages, since
# `make test` runs them all.
fuzz_pkgs=(clang-14 libclang-rt-14-dev)
test_pkgs=(chromium curl clang-format-14 "${fuzz_pkgs[@]}")
want=("${build_pkgs[@]}")
case "${1:-}" in
  --test) want+=("${test_pkgs[@]}") ;;
  --fuzz) want+=("${fuzz_pkgs[@]}") ;;
esac
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
