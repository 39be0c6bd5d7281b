#!/usr/bin/env python3
"""The timely-log tests (label `durable`): every subcommand on a real log in a scratch directory,
the error cases (exit status and the one-line message naming the input), damage found by verify
at its byte offset, a second writer refused while one appends, and follow seeing another
process's appends within a time bound, ending on SIGINT, SIGTERM and a closed output.

    python3 log_tool_tests.py --tool PATH --work DIR CASE
    python3 log_tool_tests.py --list

Exit status 0 if the case passed, 1 if not (with the evidence). Standard library only.
"""

import argparse
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

OPTS = None
LOG = None  # the scratch log directory of the case

# Bounds, generous for a loaded 2-core machine; a pass is usually far below them.
APPEND_SEEN_WITHIN = 5.0  # seconds from an append's exit to follow printing the record
STOP_WITHIN = 5.0  # seconds from a signal (or a closed output) to follow's exit


class Failed(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failed(message)


def tool(*args, stdin=None, expect=0):
    """Runs timely-log -l LOG ARGS; checks its exit status; returns (stdout, stderr)."""
    p = subprocess.run([OPTS.tool, "-l", LOG, *args], input=stdin, capture_output=True, timeout=60)
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    check(p.returncode == expect,
          f"timely-log {' '.join(args)}: exit status {p.returncode}, expected {expect}\n"
          f"stdout:\n{out}\nstderr:\n{err}")
    return out, err


def error_line(err, *needles):
    """The one-line message: starts with `timely-log: ` and names every needle."""
    lines = err.strip().splitlines()
    check(len(lines) == 1, f"expected one line on stderr, got:\n{err}")
    check(lines[0].startswith("timely-log: "), f"the message does not start with 'timely-log: ': {lines[0]}")
    for n in needles:
        check(n in lines[0], f"the message does not name {n!r}: {lines[0]}")


def table(out):
    """The rows of a printed table, each split on whitespace, without the header."""
    rows = [line.split() for line in out.strip().splitlines()]
    return rows[1:]


def events_log():
    """events/0 with 5 records at timestamps 1000..5000 in batches of 2, 2, 1."""
    lines = "".join(f"{1000 * (i + 1)}\tline {i}\n" for i in range(5))
    out, _ = tool("append", "events", "--create", "--timestamp-field", "1", "--batch-records", "2",
                  stdin=lines.encode())
    check(out.strip() == "events/0: appended 5 records, offsets 0-4", f"append said: {out}")


def segment_files(partition_dir):
    return sorted(f for f in os.listdir(partition_dir) if f.endswith(".log"))


def batch_positions(segment):
    """The byte positions of the batches of a segment file, from their length fields."""
    data = open(segment, "rb").read()
    positions, at = [], 0
    while at + 64 <= len(data):
        check(data[at:at + 4] == b"TDLB", f"no batch magic at byte {at} of {segment}")
        positions.append(at)
        (length,) = struct.unpack_from("<I", data, at + 8)
        at += length
    return positions


def flip_data_byte(segment, batch):
    """Flips one bit of a byte in the data area of the batch at byte `batch` of `segment` (past its
    64-byte header and two 16-byte record entries), so that its checksum no longer matches."""
    at = batch + 64 + 2 * 16 + 1
    with open(segment, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x40]))


# --- the cases -------------------------------------------------------------------------------------

def case_help():
    p = subprocess.run([OPTS.tool, "--help"], capture_output=True, timeout=30)
    out = p.stdout.decode()
    check(p.returncode == 0, f"--help: exit status {p.returncode}")
    for sub in ["list", "stats", "dump", "follow", "append", "verify", "consumers", "commit", "create"]:
        check(f"  {sub}" in out, f"--help does not list {sub}:\n{out}")
    p = subprocess.run([OPTS.tool, "-l", LOG, "append", "--help"], capture_output=True, timeout=30)
    check(p.returncode == 0 and b"--durability" in p.stdout, f"append --help:\n{p.stdout.decode()}")


