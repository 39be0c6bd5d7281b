#!/usr/bin/env bash
# Sets everything up and passes the tests: installs dependencies, fetches the data, builds and
# runs the whole suite with the `dev` preset (-Wall -Wextra -Werror), then again under
# ASan+UBSan (`asan` preset), then the process-allocator tests under TSan (`tsan` preset), and
# checks that GCIDE word counts equal the sequential count on 1, 2 and 4 workers.
#   scripts/test.sh [--quick]   (--quick: dev preset only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc)

bash scripts/install-deps.sh
bash scripts/fetch-data.sh

run_preset() {
  local preset=$1; shift
  echo "== $preset =="
  cmake --preset "$preset" "$@" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
}

run_preset dev
bash scripts/check-gcide.sh build/dev/examples/wordcount
if [ "$quick" -eq 0 ]; then
  run_preset asan
  echo "== tsan (allocators and multi-worker dataflows) =="
  cmake --preset tsan -DTIMELY_BUILD_EXAMPLES=OFF -DTIMELY_BUILD_BOOK=OFF >/dev/null
  cmake --build --preset tsan -j "$jobs" --target communication_tests conformance_tests
  ctest --preset tsan -j "$jobs" -L 'communication|conformance'
fi
echo "test.sh: all tests passed"
