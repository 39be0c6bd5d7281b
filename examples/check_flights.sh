#!/usr/bin/env bash
# The flights example's test: on the first 100,000 records of the 2001 flights,
# - in time order on 1 worker, its results equal flights_model.py's (computed without timely);
# - shuffled within 30-minute buckets under a watermark of max seen - 29 minutes, on 2 and 4
#   workers, no record is late and the results are the same;
# - with max seen - 10 minutes, records are late, and their count and the results are the same
#   on 1, 2 and 4 workers (each bucket's order does not depend on the workers).
#   check_flights.sh FLIGHTS_BINARY CSV WORKDIR
set -euo pipefail
bin=$1 csv=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
limit=100000
[ -s "$csv" ] || { echo "missing $csv: run scripts/fetch-flights.sh" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
python3 "$here/flights_model.py" "$csv" "$limit" > "$work/expected.txt"
[ "$(wc -l < "$work/expected.txt")" -gt 10000 ] || { echo "the model gave too few results" >&2; exit 1; }

run() {  # run NAME ARGS...: the summary line to NAME.log, the results to NAME.txt
  local name=$1
  shift
  "$bin" --file "$csv" --limit "$limit" --out "$work/$name.txt" "$@" > "$work/$name.log"
  grep -q "^flights: $limit records" "$work/$name.log" || { cat "$work/$name.log"; exit 1; }
}
late() { sed -n 's/.*records ([^)]*), \([0-9]*\) late.*/\1/p' "$work/$1.log"; }

run ordered -w 1
cmp "$work/expected.txt" "$work/ordered.txt" || { echo "in order: results differ from the model" >&2; exit 1; }
[ "$(late ordered)" = 0 ] || { echo "in order: late records" >&2; exit 1; }
for w in 2 4; do
  run "shuffled-w$w" --shuffle 30 --delay 29 --seed 7 -w "$w"
  cmp "$work/expected.txt" "$work/shuffled-w$w.txt" || { echo "shuffled, -w $w: results differ" >&2; exit 1; }
  [ "$(late "shuffled-w$w")" = 0 ] || { echo "shuffled, -w $w: late records with a delay of 29" >&2; exit 1; }
done
run tight-w1 --shuffle 30 --delay 10 --seed 7 -w 1
n=$(late tight-w1)
[ "$n" -gt 0 ] || { echo "a delay of 10 minutes left no record late" >&2; exit 1; }
# The count the book (9.8) gives for this run.
[ "$n" = 62346 ] || { echo "a delay of 10 minutes left $n records late, the book says 62346" >&2; exit 1; }
! cmp -s "$work/expected.txt" "$work/tight-w1.txt" || { echo "dropping $n late records changed nothing" >&2; exit 1; }
for w in 2 4; do
  run "tight-w$w" --shuffle 30 --delay 10 --seed 7 -w "$w"
  [ "$(late "tight-w$w")" = "$n" ] || { echo "-w $w: $(late "tight-w$w") late records, -w 1: $n" >&2; exit 1; }
  cmp "$work/tight-w1.txt" "$work/tight-w$w.txt" || { echo "delay 10, -w $w: results differ from -w 1" >&2; exit 1; }
done
# Bad input: a clear error naming the file and line, exit status 2.
bad() {  # bad NAME CONTENT EXPECTED-MESSAGE
  printf '%b' "$2" > "$work/$1.csv"
  if "$bin" --file "$work/$1.csv" > "$work/$1.out" 2>&1; then echo "$1: accepted" >&2; exit 1; fi
  grep -q "$3" "$work/$1.out" || { echo "$1: expected '$3', got:" >&2; cat "$work/$1.out" >&2; exit 1; }
}
bad malformed '2001-01-01 00:01,33,2176,LAS,PHL\n2001-01-01 00:02,x,1,LAS,PHL\n' "malformed.csv, line 2: a delay"
bad unordered '2001-01-02 00:01,33,2176,LAS,PHL\n2001-01-01 00:02,1,1,LAS,PHL\n' "line 2: records must be in time order"
bad date '2002-01-01 00:01,33,2176,LAS,PHL\n' "line 1: a date and time in 2001"
bad empty '' "holds no records"
"$bin" --file "$work/none.csv" > "$work/none.out" 2>&1 && exit 1
grep -q "cannot open '$work/none.csv'" "$work/none.out" || { cat "$work/none.out" >&2; exit 1; }
echo "flights: model equal; shuffled equal on 2 and 4 workers; $n of $limit late with a 10-minute bound on 1, 2, 4"
