#!/usr/bin/env bash
# logging_send -> logging_recv over TCP: starts logging_recv in the background on a free port,
# runs logging_send against it (first with HOST:PORT as its argument, then through
# TIMELY_WORKER_LOG_ADDR), and requires logging_recv to print per-operator totals for every
# operator of logging_send's dataflow, each scheduled at least once. Every process runs under
# `timeout`, so the test can never hang.
#   check_logging.sh LOGGING_SEND LOGGING_RECV SEND_WORKERS RECV_WORKERS WORKDIR
set -u
if [ $# -ne 5 ]; then
  echo "usage: $0 LOGGING_SEND LOGGING_RECV SEND_WORKERS RECV_WORKERS WORKDIR" >&2
  exit 2
fi
send=$1 recv=$2 send_workers=$3 recv_workers=$4 workdir=$5
mkdir -p "$workdir" && cd "$workdir" || exit 1

pid=
other=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; fi
  if [ -n "$other" ]; then kill "$other" 2>/dev/null; fi
}
trap cleanup EXIT
fail() {
  echo "check_logging: $*" >&2
  for f in recv.out recv.err send.out send.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done >&2
  exit 1
}

# start_recv STREAMS: starts logging_recv for STREAMS log streams on a random port (retrying if
# the port is taken) and waits until it listens; sets `port` and `pid`.
start_recv() {
  local streams=$1 attempt i
  for attempt in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    rm -f recv.out recv.err
    timeout 60 "$recv" "$streams" "127.0.0.1:$port" -w "$recv_workers" >recv.out 2>recv.err &
    pid=$!
    for i in $(seq 1 400); do
      grep -q "listening on" recv.out 2>/dev/null && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    grep -q "listening on" recv.out 2>/dev/null && return 0
    wait "$pid"
    pid=
    grep -q "cannot listen" recv.err || fail "logging_recv did not start listening"
  done
  fail "no free port found in 8 attempts"
}

# check_run HOW STREAMS: waits for logging_recv and checks its totals.
check_run() {
  local how=$1 streams=$2 status op
  wait "$pid"
  status=$?
  pid=
  [ $status -eq 0 ] || fail "logging_recv exited with status $status ($how)"
  grep -q "logging_recv: replayed $streams log streams" recv.out || fail "logging_recv's summary is missing ($how)"
  for op in Dataflow Input Map Exchange Probe; do
    grep -Eq "^operator $op: [1-9][0-9]* schedulings, [0-9]+\.[0-9] us scheduled$" recv.out ||
      fail "no totals for operator $op ($how)"
  done
  mv recv.out "$how-recv.out"
  mv send.out "$how-send.out"
}

# 0. Bad arguments: a clear message and a non-zero exit, before any work starts.
# expect STATUS TEXT COMMAND...: runs COMMAND, requires exit STATUS and TEXT on its stderr.
expect() {
  local want=$1 text=$2 status
  shift 2
  timeout 30 "$@" >bad.out 2>bad.err
  status=$?
  [ $status -eq "$want" ] || fail "'$*' exited with status $status, not $want"
  grep -q -- "$text" bad.err || fail "'$*' did not say '$text': $(cat bad.err)"
}
expect 2 "TIMELY_WORKER_LOG_ADDR=HOST:PORT" env -u TIMELY_WORKER_LOG_ADDR "$send"
expect 2 "is not host:port" "$send" 127.0.0.1:port
expect 2 "the environment variable TIMELY_WORKER_LOG_ADDR" env TIMELY_WORKER_LOG_ADDR=nowhere "$send"
expect 1 "cannot connect to 127.0.0.1:9 within 200 ms" "$send" 127.0.0.1:9 --connect-timeout 0.2
expect 1 "TIMELY_WORKER_LOG_ADDR: cannot connect to 127.0.0.1:9" \
  env TIMELY_WORKER_LOG_ADDR=127.0.0.1:9 "$send" --connect-timeout 0.2
expect 2 "SOURCE_WORKERS" "$recv"
expect 2 "SOURCE_WORKERS must be between" "$recv" 0

# 1. The collector's address as logging_send's argument.
start_recv "$send_workers"
timeout 60 "$send" "127.0.0.1:$port" 5 -w "$send_workers" >send.out 2>send.err ||
  fail "logging_send exited with status $? (argument)"
check_run argument "$send_workers"

# 2. The same through the runtime's TIMELY_WORKER_LOG_ADDR.
start_recv "$send_workers"
TIMELY_WORKER_LOG_ADDR="127.0.0.1:$port" timeout 60 "$send" 5 -w "$send_workers" >send.out 2>send.err ||
  fail "logging_send exited with status $? (TIMELY_WORKER_LOG_ADDR)"
check_run environment "$send_workers"

# 3. Two processes of SEND_WORKERS workers each: 2 x SEND_WORKERS log streams, one collector. The
# processes' own ports are random too: a run that finds one taken (before any worker connects to
# the collector) is retried on others.
start_recv $((2 * send_workers))
for attempt in 1 2 3 4 5; do
  cluster=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  printf '127.0.0.1:%d\n127.0.0.1:%d\n' "$cluster" $((cluster + 1)) >hosts.txt
  run_process() {
    TIMELY_WORKER_LOG_ADDR="127.0.0.1:$port" timeout 60 "$send" 5 -w "$send_workers" -n 2 -p "$1" -h hosts.txt \
      --connect-timeout 10 >"send$1.out" 2>"send$1.err"
  }
  run_process 1 &
  other=$!
  run_process 0
  status0=$?
  wait "$other"
  status1=$?
  other=
  [ $status0 -eq 0 ] && [ $status1 -eq 0 ] && break
  grep -q "cannot listen" send0.err send1.err ||
    fail "logging_send exited with status $status0 and $status1 (two processes): $(cat send0.err send1.err)"
  [ "$attempt" -eq 5 ] && fail "no free pair of ports for two processes in 5 attempts"
done
mv send0.out send.out
check_run processes $((2 * send_workers))

echo "check_logging: the logs of $send_workers workers replayed on $recv_workers workers, by argument and by" \
  "environment, and of 2 x $send_workers workers in two processes"
