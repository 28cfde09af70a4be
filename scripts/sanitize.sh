#!/usr/bin/env bash
# The sanitizer runs: the element and engine tests under AddressSanitizer
# with UndefinedBehaviorSanitizer (build-asan), the fuzzer under both for a
# bounded time, and the concurrency tests under ThreadSanitizer
# (build-tsan). Each run is one `meson test` of its build, so that its
# meson-logs/testlog.json (build-tsan: testlog-env.json, the name meson
# gives a run with a wrapper) holds every verdict (.ci/run counts them).
#
#   scripts/sanitize.sh setup        configures and builds build-asan and
#                                    build-tsan (ccache when present)
#   scripts/sanitize.sh asan [TEST...]
#       the named tests of build-asan, or the CI selection: the core set
#       (CORE below) always, then ROTATE tests of the rest picked by a seed
#       (GPUFFT_SANITIZE_SEED, default the hour since the epoch; printed),
#       and element-fuzz for GPUFFT_FUZZ_SECONDS (default 90) from a seed
#       of the same rotation
#   scripts/sanitize.sh tsan [TEST...]
#       the named tests of build-tsan, or element-concurrency (for
#       GPUFFT_CONCURRENCY_SECONDS, default 20), element-stress and
#       element-hung-gpu
#   scripts/sanitize.sh vklayer [TEST...]
#       the named tests of the plain build (BUILD_DIR, default build), or
#       VKLAYER below, under the Khronos validation layer
#       (tests/vk-validation.sh: a test fails when the layer reports an
#       error; meson names the run's log testlog-vk-validation.sh)
#   scripts/sanitize.sh ci           setup, asan, tsan, vklayer; exit 1 when
#                                    one failed (all run)
# Environment: GPUFFT_SANITIZE_ROTATE (how many rotating tests, default 4),
# GPUFFT_FUZZ_FIRST_SEED (the fuzzer's first seed; ci: 1),
# GPUFFT_SANITIZE_LEAKS (LeakSanitizer: 1, the default, ci too; 0: off),
# GPUFFT_SANITIZE_SEED, GPUFFT_FUZZ_SECONDS, ASAN_BUILD_DIR (build-asan),
# TSAN_BUILD_DIR (build-tsan).
#
# Never under a sanitizer: the valgrind tests (valgrind and ASan exclude
# each other), the Python tests that load the plugin (element-pulsesrc,
# element-ebu-files, docs-reference, demo: the interpreter is not
# instrumented, and glibc's free aborts on ASan's blocks), the tools'
# self-tests, spirv-val and the layer check (no code of ours runs), and
# watch-clock (its clock-shifting preload would have to come before ASan's
# runtime: it skips under ASan, and CI counts a skip as a failure).
#
# Runtime options: ASan stops at the first error and LeakSanitizer reports
# leaks at exit (suppressions: tests/lsan.supp, GLib, GStreamer and Mesa
# internals only). A leak's stack is unwound by frame pointers: it ends at
# the first frame of a library built without them (GLib's g_malloc). The
# full stack takes ASAN_OPTIONS=fast_unwind_on_malloc=0, by hand and for
# one test at a time (GST_CHECKS=...): with it, the tests that start and
# end threads can hang in libgcc's unwinder, which allocates while it
# holds its own lock. What the engine frees on its own threads after a
# stop (plans, loudness objects, renders with work in flight) is freed
# before the leak check: the process's exit waits for those threads
# (gpufft_wait_released(), at most 10 s), and they hold what they free.
# UBSan stops at the first error with its stack
# (halt_on_error=1); TSan reports every race and fails the test
# (suppressions: tests/tsan.supp, GLib, GStreamer and Mesa internals only).
# GStreamer scans the plugin in the test's own process (GST_REGISTRY_FORK=no:
# gst-plugin-scanner is not instrumented and could not load it), and GLib
# allocates with malloc (G_SLICE=always-malloc), so that the sanitizers see
# every block.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)

asan_build=${ASAN_BUILD_DIR:-build-asan}
tsan_build=${TSAN_BUILD_DIR:-build-tsan}

# Always, in this order (the tests that reach the most of our code the
# quickest): the engine's error paths, threads, scheduler and loudness, a
# device declared hung while it still runs a batch; the elements' hostile
# inputs, many elements on many threads, gpuloudness, 16 streams on a
# device that stops signalling; gpufft-watch's refusals and failures and
# its HTTP server under bad clients.
CORE="engine-errors engine-threads engine-scheduler engine-loudness engine-lost
      element-hostile element-stress element-loudness element-hung-gpu
      watch-errors watch-http"
