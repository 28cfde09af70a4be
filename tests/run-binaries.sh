#!/bin/bash
# Runs the built engine and element test programs directly, without meson
# (for the GPU machine, which has the runtime but no build tools), with the
# environment tests/meson.build gives them (the hung-GPU test with its
# preloaded shim, the no-loader test with the loader hidden). The no-device
# test is left out (it hides the Vulkan driver). Prints each program's
# verdict and a final "N passed, N failed" line.
#   bash tests/run-binaries.sh [BUILD_DIR]
set -u
build=$(cd "${1:-build}" && pwd)
export GST_PLUGIN_PATH=$build/plugin GST_REGISTRY=/tmp/gpufft-tests-registry.bin
export GST_DEBUG_NO_COLOR=1 CK_DEFAULT_TIMEOUT=600 G_DEBUG=fatal-criticals
export GPUFFT_TESTS_REQUIRE_DEVICE=1
pass=0 fail=0
for t in "$build"/tests/engine/test-engine-* "$build"/tests/element/test-*; do
  [ -f "$t" ] && [ -x "$t" ] || continue
  case "$t" in *test-nodevice) continue ;; esac
  case "$t" in */engine/*) args=--tap ;; *) args= ;; esac
  env=()
  case "$t" in
    *test-hung-gpu) env=(LD_PRELOAD="$build/tests/faults/libvk-hang-shim.so"
                         GPUFFT_FENCE_TIMEOUT=1 GPUFFT_VK_INTERPOSE=1
                         GPUFFT_IMPORT_MIN_BYTES=1) ;;
    *test-engine-merge) env=(GPUFFT_DEBUG_LATE_START_MS=20) ;;
    */element/test-import) env=(GPUFFT_IMPORT_MIN_BYTES=1
                                GPUFFT_DEBUG_LATE_START_MS=50) ;;
    *test-noloader) env=(GPUFFT_VULKAN_LOADER=/nonexistent/libvulkan.so.1
                         GST_REGISTRY=/tmp/gpufft-tests-registry-noloader.bin) ;;
  esac
  log=$(env "${env[@]}" timeout 600 "$t" $args 2>&1)
  rc=$?
  if [ $rc = 0 ] && ! grep -qE '^(not ok|Bail out)' <<<"$log"; then
    pass=$((pass + 1)); echo "PASS ${t#$build/} $(grep -cE '^ok' <<<"$log") cases"
  else
    fail=$((fail + 1)); echo "FAIL ${t#$build/} (exit $rc)"
    grep -E '^(not ok|Bail out|# FAIL|FAIL)|Failures|Errors|CRITICAL|ERROR' <<<"$log" | head -20
  fi
done
# The other kernel path (on a GPU: the CPU devices' kernels, fft_cpu.comp
# and fft_cpu_large.comp), as tests/engine/meson.build runs it.
for name in window power peaks formats analysis merge fft-accuracy; do
  t=$build/tests/engine/test-engine-$name
  [ -x "$t" ] || continue
  late=0
  [ "$name" = merge ] && late=20
  log=$(GPUFFT_KERNEL_PATH=other GPUFFT_DEBUG_LATE_START_MS=$late \
        timeout 900 "$t" --tap 2>&1)
  rc=$?
  if [ $rc = 0 ] && ! grep -qE '^(not ok|Bail out)' <<<"$log"; then
    pass=$((pass + 1))
    echo "PASS other-kernels ${t#$build/} $(grep -cE '^ok' <<<"$log") cases"
  else
    fail=$((fail + 1)); echo "FAIL other-kernels ${t#$build/} (exit $rc)"
    grep -E '^(not ok|Bail out|# FAIL|FAIL)|Failures|Errors|CRITICAL|ERROR' <<<"$log" | head -20
  fi
done
echo "$pass passed, $fail failed"
