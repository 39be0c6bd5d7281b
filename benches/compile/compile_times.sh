#!/usr/bin/env bash
# Compile-time benchmark: what a user pays, per translation unit, to build with timely.
#
#   benches/compile/compile_times.sh [RUNS] [--baseline DIR] [--build DIR] [--baseline-build DIR]
#
# Times (median of RUNS compiles, default 3: CPU seconds, user + system, and wall-clock seconds)
# and peak memory (median of the maximum resident set size, MB), all from GNU /usr/bin/time, of:
#   hello -O2        examples/hello.cpp compiled to an object file at -O2
#   hello -O0        the same at -O0
#   timely.hpp       a file holding only `#include <timely/timely.hpp>`, with -fsyntax-only
#   map.hpp          a file holding only `#include <timely/dataflow/operators/map.hpp>`, -fsyntax-only
#
# The compiler and its flags are the project's: the compile command of examples/hello.cpp in a
# configured build directory's compile_commands.json (its -std, -I, -isystem, -D and warning
# flags; optimization, debug-info, dependency and output flags are replaced). --build DIR names
# that directory (configured with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, as the presets do);
# without it the script configures a scratch one (configure only, nothing is built).
#
# --baseline DIR measures another checkout's root too (e.g. /work/baseline) and prints it in a
# column of its own, with the ratio this tree / baseline. --baseline-build DIR is its build dir.
# The tree measured is the checkout that holds this script. Needs python3, cmake, ninja and
# GNU time (scripts/install-deps.sh installs them). The ratio is of CPU seconds, which other
# load on the machine disturbs much less than wall-clock seconds (a compiler is one thread);
# on an idle machine the two agree.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$script_dir/../.." && pwd)"
runs=3
baseline=""
build=""
baseline_build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) baseline="$(cd "${2:?--baseline needs a directory}" && pwd)"; shift 2 ;;
    --build) build="$(cd "${2:?--build needs a directory}" && pwd)"; shift 2 ;;
    --baseline-build) baseline_build="$(cd "${2:?--baseline-build needs a directory}" && pwd)"; shift 2 ;;
    -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [0-9]*) runs="$1"; shift ;;
    *) echo "compile_times.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "compile_times.sh: RUNS must be a positive integer (got '$runs')" >&2; exit 2
fi
if [ ! -x /usr/bin/time ]; then
  echo "compile_times.sh: /usr/bin/time (GNU time) is missing: run scripts/install-deps.sh" >&2; exit 2
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/timely-compile-times.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# flags_of ROOT BUILD OUT: writes the compiler and flags for ROOT's examples/hello.cpp, one
# argument per line, to OUT (configuring a scratch build of ROOT if BUILD is empty).
flags_of() {
  local tree="$1" dir="$2" out="$3"
  if [ -z "$dir" ]; then
    dir="$scratch/build-$(basename "$out")"
    cmake -S "$tree" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
      -DTIMELY_BUILD_TESTS=OFF -DTIMELY_BUILD_BENCHES=OFF -DTIMELY_BUILD_BOOK=OFF >"$scratch/cmake.log" 2>&1 \
      || { cat "$scratch/cmake.log" >&2; echo "compile_times.sh: cannot configure $tree" >&2; exit 1; }
  fi
  python3 - "$dir/compile_commands.json" "$tree/examples/hello.cpp" "$out" <<'EOF'
import json, os, shlex, sys
db, source, out = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3]
try:
    entries = json.load(open(db))
except OSError as e:
    sys.exit(f"compile_times.sh: {e}: configure the build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON")
for e in entries:
    if os.path.realpath(os.path.join(e["directory"], e["file"])) == source:
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        break
else:
    sys.exit(f"compile_times.sh: {db} has no command for {source}")
kept, skip = [args[0]], False
for a in args[1:]:
    if skip:
        skip = False
        continue
    if a in ("-o", "-MF", "-MT", "-MQ"):
        skip = True
        continue
    if a in ("-c", "-MD", "-MMD") or a.startswith(("-O", "-g")) or os.path.realpath(a) == source:
        continue
    kept.append(a)
# Relative include directories are relative to the command's directory.
absolute = []
for a in kept:
    for p in ("-I", "-isystem"):
        if a.startswith(p) and len(a) > len(p) and not os.path.isabs(a[len(p):]):
            a = p + os.path.join(e["directory"], a[len(p):])
    absolute.append(a)
