#!/usr/bin/env python3
"""Runs a timely program as P processes on loopback, for the `net` tests.

As a module: `Cluster` picks free loopback ports at random (binds port 0, reads the port,
closes), writes a hostfile, launches process i as

    PROGRAM ARGS... -n P -p i -h HOSTFILE -w W [per-process extra arguments]

with stdout and stderr in files of a work directory, and enforces a hard timeout: when it
passes, every process still running is killed (SIGKILL, whole process group) and `ClusterTimeout`
is raised, so a test never hangs. `run()` is the one-call form.

As a program (for running by hand):

    python3 cluster.py [-n P] [-w W] [--timeout S] [--zerocopy I] [--workdir DIR] -- PROGRAM ARGS...

prints every process's exit status, stdout and stderr, and exits 0 if all exited 0, 1 if not,
and 124 on the timeout.

Standard library only.
"""

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

__all__ = ["free_ports", "write_hostfile", "Cluster", "ClusterTimeout", "ProcessResult", "run", "run_single"]

_live = set()  # every Popen started here and not yet reaped, for the exit handler


def _kill_all_live(*_):
    for proc in list(_live):
        _kill_group(proc, signal.SIGKILL)


def _kill_group(proc, sig):
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            proc.send_signal(sig)
        except (ProcessLookupError, OSError):
            pass


def _on_signal(signum, _frame):
    _kill_all_live()
    sys.exit(128 + signum)


# If the runner itself is stopped (CTest's timeout, Ctrl-C), take the processes with it.
for _sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    try:
        signal.signal(_sig, _on_signal)
    except (ValueError, OSError):  # not the main thread
        pass
import atexit  # noqa: E402

atexit.register(_kill_all_live)


def free_ports(count, host="127.0.0.1"):
    """`count` distinct free TCP ports on `host`: binds `count` sockets to port 0 at once,
    reads their ports and closes them (another program may still take one before we use it;
    callers that must not fail on that retry with fresh ports)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def write_hostfile(path, ports, host="127.0.0.1"):
    with open(path, "w") as f:
        for port in ports:
            f.write(f"{host}:{port}\n")
    return path


class ClusterTimeout(Exception):
    """The hard timeout passed; every process was killed. `results` holds what they wrote."""

    def __init__(self, message, results):
        super().__init__(message)
        self.results = results


def communicate(proc, timeout, what):
    """Waits for `proc` (started with start_new_session and registered in `_live`) and returns
    its (status, stdout, stderr), decoded. On the timeout kills its whole session and raises
    ClusterTimeout naming `what`, with the end of its stderr."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise ClusterTimeout(f"{what} still running after {timeout} s; killed\n{err.decode(errors='replace')}", [])
    finally:
        _live.discard(proc)
    return proc.returncode, (out or b"").decode("utf-8", "replace"), (err or b"").decode("utf-8", "replace")


class ProcessResult:
    """One process's exit status (negative: killed by that signal), output and exit time
    (seconds since the cluster started; None if it was killed by the timeout)."""

    def __init__(self, index, argv, returncode, stdout, stderr, elapsed):
        self.index = index
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.elapsed = elapsed

    def describe(self):
        when = "never exited" if self.elapsed is None else f"after {self.elapsed:.2f} s"
        return (f"--- process {self.index}: exit status {self.returncode} {when}\n"
                f"    argv: {' '.join(self.argv)}\n"
                f"    stdout ({len(self.stdout)} bytes):\n{_indent(_tail(self.stdout))}\n"
                f"    stderr ({len(self.stderr)} bytes):\n{_indent(_tail(self.stderr))}")


def _tail(text, lines=40):
    parts = text.splitlines()
    if len(parts) <= lines:
        return text.rstrip("\n")
    return "\n".join([f"[... {len(parts) - lines} lines ...]"] + parts[-lines:])


def _indent(text):
    return "\n".join("      " + line for line in text.splitlines()) if text else "      (empty)"


