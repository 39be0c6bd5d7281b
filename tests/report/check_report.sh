#!/usr/bin/env bash
# timely-report's tests. Each runs a timely program with --log-file, runs timely-report on its
# logs, and checks what it wrote; every process runs under `timeout`, so no test can hang.
#   check_report.sh wordcount   REPORT WORDCOUNT WORKDIR   graph, totals and timeline in Chromium
#   check_report.sh unfinished  REPORT HELD_CAPABILITY WORKDIR   the capabilities that held the end
#   check_report.sh errors      REPORT WORDCOUNT WORKDIR   bad input: a message and exit status 1
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 wordcount|unfinished|errors REPORT PROGRAM WORKDIR" >&2
  exit 2
fi
mode=$1 report=$2 program=$3 workdir=$4
rm -rf "$workdir" && mkdir -p "$workdir" && cd "$workdir" || exit 1

pid=
# kill_run: the program run in the background under `timeout` (pid), and timeout itself.
kill_run() { pkill -9 -P "$pid" 2>/dev/null; kill -9 "$pid" 2>/dev/null; }
cleanup() { if [ -n "$pid" ]; then kill_run; fi; }
trap cleanup EXIT
fail() {
  echo "check_report $mode: $*" >&2
  for f in run.out run.err report.err; do [ -f "$f" ] && { echo "--- $f"; head -c 4000 "$f"; }; done >&2
  exit 1
}

# dom HTML PNG: the page's DOM once its script has run, in headless Chromium (no network: a
# file URL and nothing it could fetch), and a screenshot of it.
dom() {
  local flags=(--headless=new --no-sandbox --disable-gpu --no-first-run --disable-extensions
               --user-data-dir="$workdir/chromium-profile" --virtual-time-budget=5000)
  timeout 60 chromium "${flags[@]}" --dump-dom "file://$workdir/$1" >dom.html 2>chromium.err ||
    fail "chromium --dump-dom failed"
  timeout 60 chromium "${flags[@]}" --screenshot="$workdir/$2" --window-size=1400,1000 \
    "file://$workdir/$1" >/dev/null 2>>chromium.err || fail "chromium --screenshot failed"
  [ -s "$2" ] || fail "no screenshot $2"
  grep -q '</html>' dom.html || fail "chromium printed no DOM"
}

# self_contained HTML: nothing the page would load from elsewhere.
self_contained() {
  if grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*["'"'"']?[[:space:]]*(https?:)?//' "$1"; then
    fail "$1 has a network src/href: $(grep -Eio '(src|href)[[:space:]]*=[[:space:]]*["'"'"']?[[:space:]]*(https?:)?//[^"'"'"' >]*' "$1" | head -3)"
  fi
  if grep -Eiq '<(script|img|iframe)[^>]*[[:space:]]src=|<link[^>]*href=|@import|url\(' "$1"; then
    fail "$1 loads an external resource"
  fi
}

# cell ROW_PATTERN CLASS: the data-value of the CLASS cell in the DOM's row matching ROW_PATTERN.
cell() {
  grep -F "$1" dom.html | grep -o "class=\"num $2\" data-value=\"[0-9]*\"" | head -1 | grep -o '[0-9]*"$' |
    tr -d '"'
}

