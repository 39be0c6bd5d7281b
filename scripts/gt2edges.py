#!/usr/bin/env python3
"""Converts a graph-tool binary graph (.gt or .gt.gz) into a plain edge list.

Usage: gt2edges.py INPUT.gt[.gz] OUTPUT.edges

The output starts with comment lines, one of them the SNAP-style header "# Nodes: N Edges: E"
(the examples take the node count from it, so isolated vertices are kept), followed by one
"src dst" line per stored edge, with graph-tool's 0-based vertex indices. graph-tool stores each
edge of an undirected graph once, so undirected graphs come out with every edge listed once (run
the examples with --undirected). Property maps after the adjacency are ignored.

The .gt layout (graph-tool's documented format): the magic bytes E2 9B BE 20 67 74, a version
byte, an endianness byte (non-zero: big-endian), a u64 comment length and the comment, a
directedness byte, the u64 vertex count N, then for each vertex its u64 out-degree followed by
that many neighbour indices, each 1, 2, 4 or 8 bytes wide (the smallest width that holds N).
Python standard library only.
"""
import gzip
import os
import struct
import sys

MAGIC = b"\xe2\x9b\xbe gt"


def convert(source, target):
    opener = gzip.open if source.endswith(".gz") else open
    with opener(source, "rb") as f:
        blob = f.read()
    if blob[: len(MAGIC)] != MAGIC:
        raise SystemExit(f"gt2edges: {source}: not a graph-tool .gt file (bad magic bytes)")
    order = ">" if blob[len(MAGIC) + 1] else "<"
    at = len(MAGIC) + 2

    def take(fmt):
        nonlocal at
        values = struct.unpack_from(order + fmt, blob, at)
        at += struct.calcsize(order + fmt)
        return values

    (comment_length,) = take("Q")
    at += comment_length
    (directed,) = take("B")
    (nodes,) = take("Q")
    for width, code in ((1, "B"), (2, "H"), (4, "I"), (8, "Q")):
        if nodes <= 1 << (8 * width):
            break
    lines = []
    for vertex in range(nodes):
        (degree,) = take("Q")
        for neighbour in take(code * degree):
            lines.append(f"{vertex} {neighbour}\n")
    kind = "directed" if directed else "undirected, each edge listed once"
    name = os.path.basename(source)
    partial = target + ".partial"
    with open(partial, "w") as out:
        out.write(f"# {name} converted by gt2edges.py ({kind})\n")
        out.write(f"# Nodes: {nodes} Edges: {len(lines)}\n")
        out.writelines(lines)
    os.replace(partial, target)
    print(f"gt2edges: {name}: {nodes} nodes, {len(lines)} edges, {kind}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: gt2edges.py INPUT.gt[.gz] OUTPUT.edges")
    convert(sys.argv[1], sys.argv[2])