open(out, "w").write("\n".join(absolute) + "\n")
EOF
}

# measure TREE FLAGS_FILE NAME: prints "median_cpu_s median_wall_s median_MB" for NAME.
measure() {
  local tree="$1" flags_file="$2" name="$3"
  local -a cmd
  mapfile -t cmd <"$flags_file"
  local tu
  case "$name" in
    hello-O2) cmd+=(-O2 -c "$tree/examples/hello.cpp" -o "$scratch/hello.o") ;;
    hello-O0) cmd+=(-O0 -c "$tree/examples/hello.cpp" -o "$scratch/hello.o") ;;
    umbrella)
      tu="$scratch/umbrella.cpp"; echo '#include <timely/timely.hpp>' >"$tu"
      cmd+=(-fsyntax-only "$tu") ;;
    map)
      tu="$scratch/map.cpp"; echo '#include <timely/dataflow/operators/map.hpp>' >"$tu"
      cmd+=(-fsyntax-only "$tu") ;;
  esac
  local cpus=() walls=() mems=() i
  for ((i = 0; i < runs; i++)); do
    if ! /usr/bin/time -f '%U %S %e %M' -o "$scratch/time.txt" "${cmd[@]}" >"$scratch/compile.log" 2>&1; then
      cat "$scratch/compile.log" >&2
      echo "compile_times.sh: the $name compile failed in $tree" >&2
      exit 1
    fi
    read -r user sys wall mem <"$scratch/time.txt"
    cpus+=("$(python3 -c 'import sys; print(float(sys.argv[1]) + float(sys.argv[2]))' "$user" "$sys")")
    walls+=("$wall"); mems+=("$mem")
  done
  python3 -c '
import statistics, sys
n = int(sys.argv[1]); v = list(map(float, sys.argv[2:]))
cpu, wall, mem = (statistics.median(v[i * n:(i + 1) * n]) for i in range(3))
print(f"{cpu:.2f} {wall:.2f} {mem / 1024:.0f}")
' "$runs" "${cpus[@]}" "${walls[@]}" "${mems[@]}"
}

names=(hello-O2 hello-O0 umbrella map)
declare -A label=([hello-O2]="hello.cpp -O2" [hello-O0]="hello.cpp -O0"
                  [umbrella]="timely/timely.hpp -fsyntax-only"
                  [map]="dataflow/operators/map.hpp -fsyntax-only")

flags_of "$root" "$build" "$scratch/flags-tree"
declare -A tree_result base_result
if [ -n "$baseline" ]; then
  flags_of "$baseline" "$baseline_build" "$scratch/flags-baseline"
fi
for n in "${names[@]}"; do
  tree_result[$n]="$(measure "$root" "$scratch/flags-tree" "$n")"
  if [ -n "$baseline" ]; then base_result[$n]="$(measure "$baseline" "$scratch/flags-baseline" "$n")"; fi
done

echo "compile times: median of $runs runs; CPU seconds (user + system), wall-clock seconds, peak resident MB"
echo "tree:     $root"
echo "command:  $(tr '\n' ' ' <"$scratch/flags-tree")+ -O2|-O0 -c hello.cpp, or -fsyntax-only TU"
if [ -n "$baseline" ]; then
  echo "baseline: $baseline"
  printf '%-42s %8s %9s %7s %8s %9s %7s %9s\n' "measurement" "base cpu" "base wall" "base MB" \
    "tree cpu" "tree wall" "tree MB" "cpu ratio"
else
  printf '%-42s %8s %8s %7s\n' "measurement" "cpu s" "wall s" "MB"
fi
for n in "${names[@]}"; do
  read -r tc tw tm <<<"${tree_result[$n]}"
  if [ -n "$baseline" ]; then
    read -r bc bw bm <<<"${base_result[$n]}"
    ratio="$(python3 -c 'import sys; b, t = map(float, sys.argv[1:]); print(f"{t / b:.2f}" if b > 0 else "-")' "$bc" "$tc")"
    printf '%-42s %8s %9s %7s %8s %9s %7s %9s\n' "${label[$n]}" "$bc" "$bw" "$bm" "$tc" "$tw" "$tm" "$ratio"
  else
    printf '%-42s %8s %8s %7s\n' "${label[$n]}" "$tc" "$tw" "$tm"
  fi
done