case $mode in
wordcount)
  # Every word of this text is different, so the splitter's per-batch counts are one record per
  # word: the counting operator receives exactly as many records as there are words.
  awk 'BEGIN { for (i = 0; i < 4000; ++i) { l = ""; for (j = 0; j < 6; ++j) l = l sprintf("w%d_%d ", i, j); print l } }' >text.txt
  words=$(wc -w <text.txt)
  timeout 60 "$program" text.txt -w 2 --quiet --log-file 'wordcount-{process}-{worker}.log' >run.out 2>run.err ||
    fail "wordcount failed"
  grep -q "wordcount: $words words, $words distinct, 2 workers" run.err || fail "wordcount did not count $words words"
  [ "$(wc -l <run.out)" -eq "$words" ] || fail "wordcount printed $(wc -l <run.out) words, not $words"
  timeout 60 "$report" wordcount-0-0.log wordcount-0-1.log -o report.html --dot graph.dot 2>report.err ||
    fail "timely-report failed"
  timeout 60 dot -Tsvg graph.dot >graph.svg 2>dot.err || fail "dot cannot read graph.dot: $(cat dot.err)"
  grep -q '<svg' graph.svg || fail "dot wrote no SVG"
  self_contained report.html
  dom report.html report-wordcount.png
  grep -q 'id="timeline" data-state="drawn"' dom.html || fail "the timeline script did not run"
  spans=$(grep -o 'data-spans="[0-9]*"' dom.html | grep -o '[0-9]*')
  drawn=$(grep -o 'data-drawn="[0-9]*"' dom.html | grep -o '[0-9]*')
  [ "${spans:-0}" -gt 0 ] && [ "${drawn:-0}" -gt 0 ] || fail "the timeline drew ${drawn:-no} of ${spans:-no} spans"
  for name in Input SplitWords Exchange CountWords InspectBatch Probe; do
    grep -q "<tr class=\"operator\" data-name=\"$name\"" dom.html || fail "no operator $name in the table"
    grep -q ">$name</text>" dom.html || fail "no operator $name in the graph"
  done
  counted=$(cell 'data-name="CountWords"' records-in)
  [ "$counted" = "$words" ] || fail "CountWords shows ${counted:-no} records in, the run counted $words words"
  [ "$(cell 'data-name="CountWords"' workers)" = 2 ] || fail "CountWords did not run on 2 workers"
  [ "$(cell 'data-name="Probe"' records-in)" = "$words" ] || fail "the probe did not see $words records"
  grep -q 'id="frontiers-complete"' dom.html || fail "a completed run shows unfinished frontiers"
  grep -q 'id="unclosed"' dom.html && fail "closed logs are reported as unclosed"
  # The graph's edge into the counting operator carries the same number (with thousands commas).
  label=$(sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta' <<<"$words")
  grep -q "\"op_0.3\" -> \"op_0.4\" \[label=\"$label\"" graph.dot || fail "no edge Exchange -> CountWords labelled $label"
  echo "check_report wordcount: $words words, $counted records into CountWords, $drawn of $spans spans drawn; screenshot $workdir/report-wordcount.png"
  ;;
unfinished)
  # drop: the dataflow is dropped while Holder keeps its capability at 7; the logs are closed.
  timeout 60 "$program" drop -w 2 --log-file 'drop-{worker}.log' >run.out 2>run.err || fail "held_capability drop failed"
  timeout 60 "$report" drop-0.log drop-1.log -o drop.html 2>report.err || fail "timely-report failed on drop"
  self_contained drop.html
  dom drop.html report-dropped.png
  grep -q 'id="frontiers-unfinished"' dom.html || fail "drop: no unfinished frontiers reported"
  for w in 0 1; do
    row=$(grep "<tr class=\"held\" data-name=\"Holder\" data-address=\"0.1\" data-worker=\"$w\" data-port=\"0\"" dom.html)
    [ -n "$row" ] || fail "drop: Holder's capability on worker $w is not listed"
    grep -q '<td class="times">7</td>' <<<"$row" || fail "drop: Holder on worker $w does not hold 7: $row"
    grep -q 'dropped' <<<"$row" || fail "drop: the row does not say the dataflow was dropped: $row"
    grep -q "<tr class=\"open-input\" data-name=\"Probe\" data-address=\"0.3\" data-worker=\"$w\".*{7}" dom.html ||
      fail "drop: the probe's input frontier {7} on worker $w is not listed"
  done
  [ "$(grep -c '<tr class="held"' dom.html)" -eq 2 ] || fail "drop: other capabilities listed as held"
  # The region is a cluster inside the dataflow's, its inspect inside it, edges across its boundary.
  grep -q '<g id="scope-0.2" class="cluster">' dom.html || fail "drop: the region is not drawn as a cluster"
  grep -q '<g id="op-0.2.1" class="node">' dom.html || fail "drop: the region's inspect is not in the graph"
  grep -A3 '<g id="scope-0.2" class="cluster">' dom.html | grep -q '>Region 0.2</text>' ||
    fail "drop: the region's cluster is not labelled"
  grep -q 'id="unclosed"' dom.html && fail "drop: closed logs reported as unclosed"

  # hang: killed while holding; its logs have no end frame.
  timeout 60 "$program" hang -w 2 --log-file 'hang-{worker}.log' >run.out 2>run.err &
  pid=$!
  for _ in $(seq 1 300); do grep -q holding run.out 2>/dev/null && break; sleep 0.1; done
  grep -q holding run.out || fail "held_capability hang never held"
  sleep 0.3  # a few 10 ms log flushes
  kill_run
  wait "$pid" 2>/dev/null
  pid=
  timeout 60 "$report" hang-0.log hang-1.log -o hang.html 2>report.err || fail "timely-report failed on unclosed logs"
  grep -q 'unclosed' report.err || fail "timely-report did not say the files were unclosed"
  dom hang.html report-killed.png
  grep -q 'id="unclosed"' dom.html || fail "hang: the unclosed logs are not reported"
  [ "$(grep -c '<tr class="file unclosed"' dom.html)" -eq 2 ] || fail "hang: not both files marked unclosed"
  for w in 0 1; do
    grep -q "<tr class=\"held\" data-name=\"Holder\" data-address=\"0.1\" data-worker=\"$w\" data-port=\"0\".*<td class=\"times\">7</td><td class=\"dataflow\">running" dom.html ||
      fail "hang: Holder's capability at 7 on worker $w (dataflow running) is not listed"
  done
  echo "check_report unfinished: dropped and killed runs list Holder 0.1 holding 7 on both workers"
  ;;
