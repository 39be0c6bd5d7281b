#!/usr/bin/env bash
# Sets everything up and passes the tests: installs dependencies, fetches the data, builds and
# runs the whole suite with the `dev` preset (-Wall -Wextra -Werror; it includes the `net`
# tests, which run examples as several processes over loopback TCP, and the `launchers` tests,
# which run them under mpirun, a one-node Slurm started for the test, and as a StatefulSet's
# pods, about 20 s; the dev pass only), then again under
# ASan+UBSan (`asan` preset), then the allocator, dataflow, worker-argument (--pin's pinned
# threads among them), durable-log and cluster tests under TSan (`tsan` preset), then the
# wire-format, columnar and durable-log fuzz targets for 30 seconds in all (libFuzzer, built in
# the asan build), and checks that GCIDE word counts equal the sequential count on 1, 2 and 4
# workers. The dev preset builds with GCC, both sanitizer presets with clang. The durable log's
# crash loop (ctest -R 'crash loop') kills a writer 200 times under every_batch and 50 times
# under periodic in each pass; TIMELY_CRASH_KILLS=2000 runs it longer by hand.
# To fit CI's hour on two cores, the ASan pass builds and runs four examples (hello, exchange,
# wordcount, pagerank: their own tests and their cluster runs) of the thirty; the dev pass runs
# them all. --full runs every example, book listing and cluster test under ASan as well, the
# streaming tests under TSan, and the tests labelled `slow` (about 35 minutes more).
#   scripts/test.sh [--quick | --full]   (--quick: dev preset only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0
full=0
case "${1:-}" in
  --quick) quick=1 ;;
  --full) full=1 ;;
  "") ;;
  *) echo "test.sh: unknown argument '$1' (expected --quick or --full)" >&2; exit 2 ;;
esac
jobs=$(nproc)

bash scripts/install-deps.sh
bash scripts/fetch-data.sh
bash scripts/fetch-graphs.sh

echo "== dev (${SECONDS} s since the start) =="
# Line tables only (-g1) instead of full debug information: a fifth less compile time for the
# same warnings and the same tests, and backtraces still name files and lines.
cmake --preset dev -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DTIMELY_UNITY_TESTS=ON >/dev/null
cmake --build --preset dev -j "$jobs"
if [ "$full" -eq 1 ]; then
  ctest --preset dev -j "$jobs"
else
  # Label `slow`: packaging:add_subdirectory's second build of the library (its configure
  # checks run).
  ctest --preset dev -j "$jobs" -LE slow
fi
bash scripts/check-gcide.sh build/dev/examples/wordcount
if [ "$quick" -eq 0 ]; then
  echo "== asan (${SECONDS} s) =="
  # The asan preset is clang, so the same build holds the libFuzzer targets that the fuzz step
  # runs. It compiles at -O0: sanitized -O1 code took clang 2.5 to 3 times as long to build (about
  # 20 minutes more on two cores) for tests that then ran about two minutes faster.
  if [ "$full" -eq 1 ]; then
    cmake --preset asan -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=ON -DTIMELY_BUILD_FUZZ=ON -DTIMELY_EXAMPLES_IN_ALL=ON >/dev/null
    cmake --build --preset asan -j "$jobs"
    ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|launchers'
  else
    # Under the sanitizers, run everything that executes our code but the other examples and the
    # book's listings (about 45 sanitized programs to compile; the dev pass built and ran them).
    # The packaging and header checks exercise the build system, which the dev pass covered.
    cmake --preset asan -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=OFF -DTIMELY_BUILD_FUZZ=ON -DTIMELY_EXAMPLES_IN_ALL=OFF >/dev/null
    cmake --build --preset asan -j "$jobs" --target all hello exchange wordcount pagerank
    ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|net|launchers|example'
    ctest --preset asan -j "$jobs" -L example -R '^example:(hello|exchange|exchange-columnar|exchange-batches|wordcount|pagerank):'
    # Of the cluster tests, the failure cases and the four examples.
    ctest --preset asan -j "$jobs" -L net -R '^net:(fail:.*|equiv:(hello|exchange|wordcount|pagerank).*)$'
  fi

  echo "== tsan: allocators, multi-worker dataflows, durable log, cluster (${SECONDS} s) =="
  cmake --preset tsan -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=OFF >/dev/null
  # The streaming library (windows, joins, Nexmark) starts no threads of its own; its tests run
  # under TSan with --full (about 5 minutes more, their sanitized -O1 compile most of it).
  tsan_targets=(communication_tests conformance_tests conformance_launch_tests durable_tests
    durable_process_tests durable_operator_tests timely-log net_fail hello exchange wordcount)
  tsan_labels='communication|conformance|durable'
  if [ "$full" -eq 1 ]; then
    tsan_targets+=(nexmark_tests streaming_window_tests)
    tsan_labels+='|streaming'
  fi
  cmake --build --preset tsan -j "$jobs" --target "${tsan_targets[@]}"
  # timely-log's tests (label durable) run the durable library's threads (its tail waits, the
  # periodic policy's sync thread) inside a tool that other processes write beside.
  ctest --preset tsan -j "$jobs" -L "$tsan_labels" -LE 'example|bench'
  ctest --preset tsan -L net \
    -R '^net:(equiv:(hello|exchange|wordcount)|fail:(kill9|kill9-process0|sigstop|exception.*|shape-type|workers-mismatch|peer-frames-.*))$'

  echo "== fuzz: wire format, codecs, columnar batches and durable-log segments, 30 s (${SECONDS} s) =="
  TIMELY_FUZZ_BUILD="$root/build/asan" bash scripts/fuzz.sh 30
fi
echo "test.sh: all tests passed in ${SECONDS} s"
