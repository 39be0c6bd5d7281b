#!/usr/bin/env bash
# Sets everything up and passes the tests: installs dependencies, fetches the data, builds and
# runs the whole suite with the `dev` preset (-Wall -Wextra -Werror; it includes the `net`
# tests, which run examples as several processes over loopback TCP, and the `launchers` tests,
# which run them under mpirun, a one-node Slurm started for the test, and as a StatefulSet's
# pods, about 20 s; the dev pass only), then again under
# ASan+UBSan (`asan` preset), then the allocator, dataflow, streaming, worker-argument (--pin's
# pinned threads among them), durable-log and cluster tests under TSan (`tsan` preset), then the
# wire-format, columnar and durable-log fuzz targets for 30 seconds in all (libFuzzer, built in
# the asan build), and checks that GCIDE word counts equal the sequential count on 1, 2 and 4
# workers. The dev preset builds with GCC, both sanitizer presets with clang. The durable log's
# crash loop (ctest -R 'crash loop') kills a writer 200 times under every_batch and 50 times
# under periodic in each pass; TIMELY_CRASH_KILLS=2000 runs it longer by hand.
#   scripts/test.sh [--quick]   (--quick: dev preset only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc)

bash scripts/install-deps.sh
bash scripts/fetch-data.sh
bash scripts/fetch-graphs.sh

echo "== dev (${SECONDS} s since the start) =="
# Line tables only (-g1) instead of full debug information: a fifth less compile time for the
# same warnings and the same tests, and backtraces still name files and lines.
cmake --preset dev -DCMAKE_CXX_FLAGS_DEBUG=-g1 >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs"
bash scripts/check-gcide.sh build/dev/examples/wordcount
if [ "$quick" -eq 0 ]; then
  # Under the sanitizers, run everything that executes our code; the packaging and header
  # checks exercise the build system, which the dev pass already covered.
  echo "== asan (${SECONDS} s) =="
  # The book's listings are built and run in the dev pass; leaving them out here keeps the
  # whole run inside CI's hour on two cores (they are 15 more sanitized programs to compile).
  # The asan preset is clang, so the same build holds the libFuzzer targets that the fuzz step runs.
  # It compiles at -O0: sanitized -O1 code took clang 2.5 to 3 times as long to build (about 20
  # minutes more on two cores) for tests that then ran about two minutes faster.
  cmake --preset asan -DTIMELY_BUILD_BOOK=OFF -DTIMELY_BUILD_FUZZ=ON >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|net|launchers'
  # Of the cluster tests, the failure cases and the core examples (the other examples' cluster
  # runs are covered by the dev pass; under ASan they would double the time of this pass).
  ctest --preset asan -j "$jobs" -L net -R '^net:(fail:.*|equiv:(hello|exchange|wordcount|pagerank).*)$'

  echo "== tsan: allocators, multi-worker dataflows, streaming, durable log, cluster (${SECONDS} s) =="
  cmake --preset tsan -DTIMELY_BUILD_BOOK=OFF >/dev/null
  cmake --build --preset tsan -j "$jobs" --target communication_tests conformance_tests \
    conformance_launch_tests nexmark_tests streaming_window_tests durable_tests durable_process_tests \
    durable_operator_tests timely-log net_fail hello exchange wordcount
  # timely-log's tests (label durable) run the durable library's threads (its tail waits, the
  # periodic policy's sync thread) inside a tool that other processes write beside.
  ctest --preset tsan -j "$jobs" -L 'communication|conformance|streaming|durable' -LE 'example|bench'
  ctest --preset tsan -L net \
    -R '^net:(equiv:(hello|exchange|wordcount)|fail:(kill9|kill9-process0|sigstop|exception.*|shape-type|workers-mismatch|peer-frames-.*))$'

  echo "== fuzz: wire format, codecs, columnar batches and durable-log segments, 30 s (${SECONDS} s) =="
  TIMELY_FUZZ_BUILD="$root/build/asan" bash scripts/fuzz.sh 30
fi
echo "test.sh: all tests passed in ${SECONDS} s"
