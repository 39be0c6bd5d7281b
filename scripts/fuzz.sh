#!/usr/bin/env bash
# Builds and runs the libFuzzer targets (tests/fuzz) for a while.
#
#   bash scripts/fuzz.sh [SECONDS]     default 60 in all; CI runs it for ~30
#
# Installs clang from Debian if it is missing, configures a separate build directory build/fuzz
# (or $TIMELY_FUZZ_BUILD; test.sh passes build/asan) with clang and -DTIMELY_BUILD_FUZZ=ON (all built with
# AddressSanitizer + UndefinedBehaviorSanitizer, the targets also with -fsanitize=fuzzer),
# builds fuzz_wire, fuzz_columnar and fuzz_durable, writes seed corpora (valid hellos, verdicts,
# frame streams and encoded messages to build/fuzz/seeds; valid columnar batches to
# build/fuzz/seeds-columnar; partitions written by the durable log itself, through durable_seeds,
# to build/fuzz/seeds-durable) and runs each target for a third of SECONDS, with the corpora kept
# in build/fuzz/corpus, build/fuzz/corpus-columnar and build/fuzz/corpus-durable (they grow
# across runs). Exit status 0 if nothing was found; otherwise libFuzzer's status, with the
# crashing input saved as build/fuzz/artifacts/crash-* (reproduce with
# `build/fuzz/tests/fuzz/fuzz_wire build/fuzz/artifacts/crash-...`, or the target of its run).
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${TIMELY_FUZZ_BUILD:-$ROOT/build/fuzz}"

# clang and its sanitizer/libFuzzer runtimes (libclang-rt-dev) from Debian.
if ! command -v clang++ >/dev/null 2>&1 ||
   ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "fuzz.sh: installing clang and libclang-rt-dev (Debian)"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-dev
fi

if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    -DTIMELY_BUILD_FUZZ=ON -DTIMELY_BUILD_TESTS=OFF -DTIMELY_BUILD_EXAMPLES=OFF \
    -DTIMELY_BUILD_BENCHES=OFF -DTIMELY_BUILD_BOOK=OFF -DTIMELY_INSTALL=OFF -DTIMELY_WERROR=ON
fi
ninja -C "$BUILD" -j"${JOBS:-2}" fuzz_wire fuzz_columnar fuzz_durable durable_seeds

# The seed corpus: what a peer sends when it works (little-endian, as wire.hpp and codec.hpp say).
SEEDS="$BUILD/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS" "$BUILD/corpus" "$BUILD/artifacts"
python3 - "$SEEDS" <<'PY'
import os, struct, sys
out = sys.argv[1]
n = 0
def seed(data):
    global n
    with open(os.path.join(out, f"seed-{n:03d}"), "wb") as f:
        f.write(data)
    n += 1

def hello(process, processes, workers, version=1, flags=0):
    return b"TIMELYCL" + struct.pack("<6I", version, process, processes, workers, flags, 0)

def verdict(reason=b""):
    return struct.pack("<II", 1 if reason else 0, len(reason)) + reason

def header(kind, source=0, lo=0, hi=0, length=0, channel=0, seq=0):
    return struct.pack("<IB3xIIIIQQ", 0x464C4D54, kind, source, lo, hi, length, channel, seq)

def frame(kind, payload=b"", **kw):
    return header(kind, length=len(payload), **kw) + payload + bytes(-len(payload) % 8)

def string(s):
    return struct.pack("<Q", len(s)) + s

def message(time, records, frm=1, seq=0):
    # Message<u64, pair<string, u64>>: from, seq, time, count, (string, u64)...
    return struct.pack("<QQQQ", frm, seq, time, len(records)) + b"".join(string(w) + struct.pack("<Q", c)
                                                                         for w, c in records)

def message2(outer, inner, records, frm=1, seq=0):
    # Message<Product<u64, u32>, vec<optional<string>>>
    body = b""
    for r in records:
        body += struct.pack("<Q", len(r)) + b"".join(b"\0" if x is None else b"\1" + string(x) for x in r)
    return struct.pack("<QQQI", frm, seq, outer, inner) + struct.pack("<Q", len(records)) + body

def progress(entries, frm=1, seq=0, product=False):
    # ProgressMessage<T>: from, seq, count, (node u64, port u64, is_source u8, time, diff i64)...
    body = b""
    for node, port, src, t, diff in entries:
        tb = struct.pack("<QI", t, 0) if product else struct.pack("<Q", t)
        body += struct.pack("<QQB", node, port, src) + tb + struct.pack("<q", diff)
    return struct.pack("<QQQ", frm, seq, len(entries)) + body