def case_list():
    events_log()
    out, _ = tool("create", "metrics", "-p", "3")
    check(out.strip() == "stream metrics: 3 partitions", f"create said: {out}")
    tool("append", "metrics/2", "--timestamp-field", "2", "--delimiter", ",", stdin=b"a,-7\nb,9\nc,3\n")
    out, _ = tool("list")
    rows = table(out)
    check(out.splitlines()[0].split() == ["PARTITION", "SEGMENTS", "BYTES", "RECORDS", "FIRST", "END",
                                          "FIRST-TIME", "LAST-TIME"], f"header:\n{out}")
    names = [r[0] for r in rows]
    check(names == ["events/0", "metrics/0", "metrics/1", "metrics/2"], f"partitions listed: {names}")
    ev = rows[0]
    seg = os.path.join(LOG, "events", "0", segment_files(os.path.join(LOG, "events", "0"))[0])
    check(ev[1:] == ["1", str(os.path.getsize(seg)), "5", "0", "5", "1000", "5000"], f"events/0 row: {ev}")
    check(rows[1][2:] == ["0", "0", "0", "0", "-", "-"], f"empty metrics/0: {rows[1]}")
    check(rows[3][3:] == ["3", "0", "3", "-7", "3"], f"metrics/2 row: {rows[3]}")
    out, _ = tool("list", "metrics")
    check([r[0] for r in table(out)] == ["metrics/0", "metrics/1", "metrics/2"], f"list metrics:\n{out}")
    out, _ = tool("--time", "iso", "list", "events/0")
    check(table(out)[0][6:] == ["1970-01-01T00:00:01.000Z", "1970-01-01T00:00:05.000Z"], f"iso:\n{out}")


def case_stats():
    events_log()
    tool("commit", "events", "audit", "2")
    out, _ = tool("stats", "events")
    fields = {}
    for line in out.splitlines()[1:-1]:
        key, _, value = line.strip().rpartition("  ")
        fields[key.strip()] = value.strip()
    expect = {"segments": "1", "records": "5", "first offset": "0", "end offset": "5", "first timestamp": "1000",
              "last timestamp": "5000", "max timestamp": "5000", "consumers": "1"}
    for k, v in expect.items():
        check(fields.get(k) == v, f"stats {k}: {fields.get(k)!r}, expected {v!r}\n{out}")
    check(out.splitlines()[-1].startswith("total: 1 partition, 1 segment, ") and
          out.splitlines()[-1].endswith(" bytes, 5 records, 1 consumer offset"), f"total line:\n{out}")


def case_dump():
    events_log()
    out, _ = tool("dump", "events")
    check(out == "".join(f"{i}\t{1000 * (i + 1)}\t{1000 * (i + 1)}\\tline {i}\n" for i in range(5)),
          f"dump:\n{out}")
    out, _ = tool("dump", "events/0", "--offset", "3")
    check([line.split("\t")[0] for line in out.splitlines()] == ["3", "4"], f"--offset 3:\n{out}")
    out, _ = tool("dump", "events/0", "--timestamp", "2500", "-n", "2")
    check([line.split("\t")[0] for line in out.splitlines()] == ["2", "3"], f"--timestamp 2500 -n 2:\n{out}")
    out, _ = tool("dump", "events/0", "--timestamp", "9999")
    check(out == "", f"a timestamp past the end prints nothing:\n{out}")
    out, _ = tool("dump", "events/0", "--value-only", "-n", "1")
    check(out == "1000\\tline 0\n", f"--value-only:\n{out}")
    out, _ = tool("--time", "iso", "dump", "events/0", "-n", "1")
    check(out == "0\t1970-01-01T00:00:01.000Z\t1000\\tline 0\n", f"--time iso:\n{out}")
    # Bytes that are not printable text, in text and hex.
    tool("append", "bin", "--create", "--timestamp-field", "1", "--delimiter", ",",
         stdin=b"7,back\\slash \x01\xff\r\n")
    out, _ = tool("dump", "bin")
    check(out == "0\t7\t7,back\\\\slash \\x01\\xff\\r\n", f"escapes:\n{out!r}")
    out, _ = tool("dump", "bin", "--hex")
    # 16 bytes: one line of the dump.
    expect = ("offset 0 timestamp 7 length 16\n"
              "  00000000  37 2c 62 61 63 6b 5c 73  6c 61 73 68 20 01 ff 0d  |7,back\\slash ...|\n")
    check(out == expect, f"--hex:\n{out!r}\nexpected:\n{expect!r}")
    # A line without its final newline is a record too; an empty line is an empty record.
    tool("append", "text", "--create", stdin=b"8,\n\n9,last")
    out, _ = tool("dump", "text", "--value-only")
    check(out == "8,\n\n9,last\n", f"empty and unterminated lines:\n{out!r}")