# Under the validation layer: the engine's tests that reach its Vulkan
# calls (device, memory, imports, caches, plans, loudness, a device
# declared hung) and the elements' (a device that stops signalling, the
# spectrogram's render). Not the tests that time live streams (the layer
# slows every call: element-robustness's 17 live streams then drop
# intervals).
VKLAYER="engine-errors engine-threads engine-scheduler engine-import
         engine-cache engine-pipeline-cache engine-loudness engine-power
         engine-formats engine-lost element-hung-gpu element-spectrogram"
# (a known bug kept out of CI until it is fixed goes in tests/ubsan.supp
# or tests/tsan.supp, with a comment naming it)
EXCLUDE_RE='^(valgrind-|spirv-val-|layers|guard-table$|run-binaries$|demo$|element-pulsesrc$|element-ebu-files$|element-fuzz$|watch-clock$|docs-reference$)'
# With LeakSanitizer on, the rotation leaves out besides:
# - element-noloader, element-nodevice: each scans every plugin of the
#   system into its own registry in the test's process, which grows GLib's
#   quark table past its first block; GLib leaks the old block by design
#   (16 KiB; the stack ends in g_malloc, so no suppression could name it
#   without naming all of GLib).
LEAK_EXCLUDE_RE='^(element-noloader|element-nodevice)$'

configure () {
  local dir=$1 sanitize=$2
  local cc=${CC:-gcc}
  if [ -z "${CC:-}" ] && command -v ccache >/dev/null; then
    cc="ccache gcc"
  fi
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" >/dev/null
  else
    CC="$cc" meson setup "$dir" -Db_sanitize="$sanitize" -Db_lundef=false \
      -Dbuildtype=debugoptimized -Dexamples=disabled -Dbenchmarks=disabled
  fi
  ninja -C "$dir"
}

common_env () {
  export GST_REGISTRY_FORK=no
  export G_SLICE=always-malloc
  export GPUFFT_TESTS_REQUIRE_DEVICE=${GPUFFT_TESTS_REQUIRE_DEVICE:-1}
}

asan_env () {
  common_env
  # (verify_asan_link_order=0: element-hung-gpu preloads its Vulkan shim,
  # itself built with ASan, ahead of the runtime)
  export ASAN_OPTIONS="detect_leaks=${GPUFFT_SANITIZE_LEAKS:-1}:halt_on_error=1:abort_on_error=0:verify_asan_link_order=0:detect_stack_use_after_return=0:strict_string_checks=0:check_initialization_order=1"
  export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$src/tests/ubsan.supp"
}

tsan_env () {
  common_env
  # (TSan's instrumentation slows lavapipe enough that the 3 s stall
  # deadline declares it hung now and then: the elements then post the
  # device-lost error, as they must, and element-concurrency, which expects
  # none, fails. The deadline is set past what TSan's runs take;
  # element-hung-gpu, which declares a device hung on purpose, sets its
  # own deadlines.)
  export GPUFFT_STALL=${GPUFFT_STALL:-120}
  export TSAN_OPTIONS="suppressions=$src/tests/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4:report_signal_unsafe=0"
}

# The seed of the rotation and of the fuzzer's start
seed=${GPUFFT_SANITIZE_SEED:-$(( $(date +%s) / 3600 ))}

asan_selection () {
  local rotate=${GPUFFT_SANITIZE_ROTATE:-4}
  local exclude=$EXCLUDE_RE
  if [ "${GPUFFT_SANITIZE_LEAKS:-1}" != 0 ]; then
    exclude="$EXCLUDE_RE|$LEAK_EXCLUDE_RE"
  fi
  # (only the tests' lines: a rebuild's "ninja: no work to do." is not one)
  meson test -C "$asan_build" --no-rebuild --list 2>/dev/null |
    sed -n 's/^gst-gpufft:[^ ]* \/ //p' | python3 -c '
import random, re, sys
core = sys.argv[1].split()
exclude = re.compile(sys.argv[2])
rotate, seed = int(sys.argv[3]), int(sys.argv[4])
names = [l.strip() for l in sys.stdin if l.strip()]
rest = sorted(n for n in names if n not in core and not exclude.search(n))
random.Random(seed).shuffle(rest)
print(" ".join([n for n in core if n in names] + rest[:rotate]))
' "$CORE" "$exclude" "$rotate" "$seed"
}

# warm_registry BUILD ENV [-- MESON-TEST-ARGS]: one short test of BUILD
# writes its GStreamer registry first, so that no test of the run scans the
# system's plugins in its own process (GST_REGISTRY_FORK=no): a scan loads every plugin, and
# what they keep from it is reported as a leak in each forked check. Its
# verdict is not kept (the run's own testlog replaces it).
warm_registry () {
  local dir=$1 envs=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  env "${envs[@]}" GST_CHECKS=test_planar_257_channels \
    meson test -C "$dir" --no-rebuild "$@" element-hostile >/dev/null 2>&1 ||
    true
}