class Cluster:
    """P processes of one program on loopback.

    program, args: the program and its own arguments (before the worker arguments).
    processes, workers: P and W (`workers` may be a list: W per process, to provoke mismatches).
    extra: {process index: [more arguments]} appended to that process's command line.
    hostfile: a path to use instead of writing one with fresh ports (then `ports` is None).
    launch: the process indices to start (default all; others are left to the test).
    rendezvous: no hostfile: every process gets `--rendezvous HOST:PORT` on one fresh port
      (`rendezvous_port`), which process 0 serves; `ports` and `hostfile` are None.
    """

    def __init__(self, program, args=(), processes=2, workers=1, workdir=None, extra=None, hostfile=None,
                 launch=None, env=None, host="127.0.0.1", rendezvous=False):
        self.program = program
        self.args = list(args)
        self.processes = processes
        self.workers = workers if isinstance(workers, list) else [workers] * processes
        self.extra = extra or {}
        self._own_workdir = workdir is None
        self.workdir = workdir or tempfile.mkdtemp(prefix="timely-net-")
        os.makedirs(self.workdir, exist_ok=True)
        self.rendezvous = f"{host}:{free_ports(1, host)[0]}" if rendezvous else None
        if rendezvous:
            self.ports = None
            self.hostfile = None
        elif hostfile is None:
            self.ports = free_ports(processes, host)
            self.hostfile = write_hostfile(os.path.join(self.workdir, "hosts.txt"), self.ports, host)
        else:
            self.ports = None
            self.hostfile = hostfile
        self.launch = list(range(processes)) if launch is None else list(launch)
        self.env = env
        self.procs = {}
        self.argvs = {}
        self.files = {}
        self.exit_times = {}
        self.start_time = None

    def argv(self, i):
        where = ["--rendezvous", self.rendezvous] if self.rendezvous else ["-h", self.hostfile]
        return ([self.program] + self.args +
                ["-n", str(self.processes), "-p", str(i)] + where + ["-w", str(self.workers[i])] +
                list(self.extra.get(i, [])))

    def start(self):
        self.start_time = time.monotonic()
        for i in self.launch:
            self.start_process(i)
        return self

    def start_process(self, i, argv=None):
        argv = argv or self.argv(i)
        out = open(os.path.join(self.workdir, f"p{i}.out"), "wb")
        err = open(os.path.join(self.workdir, f"p{i}.err"), "wb")
        proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=self.env)
        out.close()
        err.close()
        _live.add(proc)
        self.procs[i] = proc
        self.argvs[i] = argv
        if self.start_time is None:
            self.start_time = time.monotonic()
        return proc

    def output(self, i):
        """(stdout, stderr) of process i so far."""
        def read(name):
            try:
                with open(os.path.join(self.workdir, name), "rb") as f:
                    return f.read().decode("utf-8", "replace")
            except FileNotFoundError:
                return ""
        return read(f"p{i}.out"), read(f"p{i}.err")

    def poll(self):
        """Reaps exited processes; returns the indices still running."""
        running = []
        for i, proc in self.procs.items():
            if i in self.exit_times:
                continue
            if proc.poll() is None:
                running.append(i)
            else:
                self.exit_times[i] = time.monotonic() - self.start_time
                _live.discard(proc)
        return running

    def wait_for_output(self, i, pattern, timeout):
        """Waits until process i's stdout or stderr matches `pattern`. Returns True if it did,
        False if the process exited or `timeout` seconds passed first."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out, err = self.output(i)
            if regex.search(out) or regex.search(err):
                return True
            if i not in self.poll():
                out, err = self.output(i)
                return bool(regex.search(out) or regex.search(err))
            time.sleep(0.05)
        return False

    def signal(self, i, sig):
        """Sends `sig` to process i (its whole process group)."""
        _kill_group(self.procs[i], sig)

    def kill_all(self):
        for i in self.poll():
            _kill_group(self.procs[i], signal.SIGKILL)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _live.discard(proc)

    def wait(self, timeout, only=None):
        """Waits for the processes (or those in `only`) to exit, at most `timeout` seconds from
        now. On the timeout kills every process and raises ClusterTimeout with the results."""
        deadline = time.monotonic() + timeout
        while True:
            running = [i for i in self.poll() if only is None or i in only]
            if not running:
                return self.results()
            if time.monotonic() >= deadline:
                self.kill_all()
                results = self.results()
                raise ClusterTimeout(
                    f"hard timeout: process(es) {running} still running after {timeout:.1f} s; killed all\n" +
                    "\n".join(r.describe() for r in results), results)
            time.sleep(0.02)

    def results(self):
        self.poll()
        out = []
        for i in sorted(self.procs):
            stdout, stderr = self.output(i)
            out.append(ProcessResult(i, self.argvs[i], self.procs[i].returncode, stdout, stderr,
                                     self.exit_times.get(i)))
        return out

    def cleanup(self):
        self.kill_all()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill_all()
        return False


def run(program, args=(), processes=2, workers=1, timeout=60, workdir=None, extra=None, retries=2,
        rendezvous=False):
    """Runs the cluster to completion and returns its ProcessResults. Retries with fresh ports
    (up to `retries` more times) if a process could not listen because another program took
    its port between our probe and its bind."""
    for attempt in range(retries + 1):
        wd = None if workdir is None else os.path.join(workdir, f"attempt{attempt}")
        cluster = Cluster(program, args, processes, workers, workdir=wd, extra=extra, rendezvous=rendezvous)
        try:
            cluster.start()
            results = cluster.wait(timeout)
        finally:
            cluster.kill_all()
        if attempt < retries and any(("cannot listen on" in r.stderr or "cannot serve the rendezvous" in r.stderr)
                                     and "in use" in r.stderr for r in results):
            continue
        return results
    return results


def run_single(program, args=(), workers=1, extra=(), timeout=60):
    """Runs `program ARGS -w W EXTRA` as one process; returns a ProcessResult."""
    argv = [program] + list(args) + ["-w", str(workers)] + list(extra)
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    _live.add(proc)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc, signal.SIGKILL)
        out, err = proc.communicate()
        _live.discard(proc)
        result = ProcessResult(0, argv, proc.returncode, out.decode("utf-8", "replace"),
                               err.decode("utf-8", "replace"), None)
        raise ClusterTimeout(f"hard timeout: {' '.join(argv)} still running after {timeout} s; killed\n" +
                             result.describe(), [result])
    _live.discard(proc)
    return ProcessResult(0, argv, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                         time.monotonic() - start)


def main():
    parser = argparse.ArgumentParser(description="Run a timely program as P processes on loopback.")
    parser.add_argument("-n", "--processes", type=int, default=2)
    parser.add_argument("-w", "--workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--zerocopy", type=int, action="append", default=[], metavar="I",
                        help="give process I the -z flag (repeatable)")
    parser.add_argument("--workdir", default=None)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    ns = parser.parse_args()
    command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    if not command:
        parser.error("expected -- PROGRAM ARGS...")
    extra = {i: ["-z"] for i in ns.zerocopy}
    cluster = Cluster(command[0], command[1:], ns.processes, ns.workers, workdir=ns.workdir, extra=extra)
    try:
        cluster.start()
        try:
            results = cluster.wait(ns.timeout)
            status = 0 if all(r.returncode == 0 for r in results) else 1
        except ClusterTimeout as e:
            results = e.results
            status = 124
        for r in results:
            print(r.describe())
        return status
    finally:
        cluster.cleanup() if ns.workdir is None else cluster.kill_all()


if __name__ == "__main__":
    sys.exit(main())