def case_append_batches():
    # 7 lines in batches of at most 3 (written at once, so no batch is cut early): 3 batches.
    lines = "".join(f"{i}\tx{i}\n" for i in range(7)).encode()
    tool("append", "b", "--create", "--timestamp-field", "1", "--batch-records", "3", stdin=lines)
    out, _ = tool("verify", "b")
    check(out.startswith("b/0: ok (1 segment, 3 batches, 7 records, "), f"verify after batches of 3:\n{out}")
    # Each durability policy appends; small segments roll.
    for policy in (["--durability", "os"], ["--durability", "periodic", "--sync-ms", "50"],
                   ["--durability", "every-batch"]):
        tool("append", "b", "--timestamp-field", "1", "--segment-bytes", "4096", "--batch-records", "20",
             *policy, stdin="".join(f"{i}\t{'y' * 200}\n" for i in range(40)).encode())
    out, _ = tool("list", "b")
    row = table(out)[0]
    check(int(row[1]) >= 3 and row[3] == "127" and row[5] == "127", f"rolled segments:\n{out}")
    # Without a timestamp field: the wall clock, in ms.
    before = int(time.time() * 1000)
    tool("append", "wall", "--create", stdin=b"now\n")
    after = int(time.time() * 1000)
    out, _ = tool("dump", "wall")
    t = int(out.split("\t")[1])
    check(before - 1000 <= t <= after + 1000, f"wall-clock timestamp {t} not in [{before}, {after}]")
    out, _ = tool("append", "wall", "-q", stdin=b"x\n")
    check(out == "", f"-q printed: {out}")


def case_verify():
    events_log()
    out, _ = tool("verify")
    check(out.startswith("events/0: ok (1 segment, 3 batches, 5 records, "), f"verify:\n{out}")
    # A damaged index: named with its byte offset, the records intact.
    pdir = os.path.join(LOG, "events", "0")
    index = segment_files(pdir)[0].replace(".log", ".timeindex")
    with open(os.path.join(pdir, index), "wb") as f:
        f.write(b"junk")
    out, _ = tool("verify", "events/0", expect=3)
    check(out.splitlines()[0].startswith("events/0: DAMAGED (1 segment, 3 batches, 5 records, "), f"verify:\n{out}")
    check(out.splitlines()[1].startswith(f"  events/0 segment {index} byte 0: ") and "(0 bytes" not in out,
          f"the index problem:\n{out}")
    out, _ = tool("dump", "events", "--value-only")
    check(len(out.splitlines()) == 5, f"records behind a damaged index:\n{out}")


def case_verify_corrupt():
    events_log()
    pdir = os.path.join(LOG, "events", "0")
    seg = os.path.join(pdir, segment_files(pdir)[0])
    positions = batch_positions(seg)
    check(len(positions) == 3, f"batches at {positions}")
    second = positions[1]
    flip_data_byte(seg, second)
    out, _ = tool("verify", expect=3)
    check(out.splitlines()[0].startswith("events/0: DAMAGED ("), f"verify:\n{out}")
    problems = [line.strip() for line in out.splitlines()[1:]]
    check(len(problems) >= 1, f"no problem listed:\n{out}")
    check(problems[0].startswith(f"events/0 segment {os.path.basename(seg)} byte {second}: "),
          f"the problem does not name the segment and byte {second}:\n{out}")
    # A reader fails at the damage, naming the segment and the byte offset ...
    out, err = tool("dump", "events/0", expect=1)
    error_line(err, os.path.basename(seg), str(second))
    check([line.split("\t")[0] for line in out.splitlines()] == ["0", "1"], f"records before the damage:\n{out}")
    # ... or skips it, saying so.
    out, err = tool("dump", "events/0", "--skip-damaged")
    check([line.split("\t")[0] for line in out.splitlines()] == ["0", "1", "4"], f"--skip-damaged:\n{out}")
    check(f"skipped damage: events/0 segment {os.path.basename(seg)} byte {second}" in err,
          f"--skip-damaged stderr:\n{err}")


