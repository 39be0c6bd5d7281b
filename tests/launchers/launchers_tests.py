#!/usr/bin/env python3
"""The `launchers` tests: timely programs started by real process starters on this machine.

    python3 launchers_tests.py --examples DIR --source DIR --work DIR CASE
    python3 launchers_tests.py --list

CASE is one of
  mpi      Open MPI's mpirun (Debian openmpi-bin) runs wordcount and pagerank as 2 and 3 ranks
           with no timely arguments but -w; the output equals one process's with as many
           workers; -r reports the launcher; a -n that disagrees with mpirun's is an error on
           every rank naming both; under `--bind-to core`, --pin keeps each rank inside its core.
  slurm    starts slurmctld and slurmd (Debian slurm-wlm) on this host with a generated
           configuration (auth/none, no munge, state in a temporary directory), runs
           `srun -n 2` and `-n 3` of wordcount and pagerank and `sbatch` of
           deploy/slurm/wordcount.sbatch, compares each with one process, and stops both daemons
           (always, also on failure), checking that nothing of them is left.
  pipe     wordcount as two processes writing to ONE pipe: started directly with the pipe as
           their standard output (a shell's `(a & b) | sort`), and under timely-run; every line
           must arrive whole ("WORD COUNT") and their union equal one process's output. The text
           has about 100 000 distinct words, so each process writes far more than PIPE_BUF.
           (Not under mpirun: Open MPI gives each rank a pseudo-terminal and relays what it reads
           from it in chunks that end anywhere, so no program can keep its lines whole in
           `mpirun ... | sort`; launchers:mpi uses --output-filename, one file per rank.)
  k8s      the StatefulSet of deploy/k8s/wordcount.yaml, its pods played by local processes:
           each gets the environment the manifest and Kubernetes give it (HOSTNAME=wordcount-i,
           TIMELY_PROCESSES, TIMELY_SERVICE, KUBERNETES_SERVICE_HOST) and the manifest's command
           line; only the Service's DNS is replaced, by TIMELY_RENDEZVOUS on loopback.
           (`kubectl apply --dry-run=client` needs an API server for its discovery: not offline.)

Exit status 0 if the case passed, 1 if not. Standard library only; uses tests/net/cluster.py
and the inputs of tests/net/net_tests.py.
"""

import argparse
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "net"))
import cluster  # noqa: E402
import net_tests  # noqa: E402

OPTS = None
Failed = net_tests.Failed
check = net_tests.check


def check_same(canon, results, expected, what, evidence=None):
    """`canon(results)` equals `expected` (one process's output), or fails naming `what`."""
    got = canon(results)
    check(got == expected, f"{what}: output differs from one process:\n"
          f"  expected: {net_tests._short(expected)}\n  got:      {net_tests._short(got)}", evidence)


