#!/usr/bin/env bash
# Installs every Debian package timely-cpp needs to build, test and run its examples.
# Needs root (or sudo). Safe to run repeatedly.
set -euo pipefail
packages=(
  build-essential cmake ninja-build python3
  clang libclang-rt-dev  # clang 14: the asan and tsan presets and the libFuzzer targets (compiles twice as fast)
  lld  # LLVM's linker for the dev, asan and tsan presets: links a test binary in 1.1 s against GNU ld's 5 to 7
  libboost1.81-dev libcli11-dev catch2 libbenchmark-dev
  ca-certificates
  libxxhash-dev  # xxHash: the checksums of log files (timely_logging) and of the durable log (timely_durable)
  zlib1g-dev     # zlib: the CRC-32 of the capture format (src/capture/format.cpp), a well-kept library's
  libhwloc-dev   # hwloc: the cores and packages of the CPUs that --pin places threads on (src/communication/pinning.cpp)
  pkgconf  # pkg-config: the packaging test of the installed timely.pc
  time     # /usr/bin/time: peak memory in benches/compile/compile_times.sh
  libgraphviz-dev graphviz  # Graphviz: lays out the dataflow graph of timely-report (tools/report)
  prometheus  # promtool: checks the monitor's /metrics text in a test
  chromium fonts-dejavu-core  # headless Chromium: loads the monitor page and the report in tests
  openmpi-bin  # mpirun: the launchers tests start the examples as MPI ranks (tests/launchers)
  slurm-wlm    # slurmctld, slurmd, srun, sbatch: the launchers tests run a one-node Slurm cluster
  ccache       # compiler cache (CMakeLists.txt): CI's next run and a developer's rebuilds reuse objects
)
# Node.js and npm fetch the flights data from the npm registry (scripts/fetch-flights.sh), which
# both README commands run. Debian's packages unless a Node.js with npm is already installed (one
# from elsewhere conflicts with Debian's npm package).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "install-deps: all packages present"
