#!/usr/bin/env bash
# Medians of the cluster allocator's throughput and latency over loopback, next to the same
# workloads in one process and to a plain loopback socket copy (the physical limit).
#   benches/net/cluster_medians.sh [BUILD_DIR] [RUNS]     (defaults: build/release, 5)
# exchange 10000 1000: each worker sends 10^7 u64 records; with P processes a share (P-1)/P of
# them crosses a process boundary as 8 payload bytes each (plus a 40-byte header per message of
# up to 10000/peers records). Reported: records/s per worker, and payload bytes/s over the link.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
runs=${2:-5}
ex=$build/examples
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.4g\n", v[(NR + 1) / 2]; else printf "%.4g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run2 PROGRAM ARGS...: runs PROGRAM as two processes on loopback; prints both outputs.
run2() {
  local hosts out0 out1
  hosts=$(mktemp); out0=$(mktemp); out1=$(mktemp)
  printf '127.0.0.1:%s\n127.0.0.1:%s\n' "$(free_port)" "$(free_port)" >"$hosts"
  timeout 300 "$@" -n 2 -p 1 -h "$hosts" >"$out1" &
  local pid=$!
  timeout 300 "$@" -n 2 -p 0 -h "$hosts" >"$out0"
  wait $pid
  cat "$out0" "$out1"
  rm -f "$hosts" "$out0" "$out1"
}

for w in 1 2; do
  rates=$(for _ in $(seq "$runs"); do run2 "$ex/exchange" 10000 1000 -w "$w" | awk '{ print $(NF - 1) }' | median; done)
  rate=$(median <<<"$rates")
  bytes=$(awk -v r="$rate" -v w="$w" 'BEGIN { printf "%.4g", r * w * 8 / 2 }')  # per process, half remote
  echo "exchange 10000 1000 -n 2 -w $w: median $rate records/s per worker; $bytes payload bytes/s each way ($runs runs)"
  local_w=$((2 * w))
  rate=$(for _ in $(seq "$runs"); do "$ex/exchange" 10000 1000 -w "$local_w"; done | awk '{ print $(NF - 1) }' | median)
  echo "exchange 10000 1000 -w $local_w (one process, same worker count): median $rate records/s per worker"
  rate=$(for _ in $(seq "$runs"); do "$ex/exchange" 10000 1000 -w "$local_w" -z; done | awk '{ print $(NF - 1) }' | median)
  echo "exchange 10000 1000 -w $local_w -z (one process, serialized): median $rate records/s per worker"
done
# (u64, string of 5-15 bytes) records, std::vector batches against columnar batches, alternated
# run by run. A columnar record is 8 (u64) + 8 (end offset) + 10 (average text) = 26 payload
# bytes; a vector record is encoded as 8 + 8 (length) + 10 = 26 bytes too. "columnar-batches"
# feeds the records in as prepared read-only columnar batches (--batches) instead of one by one.
vec_rates=""; col_rates=""; batch_rates=""
for _ in $(seq "$runs"); do
  vec_rates+="$(run2 "$ex/exchange" 100000 100 --strings -w 1 | awk '{ print $(NF - 1) }' | median)"$'\n'
  col_rates+="$(run2 "$ex/exchange" 100000 100 --strings --columnar -w 1 | awk '{ print $(NF - 1) }' | median)"$'\n'
  batch_rates+="$(run2 "$ex/exchange" 100000 100 --strings --columnar --batches -w 1 | awk '{ print $(NF - 1) }' | median)"$'\n'
done
for kind in vector columnar columnar-batches; do
  case $kind in vector) rates=$vec_rates ;; columnar) rates=$col_rates ;; *) rates=$batch_rates ;; esac
  rate=$(grep . <<<"$rates" | median)
  bytes=$(awk -v r="$rate" 'BEGIN { printf "%.4g", r * 26 / 2 }')  # half of each worker's records cross
  echo "exchange 100000 100 --strings ($kind batches) -n 2 -w 1: median $rate records/s per worker; $bytes payload bytes/s each way ($runs runs)"
done
rate=$(for _ in $(seq "$runs"); do "$build/benches/loopback_copy" 4294967296 1048576; done | awk '{ print $(NF - 1) }' | median)
echo "loopback socket copy, 4 GiB in 1 MiB writes: median $rate bytes/s ($runs runs)"
rate=$(for _ in $(seq "$runs"); do "$build/benches/loopback_copy" 2147483648 1048576 --both 2>&1 |
  sed -n 's/.* \([0-9.e+]*\) bytes\/s each way while both ran.*/\1/p'; done | median)
echo "loopback socket copy both ways at once, 2 GiB each in 1 MiB writes: median $rate bytes/s each way ($runs runs)"
lat=$(for _ in $(seq "$runs"); do run2 "$ex/pingpong" 10000 1 -w 1 | sed -n 's/.*(\([0-9.]*\) us per round).*/\1/p' | head -1; done | median)
echo "pingpong 10000 1 -n 2 -w 1: median $lat us per round trip ($runs runs)"
lat=$(for _ in $(seq "$runs"); do "$ex/pingpong" 10000 1 -w 2 | sed -n 's/.*(\([0-9.]*\) us per round).*/\1/p'; done | median)
echo "pingpong 10000 1 -w 2 (one process): median $lat us per round trip ($runs runs)"
