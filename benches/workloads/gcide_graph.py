#!/usr/bin/env python3
"""Builds the GCIDE dictionary-definition graph from data/gcide.txt (scripts/fetch-data.sh): an
edge from each headword to every other headword its definition uses. About 130,000 nodes and
3.6 M directed edges, real and scale-free (hubs such as "the" and "of").

  benches/workloads/gcide_graph.py [OUT]        (default: data/gcide-defs.edges)

Reads the dictd index and dictionary of the Debian package dict-gcide: from /usr/share/dictd if
it is installed, otherwise from the package fetched with `apt-get download` (as
scripts/fetch-data.sh does). Writes a "# Nodes: N Edges: M" header, then "SRC DST" lines sorted,
so the file is the same on every machine. Idempotent: an existing OUT is kept.
"""

import glob
import gzip
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
WORD = re.compile(r"[a-z][a-z'-]*")
SOURCES = re.compile(r"\[(1913 webster|pjc|webster 1913 suppl\.|wordnet 1\.5)\]")


def b64(s):
    v = 0
    for ch in s:
        v = v * 64 + B64.index(ch)
    return v


def build(index_path, dict_path, out):
    text = gzip.open(dict_path).read()
    entries = []
    with open(index_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) >= 3 and not p[0].startswith("00-database"):
                entries.append((p[0].lower(), b64(p[1]), b64(p[2])))
    heads = {}
    for h, _, _ in entries:
        if WORD.fullmatch(h):
            heads.setdefault(h, len(heads))
    edges = set()
    for h, off, length in entries:
        if h not in heads:
            continue
        body = text[off:off + length].decode("utf-8", "replace").lower().partition("\n")[2]
        body = SOURCES.sub(" ", body)
        u = heads[h]
        edges.update((u, heads[w]) for w in set(WORD.findall(body)) if w in heads and w != h)
    partial = out + ".partial"
    with open(partial, "w") as f:
        f.write("# GCIDE definition graph (benches/workloads/gcide_graph.py): headword -> headword used\n")
        f.write(f"# Nodes: {len(heads)} Edges: {len(edges)}\n")
        f.writelines(f"{u} {v}\n" for u, v in sorted(edges))
    os.replace(partial, out)
    return len(heads), len(edges)


def main():
    out = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "data", "gcide-defs.edges"))
    if os.path.isfile(out) and os.path.getsize(out) > 0:
        print(f"gcide_graph: {out} is already there")
        return 0
    os.makedirs(os.path.dirname(out), exist_ok=True)
    installed = "/usr/share/dictd"
    if os.path.isfile(f"{installed}/gcide.index") and os.path.isfile(f"{installed}/gcide.dict.dz"):
        nodes, edges = build(f"{installed}/gcide.index", f"{installed}/gcide.dict.dz", out)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o777)  # apt-get download may drop to the _apt user
            if subprocess.run(["apt-get", "download", "dict-gcide"], cwd=tmp).returncode != 0:
                print("gcide_graph: 'apt-get download dict-gcide' failed (try apt-get update first)", file=sys.stderr)
                return 1
            deb = glob.glob(os.path.join(tmp, "dict-gcide_*.deb"))[0]
            subprocess.run(["dpkg-deb", "-x", deb, os.path.join(tmp, "x")], check=True)
            dictd = os.path.join(tmp, "x", "usr", "share", "dictd")
            nodes, edges = build(f"{dictd}/gcide.index", f"{dictd}/gcide.dict.dz", out)
    print(f"gcide_graph: {nodes} nodes, {edges} edges in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