seed(hello(1, 2, 1))
seed(hello(0, 3, 4))
seed(hello(1, 2, 1) + verdict())
seed(verdict(b"process 1 was started with -w 2, process 0 with -w 1"))
m1 = message(3, [(b"timely", 2), (b"dataflow", 1)])
m2 = message(4, [])
p1 = progress([(0, 0, 1, 0, -1), (0, 0, 1, 1, 1), (3, 1, 0, 7, 2)])
seed(m1)
seed(m2)
seed(message2(1, 2, [[b"a", None], [], [None]]))
seed(p1)
seed(progress([(1, 0, 0, 5, 1)], product=True))
seed(frame(1, m1, source=1, lo=0, hi=1, channel=3, seq=0))
seed(frame(1, m1, source=1, lo=0, hi=1, channel=3, seq=0) + frame(2) +
     frame(1, p1, source=1, lo=0, hi=1, channel=1, seq=1) + frame(3))
seed(frame(2) * 3 + frame(4, b"boom from worker 3"))
seed(frame(1, m2, source=3, lo=0, hi=2, channel=7, seq=0) + frame(1, m1, source=2, lo=1, hi=2, channel=7, seq=1))
seed(frame(1, message2(9, 0, [[b"x" * 40]]), source=1, lo=0, hi=1, channel=2))
print(f"fuzz.sh: {n} seeds in {out}")
PY

# Valid columnar batches of Batch<tuple<u64, string, optional<vector<u32>>>> (layout.hpp):
# header (magic, count, 6 buffers, their lengths), then the buffers, each zero-padded to 8.
SEEDS_COLUMNAR="$BUILD/seeds-columnar"
rm -rf "$SEEDS_COLUMNAR"
mkdir -p "$SEEDS_COLUMNAR" "$BUILD/corpus-columnar"
python3 - "$SEEDS_COLUMNAR" <<'PY'
import os, struct, sys
out = sys.argv[1]
def pad(b):
    return b + bytes(-len(b) % 8)
def batch(items):
    nums = b"".join(struct.pack("<Q", n) for n, _, _ in items)
    ends, text, at = b"", b"", 0
    for _, s, _ in items:
        text += s
        at += len(s)
        ends += struct.pack("<Q", at)
    tags, vends, vals, vat = b"", b"", b"", 0
    for _, _, v in items:
        tags += b"\1" if v is not None else b"\0"
        for x in v or []:
            vals += struct.pack("<I", x)
        vat += len(v or [])
        vends += struct.pack("<Q", vat)
    bufs = [nums, ends, text, tags, vends, vals]
    head = b"TMLYCOL1" + struct.pack("<QQ", len(items), len(bufs)) + b"".join(struct.pack("<Q", len(b)) for b in bufs)
    return head + b"".join(pad(b) for b in bufs)
seeds = [
    [],
    [(1, b"alpha", [1, 2, 3])],
    [(1, b"", None), (2, b"b", []), (3, b"ccc", [7])],
    [(i, b"x" * (i % 13), None if i % 3 == 0 else list(range(i % 5))) for i in range(40)],
]
for i, items in enumerate(seeds):
    with open(os.path.join(out, f"seed-{i:03d}"), "wb") as f:
        f.write(batch(items))
print(f"fuzz.sh: {len(seeds)} columnar seeds in {out}")
PY

# Partitions of the durable log, written by the library (durable_input.hpp gives the layout).
SEEDS_DURABLE="$BUILD/seeds-durable"
rm -rf "$SEEDS_DURABLE"
mkdir -p "$SEEDS_DURABLE" "$BUILD/corpus-durable"
"$BUILD/tests/fuzz/durable_seeds" "$SEEDS_DURABLE"

# The time budget is shared: a third each (at least 1 s).
SHARE=$(( SECONDS_TO_RUN / 3 > 0 ? SECONDS_TO_RUN / 3 : 1 ))
cd "$BUILD"
run() {  # run TARGET CORPUS SEEDS
  echo "fuzz.sh: running $1 for ${SHARE} s"
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}" \
    "$BUILD/tests/fuzz/$1" -max_total_time="$SHARE" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$BUILD/artifacts/" -print_final_stats=1 "$2" "$3"
}
run fuzz_wire "$BUILD/corpus" "$SEEDS"
run fuzz_columnar "$BUILD/corpus-columnar" "$SEEDS_COLUMNAR"
run fuzz_durable "$BUILD/corpus-durable" "$SEEDS_DURABLE"
echo "fuzz.sh: no findings in ${SECONDS_TO_RUN} s"
