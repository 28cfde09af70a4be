#!/bin/bash
# Runs every benchmark of tests/bench in one go and writes the tables.
#   bash tests/bench/run-sweep.sh [--small] [--build DIR] [--budget SECONDS]
# --small   small sizes and short runs (lavapipe / no GPU)
# --build   the meson build folder with -Dbenchmarks=enabled (default: the
#           first of .bench-build, build-bench, build that has the benchmarks)
# --budget  wall seconds for the whole sweep (default 450); each program also
#           has its own cap and is skipped once the budget is spent
# --only    a comma-separated subset of: kernel,vkfft,accuracy,cufft,fftw,
#           gst,latency,streams,startup (default all)
# bench-kernel, bench-vkfft and bench-cufft run once per FFT size, each size
# in a fresh process (device memory allocated after freeing earlier big
# allocations can be much slower in a VM), their rows merged into one table
# per program. Extra environment variables reach every program.
# Output: $OUT/tables.txt (the tables), $OUT/results.txt (the machine-readable
# @ lines), $OUT/sweep.log (everything, stderr included); $OUT defaults to
# /tmp/gpufft-bench. The cuFFT peer is compiled here with nvcc when there is
# an NVIDIA GPU.
set -u -o pipefail

small=""
build=""
budget=450
only=""
sizes="1024 4096 8192 16384 32768 65536"
while [ $# -gt 0 ]; do
  case "$1" in
    --small) small=--small ;;
    --build) build=$2; shift ;;
    --build=*) build=${1#*=} ;;
    --budget) budget=$2; shift ;;
    --budget=*) budget=${1#*=} ;;
    --only) only=$2; shift ;;
    --only=*) only=${1#*=} ;;
    *) echo "usage: $0 [--small] [--build DIR] [--budget SECONDS] [--only LIST]" >&2; exit 2 ;;
  esac
  shift
done

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$top" || exit 1
if [ -z "$build" ]; then
  for d in .bench-build build-bench build; do
    if [ -x "$d/tests/bench/bench-kernel" ]; then build=$d; break; fi
  done
fi
if [ -z "$build" ] || [ ! -x "$build/tests/bench/bench-kernel" ]; then
  echo "no build with benchmarks: meson setup B -Dbenchmarks=enabled && ninja -C B" >&2
  exit 1
fi
build=$(cd "$build" && pwd)
bin=$build/tests/bench

out=${OUT:-/tmp/gpufft-bench}
mkdir -p "$out"
tables=$out/tables.txt
results=$out/results.txt
log=$out/sweep.log
: > "$tables"; : > "$results"; : > "$log"
cur=$(mktemp /tmp/gpufft-bench-cur.XXXXXX)
trap 'rm -f "$cur"' EXIT

export GST_PLUGIN_PATH=$build/plugin
export GST_REGISTRY=${GST_REGISTRY:-/tmp/gpufft-bench-registry.bin}
export GST_DEBUG_NO_COLOR=1
start=$(date +%s)

