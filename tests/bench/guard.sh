#!/bin/bash
# The performance guard: the benchmarks of a reference commit (A) and of the
# working tree (B), run interleaved on the same device (A B A B ..., one
# process per run), and a table of B/A ratios against the A/A spread.
#
#   bash tests/bench/guard.sh build [--ref REV] [--small]
#       on the build machine: builds A and B into .guard/A and .guard/B
#       (git-ignored, about 4 MiB: copy it to the machine with the GPU).
#       A is REV (default: the commit in tests/bench/guard-ref, the one
#       whose figures the docs show) in a git worktree, with the working
#       tree's tests/bench/ laid over it, so that A and B run the same
#       benchmark programs and differ only in the engine, the shaders and
#       the elements (where the working tree's benchmarks do not build
#       against REV, A keeps its own and the table says so).
#   bash tests/bench/guard.sh run [--pairs N] [--small] [--tolerance PCT]
#       on the machine with the GPU (its Vulkan driver, GStreamer), or with
#       --small (lavapipe): runs the pairs and prints the table; exits 1 when
#       any row of B is worse than A by more than the tolerance (default 10 %)
#       or the A/A spread, whichever is larger; 2 on a failed run.
#   bash tests/bench/guard.sh [--ref REV] --small
#       both, here.
#   bash tests/bench/guard.sh table RESULTS [--tolerance PCT]
#       the table again from a run's guard-results.txt (exit as for run).
#   bash tests/bench/guard.sh self-test
#       the table's verdicts on made-up results (the meson test
#       guard-table): exits 0 when each is the expected one.
#
# Verdicts: WORSE (exit 1) when B's median is slower than A's by more
# than the tolerance or the A/A spread, whichever is larger; better the
# other way round; SUSPECT (exit 0) when B is slower by more than the
# tolerance but within the A/A spread, and every B run is slower than
# every A run: a shift the spread may hide (run again with more pairs);
# same otherwise.
#
# Rows (lower is better in every row):
#   kernel N     bench-kernel --sizes N --repeats 30: GPU ns per 1 GiB of
#                input (median of its trials), N = 1024, 4096, 16384, 65536
#                and 960 (a generic size); --small: 8 MiB, 10 repeats
#   streams S    bench-streams --element-cpu, S live stereo streams of 10 ms
#                buffers, fft 1024 hop 512: the element's CPU ns per sample
#                (its own threads and its time on the streaming threads,
#                less identity's in the same run: elem_threads_ns, without
#                the sources' spread), S = 1 and 256 (--small: 1 and 8)
#   first msg    the same run at S = 1: ms from PLAYING to the first message
#   gst 64ch     bench-gst, 64 channels as fast as possible: wall ns and CPU
#                ns per sample
# Output: the table on stdout, every run's output in $OUT/guard.log (OUT
# defaults to /tmp/gpufft-guard).
set -u -o pipefail

top=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
cd "$top" || exit 2
guard=$top/.guard

cmd=all
results=""
case "${1:-}" in
  build|run|self-test) cmd=$1; shift ;;
  table) cmd=table; results=${2:-}; shift; [ $# -gt 0 ] && shift ;;
esac
ref=""
small=""
pairs=3
tol=10
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) ref=$2; shift ;;
    --ref=*) ref=${1#*=} ;;
    --small) small=--small ;;
    --pairs) pairs=$2; shift ;;
    --pairs=*) pairs=${1#*=} ;;
    --tolerance) tol=$2; shift ;;
    --tolerance=*) tol=${1#*=} ;;
    *) echo "usage: $0 [build|run] [--ref REV] [--small] [--pairs N] [--tolerance PCT]" >&2
       echo "       $0 table RESULTS [--tolerance PCT]; $0 self-test" >&2
       exit 2 ;;
  esac
  shift
done
[ -z "$ref" ] && ref=$(sed -n '1{s/[[:space:]].*//;p}' tests/bench/guard-ref 2>/dev/null)
if [ "$pairs" -lt 3 ] 2>/dev/null; then
  echo "guard: --pairs must be 3 or more (the A/A spread needs them)" >&2
  exit 2
fi

progs="bench-kernel bench-streams bench-gst"

