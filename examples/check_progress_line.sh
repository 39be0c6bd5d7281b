#!/usr/bin/env bash
# The examples' progress line: drawn on a terminal (script(1) gives the program one), erased at
# the end, absent with --quiet and when standard error is not a terminal.
#   check_progress_line.sh EXCHANGE PAGERANK
set -euo pipefail
exchange=$1 pagerank=$2
export EXAMPLES_PROGRESS_AFTER_MS=0
fail() { echo "check_progress_line: $*" >&2; exit 1; }
on_tty() { script -qec "$1" /dev/null | tr '\r' '\n'; }

out=$(on_tty "$exchange 100 50 -w 2")
grep -Eq '^exchange: +[0-9]+% \([0-9]+ of 50 rounds, [0-9.]+ s\)' <<<"$out" || fail "no exchange progress line in: $out"
grep -q 'records/s' <<<"$out" || fail "exchange did not finish: $out"
out=$(on_tty "$pagerank 1000 4000 --rounds 20 -w 1 >/dev/null")
grep -Eq '^pagerank: +[0-9]+% \([0-9]+ of 20 rounds' <<<"$out" || fail "no pagerank progress line in: $out"

out=$(on_tty "$exchange 100 50 -w 2 --quiet")
grep -q '%' <<<"$out" && fail "--quiet still drew a progress line: $out"
out=$("$exchange" 100 50 -w 2 2>&1)
grep -q '%' <<<"$out" && fail "a progress line without a terminal: $out"
echo "check_progress_line: ok"