run_asan () {
  local tests
  asan_env
  if [ $# -gt 0 ]; then
    tests="$*"
  else
    tests="$(asan_selection) element-fuzz"
    export GPUFFT_FUZZ_SECONDS=${GPUFFT_FUZZ_SECONDS:-90}
    export GPUFFT_FUZZ_FIRST_SEED=${GPUFFT_FUZZ_FIRST_SEED:-$(( seed * 1000 % 1000000 + 1 ))}
    echo "sanitize: ASan+UBSan seed $seed (GPUFFT_SANITIZE_SEED=$seed" \
      "replays this selection), fuzz ${GPUFFT_FUZZ_SECONDS} s from seed" \
      "$GPUFFT_FUZZ_FIRST_SEED"
  fi
  echo "sanitize: ASan+UBSan tests: $tests"
  warm_registry "$asan_build" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
  # shellcheck disable=SC2086
  meson test -C "$asan_build" --no-rebuild --print-errorlogs \
    --timeout-multiplier 3 $tests
}

run_tsan () {
  local tests wrapper
  tsan_env
  tests="${*:-element-concurrency element-stress element-hung-gpu}"
  # (the concurrency stress for longer than in the plain suite)
  export GPUFFT_CONCURRENCY_SECONDS=${GPUFFT_CONCURRENCY_SECONDS:-20}
  # (GLib's futex locks, reference counts and g_once made visible to TSan:
  # preloaded into the tests, not into meson, before the test's own
  # preloads, such as element-hung-gpu's fault shim; the wrapper starts
  # with env, after which meson names the run's log testlog-env, the name
  # .ci/run reads)
  # shellcheck disable=SC2016
  wrapper="env sh -c 'LD_PRELOAD=\"\$0\${LD_PRELOAD:+:\$LD_PRELOAD}\" exec \"\$@\"' $src/$tsan_build/tests/element/libtsan-glib.so"
  echo "sanitize: TSan tests: $tests"
  warm_registry "$tsan_build" TSAN_OPTIONS="$TSAN_OPTIONS:exitcode=0" -- \
    --wrapper "$wrapper"
  # shellcheck disable=SC2086
  meson test -C "$tsan_build" --no-rebuild --print-errorlogs \
    --wrapper "$wrapper" --timeout-multiplier 4 $tests
}

run_vklayer () {
  local tests dir=${BUILD_DIR:-build}
  export GPUFFT_TESTS_REQUIRE_DEVICE=${GPUFFT_TESTS_REQUIRE_DEVICE:-1}
  tests="${*:-$VKLAYER}"
  echo "sanitize: tests under the validation layer: $tests"
  # shellcheck disable=SC2086
  meson test -C "$dir" --no-rebuild --print-errorlogs \
    --wrapper "$src/tests/vk-validation.sh" --timeout-multiplier 3 $tests
}

case "${1:-}" in
  setup)
    configure "$asan_build" address,undefined
    configure "$tsan_build" thread
    ;;
  asan) shift; run_asan "$@" ;;
  tsan) shift; run_tsan "$@" ;;
  vklayer) shift; run_vklayer "$@" ;;
  ci)
    # (CI runs the core set, ROTATE more tests of the hour's seed (printed:
    # GPUFFT_SANITIZE_SEED replays the selection) and the fuzzer's first
    # seeds, LeakSanitizer on)
    export GPUFFT_FUZZ_FIRST_SEED=${GPUFFT_FUZZ_FIRST_SEED:-1}
    start=$(date +%s)
    rm -f "$asan_build/meson-logs/testlog.json" \
      "$tsan_build/meson-logs/testlog-env.json"
    configure "$asan_build" address,undefined
    configure "$tsan_build" thread
    echo "sanitize: builds took $(( $(date +%s) - start )) s"
    rc=0
    t=$(date +%s)
    ( run_asan ) || rc=1
    echo "sanitize: ASan+UBSan run took $(( $(date +%s) - t )) s"
    t=$(date +%s)
    ( run_tsan ) || rc=1
    echo "sanitize: TSan run took $(( $(date +%s) - t )) s"
    t=$(date +%s)
    rm -f "${BUILD_DIR:-build}/meson-logs/testlog-vk-validation.sh.json" \
      "${BUILD_DIR:-build}/meson-logs/testlog-vk-validation.sh.junit.xml"
    ( run_vklayer ) || rc=1
    echo "sanitize: validation-layer run took $(( $(date +%s) - t )) s;" \
      "sanitizers in all $(( $(date +%s) - start )) s"
    exit $rc
    ;;
  *)
    sed -n '2,/^set -euo/p' "$0" | sed '$d'
    exit 2
    ;;
esac
