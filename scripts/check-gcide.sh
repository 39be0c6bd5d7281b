#!/usr/bin/env bash
# Checks that wordcount on the GCIDE text prints exactly the sequential counts
# (tr -s '[:space:]' '\n' | sort | uniq -c, in the C locale) with 1, 2 and 4 workers.
#   scripts/check-gcide.sh WORDCOUNT_BINARY [FILE]
set -euo pipefail
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
file=${2:-$root/data/gcide.txt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
tr -s '[:space:]' '\n' < "$file" | sort | uniq -c | awk '$2 != "" { print $2 " " $1 }' | sort > "$tmp/expected"
for w in 1 2 4; do
  "$bin" "$file" -w "$w" > "$tmp/ours" 2> "$tmp/summary"
  sort "$tmp/ours" > "$tmp/ours.sorted"
  if ! cmp -s "$tmp/ours.sorted" "$tmp/expected"; then
    echo "check-gcide: wordcount -w $w differs from the sequential count" >&2
    diff "$tmp/ours.sorted" "$tmp/expected" | head -n 20 >&2
    exit 1
  fi
  echo "check-gcide: -w $w matches ($(cat "$tmp/summary"))"
done