def case_append_reports_recovery():
    """append whose writer's recovery cuts a damaged tail says what was cut, on stderr, exit 0."""
    lines = "".join(f"{1000 * (i + 1)}\tline {i}\n" for i in range(4))
    out, err = tool("append", "events", "--create", "--timestamp-field", "1", "--batch-records", "2",
                    stdin=lines.encode())
    check(out.strip() == "events/0: appended 4 records, offsets 0-3" and err == "", f"append said: {out}{err}")
    pdir = os.path.join(LOG, "events", "0")
    seg = os.path.join(pdir, segment_files(pdir)[0])
    positions = batch_positions(seg)
    check(len(positions) == 2, f"batches at {positions}")
    second = positions[1]
    flip_data_byte(seg, second)
    out, err = tool("append", "events", "--timestamp-field", "1", stdin=b"9000\tafter\n")
    check(out.strip() == "events/0: appended 1 record, offsets 2-2", f"append after the damage said: {out}")
    cut = [line for line in err.splitlines() if "recovery cut" in line]
    check(len(cut) == 1, f"no line on stderr says what recovery cut:\n{err}")
    check(f"events/0 segment {os.path.basename(seg)} byte {second}: " in cut[0], f"the cut's place:\n{err}")
    check("2 records, offsets 2-3 lost" in cut[0], f"the offsets lost:\n{err}")
    check(all(line.startswith("timely-log: ") for line in err.splitlines()), f"stderr:\n{err}")
    # A clean recovery says nothing.
    out, err = tool("append", "events", "--timestamp-field", "1", stdin=b"9001\tagain\n")
    check(err == "", f"a clean recovery printed:\n{err}")


def case_consumers():
    events_log()
    out, _ = tool("consumers")
    check(out.strip() == "PARTITION  CONSUMER  COMMITTED  END  LAG", f"no consumers yet:\n{out}")
    out, _ = tool("commit", "events", "audit", "2")
    check(out.strip() == "events/0: consumer audit committed offset 2", f"commit said: {out}")
    tool("commit", "events/0", "tail", "latest")
    tool("commit", "events/0", "head", "earliest")
    out, _ = tool("consumers", "events")
    check(table(out) == [["events/0", "audit", "2", "5", "3"], ["events/0", "head", "0", "5", "5"],
                         ["events/0", "tail", "5", "5", "0"]], f"consumers:\n{out}")
    # A group reads from its committed offset and commits what it printed.
    out, _ = tool("dump", "events", "--group", "audit", "-n", "2")
    check([line.split("\t")[0] for line in out.splitlines()] == ["2", "3"], f"--group audit:\n{out}")
    out, _ = tool("dump", "events", "--group", "audit")
    check([line.split("\t")[0] for line in out.splitlines()] == ["4"], f"--group audit again:\n{out}")
    out, _ = tool("dump", "events", "--group", "fresh", "-n", "1")
    check(out.startswith("0\t"), f"a new group starts at the beginning:\n{out}")
    out, _ = tool("consumers", "events/0")
    check(["events/0", "audit", "5", "5", "0"] in table(out) and ["events/0", "fresh", "1", "5", "4"] in table(out),
          f"after the groups read:\n{out}")


