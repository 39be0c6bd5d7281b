#!/usr/bin/env bash
# Fetches the real graphs the graph examples (bfs, pagerank, unionfind) and tests/conformance/graphs_test.cpp run on
# into the git-ignored data/ folder:
#   data/email-Enron.edges  SNAP's Enron e-mail network: 36,692 nodes, 183,831 undirected edges
#   data/power.edges        the US Western power grid: 4,941 nodes, 6,594 undirected edges
# Both come from graph-tool's bundled collection in the Debian package python3-graph-tool
# (LGPL-3+; only its two .gt.gz files are extracted, nothing is installed) and are converted by
# scripts/gt2edges.py into "src dst" lines under a "# Nodes: N Edges: E" header. Each undirected
# edge is listed once: run the examples with --undirected.
# Idempotent: graphs already converted are kept. Needs apt-get, dpkg-deb and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/data"
graphs=(email-Enron power)
mkdir -p "$data"

missing=()
for g in "${graphs[@]}"; do
  # A finished conversion has its header; partial output only ever exists as *.partial.
  if ! head -n 2 "$data/$g.edges" 2>/dev/null | grep -q '^# Nodes: '; then missing+=("$g"); fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "fetch-graphs: ${graphs[*]} already in data/"
  exit 0
fi

for tool in apt-get dpkg-deb python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "fetch-graphs: $tool is required" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"  # apt-get download runs as the _apt user when it can
if ! (cd "$tmp" && apt-get download python3-graph-tool >/dev/null 2>&1); then
  apt-get update -qq
  (cd "$tmp" && apt-get download python3-graph-tool >/dev/null)
fi
deb=$(ls "$tmp"/python3-graph-tool_*.deb)
collection=./usr/lib/python3/dist-packages/graph_tool/collection
patterns=()
for g in "${missing[@]}"; do patterns+=("$collection/$g.gt.gz"); done
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "${patterns[@]}"
for g in "${missing[@]}"; do
  python3 "$root/scripts/gt2edges.py" "$tmp/$collection/$g.gt.gz" "$data/$g.edges"
done
echo "fetch-graphs: ${graphs[*]} in data/"
