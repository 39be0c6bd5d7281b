#!/usr/bin/env bash
# The main job on a fresh Debian machine: install dependencies, fetch the GCIDE text, build the
# examples optimized, and count the words of GCIDE with timely on several worker threads.
#   scripts/run-demo.sh [WORKERS]     (default 2)
# Word counts go to build/release/wordcount.txt; the summary is printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
workers=${1:-2}
bash scripts/install-deps.sh
bash scripts/fetch-data.sh
cmake --preset release >/dev/null
cmake --build --preset release --target wordcount
./build/release/examples/wordcount data/gcide.txt -w "$workers" > build/release/wordcount.txt
echo "run-demo: $(wc -l < build/release/wordcount.txt) distinct words written to build/release/wordcount.txt; the most frequent:"
sort -k2,2nr build/release/wordcount.txt | awk 'NR <= 10'