# build_one SRC DEST NOTE: configures and builds SRC's benchmarks and plugin
# in SRC/.guard-build, copies them (stripped) to DEST.
build_one() {
  local src=$1 dest=$2 b=$1/.guard-build p
  rm -rf "$dest"
  mkdir -p "$dest"
  if [ ! -f "$b/build.ninja" ]; then
    meson setup "$b" "$src" -Dbuildtype=release -Dbenchmarks=enabled \
      -Dtests=disabled -Dexamples=disabled -Dvkfft=disabled -Dfftw=disabled \
      -Dc_args=-g0 > "$dest.setup.log" 2>&1 || { cat "$dest.setup.log" >&2; return 1; }
  fi
  ninja -C "$b" > "$dest.build.log" 2>&1 || { tail -n 30 "$dest.build.log" >&2; return 1; }
  for p in $progs; do
    cp "$b/tests/bench/$p" "$dest/" || return 1
  done
  cp "$b/plugin/libgstgpufft.so" "$dest/" || return 1
  strip "$dest"/* 2>/dev/null
  rm -f "$dest.setup.log"
  return 0
}

do_build() {
  local wt rev_a rev_b
  if [ -z "$ref" ]; then
    echo "guard: no reference commit (--ref, or tests/bench/guard-ref)" >&2
    return 2
  fi
  rev_a=$(git rev-parse --verify "$ref^{commit}") || return 2
  rev_b=$(git rev-parse --short HEAD)
  mkdir -p "$guard"
  wt=$(mktemp -d /tmp/gpufft-guard-ref.XXXXXX)
  git worktree add --detach -f "$wt" "$rev_a" > /dev/null 2>&1 || {
    echo "guard: git worktree add $rev_a failed" >&2; return 2; }
  # the working tree's benchmark programs over the reference's engine
  local note="same benchmark programs"
  cp -r "$wt/tests/bench" "$wt/tests/bench.own"
  rm -rf "$wt/tests/bench"
  cp -r tests/bench "$wt/tests/bench"
  echo "guard: building A = $(git rev-parse --short "$rev_a") in $wt"
  if ! build_one "$wt" "$guard/A" 2> "$guard/A.err"; then
    echo "guard: the working tree's benchmarks do not build against A; A keeps its own"
    note="A's own benchmark programs"
    rm -rf "$wt/tests/bench" "$wt/.guard-build"
    mv "$wt/tests/bench.own" "$wt/tests/bench"
    build_one "$wt" "$guard/A" || { git worktree remove --force "$wt"; return 2; }
  fi
  git worktree remove --force "$wt" > /dev/null 2>&1
  echo "guard: building B = the working tree ($rev_b$(git diff --quiet HEAD || echo ', with changes'))"
  build_one "$top" "$guard/B" || return 2
  {
    echo "A=$(git rev-parse --short "$rev_a") B=$rev_b$(git diff --quiet HEAD || echo '+changes')"
    echo "programs: $note"
  } > "$guard/info"
  du -sh "$guard" | sed 's/^/guard: built, /'
}

# ---- run ------------------------------------------------------------------

out=${OUT:-/tmp/gpufft-guard}
log=$out/guard.log
res=$out/guard-results.txt

# kv LINE KEY
kv() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<< " $1"; }

# one V: every benchmark of variant V once; appends "row V value" lines
run_variant() {
  local v=$1 dir=$guard/$1 n o l s
  local sizes="1024 4096 16384 65536 960"
  local streams="1,256" repeats=30
  [ -n "$small" ] && streams="1,8" && repeats=10
  for n in $sizes; do
    echo "+ $v bench-kernel --sizes $n --repeats $repeats $small" >> "$log"
    o=$(timeout -k 5 120 "$dir/bench-kernel" --sizes "$n" --repeats $repeats $small 2>> "$log")
    echo "$o" >> "$log"
    l=$(grep '^@kernel' <<< "$o" | head -1)
    if [ -z "$l" ] || [ "$(kv "$l" ok)" != 1 ]; then echo "kernel_$n $v FAIL" >> "$res"; continue; fi
    s=$(kv "$l" gpu_ns); [ "${s%.*}" -le 0 ] 2>/dev/null && s=$(kv "$l" host_ns)
    echo "kernel_$n $v $s" >> "$res"
  done
  echo "+ $v bench-streams --streams $streams --modes live $ecpu $small" >> "$log"
  o=$(GST_PLUGIN_PATH=$dir timeout -k 5 300 "$dir/bench-streams" $small --streams "$streams" \
        --modes live --live-seconds 5 --no-wide $ecpu \
        --elements identity,gpufftspectrum 2>> "$log")
  echo "$o" >> "$log"
  for s in ${streams//,/ }; do
    l=$(grep "^@streams streams=$s .*element=gpufftspectrum" <<< "$o" | head -1)
    if [ -n "$ecpu" ]; then
      n=$(kv "$(grep "^@streams-element streams=$s .*element=gpufftspectrum" <<< "$o" | head -1)" \
            elem_threads_ns)
    else
      n=$(kv "$l" elem_ns)
    fi
    if [ -z "$l" ] || [ "$(kv "$l" errors)" != 0 ] || [ -z "$n" ] || [ "$n" = - ]; then
      echo "streams_$s $v FAIL" >> "$res"
    else
      echo "streams_$s $v $n" >> "$res"
    fi
    [ "$s" = 1 ] && [ -n "$l" ] && echo "first_msg $v $(kv "$l" first_msg_ms)" >> "$res"
  done
  echo "+ $v bench-gst --channels 64 --no-spectrum $small" >> "$log"
  o=$(GST_PLUGIN_PATH=$dir timeout -k 5 120 "$dir/bench-gst" $small --channels 64 --no-spectrum 2>> "$log")
  echo "$o" >> "$log"
  l=$(grep '^@gst element=gpufftspectrum channels=64' <<< "$o" | head -1)
  if [ -z "$l" ] || [ "$(kv "$l" msgs)" != "$(kv "$l" expected)" ]; then
    echo "gst64_wall $v FAIL" >> "$res"; echo "gst64_cpu $v FAIL" >> "$res"
  else
    awk -v s="$(kv "$l" samples)" -v w="$(kv "$l" wall_s)" -v c="$(kv "$l" cpu_s)" \
      -v v="$v" 'BEGIN { printf "gst64_wall %s %.4f\ngst64_cpu %s %.4f\n", v, w / s * 1e9, v, c / s * 1e9 }' >> "$res"
  fi
}

# print_table RESULTS: the table of a results file (rows "NAME A|B VALUE"
# or "NAME A|B FAIL"); returns 0, 1 (a row WORSE) or 2 (a failed run).
# ecpu: what the streams rows hold, for the legend ("" elem_ns,
# "unknown" from a saved file, else elem_threads_ns).
print_table() {
  awk -v tol="$tol" -v ecpu="$ecpu" '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { if ($3 == "FAIL") { fail[$1] = 1; if (!($1 in seen)) { order[++rows] = $1; seen[$1] = 1 }; next }
      if (!($1 in seen)) { order[++rows] = $1; seen[$1] = 1 }
      if ($2 == "A") { na[$1]++; A[$1, na[$1]] = $3 } else { nb[$1]++; B[$1, nb[$1]] = $3 } }
    END {
      printf "%-14s %12s %12s %8s %9s %9s  %s\n", "row", "A median", "B median", "B/A", "A/A", "limit", "verdict"
      bad = 0
      suspect = 0
      for (r = 1; r <= rows; r++) {
        k = order[r]
        if (k in fail || na[k] < 2 || nb[k] < 1) { printf "%-14s %12s %12s %8s %9s %9s  %s\n", k, "-", "-", "-", "-", "-", "FAILED RUN"; bad = 2; continue }
        delete x; for (i = 1; i <= na[k]; i++) x[i] = A[k, i]; ma = med(x, na[k]); lo = x[1]; hi = x[na[k]]
        delete y; for (i = 1; i <= nb[k]; i++) y[i] = B[k, i]; mb = med(y, nb[k]); blo = y[1]
        spread = ma > 0 ? (hi - lo) / ma * 100 : 0
        lim = spread > tol ? spread : tol
        ratio = ma > 0 ? mb / ma : 0
        verdict = (ratio - 1) * 100 > lim ? "WORSE" : (1 - ratio) * 100 > lim ? "better" : "same"
        if (verdict == "same" && (ratio - 1) * 100 > tol && blo > hi) { verdict = "SUSPECT"; suspect = 1 }
        if (verdict == "WORSE" && bad == 0) bad = 1
        printf "%-14s %12.4g %12.4g %8.3f %8.1f%% %8.1f%%  %s\n", k, ma, mb, ratio, spread, lim, verdict
      }
      if (suspect) print "(SUSPECT: every B run slower than every A run, by more than the tolerance but within the A/A spread: run again with more pairs)"
      print "(kernel_N: GPU ns per 1 GiB call; streams_S: element CPU ns/sample" (ecpu == "" ? ", the whole process (elem_ns: A has no --element-cpu)" : ecpu == "unknown" ? " (elem_threads_ns, or the whole process, elem_ns, where the run'"'"'s A had no --element-cpu: its guard.log says which)" : "") "; first_msg: ms; gst64_*: ns/sample; lower is better)"
      exit bad
    }' "$1"
}

do_run() {
  local p
  for v in A B; do
    for p in $progs libgstgpufft.so; do
      [ -e "$guard/$v/$p" ] || { echo "guard: $guard/$v/$p missing: run '$0 build' first" >&2; return 2; }
    done
  done
  mkdir -p "$out"
  : > "$log"; : > "$res"
  # (an A that keeps its own older bench-streams, without --element-cpu:
  # both sides' streams rows then read the whole process, elem_ns)
  ecpu=--element-cpu
  for v in A B; do
    "$guard/$v/bench-streams" --help 2>/dev/null | grep -q -- --element-cpu \
      || ecpu=""
  done
  export GST_REGISTRY=${GST_REGISTRY:-/tmp/gpufft-guard-registry.bin}
  local t0; t0=$(date +%s)
  # (one unrecorded bench-gst run each first: the first use of a geometry
  # compiles its pipelines, which the cold start's own row, first_msg,
  # measures; here it would only widen the A/A spread)
  for v in A B; do
    echo "+ $v warm-up: bench-gst --channels 64 --no-spectrum $small" >> "$log"
    GST_PLUGIN_PATH=$guard/$v timeout -k 5 120 "$guard/$v/bench-gst" $small \
      --channels 64 --no-spectrum >> "$log" 2>&1
  done
  for p in $(seq 1 "$pairs"); do
    run_variant A
    run_variant B
    echo "guard: pair $p of $pairs done ($(( $(date +%s) - t0 )) s)" >&2
  done
  echo "== performance guard: $(cat "$guard/info" | tr '\n' ';' | sed 's/;$//')"
  echo "device: $( (command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1) || (grep '^date: .*device: ' "$log" | sed 's/.*device: //' | grep -v -m1 '^-$'))"
  echo "$(date -u '+%Y-%m-%d %H:%M UTC'); $pairs pairs, A B interleaved, one process per run; tolerance ${tol} %"
  print_table "$res"
}

# self_test: made-up results, one row per verdict, checked against the
# expected verdicts (3 pairs, tolerance 10 %)
self_test() {
  local f; f=$(mktemp)
  cat > "$f" <<'ROWS'
same A 100
same B 101
same A 102
same B 99
same A 101
same B 100
better A 100
better B 80
better A 101
better B 82
better A 102
better B 81
worse A 100
worse B 130
worse A 101
worse B 128
worse A 102
worse B 131
spread A 100
spread B 140
spread A 150
spread B 145
spread A 120
spread B 160
suspect A 100
suspect B 150
suspect A 140
suspect B 142
suspect A 110
suspect B 160
failed A 1
failed B FAIL
failed A 1
failed B 1
failed A 1
failed B 1
ROWS
  local out rc=0 row want got
  out=$(tol=10 ecpu=x print_table "$f"); local st=$?
  rm -f "$f"
  for row in same:same better:better worse:WORSE spread:same suspect:SUSPECT failed:"FAILED RUN"; do
    want=${row#*:}
    got=$(grep "^${row%%:*} " <<< "$out" | sed 's/.*  //')
    if [ "$got" != "$want" ]; then
      echo "guard self-test: row ${row%%:*}: '$got', expected '$want'" >&2
      rc=1
    fi
  done
  [ "$st" = 2 ] || { echo "guard self-test: exit $st, expected 2 (a failed run)" >&2; rc=1; }
  grep -q '^(SUSPECT' <<< "$out" || { echo "guard self-test: no SUSPECT legend" >&2; rc=1; }
  [ $rc = 0 ] && echo "guard self-test: 6 verdicts as expected"
  return $rc
}

case "$cmd" in
  build) do_build ;;
  run) do_run ;;
  all) do_build && do_run ;;
  table) [ -r "$results" ] || { echo "guard: no results file '$results'" >&2; exit 2; }
         ecpu=unknown print_table "$results" ;;
  self-test) self_test ;;
esac
