#!/usr/bin/env bash
# Fetches the 3 M US domestic flights of January to June 2001 (vega-datasets 3.2.1 on the npm
# registry, data/flights-3m.parquet, BSD-3-Clause; the data is the US DOT's) and converts them
# to data/flights-3m.csv (`YYYY-MM-DD HH:MM,delay,distance,origin,destination`, 96,783,695 bytes,
# in time order) with scripts/flights-to-csv.mjs (hyparquet, pure JavaScript, from npm).
# Needs node and npm. Idempotent: a complete CSV is kept.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/data/flights-3m.csv"
mkdir -p "$root/data"
if [ -s "$out" ] && [ "$(stat -c %s "$out")" -eq 96783695 ]; then
  echo "fetch-flights: data/flights-3m.csv present"
  exit 0
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "fetch-flights: $tool is required (Debian: nodejs npm)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
# npm's own output goes to a log, which a failure prints (an unreachable registry, a proxy's
# certificate) with the command that failed.
npm_quietly() {
  if ! npm "$@" >"$tmp/npm.log" 2>&1; then
    echo "fetch-flights: 'npm $*' failed:" >&2
    tail -n 20 "$tmp/npm.log" >&2
    exit 1
  fi
}
npm_quietly pack vega-datasets@3.2.1
tar xzf vega-datasets-3.2.1.tgz package/data/flights-3m.parquet
npm_quietly install --no-audit --no-fund --no-save hyparquet@1.33.0 hyparquet-compressors@1.1.2
cp "$root/scripts/flights-to-csv.mjs" .
node flights-to-csv.mjs package/data/flights-3m.parquet "$out.partial"
size=$(stat -c %s "$out.partial")
if [ "$size" -ne 96783695 ]; then
  echo "fetch-flights: converted CSV has $size bytes, expected 96783695" >&2
  exit 1
fi
mv "$out.partial" "$out"
echo "fetch-flights: $(wc -l < "$out") records in data/flights-3m.csv"