def case_errors():
    missing = os.path.join(OPTS.work, "no-such-log")
    p = subprocess.run([OPTS.tool, "-l", missing, "list"], capture_output=True, timeout=30)
    check(p.returncode == 1, f"missing log: exit status {p.returncode}")
    error_line(p.stderr.decode(), missing)
    check(not os.path.exists(missing), "list created the missing log")
    events_log()
    _, err = tool("dump", "nosuch", expect=1)
    error_line(err, "nosuch")
    _, err = tool("list", "nosuch", expect=1)
    error_line(err, "nosuch")
    _, err = tool("dump", "events/9", expect=1)
    error_line(err, "events/9")
    _, err = tool("verify", "events/9", expect=1)
    error_line(err, "events/9")
    _, err = tool("append", "events/9", stdin=b"x\n", expect=1)
    error_line(err, "events/9")
    _, err = tool("dump", "events/x", expect=2)
    check("events/x" in err, f"bad partition number:\n{err}")
    _, err = tool("dump", "events/0", "--offset", "99", expect=1)
    error_line(err, "99")
    _, err = tool("commit", "events", "c", "99", expect=1)
    error_line(err, "99", "events/0")
    _, err = tool("commit", "events", "c", "soon", expect=2)
    _, err = tool("commit", "events", "bad/name", "1", expect=1)
    error_line(err, "bad/name")
    _, err = tool("frobnicate", expect=2)
    error_line(err, "unknown subcommand 'frobnicate'", "list, stats")
    # Numbers are decimal digits: a negative one is refused, not wrapped to 2^64 - 1.
    for args in (["dump", "events", "--offset", "-1"], ["dump", "events", "-n", "-3"],
                 ["append", "events", "--durability", "periodic", "--sync-ms", "-5"],
                 ["append", "events", "--timestamp-field", "0"], ["append", "events", "--batch-records", "0x10"],
                 ["create", "more", "-p", "-2"], ["dump", "bad name"], ["dump", "bad\x1bname/0"]):
        _, err = tool(*args, stdin=b"", expect=2)
        check("\x1b" not in err, f"{args}: a raw control byte in the message:\n{err!r}")
    # An empty stream name is a malformed argument too; --delimiter goes with --timestamp-field.
    _, err = tool("append", "", stdin=b"x\n", expect=2)
    _, err = tool("append", "events", "--delimiter", ",", stdin=b"", expect=2)
    check("--timestamp-field" in err, f"--delimiter without --timestamp-field:\n{err}")
    out, _ = tool("create", "single")
    check(out.strip() == "stream single: 1 partition", f"create: {out}")
    # A file verify cannot read (a FIFO for an index) is damage of its partition; the others are
    # still checked.
    tool("append", "fifo", "--create", stdin=b"one\n")
    pdir = os.path.join(LOG, "fifo", "0")
    index = os.path.join(pdir, [f for f in os.listdir(pdir) if f.endswith(".index")][0])
    os.remove(index)
    os.mkfifo(index)
    out, _ = tool("verify", expect=3)
    check("fifo/0: DAMAGED (unreadable)" in out and "not a regular file" in out and "events/0: ok" in out,
          f"verify with a FIFO index:\n{out}")
    os.remove(index)
    # A leading zero is not octal: -p 010 is ten partitions.
    out, _ = tool("create", "zeros", "-p", "010")
    check(out.strip() == "stream zeros: 10 partitions", f"-p 010: {out}")
    # --sync-ms and --sync-bytes belong to the periodic policy.
    _, err = tool("append", "events", "--sync-ms", "5", stdin=b"", expect=2)
    check("--durability periodic" in err, f"--sync-ms without periodic:\n{err}")
    p = subprocess.run([OPTS.tool, "-l", "", "list"], capture_output=True, timeout=30)
    check(p.returncode == 2 and b"empty path" in p.stderr, f"-l '': {p.returncode} {p.stderr}")
    # Input echoed in a message is quoted with its control bytes escaped.
    _, err = tool("append", "events", "--timestamp-field", "1", stdin=b"\x1b[31mred\tx\n", expect=1)
    error_line(err, "line 1", "'\\x1b[31mred'")
    _, err = tool("dump", "events", "--offset", "1", "--timestamp", "5", expect=2)
    _, err = tool("append", "events", "--durability", "periodic", "--sync-ms", "0", expect=2)
    _, err = tool("append", "events", "--delimiter", "ab", stdin=b"", expect=2)
    # A bad timestamp field: the lines before it are appended, the message names the line.
    out, err = tool("append", "events", "--timestamp-field", "1", stdin=b"6000\tok\nsoon\tbad\n7000\tnot read\n",
                    expect=1)
    error_line(err, "line 2", "'soon'")
    check(out.strip() == "events/0: appended 1 record, offsets 5-5", f"before the bad line: {out}")
    _, err = tool("append", "events", "--timestamp-field", "3", stdin=b"1\t2\n", expect=1)
    error_line(err, "line 1", "field 3")
    # No log option at all.
    env = {k: v for k, v in os.environ.items() if k != "TIMELY_LOG"}
    p = subprocess.run([OPTS.tool, "list"], capture_output=True, timeout=30, env=env)
    check(p.returncode == 2, f"no --log: exit status {p.returncode}")
    # TIMELY_LOG stands for --log.
    p = subprocess.run([OPTS.tool, "list"], capture_output=True, timeout=30, env={**env, "TIMELY_LOG": LOG})
    check(p.returncode == 0 and b"events/0" in p.stdout, f"TIMELY_LOG: {p.returncode} {p.stdout}")


