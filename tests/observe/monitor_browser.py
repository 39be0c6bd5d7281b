#!/usr/bin/env python3
"""The live monitor of a real run, seen from outside (Python 3, standard library only).

  monitor_browser.py --wordcount BIN --data FILE --work DIR CHECK

CHECK is one of:
  browser   wordcount -w 1 on the first lines of FILE (GCIDE) with --monitor 127.0.0.1:PORT
            --monitor-linger 15; headless Chromium loads the page once the run is over and the
            test checks the DOM: the operators' names, and the records of Input (chunks of lines),
            SplitWords/CountWords (per-batch distinct words) and CountWords' output (per-epoch
            distinct words), all computed here from the text as the example batches it; the
            page's graph, worker rows and timeline; a screenshot goes to DIR/monitor.png.
  promtool  the same run; /metrics during the run and after it passes `promtool check metrics`.
  cluster   two processes (-n 2, one worker each) with --monitor on both: process 0's page shows
            both workers, the records summed over both equal those computed for their shares, and
            the state and /metrics show the bytes each process sent the other.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

LINES = 120_000          # of the data file: a run of a few seconds in a debug build
LINES_PER_EPOCH = 50_000  # wordcount_main.hpp
LINES_PER_CHUNK = 32
BATCH = 8 * 1024 // 32    # default_capacity<std::string>() records per input batch


def fail(message):
    print("monitor_browser: " + message, file=sys.stderr)
    sys.exit(1)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expected_counts(share):
    """What wordcount's operators see for one worker's share of the text (wordcount_main.hpp): the
    chunks the input sends, the records SplitWords makes (distinct words per input batch), and
    the words of each time."""
    chunks, batches, epochs = [], [[]], [[]]
    lines, pos, chunk = 0, 0, 0
    while pos < len(share):
        end = share.find(b"\n", pos)
        end = len(share) if end < 0 else end
        pos = end + 1
        lines += 1
        epoch_ends = lines % LINES_PER_EPOCH == 0
        if lines % LINES_PER_CHUNK == 0 or epoch_ends or pos >= len(share):
            piece = share[chunk:min(pos, len(share))]
            chunks.append(piece)
            batches[-1].append(piece)
            epochs[-1].append(piece)
            if len(batches[-1]) == BATCH:
                batches.append([])
            chunk = pos
        if epoch_ends:  # advance_to ships the input's batch; a new time begins
            batches.append([])
            epochs.append([])
    distinct = lambda pieces: {w for p in pieces for w in re.split(rb"[ \t\n\v\f\r]+", p) if w}
    return len(chunks), sum(len(distinct(b)) for b in batches if b), [distinct(e) for e in epochs]


def shares(text, peers):
    """read_share of wordcount_main.hpp: whole lines starting in each worker's byte range."""
    size = len(text)

    def boundary(pos):
        if pos == 0 or pos >= size:
            return min(pos, size)
        newline = text.find(b"\n", pos - 1)
        return size if newline < 0 else newline + 1

    return [text[boundary(size * i // peers):boundary(size * (i + 1) // peers)] for i in range(peers)]


def fetch(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def answering(address, proc, deadline):
    """Whether the monitor at address answers before deadline while proc runs (False if it ended
    first: a taken port, or a failed run)."""
    while time.time() < deadline:
        try:
            fetch(f"http://{address}/api/state", timeout=2)
            return True
        except (urllib.error.URLError, ConnectionError, OSError):
            if proc.poll() is not None:
                return False
        time.sleep(0.05)
    return False


def wait_final(address, workers, deadline):
    """The /api/state once every worker's dataflow has shut down."""
    while time.time() < deadline:
        try:
            state = json.loads(fetch(f"http://{address}/api/state"))
            done = [o for o in state["operators"] if len(o["address"]) == 1 and o["shut_down"]]
            if len(done) == workers and len(state["workers"]) == workers:
                return state
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.05)
    fail(f"the monitor at {address} did not show {workers} finished workers in time")


def chromium(args, url):
    if shutil.which("chromium") is None:
        fail("chromium is not installed (Debian: chromium)")
    return subprocess.run(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
                           "--virtual-time-budget=4000", *args, url],
                          capture_output=True, text=True, timeout=60)


def check_page(address, expected, workers, work):
    dom = chromium(["--dump-dom"], f"http://{address}/")
    if dom.returncode != 0:
        fail(f"chromium --dump-dom failed ({dom.returncode}): {dom.stderr[-2000:]}")
    page = dom.stdout
    with open(os.path.join(work, "monitor-dom.html"), "w") as f:
        f.write(page)
    rows = {}
    for m in re.finditer(r'<tr class="operator[^"]*" data-address="([^"]*)" data-name="([^"]*)" '
                         r'data-records-in="(\d+)" data-records-out="(\d+)" data-schedules="(\d+)">', page):
        rows[m.group(2)] = (int(m.group(3)), int(m.group(4)), int(m.group(5)))
    for name in ["Dataflow", "Input", "SplitWords", "Exchange", "CountWords", "InspectBatch", "Probe"]:
        if name not in rows:
            fail(f"the page lists no operator {name} (it lists {sorted(rows)})")
    got = {"Input_out": rows["Input"][1], "Split_out": rows["SplitWords"][1], "Count_in": rows["CountWords"][0],
           "Count_out": rows["CountWords"][1]}
    want = {"Input_out": expected["Input_out"], "Split_out": expected["Split_out"],
            "Count_in": expected["Split_out"], "Count_out": expected["Count_out"]}
    if got != want:
        fail(f"the page's records {got} differ from those computed from the text {want}")
    if rows["CountWords"][2] == 0:
        fail("the page shows no schedulings of CountWords")
    if len(re.findall(r'<g class="node[^"]*" data-address="[^"]*" data-name="CountWords"', page)) != 1:
        fail("the graph has no node for CountWords")
    if len(re.findall(r'<g class="edge" data-channel="\d+"', page)) < 5:
        fail("the graph has fewer than 5 edges")
    if len(re.findall(r'<tr class="worker" data-worker="\d+"', page)) != workers:
        fail(f"the page does not list {workers} workers")
    if 'class="span"' not in page:
        fail("the timeline shows no schedulings")
    if len(re.findall(r'<tr class="peer" data-process="\d+" data-peer="\d+"', page)) != (2 if workers == 2 else 0):
        fail("the page's peers table does not match the processes")
    shot = os.path.join(work, "monitor.png")
    if os.path.exists(shot):
        os.remove(shot)
    result = chromium([f"--screenshot={shot}", "--window-size=1400,1000"], f"http://{address}/")
    if result.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 10_000:
        fail(f"no screenshot at {shot}: {result.stderr[-2000:]}")
    with open(shot, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail(f"{shot} is not a PNG")
    print(f"monitor_browser: the page shows {got} as computed; screenshot {shot}")


def promtool(text, when):
    if shutil.which("promtool") is None:
        fail("promtool is not installed (Debian: prometheus)")
    result = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    if result.returncode != 0 or result.stdout.strip() or result.stderr.strip():
        fail(f"promtool check metrics ({when}) failed: {result.stdout}{result.stderr}")
    for family in ["timely_channel_records_total", "timely_operator_schedule_seconds_total",
                   "timely_worker_parked_seconds_total", "timely_operator_input_frontier_lag"]:
        if f"# TYPE {family} " not in text:
            fail(f"/metrics ({when}) has no {family}")


def start(args, cmd, out, err):
    return subprocess.Popen(cmd, stdout=out, stderr=err, cwd=args.work)


def finish(proc, name, timeout=60):
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(f"{name} did not end in time")
    if rc != 0:
        fail(f"{name} exited with {rc}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wordcount", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("check", choices=["browser", "promtool", "cluster"])
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if not os.path.exists(args.data):
        fail(f"{args.data} is missing: run scripts/fetch-data.sh first")
    with open(args.data, "rb") as f:
        text = b"".join(line for _, line in zip(range(LINES), f))
    sample = os.path.join(args.work, "gcide-sample.txt")
    with open(sample, "wb") as f:
        f.write(text)
    processes = 2 if args.check == "cluster" else 1
    # Records summed over the workers; CountWords emits each word changed at a time once (the
    # workers partition the words), so its output is per time over the union of the shares.
    expected = {"Input_out": 0, "Split_out": 0, "Count_out": 0}
    changed = {}
    for share in shares(text, processes):
        chunks, split, epochs = expected_counts(share)
        expected["Input_out"] += chunks
        expected["Split_out"] += split
        for t, words in enumerate(epochs):
            changed.setdefault(t, set()).update(words)
    expected["Count_out"] = sum(len(words) for words in changed.values())
    all_words = [w for w in re.split(rb"[ \t\n\v\f\r]+", text) if w]

    for attempt in range(5):  # a port taken between free_port() and the monitor's bind: again
        port = free_port()
        address = f"127.0.0.1:{port}"
        common = ["--quiet", "--monitor", address, "--monitor-linger", "15", sample]
        outs = [open(os.path.join(args.work, f"out{p}.txt"), "w") for p in range(processes)]
        errs = [open(os.path.join(args.work, f"err{p}.txt"), "w") for p in range(processes)]
        if processes == 1:
            procs = [start(args, [args.wordcount, "-w", "1", *common], outs[0], errs[0])]
        else:
            hosts = os.path.join(args.work, "hosts.txt")
            with open(hosts, "w") as f:
                f.write("".join(f"127.0.0.1:{free_port()}\n" for _ in range(processes)))
            procs = [start(args, [args.wordcount, "-w", "1", "-n", str(processes), "-p", str(p), "-h", hosts,
                                  *common], outs[p], errs[p]) for p in range(processes)]
        # Wait for the monitor to answer: under a sanitizer the program can take seconds to reach
        # the point where it listens, and a fixed sleep made "during the run" a race.
        if answering(address, procs[0], time.time() + 30):
            break
        for p in procs:
            p.kill()
        with open(os.path.join(args.work, "err0.txt")) as f:
            message = f.read()
        if procs[0].poll() is not None and ("cannot listen" in message or "in use" in message):
            continue
        fail(f"the monitor at {address} never answered; wordcount said: {message}")
    else:
        fail("no free port for the monitor after 5 attempts")

    deadline = time.time() + 45
    if args.check == "promtool":
        promtool(fetch(f"http://{address}/metrics"), "during the run")
    state = wait_final(address, processes, deadline)
    if args.check == "promtool":
        text_metrics = fetch(f"http://{address}/metrics")
        promtool(text_metrics, "after the run")
        with open(os.path.join(args.work, "metrics.txt"), "w") as f:
            f.write(text_metrics)
        print(f"monitor_browser: promtool accepts /metrics ({len(text_metrics.splitlines())} lines)")
    if args.check == "cluster":
        # Read before the page checks: under load Chromium can take most of the linger.
        cluster_metrics = fetch(f"http://{address}/metrics")
        workers = sorted(w["worker"] for w in state["workers"])
        if workers != [0, 1]:
            fail(f"process 0's state shows workers {workers}, not [0, 1]")
        # Bytes per peer, from the "communication" stream of both processes.
        peers = {(p["process"], p["peer"]): p for p in state["peers"]}
        if sorted(peers) != [(0, 1), (1, 0)] or any(p["bytes_sent"] == 0 or p["bytes_received"] == 0
                                                      for p in peers.values()):
            fail(f"process 0's state shows peers {state['peers']}, not both directions with bytes")
        if 'timely_peer_sent_bytes_total{process="1",peer="0"}' not in cluster_metrics:
            fail("/metrics has no bytes sent by process 1")
    if args.check != "promtool":
        check_page(address, expected, processes, args.work)
    for p, proc in enumerate(procs):
        finish(proc, f"wordcount process {p}")
    # The run itself: every distinct word once, the counts summing to the words of the text.
    printed = {}
    for p in range(processes):
        with open(os.path.join(args.work, f"out{p}.txt"), "rb") as f:
            for line in f:
                word, count = line.rsplit(b" ", 1)
                printed[word] = int(count)
    if len(printed) != len(set(all_words)) or sum(printed.values()) != len(all_words):
        fail(f"wordcount printed {len(printed)} words summing to {sum(printed.values())}, "
             f"expected {len(set(all_words))} summing to {len(all_words)}")
    print(f"monitor_browser: {args.check} ok")


if __name__ == "__main__":
    main()
