#!/usr/bin/env bash
# Sets everything up and passes the tests: installs dependencies, fetches the data, builds and
# runs the whole suite with the `dev` preset (-Wall -Wextra -Werror; it includes the `net`
# tests, which run examples as several processes over loopback TCP), then again under
# ASan+UBSan (`asan` preset), then the allocator, dataflow and cluster tests under TSan (`tsan`
# preset), then the wire-format and columnar fuzz targets for 30 seconds in all (libFuzzer,
# clang), and checks that GCIDE word counts equal the sequential count on 1, 2 and 4 workers.
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

echo "== dev =="
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$jobs"
ctest --preset dev -j "$jobs"
bash scripts/check-gcide.sh build/dev/examples/wordcount
if [ "$quick" -eq 0 ]; then
  # Under the sanitizers, run everything that executes our code; the packaging and header
  # checks exercise the build system, which the dev pass already covered.
  echo "== asan =="
  # The book's listings are built and run in the dev pass; leaving them out here keeps the
  # whole run inside CI's hour on two cores (they are 15 more sanitized programs to compile).
  cmake --preset asan -DTIMELY_BUILD_BOOK=OFF >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|net'
  # Of the cluster tests, the failure cases and the core examples (the other examples' cluster
  # runs are covered by the dev pass; under ASan they would double the time of this pass).
  ctest --preset asan -j "$jobs" -L net -R '^net:(fail:.*|equiv:(hello|exchange|wordcount|pagerank).*)$'

  echo "== tsan (allocators, multi-worker dataflows, cluster) =="
  cmake --preset tsan -DTIMELY_BUILD_BOOK=OFF >/dev/null
  cmake --build --preset tsan -j "$jobs" --target communication_tests conformance_tests net_fail hello exchange wordcount
  ctest --preset tsan -j "$jobs" -L 'communication|conformance'
  ctest --preset tsan -L net \
    -R '^net:(equiv:(hello|exchange|wordcount)|fail:(kill9|kill9-process0|sigstop|exception.*|shape-type|workers-mismatch|peer-frames-.*))$'

  echo "== fuzz (wire format, codecs and columnar batches, 30 s) =="
  bash scripts/fuzz.sh 30
fi
echo "test.sh: all tests passed"
