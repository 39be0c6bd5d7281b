#!/usr/bin/env bash
# The logflow example's test: on the first 30,000 records of the 2001 flights, through a
# durable log of 3 partitions, on 1, 2 and 4 workers, the hourly means it writes to the log
# equal the `mean` lines of flights_model.py (computed without timely or the log), and the
# replay of the captured results writes byte-identical partitions (the example checks that and
# fails otherwise). A log directory that holds the streams already is refused, and so is an
# --out that cannot be written.
#   check_logflow.sh LOGFLOW_BINARY CSV WORKDIR
set -euo pipefail
bin=$1 csv=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
limit=30000
[ -s "$csv" ] || { echo "missing $csv: run scripts/fetch-flights.sh" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
python3 "$here/flights_model.py" "$csv" "$limit" | grep '^mean ' > "$work/expected.txt"
[ "$(wc -l < "$work/expected.txt")" -gt 1000 ] || { echo "the model gave too few means" >&2; exit 1; }
for w in 1 2 4; do
  "$bin" --log "$work/log-w$w" --file "$csv" --limit "$limit" --partitions 3 --out "$work/w$w.txt" -w "$w" \
    > "$work/w$w.log"
  grep -q "^logflow: $limit records loaded into 3 partitions; .* replay of the capture byte-identical$" \
    "$work/w$w.log" || { cat "$work/w$w.log"; exit 1; }
  cmp "$work/expected.txt" "$work/w$w.txt" || { echo "-w $w: means differ from the model" >&2; exit 1; }
done
if "$bin" --log "$work/log-w1" --file "$csv" --limit 10 --out "$work/w1.txt" > "$work/again.out" 2>&1; then
  echo "a used log directory was accepted" >&2
  exit 1
fi
grep -q "already holds stream 'flights'" "$work/again.out" || { cat "$work/again.out" >&2; exit 1; }
cmp "$work/expected.txt" "$work/w1.txt" || { echo "a refused run changed the --out file of an earlier one" >&2; exit 1; }
# An --out that cannot be written is refused before anything is loaded.
if "$bin" --log "$work/log-out" --file "$csv" --limit 10 --out "$work/no/such/dir/x" > "$work/out.out" 2>&1; then
  echo "an unwritable --out was accepted" >&2
  exit 1
fi
grep -q "cannot be written" "$work/out.out" && [ ! -e "$work/log-out/flights" ] || { cat "$work/out.out" >&2; exit 1; }
echo "logflow: means equal to the model on 1, 2 and 4 workers; replays byte-identical"