errors)
  expect_error() {  # expect_error PATTERN ARGS...: exit status 1 and PATTERN on stderr
    local pattern=$1
    shift
    timeout 60 "$report" "$@" >report.out 2>report.err
    local rc=$?
    [ $rc -eq 1 ] || fail "timely-report $* exited with $rc, not 1"
    grep -q -- "$pattern" report.err || fail "timely-report $*: no '$pattern' in: $(cat report.err)"
  }
  printf 'not a log file at all, just text\n' >text.log
  expect_error 'LOGFILE is required' -o out.html
  expect_error 'output is required' text.log
  expect_error 'does not exist' missing.log -o out.html
  expect_error 'text.log' text.log -o out.html
  timeout 60 "$program" text.log -w 1 --quiet --log-file 'good.log' >run.out 2>run.err || fail "wordcount failed"
  size=$(stat -c %s good.log)
  # A log cut anywhere (a killed writer, a full disk, a run still going) is reported up to its
  # last whole frame, marked unclosed with its torn bytes; here cut inside the end frame and at
  # offsets that fall inside frames.
  for cut in $((size - 30)) $((size / 2 + 7)) $((size / 3 + 1)) 70; do
    head -c "$cut" good.log >torn.log
    rm -f torn.html
    timeout 60 "$report" torn.log -o torn.html 2>report.err || fail "timely-report failed on a log cut at $cut of $size bytes"
    grep -q '(1 unclosed)' report.err || fail "a log cut at $cut is not reported unclosed: $(cat report.err)"
    grep -q '<tr class="file unclosed">' torn.html || fail "the page does not mark the log cut at $cut unclosed"
    grep -q 'a torn frame, are left out' torn.html || grep -q 'unclosed (its writer did not finish)' torn.html ||
      fail "the page does not say what was left of the log cut at $cut"
  done
  # A run killed before its first flush leaves the header alone: an unclosed, empty log.
  head -c 48 good.log >header-only.log
  timeout 60 "$report" header-only.log -o header-only.html 2>report.err ||
    fail "timely-report failed on a log of its header alone: $(cat report.err)"
  grep -q '(1 unclosed)' report.err || fail "a log of its header alone is not reported unclosed"
  # The output may not be one of the logs; two runs' logs of one process are not one run.
  cp good.log keep.log
  expect_error 'would be overwritten' keep.log -o keep.log
  cmp -s good.log keep.log || fail "timely-report overwrote its input"
  timeout 60 "$program" text.log -w 1 --quiet --log-file 'again-{worker}.log' >run.out 2>run.err ||
    fail "wordcount failed"
  sleep 0.3  # runs more than 50 ms apart are told apart (their logging clocks' starts differ)
  timeout 60 "$program" text.log -w 2 --quiet --log-file 'two-{worker}.log' >run.out 2>run.err ||
    fail "wordcount -w 2 failed"
  expect_error 'from different runs' two-1.log again-0.log -o out.html  # process 0's workers 1 and 0
  head -c 10 good.log >short.log  # shorter than the file header: not a log
  expect_error 'short.log' short.log -o out.html
  [ -e out.html ] && fail "a failed report left out.html"
  # A changed byte in the middle fails its frame's checksum.
  cp good.log flipped.log
  printf '\xff' | dd of=flipped.log bs=1 seek=$((size / 2)) conv=notrunc status=none
  expect_error 'flipped.log' flipped.log -o out.html
  expect_error 'are both process 0 worker 0' good.log good.log -o out.html  # one worker's log twice
  timeout 60 "$report" good.log -o good.html 2>report.err || fail "timely-report failed on a good log"
  echo "check_report errors: missing arguments and files, text, short and changed logs fail with status 1; cut logs are reported up to their last whole frame"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
