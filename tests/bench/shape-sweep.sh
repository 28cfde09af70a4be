#!/bin/bash
# The fused kernel's shapes side by side: bench-kernel run once per size and
# shape (GPUFFT_FFT_TUNE, gpufft-plan.c), interleaved (round by round, size
# by size, shape by shape, a fresh process each), with the driver's
# statistics of each kernel (GPUFFT_PIPELINE_STATS: registers, spills).
#
#   bash tests/bench/shape-sweep.sh [--build DIR] [--sizes "N ..."]
#       [--rounds R] [--repeats K] [--budget S] [--small] SHAPE ...
#
# SHAPE: a GPUFFT_FFT_TUNE value (e.g. "e=8,direct=1"), or "-" for the
# default shape. --sizes: default "1024 4096 8192 16384 32768 65536 960";
# --rounds: default 3; --repeats: bench-kernel's (default 30); --budget:
# no run starts after S seconds (default 400; the table has what ran); --small:
# bench-kernel's small mode (lavapipe). Output: per size and shape the
# median over the rounds of the whole analysis (FFT and reduce kernels,
# G samples/s), of the FFT kernel alone, the spread of the rounds, the
# shape's ratio to the first SHAPE that ran, and the FFT kernel's registers and
# spills where the driver reports them; $OUT/shapes.txt (the table),
# $OUT/shapes.log (every run). OUT defaults to /tmp/gpufft-shapes.
set -u -o pipefail

build=""
sizes="1024 4096 8192 16384 32768 65536 960"
rounds=3
repeats=30
small=""
budget=400
shapes=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift ;;
    --sizes) sizes=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --repeats) repeats=$2; shift ;;
    --budget) budget=$2; shift ;;
    --small) small=--small ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) shapes+=("$1") ;;
  esac
  shift
done
[ ${#shapes[@]} -gt 0 ] || shapes=("-")

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$top" || exit 2
if [ -z "$build" ]; then
  for d in .bench-build build-bench build; do
    [ -x "$d/tests/bench/bench-kernel" ] && { build=$d; break; }
  done
fi
[ -n "$build" ] && [ -x "$build/tests/bench/bench-kernel" ] || {
  echo "no build with benchmarks (meson setup B -Dbenchmarks=enabled)" >&2
  exit 2
}
out=${OUT:-/tmp/gpufft-shapes}
mkdir -p "$out"
log=$out/shapes.log
: > "$log"
start=$(date +%s)

for r in $(seq 1 "$rounds"); do
  for n in $sizes; do
    for s in "${shapes[@]}"; do
      tune=$s
      [ "$s" = "-" ] && tune=""
      [ $(( $(date +%s) - start )) -lt "$budget" ] || continue
      echo "@run round=$r n=$n shape=$s" >> "$log"
      GPUFFT_FFT_TUNE=$tune GPUFFT_PIPELINE_STATS=1 GPUFFT_KERNEL_PATH=gpu \
        timeout -k 5 120 "$build/tests/bench/bench-kernel" $small --no-copy \
        --sizes "$n" --repeats "$repeats" >> "$log" 2>&1 \
        || echo "@failed round=$r n=$n shape=$s" >> "$log"
    done
  done
done

python3 - "$log" "${shapes[@]}" > "$out/shapes.txt" <<'EOF'
import re, statistics, sys

log, shapes = sys.argv[1], sys.argv[2:]
runs = {}           # (n, shape) -> [(total Gs/s, fft Gs/s)]
regs = {}           # (n, shape) -> "registers/spills"
cur = None
for line in open(log, errors="replace"):
    m = re.match(r"@run round=\d+ n=(\d+) shape=(.*)$", line)
    if m:
        cur = (int(m.group(1)), m.group(2))
        continue
    if cur is None:
        continue
    if line.startswith("@kernel "):
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if kv.get("ok") != "1":
            continue
        samples = float(kv["frames"]) * float(kv["n"])
        runs.setdefault(cur, []).append(
            (samples / float(kv["gpu_ns"]), samples / float(kv["fft_ns"])))
    elif line.startswith("gpufft-pipeline-stats:") and ",9=" in line:
        # the FFT kernel: the modules with ten constants or more (fft.comp's, or
        # fft_any.comp's at a size that is not a power of two)
        r = re.search(r"\b(Register_Count|Registers?)=(\d+)", line)
        sp = re.search(r"\b(\w*[Ss]pill\w*)=(\d+)", line)
        if r:
            regs[cur] = r.group(2) + ("/" + sp.group(2) if sp else "")

print("G samples/s of GPU time (FFT + reduce kernels; FFT alone), median of "
      "the rounds; ratio to the first shape; the FFT kernel's registers/spills")
print("%6s  %-28s %9s %9s %7s %6s  %s" % ("N", "shape", "total", "fft",
                                         "spread", "ratio", "regs"))
sizes = sorted({n for n, _ in runs}, key=lambda n: (n & (n - 1) != 0, n))
for n in sizes:
    base = None
    best = max((statistics.median(t for t, _ in runs[(n, s)]), s)
               for s in shapes if (n, s) in runs)[1]
    for s in shapes:
        v = runs.get((n, s))
        if not v:
            print("%6d  %-28s %9s" % (n, s, "failed"))
            continue
        tot = statistics.median(t for t, _ in v)
        fft = statistics.median(f for _, f in v)
        spread = (max(t for t, _ in v) - min(t for t, _ in v)) / tot
        base = base or tot
        print("%6d  %-28s %9.4g %9.4g %6.1f%% %6.3f  %s%s" % (
            n, s, tot, fft, 100 * spread, tot / base, regs.get((n, s), "-"),
            "  <- best" if s == best else ""))
EOF
cat "$out/shapes.txt"