def case_retention():
    """append's retention options delete old segments; a start they deleted fails, or is skipped."""
    def lines(first, n):
        return "".join(f"{i}\t{'r' * 100}\n" for i in range(first, first + n)).encode()
    retain = ["--segment-bytes", "4096", "--retention-bytes", "8192", "--batch-records", "5",
              "--timestamp-field", "1"]
    tool("append", "s", "--create", *retain, stdin=lines(0, 10))
    tool("commit", "s", "old", "5")
    tool("append", "s", *retain, stdin=lines(10, 290))
    row = table(tool("list", "s")[0])[0]
    first = int(row[4])
    check(first > 5 and row[5] == "300", f"retention kept offsets {row[4]}-{row[5]}:\n{row}")
    _, err = tool("dump", "s", "--offset", "0", expect=1)
    error_line(err, "s/0", "offset 0")
    out, err = tool("dump", "s", "--offset", "0", "-n", "2", "--skip-deleted")
    check([line.split("\t")[0] for line in out.splitlines()] == [str(first), str(first + 1)],
          f"--skip-deleted from 0 (first {first}):\n{out}")
    check(err.strip() == f"timely-log: skipped {first} offsets that retention deleted in s/0", f"stderr: {err!r}")
    # A consumer whose committed offset retention deleted.
    _, err = tool("dump", "s", "--group", "old", expect=1)
    error_line(err, "offset 5")
    out, _ = tool("dump", "s", "--group", "old", "--skip-deleted", "-n", "1")
    check(out.startswith(f"{first}\t"), f"--group old --skip-deleted:\n{out}")
    check(["s/0", "old", str(first + 1), "300", str(299 - first)] in table(tool("consumers")[0]),
          f"old's commit after skipping:\n{tool('consumers')[0]}")
    # By age: segments whose records are all more than 50 below the largest timestamp go.
    tool("append", "a", "--create", "--segment-bytes", "4096", "--retention-age", "50", "--batch-records", "5",
         "--timestamp-field", "1", stdin=lines(0, 300))
    row = table(tool("list", "a")[0])[0]
    check(200 <= int(row[4]) <= 250, f"retention by age kept offsets from {row[4]}:\n{row}")


def wait_for_line(proc, deadline, what):
    """Reads follow's output up to a line, failing past the deadline (the pipe is non-blocking)."""
    buf = b""
    while time.monotonic() < deadline:
        try:
            chunk = os.read(proc.stdout.fileno(), 65536)
        except BlockingIOError:
            chunk = None
        if chunk == b"":
            raise Failed(f"follow ended (status {proc.poll()}) before printing {what}; it printed {buf!r}")
        if chunk:
            buf += chunk
            if b"\n" in buf:
                return buf
        time.sleep(0.01)
    raise Failed(f"follow did not print {what} within the bound; it printed {buf!r}")


