#!/usr/bin/env bash
# Fetches the real inputs the examples and benchmarks run on into the git-ignored data/ folder.
# Sources are Debian packages and the npm registry:
#   data/gcide.txt  the GCIDE dictionary text (~40 MB, ~5.4 M words) from the package dict-gcide;
#   data/flights-3m.csv  3 M US flights of 2001 from the npm registry (scripts/fetch-flights.sh).
# Idempotent: files already present and complete are kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/data"
mkdir -p "$data"

fetch_gcide() {
  local out="$data/gcide.txt"
  if [ -s "$out" ] && [ "$(stat -c %s "$out")" -gt 30000000 ]; then
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  chmod 777 "$tmp"
  if ! (cd "$tmp" && apt-get download dict-gcide >/dev/null 2>&1); then
    if [ "$(id -u)" -ne 0 ]; then sudo apt-get update -qq; else apt-get update -qq; fi
    (cd "$tmp" && apt-get download dict-gcide >/dev/null)
  fi
  dpkg-deb -x "$tmp"/dict-gcide_*.deb "$tmp/x"
  zcat "$tmp/x/usr/share/dictd/gcide.dict.dz" > "$out.partial"
  mv "$out.partial" "$out"
}

if ! command -v apt-get >/dev/null; then
  echo "fetch-data: apt-get is required to download Debian packages" >&2
  exit 1
fi
fetch_gcide
echo "fetch-data: $(wc -c < "$data/gcide.txt") bytes in data/gcide.txt"
bash "$root/scripts/fetch-flights.sh"  # the 3 M flights of 2001 (npm), for examples/flights
