#!/usr/bin/env python3
"""Compares the core examples of two release builds, run alternately so that drift cancels.

    benches/workloads/compare_builds.py BASELINE_BUILD [BUILD] [--runs N] [--filter NAME]

BUILD defaults to build/release of this checkout; BASELINE_BUILD is another release build (say of
the commit before a change, from `git worktree add`). For each workload (barrier, exchange and
pingpong, at the sizes below, on 1 and 2 workers) it runs baseline and build N times each (default
7), alternating, and prints the median and range of the figure the program itself reports
(microseconds per round, or records/s per worker), the ratio build / baseline, and whether the
build is slower (time) or lower (rate) by more than 5 % of the median. Exit status 0 unless a
program fails.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, arguments, regex of the reported figure, unit, whether higher is better)
WORKLOADS = [
    ("barrier", ["1000000", "-w", "1"], r"\(([0-9.]+) us per round\)", "us/round", False),
    ("barrier", ["100000", "-w", "2"], r"\(([0-9.]+) us per round\)", "us/round", False),
    ("exchange", ["10000", "2000", "-w", "1"], r"([0-9.e+]+) records/s", "records/s", True),
    ("exchange", ["10000", "2000", "-w", "2"], r"([0-9.e+]+) records/s", "records/s", True),
    ("pingpong", ["100000", "100", "-w", "2"], r"\(([0-9.]+) us per round\)", "us/round", False),
    ("pingpong", ["100000", "100", "-w", "1"], r"\(([0-9.]+) us per round\)", "us/round", False),
]


def figure(binary, args, pattern):
    out = subprocess.run([binary] + args, check=True, capture_output=True, text=True, timeout=600)
    values = [float(v) for v in re.findall(pattern, out.stdout + out.stderr)]
    if not values:
        sys.exit(f"compare_builds: {binary} {' '.join(args)} printed no figure matching {pattern}")
    return statistics.median(values)  # exchange prints one line per worker


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline")
    parser.add_argument("build", nargs="?", default=os.path.join(ROOT, "build", "release"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--filter", default="", help="only workloads whose name contains this")
    a = parser.parse_args()
    print(f"{'workload':32} {'baseline':>12} {'build':>12} {'unit':>10} {'ratio':>6}  verdict  (medians of {a.runs}, alternated)")
    for name, args, pattern, unit, higher in WORKLOADS:
        if a.filter not in name:
            continue
        old, new = [], []
        for _ in range(a.runs):
            old.append(figure(os.path.join(a.baseline, "examples", name), args, pattern))
            new.append(figure(os.path.join(a.build, "examples", name), args, pattern))
        mo, mn = statistics.median(old), statistics.median(new)
        ratio = mn / mo
        worse = ratio < 0.95 if higher else ratio > 1.05
        verdict = ("lower" if higher else "slower") if worse else "same or better"
        label = f"{name} {' '.join(args)}"
        print(f"{label:32} {mo:12.4g} {mn:12.4g} {unit:>10} {ratio:6.3f}  {verdict}"
              f"  [baseline {min(old):.4g}-{max(old):.4g}, build {min(new):.4g}-{max(new):.4g}]")


if __name__ == "__main__":
    main()