say() { echo "$*" | tee -a "$tables"; }
# want NAME: NAME is in --only (or there is no --only)
want() { [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; }

# run NAME CAP_SECONDS COMMAND...: output to the tables (without @ lines),
# @ lines to results.txt, all of it to the log.
run() {
  local name=$1 cap=$2 left rc t0 t1
  shift 2
  left=$(( budget - ($(date +%s) - start) ))
  if [ "$left" -lt 15 ]; then
    say "== $name: skipped, the sweep's time budget is spent =="
    say ""
    return
  fi
  [ "$cap" -gt "$left" ] && cap=$left
  echo "+ $* (cap ${cap}s)" >> "$log"
  t0=$(date +%s.%N)
  timeout -k 5 "$cap" "$@" > "$cur" 2>> "$log"
  rc=$?
  t1=$(date +%s.%N)
  cat "$cur" >> "$log"
  grep -v '^@' "$cur" | tee -a "$tables"
  grep '^@' "$cur" >> "$results"
  [ "$rc" = 124 ] && say "($name: TIMED OUT after ${cap}s)"
  say "($name: exit $rc, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s)"
  say ""
}

# run_sizes NAME CAP_EACH COMMAND...: `COMMAND --sizes N` for each N of
# $sizes, one fresh process per size, merged into one table: the header (up
# to the column line "     N ...") once, then every process's rows.
run_sizes() {
  local name=$1 cap=$2 left c rc t0 t1 n header="" fails=""
  shift 2
  t0=$(date +%s.%N)
  for n in $sizes; do
    left=$(( budget - ($(date +%s) - start) ))
    if [ "$left" -lt 15 ]; then
      say "($name: N=$n and larger skipped, the sweep's time budget is spent)"
      break
    fi
    c=$cap
    [ "$c" -gt "$left" ] && c=$left
    echo "+ $* --sizes $n (cap ${c}s)" >> "$log"
    timeout -k 5 "$c" "$@" --sizes "$n" > "$cur" 2>> "$log"
    rc=$?
    cat "$cur" >> "$log"
    if [ -z "$header" ]; then
      grep -v '^@' "$cur" | tee -a "$tables"
      grep -q '^ *N ' "$cur" && header=1
    else
      # drop this process's header: everything up to its column line
      awk '{ buf[NR] = $0 } /^ *N / && !h { h = NR }
           END { for (i = h + 1; i <= NR; i++) if (buf[i] !~ /^@/) print buf[i] }' \
        "$cur" | tee -a "$tables"
    fi
    grep '^@' "$cur" >> "$results"
    [ "$rc" = 124 ] && say "       (N=$n: TIMED OUT after ${c}s)"
    [ "$rc" != 0 ] && fails="$fails N=$n:$rc"
  done
  t1=$(date +%s.%N)
  say "($name: one process per size, exit ${fails:-0 for all}, $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}') s)"
  say ""
}

say "gst-gpufft benchmark sweep: $(date -u '+%Y-%m-%d %H:%M UTC')"
say "command: bash tests/bench/run-sweep.sh ${small:+$small }--build ${build#$top/}${only:+ --only $only}"
say "host: $(uname -srm), $(nproc) CPUs$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: */, /')"
if command -v nvidia-smi >/dev/null 2>&1; then
  say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
fi
say ""

want kernel && run_sizes kernel 60 "$bin/bench-kernel" $small
if want vkfft; then
  [ -x "$bin/bench-vkfft" ] && run_sizes vkfft 60 "$bin/bench-vkfft" $small \
    || say "== VkFFT: not built (libvkfft-dev + glslang-dev missing at build time) =="
fi
want accuracy && run accuracy 90 "$bin/bench-accuracy" $small --sizes "$(echo $sizes | tr ' ' ,)"

# cuFFT: compiled here, from the tree, when there is an NVIDIA GPU and nvcc;
# nvcc and the program run without the carried Debian libraries (gpu-env.sh
# puts /opt/gst first in LD_LIBRARY_PATH), and find libcufft by rpath.
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if ! want cufft; then
  :
elif [ -x "$nvcc" ] && nvidia-smi -L >/dev/null 2>&1; then
  cufft=/tmp/gpufft-bench-cufft
  cudalib=$(cd "$(dirname "$(readlink -f "$nvcc")")/.." && pwd)/lib64
  ldp=$(printf '%s' "${LD_LIBRARY_PATH:-}" | tr ':' '\n' | grep -v '^/opt/gst' | paste -sd: -)
  nv() { timeout 150 env LD_LIBRARY_PATH="$ldp" "$nvcc" -O3 "$@" -o "$cufft" \
           tests/bench/bench-cufft.cu -lcufft -Xlinker -rpath="$cudalib" >> "$log" 2>&1; }
  echo "+ nvcc bench-cufft.cu" >> "$log"
  if nv -arch=native || nv; then
    run_sizes cufft 45 env LD_LIBRARY_PATH="$ldp" "$cufft" $small
  else
    say "== cuFFT: nvcc failed (see sweep.log) =="
    say ""
  fi
else
  say "== cuFFT: skipped (no NVIDIA GPU or no nvcc here) =="
  say ""
fi

if want fftw; then
  [ -x "$bin/bench-fftw" ] && run fftw 120 "$bin/bench-fftw" $small \
    || say "== FFTW: not built (libfftw3-dev missing at build time) =="
fi
want gst && run gst 200 "$bin/bench-gst" $small
want latency && run latency 60 "$bin/bench-latency" $small
want streams && run streams 420 "$bin/bench-streams" $small
# (small: again without overlap, hop = fft size, as `spectrum` runs)
want streams && [ -n "$small" ] && run streams-hop 420 "$bin/bench-streams" $small --hop=1024
want streams && [ -x "$bin/bench-ebur128" ] && run ebur128 120 "$bin/bench-ebur128" $small --modes live
# start-up, cold and warm caches (small: one run per row, live only)
if [ -n "$small" ]; then
  want startup && run startup 400 /usr/bin/python3 "$top/tests/bench/bench-startup.py" \
    --child "$bin/bench-startup-run" --runs 1 --modes live
else
  want startup && run startup 400 /usr/bin/python3 "$top/tests/bench/bench-startup.py" \
    --child "$bin/bench-startup-run"
fi

# One summary table from the @ lines: G samples/s of each, same N and batch
# (FFTW: its own batch).
say "== summary: G samples/s (GPU timing where there is one) =="
awk '
  function kv(line, key,   m) { if (match(line, key "=[^ ]*")) return substr(line, RSTART + length(key) + 1, RLENGTH - length(key) - 1); return "" }
  /^@kernel/ { n = kv($0, "n"); ns = kv($0, "gpu_ns") + 0; if (ns <= 0) ns = kv($0, "host_ns") + 0
               f = kv($0, "frames"); ours[n] = f * n / ns; oursns[n] = ns
               c = kv($0, "cpu_ns") + 0; if (c > 0) core[n] = f * n / c
               cp = kv($0, "copy_ns") + 0; if (cp > 0) pct[n] = 100 * (kv($0, "bytes_eff") / ns) / (2 * kv($0, "copy_bytes") / cp)
               sizes[n] = 1 }
  /^@vkfft/  { n = kv($0, "n"); ns = kv($0, "gpu_ns") + 0; if (ns <= 0) ns = kv($0, "host_ns") + 0; vk[n] = kv($0, "frames") * n / ns; vkns[n] = ns; vkf[n] = kv($0, "frames") }
  /^@cufft/  { n = kv($0, "n"); ns = kv($0, "gpu_ns") + 0; cu[n] = kv($0, "frames") * n / ns; cuns[n] = ns; cuf[n] = kv($0, "frames") }
  /^@fftw/   { n = kv($0, "n"); t = kv($0, "threads"); r = kv($0, "frames") * n / kv($0, "ns"); if (t == 1) f1[n] = r; else fa[n] = r }
  function s(x) { return x == "" ? "-" : sprintf("%.4g", x) }
  END {
    printf "%6s | %9s %7s | %9s %9s | %9s %9s | %10s %10s | %10s %9s\n", "N", "ours", "%copy", "VkFFT", "cuFFT", "FFTW 1t", "FFTW all", "ours/VkFFT", "ours/cuFFT", "ours/cpu-s", "/FFTW 1t"
    for (n = 32; n <= 65536; n *= 2) if (n in sizes) {
      rv = (n in vk) ? ours[n] / vk[n] : ""; rc = (n in cu) ? ours[n] / cu[n] : ""
      rf = (n in core && n in f1) ? core[n] / f1[n] : ""
      printf "%6d | %9s %7s | %9s %9s | %9s %9s | %10s %10s | %10s %9s\n", n, s(ours[n]), (n in pct) ? sprintf("%.1f%%", pct[n]) : "-", s(vk[n]), s(cu[n]), s(f1[n]), s(fa[n]), s(rv), s(rc), s(core[n]), s(rf)
    }
    print "(ours/peer > 1: the fused kernel processes more samples per second than the peer FFT alone;"
    print " ours/cpu-s: samples per second of the process CPU time, on a CPU device the kernel per core, and its ratio to FFTW on one thread)"
  }' "$results" | tee -a "$tables"
say ""
say "sweep done in $(( $(date +%s) - start )) s; tables in $tables"
