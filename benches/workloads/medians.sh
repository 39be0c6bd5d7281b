#!/usr/bin/env bash
# Runs the example workloads several times and prints the median of the rates they report.
#   benches/workloads/medians.sh [BUILD_DIR] [RUNS]     (defaults: build/release, 5)
# exchange: median over runs of the per-worker records/s (all workers' figures pooled);
# wordcount (GCIDE, from scripts/fetch-data.sh): median words/s and seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
runs=${2:-5}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.4g\n", v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for args in "10000 100" "10000 1000"; do
  for w in 1 2; do
    rate=$(for _ in $(seq "$runs"); do "$build/examples/exchange" $args -w "$w"; done | awk '{ print $(NF - 1) }' | median)
    echo "exchange $args -w $w: median $rate records/s per worker ($runs runs)"
  done
done
for w in 1 2; do
  out=$(for _ in $(seq "$runs"); do "$build/examples/wordcount" "$root/data/gcide.txt" -w "$w" 2>&1 >/dev/null; done)
  rate=$(awk '{ print $(NF - 1) }' <<<"$out" | median)
  secs=$(awk '{ print $(NF - 3) }' <<<"$out" | median)
  echo "wordcount gcide -w $w: median $rate words/s, $secs s ($runs runs)"
done