def run(argv, timeout, env=None, cwd=None):
    """Runs argv in a session of its own; kills the whole session on the timeout."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True, env=env, cwd=cwd)
    cluster._live.add(proc)
    try:
        return cluster.communicate(proc, timeout, " ".join(argv))
    except cluster.ClusterTimeout as e:
        raise Failed(str(e))


def reference(name, workers):
    prog, args, canon = net_tests.EQUIV[name]
    exe = net_tests.program(prog)
    args = [a() if callable(a) else a for a in args]
    ref = cluster.run_single(exe, args, workers, timeout=60)
    check(ref.returncode == 0, f"{name}: the single-process run with -w {workers} failed", [ref])
    return exe, args, canon, canon([ref])


def per_task_results(directory, pattern, count):
    """ProcessResults from the files a launcher wrote per task (`pattern` with {i} and {stream})."""
    results = []
    for i in range(count):
        texts = {}
        for stream in ("stdout", "stderr"):
            path = os.path.join(directory, pattern.format(i=i, stream=stream))
            check(os.path.exists(path), f"the launcher wrote no {path}")
            with open(path, encoding="utf-8", errors="replace") as f:
                texts[stream] = f.read()
        results.append(cluster.ProcessResult(i, [], 0, texts["stdout"], texts["stderr"], 0))
    return results


def task_errors(directory, pattern, count):
    """What each task wrote on stderr (`pattern` with {i}), for a failure's message."""
    text = ""
    for i in range(count):
        path = os.path.join(directory, pattern.format(i=i))
        if os.path.exists(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text += f"--- task {i} stderr\n{f.read()}"
    return text


def free_port():
    return cluster.free_ports(1)[0]


# ---------------------------------------------------------------------------------------------
# Open MPI

def mpirun_base():
    mpirun = shutil.which("mpirun")
    check(mpirun, "mpirun is not installed (Debian openmpi-bin; scripts/install-deps.sh)")
    base = [mpirun, "--oversubscribe"]
    if os.geteuid() == 0:
        base.append("--allow-run-as-root")
    return base


def case_mpi():
    base = mpirun_base()
    for name in ("wordcount", "pagerank"):
        for ranks, workers in ((2, 1), (3, 1), (2, 2)):
            exe, args, canon, expected = reference(name, ranks * workers)
            out_dir = tempfile.mkdtemp(prefix=f"mpi-{name}-", dir=OPTS.work)
            status, out, err = run(base + ["-np", str(ranks), "--output-filename", out_dir, exe] + args +
                                   ["-w", str(workers), "-r"], timeout=90)
            check(status == 0, f"mpirun -np {ranks} {name} -w {workers} exited {status}:\n{out}\n{err}")
            results = per_task_results(out_dir, "1/rank.{i}/{stream}", ranks)
            for r in results:
                check(re.search(rf"launcher: Open MPI, process {r.index} of {ranks} \(OMPI_COMM_WORLD_RANK={r.index}",
                                r.stderr), f"rank {r.index} did not report its launcher (-r)", results)
                check("serving the rendezvous" in r.stderr or "registering at the rendezvous" in r.stderr,
                      f"rank {r.index} did not meet the others at a rendezvous", results)
            check_same(canon, results, expected, f"mpirun -np {ranks} {name} -w {workers}", results)
            print(f"ok   mpirun -np {ranks} {name} -w {workers}: equal to -w {ranks * workers}")
    # -n that disagrees with mpirun's -np: every rank fails naming both.
    out_dir = tempfile.mkdtemp(prefix="mpi-conflict-", dir=OPTS.work)
    status, out, err = run(base + ["-np", "2", "--output-filename", out_dir, net_tests.program("hello"), "-n", "3"],
                           timeout=60)
    check(status != 0, f"mpirun -np 2 hello -n 3 succeeded:\n{out}\n{err}")
    for r in per_task_results(out_dir, "1/rank.{i}/{stream}", 2):
        check(re.search(r"-n 3 conflicts with OMPI_COMM_WORLD_SIZE=2 from Open MPI", r.stderr),
              f"rank {r.index} did not name both sources:\n{r.stderr}")
    print("ok   mpirun -np 2 hello -n 3: each rank names -n 3 and OMPI_COMM_WORLD_SIZE=2")
    # --pin under mpirun's binding (one core per rank): each rank pins its worker inside the
    # core mpirun gave it, though both are processes of one host.
    out_dir = tempfile.mkdtemp(prefix="mpi-pin-", dir=OPTS.work)
    status, out, err = run(base + ["--bind-to", "core", "-np", "2", "--output-filename", out_dir,
                                   net_tests.program("hello"), "--pin", "-r"], timeout=60)
    check(status == 0, f"mpirun --bind-to core -np 2 hello --pin exited {status}:\n{out}\n{err}")
    cpus = []
    for r in per_task_results(out_dir, "1/rank.{i}/{stream}", 2):
        bound = re.search(r"pin: 1 CPU allowed \((\d+)\) .* this process is (\d) of 2 on this host", r.stderr)
        check(bound and int(bound.group(2)) == r.index + 1,
              f"rank {r.index} did not see one allowed CPU as local process {r.index + 1} of 2:\n{r.stderr}")
        check(f"pin: worker {r.index} on CPU {bound.group(1)} " in r.stderr,
              f"rank {r.index} did not pin its worker to its own CPU {bound.group(1)}:\n{r.stderr}")
        cpus.append(bound.group(1))
    check(cpus[0] != cpus[1], f"both ranks were bound to CPU {cpus[0]}")
    print(f"ok   mpirun --bind-to core -np 2 hello --pin: each rank's worker on its own core ({', '.join(cpus)})")


# ---------------------------------------------------------------------------------------------
# Slurm

SLURM_CONF = """\
# Generated by tests/launchers/launchers_tests.py: one node, this host, no authentication.
ClusterName=timelytest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={host} NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=timely Nodes={host} Default=YES MaxTime=10 State=UP OverSubscribe=YES
"""


class SlurmCluster:
    """slurmctld and slurmd on this host, in a temporary directory (short: slurmd's sockets live
    in its spool, and socket paths are limited to 108 bytes). `stop()` ends both, always."""

    def __init__(self):
        for tool in ("slurmctld", "slurmd", "srun", "sbatch", "sinfo"):
            check(shutil.which(tool), f"{tool} is not installed (Debian slurm-wlm; scripts/install-deps.sh)")
        check(os.geteuid() == 0, "the Slurm test starts slurmd, which must run as root")
        self.dir = tempfile.mkdtemp(prefix="timely-slurm-")
        os.makedirs(os.path.join(self.dir, "state"))
        os.makedirs(os.path.join(self.dir, "spool"))
        # The node is this host by its name (slurmd finds its node so); the daemons talk over
        # loopback, but the tasks' rendezvous is at the node's name, which must resolve.
        self.host = socket.gethostname().split(".")[0]
        try:
            socket.gethostbyname(self.host)
        except OSError as e:
            raise Failed(f"this host's name {self.host!r} does not resolve ({e}): add it to /etc/hosts")
        ctld_port, d_port = cluster.free_ports(2)
        self.conf = os.path.join(self.dir, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write(SLURM_CONF.format(host=self.host, ctld_port=ctld_port, d_port=d_port, dir=self.dir))
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for key in [k for k in self.env if k.startswith("SLURM_") and k != "SLURM_CONF"]:
            del self.env[key]  # not a job's variables of an outer Slurm
        self.daemons = []

    def start(self):
        for argv in (["slurmctld", "-D", "-i", "-f", self.conf], ["slurmd", "-D", "-f", self.conf]):
            log = open(os.path.join(self.dir, argv[0] + ".out"), "wb")
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, env=self.env)
            log.close()
            cluster._live.add(proc)
            self.daemons.append(proc)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for proc in self.daemons:
                check(proc.poll() is None, f"{proc.args[0]} exited with {proc.returncode}:\n{self.logs()}")
            status, out, _ = run(["sinfo", "-h", "-o", "%T"], timeout=20, env=self.env)
            if status == 0 and out.strip() == "idle":
                return self
            time.sleep(0.3)
        raise Failed(f"the Slurm node never became idle:\n{self.logs()}")

    def logs(self):
        text = ""
        for name in ("slurmctld.out", "slurmd.out", "slurmctld.log", "slurmd.log"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    text += f"--- {name}\n" + "".join(f.readlines()[-30:])
        return text

    def stop(self):
        """Ends the daemons (SIGTERM, SIGKILL after 10 s) with their process groups (slurmscriptd
        and any slurmstepd), and removes the directory."""
        for proc in self.daemons:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in self.daemons:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
            try:  # whatever else was in its group
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            cluster._live.discard(proc)
        left = [line for line in subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
                .splitlines() if self.conf in line or "slurmstepd" in line]
        shutil.rmtree(self.dir, ignore_errors=True)
        return left


def case_slurm():
    slurm = SlurmCluster()
    left = None
    try:
        slurm.start()
        print(f"ok   slurmctld and slurmd up on {slurm.host} ({slurm.dir})")
        for name in ("wordcount", "pagerank"):
            for tasks in (2, 3):
                exe, args, canon, expected = reference(name, tasks)
                out_dir = tempfile.mkdtemp(prefix=f"srun-{name}-", dir=OPTS.work)
                status, out, err = run(["srun", "-n", str(tasks), "--kill-on-bad-exit=1",
                                        f"--output={out_dir}/%t.stdout", f"--error={out_dir}/%t.stderr",
                                        exe] + args + ["-w", "1", "-r"], timeout=90, env=slurm.env)
                check(status == 0, f"srun -n {tasks} {name} exited {status}:\n{out}\n{err}\n"
                      f"{task_errors(out_dir, '{i}.stderr', tasks)}{slurm.logs()}")
                results = per_task_results(out_dir, "{i}.{stream}", tasks)
                for r in results:
                    check(re.search(rf"launcher: Slurm, process {r.index} of {tasks} \(SLURM_PROCID={r.index}, "
                                    rf"SLURM_STEP_NUM_TASKS={tasks}\), on {slurm.host}; rendezvous {slurm.host}:\d+",
                                    r.stderr), f"task {r.index} did not report Slurm (-r)", results)
                check_same(canon, results, expected, f"srun -n {tasks} {name}", results)
                print(f"ok   srun -n {tasks} {name} -w 1: equal to -w {tasks}")
        # sbatch of the deployed batch script: 3 tasks of 2 CPUs, so -w 2 each.
        exe, args, canon, expected = reference("wordcount", 6)
        out_dir = tempfile.mkdtemp(prefix="sbatch-", dir=OPTS.work)
        script = os.path.join(OPTS.source, "deploy", "slurm", "wordcount.sbatch")
        env = dict(slurm.env, TIMELY_PROGRAM=exe)
        status, out, err = run(["sbatch", "--wait", "--ntasks=3", "--cpus-per-task=2",
                                f"--output={out_dir}/job.out", f"--error={out_dir}/job.err", script] + args,
                               timeout=120, env=env, cwd=out_dir)
        with open(os.path.join(out_dir, "job.out"), errors="replace") as f:
            job_out = f.read()
        with open(os.path.join(out_dir, "job.err"), errors="replace") as f:
            job_err = f.read()
        check(status == 0, f"sbatch --wait of {script} exited {status}:\n{out}\n{err}\n{job_err}\n{slurm.logs()}")
        check(len(re.findall(r"^wordcount: process \d of 3 .* 2 workers", job_err, re.M)) == 3,
              f"the batch job did not run 3 processes of 2 workers:\n{job_err}")
        check_same(canon, [cluster.ProcessResult(0, [], 0, job_out, job_err, 0)], expected, "sbatch wordcount.sbatch")
        print("ok   sbatch --ntasks=3 --cpus-per-task=2 deploy/slurm/wordcount.sbatch: equal to -w 6")
    finally:
        left = slurm.stop()
    check(not left, "Slurm processes left after stopping the daemons:\n" + "\n".join(left))
    print("ok   slurmctld and slurmd stopped, nothing left")


# ---------------------------------------------------------------------------------------------
# Two processes, one pipe

WORD_LINE = re.compile(r"\S+ [1-9][0-9]*")


def many_words_file():
    """A text of 30 000 lines of 10 words, about 100 000 of them distinct, the same every time:
    wordcount's output is then megabytes, many PIPE_BUFs per process."""
    path = os.path.join(OPTS.work, "many-words.txt")
    if not os.path.exists(path):
        import random
        rng = random.Random(7)
        with open(path, "w") as f:
            for _ in range(30000):
                f.write(" ".join(f"w{rng.randrange(150000)}" for _ in range(10)) + "\n")
    return path


def read_all(fd, timeout):
    """Everything readable from `fd` until every writer closed it (or the timeout), as bytes."""
    chunks = []
    deadline = time.monotonic() + timeout
    os.set_blocking(fd, False)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not data:
            return b"".join(chunks)
        chunks.append(data)
    raise Failed(f"the pipe was still open after {timeout} s")


def check_pipe_lines(label, text, expected):
    """Every line of `text` is a whole "WORD COUNT" line, and they are one process's lines."""
    check(text.endswith("\n"), f"{label}: the output does not end with a newline: {text[-80:]!r}")
    lines = text[:-1].split("\n")
    broken = [line for line in lines if not WORD_LINE.fullmatch(line)]
    check(not broken, f"{label}: {len(broken)} of {len(lines)} lines are not whole 'WORD COUNT' lines, "
          f"such as {broken[:3]!r}")
    check(sorted(lines) == expected, f"{label}: the lines differ from one process's "
          f"({len(lines)} lines, expected {len(expected)})")
    print(f"ok   {label}: {len(lines)} whole lines, equal to one process's")


def case_pipe():
    exe = net_tests.program("wordcount")
    text = many_words_file()
    ref = cluster.run_single(exe, [text, "--quiet"], 2, timeout=60)
    check(ref.returncode == 0, "wordcount with -w 2 failed", [ref])
    expected = sorted(ref.stdout.splitlines())
    check(len(expected) > 50000, f"the text gave only {len(expected)} distinct words")

    # Directly: both processes write to the write end of one pipe, which the test reads.
    for attempt in range(3):
        read_end, write_end = os.pipe()
        rendezvous = f"127.0.0.1:{free_port()}"
        procs = []
        for i in range(2):
            err = open(os.path.join(OPTS.work, f"pipe-{i}.err"), "wb")
            proc = subprocess.Popen([exe, text, "--quiet", "-n", "2", "-p", str(i), "--rendezvous", rendezvous],
                                    stdout=write_end, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True)
            err.close()
            cluster._live.add(proc)
            procs.append(proc)
        os.close(write_end)
        try:
            out = read_all(read_end, 90)
        finally:
            os.close(read_end)
            for proc in procs:
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    cluster._kill_group(proc, signal.SIGKILL)
                    proc.wait()
        errors = task_errors(OPTS.work, "pipe-{i}.err", 2)
        check(all(p.returncode == 0 for p in procs),
              f"wordcount -n 2 into one pipe exited {[p.returncode for p in procs]}:\n{errors}")
        check_pipe_lines(f"wordcount -n 2 into one pipe (run {attempt + 1})",
                         out.decode("utf-8", "replace"), expected)

    # timely-run: its output is one pipe too; it prefixes each process's lines with [i].
    check(OPTS.timely_run and os.path.exists(OPTS.timely_run), f"timely-run is not built ({OPTS.timely_run})")
    status, out, err = run([OPTS.timely_run, "-n", "2", "--", exe, text, "--quiet"], timeout=90)
    check(status == 0, f"timely-run -n 2 wordcount exited {status}:\n{err[-3000:]}")
    prefixed = re.compile(r"\[[01]\] ")
    stripped = "".join(line[4:] if prefixed.match(line) else "(no [i] prefix) " + line
                       for line in out.splitlines(keepends=True))
    check_pipe_lines("timely-run -n 2 wordcount into one pipe", stripped, expected)


# ---------------------------------------------------------------------------------------------
# Kubernetes, its pods played by local processes

def manifest_value(text, pattern, what):
    m = re.search(pattern, text, re.M)
    check(m, f"deploy/k8s/wordcount.yaml has no {what} (pattern {pattern!r})")
    return m.group(1)


def case_k8s():
    path = os.path.join(OPTS.source, "deploy", "k8s", "wordcount.yaml")
    with open(path) as f:
        text = f.read()
    # What the pods get from the manifest; the Service and StatefulSet must agree with each other.
    service = manifest_value(text, r"^kind: Service\nmetadata:\n  name: (\S+)", "Service name")
    check(re.search(r"^  clusterIP: None\b", text, re.M), "the Service is not headless (clusterIP: None)")
    name = manifest_value(text, r"^kind: StatefulSet\nmetadata:\n  name: (\S+)", "StatefulSet name")
    check(manifest_value(text, r"^  serviceName: (\S+)", "serviceName") == service,
          "the StatefulSet's serviceName is not the headless Service")
    replicas = int(manifest_value(text, r"^  replicas: (\d+)", "replicas"))
    processes = manifest_value(text, r"- name: TIMELY_PROCESSES\n\s+value: \"(\d+)\"", "TIMELY_PROCESSES")
    check(int(processes) == replicas, f"TIMELY_PROCESSES={processes} but replicas: {replicas}")
    check(manifest_value(text, r"- name: TIMELY_SERVICE\n\s+value: (\S+)", "TIMELY_SERVICE") == service,
          "TIMELY_SERVICE does not name the Service")
    command = manifest_value(text, r"command: \[([^\]]*)\]", "command")
    argv = [a.strip().strip('"') for a in command.replace("\n", " ").split(",")]
    check(argv[0].endswith("/wordcount"), f"the command is not wordcount: {argv}")
    workers = int(argv[argv.index("-w") + 1])
    port = int(manifest_value(text, r"- name: rendezvous\n\s+containerPort: (\d+)", "rendezvous containerPort"))
    check(port == 2100, f"the rendezvous containerPort is {port}, not the default 2100 the pods use")
    # The pods as local processes: the manifest's arguments but the input and the listening port
    # (pods have an IP each; here they share one).
    exe, args, canon, expected = reference("wordcount", replicas * workers)
    rendezvous = f"127.0.0.1:{free_port()}"
    c = cluster.Cluster(exe, [], replicas, workers, workdir=tempfile.mkdtemp(prefix="k8s-", dir=OPTS.work))
    for i in range(replicas):
        env = dict(os.environ, HOSTNAME=f"{name}-{i}", TIMELY_PROCESSES=processes, TIMELY_SERVICE=service,
                   KUBERNETES_SERVICE_HOST="10.96.0.1", KUBERNETES_SERVICE_PORT="443",
                   TIMELY_RENDEZVOUS=rendezvous)
        for key in [k for k in env if k.startswith(("SLURM_", "OMPI_", "PMI_", "PMIX_"))]:
            del env[key]
        c.env = env
        pod_argv = [exe] + args + ["-w", str(workers), "--connect-timeout", "60", "-r"]
        c.start_process(i, pod_argv)
    try:
        results = c.wait(90)
    finally:
        c.kill_all()
    check(all(r.returncode == 0 for r in results), "a pod failed", results)
    for r in results:
        check(re.search(rf"launcher: Kubernetes StatefulSet, process {r.index} of {replicas} \(the ordinal of "
                        rf"HOSTNAME={name}-{r.index}, TIMELY_PROCESSES={replicas}\), on {name}-{r.index}\.{service}",
                        r.stderr), f"pod {r.index} did not detect its StatefulSet (-r)", results)
    check_same(canon, results, expected, f"the StatefulSet's {replicas} pods", results)
    print(f"ok   {replicas} pods of {path}: equal to -w {replicas * workers}")
    kubectl = shutil.which("kubectl")
    print("note kubectl apply --dry-run=client is not run: it needs an API server for discovery"
          + (f" ({kubectl} is installed, but no cluster is reachable offline)" if kubectl else " (no kubectl)"))


CASES = {"mpi": case_mpi, "slurm": case_slurm, "pipe": case_pipe, "k8s": case_k8s}


def main():
    global OPTS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", help="directory of the built examples")
    parser.add_argument("--source", default=os.path.join(HERE, "..", ".."), help="the source tree (deploy/)")
    parser.add_argument("--work", default=None, help="work directory (default: a fresh temporary one)")
    parser.add_argument("--timely-run", default=None, help="the timely-run binary (for the pipe case)")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("cases", nargs="*")
    OPTS = parser.parse_args()
    if OPTS.list:
        print("\n".join(CASES))
        return 0
    # Absolute: the batch job runs in its own directory.
    OPTS.work = os.path.abspath(OPTS.work or tempfile.mkdtemp(prefix="timely-launchers-"))
    OPTS.examples = os.path.abspath(OPTS.examples or ".")
    OPTS.source = os.path.abspath(OPTS.source)
    os.makedirs(OPTS.work, exist_ok=True)
    net_tests.OPTS = argparse.Namespace(examples=OPTS.examples, work=OPTS.work, timeout=60, net_fail=None,
                                        timely_run=OPTS.timely_run)
    failed = []
    for case in OPTS.cases or list(CASES):
        start = time.monotonic()
        try:
            if case not in CASES:
                raise Failed(f"unknown case {case!r} (see --list)")
            CASES[case]()
            print(f"PASS {case} ({time.monotonic() - start:.1f} s)")
        except Failed as e:
            print(f"FAIL {case} ({time.monotonic() - start:.1f} s)\n{e}")
            failed.append(case)
        except Exception:
            print(f"FAIL {case}: the test raised\n{traceback.format_exc()}")
            failed.append(case)
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