def start_follow(*args):
    proc = subprocess.Popen([OPTS.tool, "-l", LOG, "follow", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.set_blocking(proc.stdout.fileno(), False)
    return proc


def stop_and_wait(proc, sig):
    proc.send_signal(sig)
    try:
        proc.wait(timeout=STOP_WITHIN)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failed(f"follow did not end within {STOP_WITHIN} s of signal {sig}")
    return proc.returncode


def case_follow():
    events_log()
    for sig in (signal.SIGINT, signal.SIGTERM):
        proc = start_follow("events", "--offset", "4")
        try:
            # The record already there shows follow is reading; then another process appends.
            first = wait_for_line(proc, time.monotonic() + 30, "offset 4")
            check(first.startswith(b"4\t5000\t"), f"follow's first line: {first!r}")
            tool("append", "events", "--timestamp-field", "1", "-q", stdin=f"{int(sig)}\tnew\n".encode())
            appended = time.monotonic()
            line = wait_for_line(proc, appended + APPEND_SEEN_WITHIN, "the appended record")
            seen = time.monotonic() - appended
            print(f"follow saw another process's append after {seen * 1000:.0f} ms (bound {APPEND_SEEN_WITHIN} s)")
            check(line.startswith(f"{5 if sig == signal.SIGINT else 6}\t{int(sig)}\t{int(sig)}\\tnew".encode()),
                  f"appended record as printed: {line!r}")
            status = stop_and_wait(proc, sig)
            err = proc.stderr.read().decode()
            check(status == 0 and err == "", f"follow after signal {sig}: status {status}, stderr {err!r}")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # From the end by default (none of the 7 records there), ending after --count records. When
    # follow's reader opens is not known, so a record is appended every 0.3 s until it prints one.
    proc = start_follow("events", "-n", "1")
    try:
        deadline = time.monotonic() + 60
        line = b""
        while not line:
            check(time.monotonic() < deadline, "follow from the end printed nothing in 60 s of appends")
            tool("append", "events", "--timestamp-field", "1", "-q", stdin=b"9000\tlater\n")
            try:
                line = wait_for_line(proc, time.monotonic() + 0.3, "a record appended after it started")
            except Failed:
                check(proc.poll() is None, f"follow ended early with status {proc.returncode}")
        fields = line.decode().rstrip("\n").split("\t")
        check(len(line.splitlines()) == 1 and int(fields[0]) >= 7 and fields[1:] == ["9000", "9000\\tlater"],
              f"follow from the end printed {line!r}")
        proc.wait(timeout=STOP_WITHIN)
        check(proc.returncode == 0, f"follow -n 1: status {proc.returncode}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def case_dump_signal():
    """SIGTERM stops a dump that is blocked on its output, exit status 0, before its end."""
    total = 200000
    lines = "".join(f"{i}\tline {i}\n" for i in range(total))
    tool("append", "big", "--create", "--timestamp-field", "1", "--batch-records", "10000", "-q",
         stdin=lines.encode())
    proc = subprocess.Popen([OPTS.tool, "-l", LOG, "dump", "big"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        first = proc.stdout.readline()
        check(first.startswith(b"0\t0\t"), f"dump's first line: {first!r}")
        time.sleep(0.3)  # the pipe fills: dump blocks writing
        proc.send_signal(signal.SIGTERM)
        rest = proc.stdout.read()  # drains what dump still writes, to its exit
        status = proc.wait(timeout=STOP_WITHIN)
        err = proc.stderr.read().decode()
        printed = 1 + rest.count(b"\n")
        check(status == 0 and err == "", f"dump after SIGTERM: status {status}, stderr {err!r}")
        check(printed < total, f"dump printed all {total} records after SIGTERM")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def case_closed_output():
    events_log()
    # follow, idle, its reader gone: it notices without writing and ends with 141, silently.
    r, w = os.pipe()
    proc = subprocess.Popen([OPTS.tool, "-l", LOG, "follow", "events"], stdout=w, stderr=subprocess.PIPE)
    os.close(w)
    time.sleep(0.5)
    os.close(r)
    try:
        proc.wait(timeout=STOP_WITHIN)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failed("follow did not end after its output closed")
    err = proc.stderr.read().decode()
    check(proc.returncode == 141 and err == "", f"follow, output closed: status {proc.returncode}, stderr {err!r}")
    # dump | head -1 on more than a pipe's buffer: EPIPE, 141, silently.
    tool("append", "events", "-q", "--batch-records", "5000",
         stdin="".join(f"record {i} {'z' * 40}\n" for i in range(20000)).encode())
    proc = subprocess.Popen([OPTS.tool, "-l", LOG, "dump", "events"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    proc.wait(timeout=30)
    err = proc.stderr.read().decode()
    check(proc.returncode == 141 and err == "", f"dump | head: status {proc.returncode}, stderr {err!r}")


def case_writer_busy():
    events_log()
    first = subprocess.Popen([OPTS.tool, "-l", LOG, "append", "events", "--timestamp-field", "1"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first.stdin.write(b"6000\tfrom the first\n")
        first.stdin.flush()
        deadline = time.monotonic() + 30
        while True:  # its line readable: it holds the writer
            out, _ = tool("dump", "events", "--offset", "5")
            if out:
                break
            check(time.monotonic() < deadline and first.poll() is None, "the first append's line never appeared")
            time.sleep(0.05)
        _, err = tool("append", "events", stdin=b"from the second\n", expect=1)
        error_line(err, "events/0")
        check("writer" in err.lower(), f"the message does not say the partition has a writer: {err}")
        first.stdin.write(b"7000\tlast\n")
        first.stdin.close()
        first.wait(timeout=30)
        out = first.stdout.read().decode()
        check(first.returncode == 0 and out.strip() == "events/0: appended 2 records, offsets 5-6",
              f"the first append: status {first.returncode}, said {out!r}, stderr {first.stderr.read()!r}")
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    # The writer released, a new one may append.
    out, _ = tool("append", "events", stdin=b"third\n")
    check(out.strip() == "events/0: appended 1 record, offsets 7-7", f"after the first closed: {out}")


def case_append_signal():
    """SIGTERM during append: what was read is appended, the writer closed, exit 0."""
    proc = subprocess.Popen([OPTS.tool, "-l", LOG, "append", "s", "--create"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(b"one\ntwo\n")
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while True:
            p = subprocess.run([OPTS.tool, "-l", LOG, "dump", "s"], capture_output=True, timeout=30)
            if p.stdout.count(b"\n") == 2:
                break
            check(time.monotonic() < deadline, "the lines never appeared")
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=STOP_WITHIN)
        out = proc.stdout.read().decode()
        check(proc.returncode == 0 and out.strip() == "s/0: appended 2 records, offsets 0-1",
              f"append after SIGTERM: status {proc.returncode}, said {out!r}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out, _ = tool("verify", "s")
    check(" ok " in out, f"verify after the signal:\n{out}")


CASES = {name[len("case_"):].replace("_", "-"): f for name, f in globals().items() if name.startswith("case_")}


def main():
    global OPTS, LOG
    parser = argparse.ArgumentParser()
    parser.add_argument("--tool")
    parser.add_argument("--work")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("case", nargs="?")
    OPTS = parser.parse_args()
    if OPTS.list:
        print("\n".join(CASES))
        return 0
    if OPTS.case not in CASES:
        print(f"unknown case {OPTS.case!r}; cases: {', '.join(CASES)}")
        return 1
    shutil.rmtree(OPTS.work, ignore_errors=True)
    os.makedirs(OPTS.work)
    LOG = os.path.join(OPTS.work, "log")
    try:
        CASES[OPTS.case]()
    except Failed as e:
        print(f"FAILED {OPTS.case}: {e}")
        return 1
    print(f"passed {OPTS.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
