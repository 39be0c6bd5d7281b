#!/usr/bin/env bash
# Sets everything up and passes the tests (the README's second command; CI's .ci/run).
#
#   scripts/test.sh                 the whole suite: setup, dev, asan, tsan, fuzz (below)
#   scripts/test.sh --quick         setup and the dev stage only
#   scripts/test.sh --full          also every example, listing and cluster test under ASan, the
#                                   streaming tests under TSan and the tests labelled `slow`
#   scripts/test.sh unit [LABEL...] no package installation, no data: builds (dev preset) only what
#                                   the tests of each LABEL need and runs them; no LABEL: every
#                                   test but the slow ones. Labels: `ctest --print-labels` in
#                                   build/dev, or the tests-LABEL targets (`ninja -C build/dev -t
#                                   targets | grep '^tests-'`).
#
# Stages, each timed:
#   setup  Debian packages (scripts/install-deps.sh), GCIDE and the flights (fetch-data.sh), two
#          graphs (fetch-graphs.sh).
#   dev    GCC, -Wall -Wextra -Werror, debug with the progress validator: everything is built and
#          every test runs but those labelled `slow` (the `add_subdirectory` packaging test's
#          second build of the library), the `net` tests (examples as 2 and 3 processes over
#          loopback, and every failure a cluster must survive) and the `launchers` tests
#          (mpirun, a one-node Slurm, a StatefulSet's pods) among them; then GCIDE word counts
#          against `sort | uniq -c` on 1, 2 and 4 workers.
#   asan   clang, AddressSanitizer + UndefinedBehaviorSanitizer at -O0: what runs our code with
#          memory and undefined behaviour to catch (the library's tests, four examples with their
#          cluster runs and the failure cases); not the build-system checks (packaging, headers,
#          compile_fail), the benchmarks, the launchers nor the other examples, which the dev
#          stage ran.
#   tsan   clang, ThreadSanitizer at -O1: what starts threads (allocators, multi-worker dataflows,
#          the durable log's threads, the cluster's network threads); not the streaming library,
#          which starts none (--full adds it).
#   fuzz   the wire-format, codec, columnar and durable-log fuzz targets for 30 s in all
#          (scripts/fuzz.sh, libFuzzer, in the asan build).
# The durable log's crash loop (ctest -R 'crash loop') kills a writer 200 times under every_batch
# and 50 times under periodic in each pass; TIMELY_CRASH_KILLS=2000 runs it longer by hand.
#
# Compiles go through ccache when it is installed (install-deps installs it; CMakeLists.txt sets
# it up), with its cache outside the tree, so a second run, or one after a developer's own
# builds, recompiles only what changed. The last line is `N passed, M failed`: every CTest test,
# plus the GCIDE check and the fuzz run, each counted once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
mode=all
labels=()
case "${1:-}" in
  --quick) mode=quick ;;
  --full) mode=full ;;
  unit) mode=unit; shift; labels=("$@") ;;
  "") ;;
  *) echo "test.sh: unknown argument '$1' (expected --quick, --full or unit [LABEL...])" >&2; exit 2 ;;
esac
jobs=$(nproc)

passed=0
failed=0
stage_times=()
stage_name=""
stage_start=0

stage() {  # stage NAME: ends the stage before (recording its time) and starts NAME
  local now=$SECONDS
  if [ -n "$stage_name" ]; then stage_times+=("$(printf '%-6s %5d s' "$stage_name" $((now - stage_start)))"); fi
  stage_name=$1
  stage_start=$now
  [ -n "$stage_name" ] && echo "== $stage_name (${now} s since the start) =="
  return 0
}

summary() {  # prints each stage's time, ccache's hits and the closing count line
  stage ""
  echo "== stage times =="
  printf '%s\n' "${stage_times[@]}"
  if command -v ccache >/dev/null; then
    ccache --show-stats 2>/dev/null | grep -E '^(Cacheable calls|  Hits|  Misses)' || true
  fi
  echo "test.sh: ${SECONDS} s in all"
  echo "${passed} passed, ${failed} failed"
}

finish_if_failed() {  # ends the run after a stage in which something failed
  if [ "$failed" -gt 0 ]; then
    echo "test.sh: failures in the $stage_name stage (above)" >&2
    summary
    exit 1
  fi
}

# run_ctest ARGS...: runs ctest with ARGS, adding its counts to the totals.
run_ctest() {
  local log status=0
  log=$(mktemp)
  ctest --no-tests=error "$@" 2>&1 | tee "$log" || status=$?
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1 || true)
  if [ -n "$line" ]; then
    local total bad
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    bad=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<<"$line")
    passed=$((passed + total - bad))
    failed=$((failed + bad))
  elif [ "$status" -ne 0 ]; then
    failed=$((failed + 1))  # ctest itself failed (no tests matched, a bad argument)
  fi
  rm -f "$log"
  return 0
}

