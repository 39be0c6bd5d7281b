#!/usr/bin/env python3
"""The flights example's results computed directly (no timely, no windows library), for its test.

    flights_model.py CSV LIMIT > expected.txt

Reads the first LIMIT records of CSV (`YYYY-MM-DD HH:MM,delay,distance,ORG,DST`) and prints, sorted
as the example's --out does: the mean delay per origin per hour, the three busiest routes (by
count, then by route) of each one-day window starting every hour, and the sessions of departures
per origin with gaps under an hour.
"""
import sys
from collections import defaultdict

MONTH_START = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]


def minutes(stamp):
    month, day = int(stamp[5:7]), int(stamp[8:10])
    return ((MONTH_START[month - 1] + day - 1) * 24 + int(stamp[11:13])) * 60 + int(stamp[14:16])


def main():
    path, limit = sys.argv[1], int(sys.argv[2])
    flights = []
    with open(path) as f:
        for line in f:
            if len(flights) == limit:
                break
            stamp, delay, _distance, origin, dest = line.rstrip("\n").split(",")
            flights.append((minutes(stamp), int(delay), origin, dest))
    out = []
    hourly = defaultdict(lambda: [0, 0])
    for t, delay, origin, _ in flights:
        acc = hourly[(origin, t // 60)]
        acc[0] += delay
        acc[1] += 1
    for (origin, hour), (total, count) in hourly.items():
        out.append("mean %s %d %.4f" % (origin, hour * 60, total / count))
    windows = defaultdict(lambda: defaultdict(int))  # start -> route -> count
    for t, _, origin, dest in flights:
        start = t // 60 * 60
        while start >= 0 and t < start + 1440:
            windows[start][(origin, dest)] += 1
            start -= 60
    for start, routes in windows.items():
        ranked = sorted(((c, r) for r, c in routes.items()), reverse=True)[:3]
        for rank, (count, (origin, dest)) in enumerate(ranked, 1):
            out.append("busiest %d %d %d %s-%s" % (start, rank, count, origin, dest))
    by_origin = defaultdict(list)
    for t, _, origin, _ in flights:
        by_origin[origin].append(t)
    for origin, times in by_origin.items():
        times.sort()
        first = last = times[0]
        count = 0
        for t in times:
            if t >= last + 60:
                out.append("session %s %d %d %d" % (origin, first, last + 60, count))
                first, count = t, 0
            last = t
            count += 1
        out.append("session %s %d %d %d" % (origin, first, last + 60, count))
    out.sort()
    sys.stdout.write("".join(line + "\n" for line in out))


if __name__ == "__main__":
    main()
