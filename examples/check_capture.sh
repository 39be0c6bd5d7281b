#!/usr/bin/env bash
# capture_send -> capture_recv over TCP: starts capture_recv in the background on a free port,
# runs capture_send against it, and requires the replayed records (with their times) to equal the
# sent ones. Then feeds capture_recv bytes that are not an event stream and requires a clear
# error. Every process runs under `timeout`, so the test can never hang.
#   check_capture.sh CAPTURE_SEND CAPTURE_RECV SEND_WORKERS RECV_WORKERS WORKDIR
set -u
if [ $# -ne 5 ]; then
  echo "usage: $0 CAPTURE_SEND CAPTURE_RECV SEND_WORKERS RECV_WORKERS WORKDIR" >&2
  exit 2
fi
send=$1 recv=$2 send_workers=$3 recv_workers=$4 workdir=$5
mkdir -p "$workdir" && cd "$workdir" || exit 1

pid=
cleanup() { if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; fi; }
trap cleanup EXIT
fail() {
  echo "check_capture: $*" >&2
  for f in recv.out recv.err send.out send.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done >&2
  exit 1
}

# start_recv SOURCES OUT_PREFIX: starts capture_recv on a random port (retrying if the port is
# taken) and waits until it listens; sets `port` and `pid`.
start_recv() {
  local sources=$1 attempt i
  for attempt in 1 2 3 4 5 6 7 8; do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    rm -f recv.out recv.err
    timeout 60 "$recv" "$sources" "127.0.0.1:$port" -w "$recv_workers" >recv.out 2>recv.err &
    pid=$!
    for i in $(seq 1 400); do
      grep -q "listening on" recv.out 2>/dev/null && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
    grep -q "listening on" recv.out 2>/dev/null && return 0
    wait "$pid"
    pid=
    grep -q "cannot listen" recv.err || fail "capture_recv did not start listening"
  done
  fail "no free port found in 8 attempts"
}

# 1. The round trip.
start_recv "$send_workers"
timeout 60 "$send" "127.0.0.1:$port" -w "$send_workers" >send.out 2>send.err
send_status=$?
[ $send_status -eq 0 ] || fail "capture_send exited with status $send_status"
wait "$pid"
recv_status=$?
pid=
[ $recv_status -eq 0 ] || fail "capture_recv exited with status $recv_status"
sed -n 's/^sent: //p' send.out | sort >sent.txt
sed -n 's/^replayed: //p' recv.out | sort >replayed.txt
expected=$((10 * send_workers))
[ "$(wc -l <sent.txt)" -eq "$expected" ] || fail "capture_send printed $(wc -l <sent.txt) records, not $expected"
cmp -s sent.txt replayed.txt || fail "the replayed records differ from the sent ones: $(diff sent.txt replayed.txt | head -5)"
grep -q "capture_recv: replayed $expected records from $send_workers streams" recv.out ||
  fail "capture_recv's summary is missing or wrong"
mv recv.out roundtrip-recv.out
mv send.out roundtrip-send.out

# 2. Bytes that are not an event stream: a clear error and status 1, no crash, no hang.
start_recv 1
printf 'this is not a timely event stream' | timeout 10 bash -c "cat >/dev/tcp/127.0.0.1/$port" ||
  fail "could not connect to capture_recv"
wait "$pid"
recv_status=$?
pid=
[ $recv_status -eq 1 ] || fail "capture_recv exited with status $recv_status on garbage, expected 1"
grep -q 'not a timely event stream' recv.err || fail "capture_recv did not say what was wrong with its input"

echo "check_capture: $expected records sent by $send_workers workers replayed on $recv_workers workers; garbage rejected"