# run_check NAME COMMAND...: a check that is not a CTest test, counted once.
run_check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "test.sh: $name failed" >&2
    failed=$((failed + 1))
  fi
}

# build PRESET ARGS...: builds, counting a failed build as a failure and ending the run.
build() {
  if ! cmake --build --preset "$@" -j "$jobs"; then
    echo "test.sh: the $1 build failed" >&2
    failed=$((failed + 1))
    finish_if_failed
  fi
}

configure_dev() {
  # Line tables only (-g1) instead of full debug information: a fifth less compile time for the
  # same warnings and the same tests, and backtraces still name files and lines.
  cmake --preset dev -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DTIMELY_UNITY_TESTS=ON >/dev/null
}

if [ "$mode" = unit ]; then
  stage dev
  if [ ! -f build/dev/build.ninja ]; then configure_dev; fi
  if [ "${#labels[@]}" -eq 0 ]; then
    build dev
    run_ctest --preset dev -j "$jobs" -LE slow
  else
    for label in "${labels[@]}"; do
      if ! ninja -C build/dev -t targets 2>/dev/null | grep -q "^tests-$label:"; then
        echo "test.sh: no label '$label' (known: $(ninja -C build/dev -t targets | sed -n 's/^tests-\([^:]*\):.*/\1/p' | tr '\n' ' '))" >&2
        exit 2
      fi
      build dev --target "tests-$label"
      run_ctest --preset dev -j "$jobs" -L "^${label}\$" -LE slow
    done
  fi
  finish_if_failed
  summary
  exit 0
fi

stage setup
bash scripts/install-deps.sh
bash scripts/fetch-data.sh
bash scripts/fetch-graphs.sh

stage dev
configure_dev
build dev
if [ "$mode" = full ]; then
  run_ctest --preset dev -j "$jobs"
else
  run_ctest --preset dev -j "$jobs" -LE slow
fi
run_check "the GCIDE check" bash scripts/check-gcide.sh build/dev/examples/wordcount
finish_if_failed

if [ "$mode" != quick ]; then
  stage asan
  # The asan preset is clang, so the same build holds the libFuzzer targets that the fuzz stage
  # runs. It compiles at -O0: sanitized -O1 code took clang 2.5 to 3 times as long to build (about
  # 20 minutes more on two cores) for tests that then ran about two minutes faster.
  if [ "$mode" = full ]; then
    cmake --preset asan -DTIMELY_CHECK_HEADERS=OFF -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=ON -DTIMELY_BUILD_FUZZ=ON -DTIMELY_EXAMPLES_IN_ALL=ON >/dev/null
    build asan
    run_ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|launchers'
  else
    cmake --preset asan -DTIMELY_CHECK_HEADERS=OFF -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=OFF -DTIMELY_BUILD_FUZZ=ON -DTIMELY_EXAMPLES_IN_ALL=OFF >/dev/null
    build asan --target all hello exchange wordcount pagerank
    run_ctest --preset asan -j "$jobs" -LE 'packaging|headers|compile_fail|bench|net|launchers|example'
    run_ctest --preset asan -j "$jobs" -L example -R '^example:(hello|exchange|exchange-columnar|exchange-batches|wordcount|pagerank):'
    # Of the cluster tests, the failure cases and the four examples.
    run_ctest --preset asan -j "$jobs" -L net -R '^net:(fail:.*|equiv:(hello|exchange|wordcount|pagerank).*)$'
  fi
  finish_if_failed

  stage tsan
  cmake --preset tsan -DTIMELY_CHECK_HEADERS=OFF -DTIMELY_UNITY_TESTS=ON -DTIMELY_BUILD_BOOK=OFF >/dev/null
  tsan_targets=(communication_tests conformance_tests conformance_launch_tests durable_tests
    durable_process_tests durable_operator_tests timely-log net_fail hello exchange wordcount)
  tsan_labels='communication|conformance|durable'
  if [ "$mode" = full ]; then
    tsan_targets+=(nexmark_tests streaming_window_tests)
    tsan_labels+='|streaming'
  fi
  build tsan --target "${tsan_targets[@]}"
  # timely-log's tests (label durable) run the durable library's threads (its tail waits, the
  # periodic policy's sync thread) inside a tool that other processes write beside.
  run_ctest --preset tsan -j "$jobs" -L "$tsan_labels" -LE 'example|bench'
  run_ctest --preset tsan -L net \
    -R '^net:(equiv:(hello|exchange|wordcount)|fail:(kill9|kill9-process0|sigstop|exception.*|shape-type|workers-mismatch|peer-frames-.*))$'
  finish_if_failed

  stage fuzz
  run_check "the fuzz run" env TIMELY_FUZZ_BUILD="$root/build/asan" bash scripts/fuzz.sh 30
  finish_if_failed
fi
summary
