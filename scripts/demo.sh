#!/usr/bin/env bash
# Installs the dependencies, builds, and runs the gpufftspectrum element on
# two test tones (1000 Hz and 2500 Hz), printing the dominant frequencies it
# reports.
#   GPUFFT_SKIP_SETUP=1   do not run apt-get
#   BUILD_DIR=dir         build somewhere else than ./build
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${GPUFFT_SKIP_SETUP:-0}" != 1 ]; then
  scripts/setup.sh
fi

build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build"
fi
ninja -C "$build"

# Use the plugin from the build tree, with a private registry.
build=$(cd "$build" && pwd)
export GST_PLUGIN_PATH="$build/plugin"
export GST_REGISTRY="$build/demo-registry.bin"

echo
echo "== Vulkan devices"
vulkaninfo --summary 2>/dev/null | grep -E "deviceName|deviceType" || true

echo
echo "== 1000 Hz (0.5) + 2500 Hz (0.2), 48 kHz, fft-size 4096, 1 message per 100 ms"
pipeline="audiotestsrc freq=1000 volume=0.5 num-buffers=50 samplesperbuffer=4800 ! mix.
  audiotestsrc freq=2500 volume=0.2 num-buffers=50 samplesperbuffer=4800 ! mix.
  audiomixer name=mix ! audio/x-raw,rate=48000,channels=1,format=F32LE
  ! gpufftspectrum fft-size=4096 peaks=2 message-magnitude=false ! fakesink"
echo "gst-launch-1.0 -m $pipeline" | tr -s ' \n' ' '
echo
# -m prints every bus message; show the dominant-frequency ones, shortened.
# shellcheck disable=SC2086
gst-launch-1.0 -m $pipeline </dev/null >"$build/demo.log" 2>&1 || {
  echo "demo: the pipeline failed:" >&2
  cat "$build/demo.log" >&2
  exit 1
}
if ! grep -q 'dominant-frequency' "$build/demo.log"; then
  echo "demo: no dominant-frequency message; the whole log:" >&2
  cat "$build/demo.log" >&2
  exit 1
fi
# (each step writes a file: "head" closing a pipe early would kill the
# writer with SIGPIPE, which pipefail turns into a failed demo)
grep -o 'dominant-frequency.*' "$build/demo.log" | awk '
  function field(name,   m) {
    if (match($0, name "=\\([a-z0-9]+\\)[^,;]*")) {
      m = substr($0, RSTART, RLENGTH); sub(/^[^)]*\)/, "", m); return m
    }
    return ""
  }
  {
    pf = $0; sub(/.*peak-frequencies=[^<]*< */, "", pf); sub(/ *>.*/, "", pf)
    n = split(pf, a, / *, */); peaks = ""
    for (i = 1; i <= n; i++) peaks = peaks sprintf(" %.3f", a[i])
    printf "t=%4.1f s  dominant %9.3f Hz  %7.2f dB   peaks:%s Hz\n",
      field("timestamp") / 1e9, field("frequency"), field("magnitude"), peaks
  }' >"$build/demo-peaks.log"
head -n 12 "$build/demo-peaks.log"

if [ -x /usr/bin/python3 ] && [ -f examples/gpufft_monitor.py ]; then
  echo
  echo "== examples/gpufft_monitor.py on 3.5 s of a 440 Hz tone, in real time (its last update)"
  # (a finite source: every update comes, however long the first
  # compilation takes; --duration only bounds the whole)
  /usr/bin/python3 examples/gpufft_monitor.py \
    --source "audiotestsrc freq=440 num-buffers=150" --duration 120 \
    </dev/null >"$build/demo-monitor.log" 2>&1 || true
  tail -n 18 "$build/demo-monitor.log"
fi
if [ -x "$build/examples/spectrum-app" ]; then
  echo
  echo "== gpuspectrum: examples/spectrum-app, a program written for GStreamer's"
  echo "   spectrum, with the element renamed (3472 Hz tone, bands=128)"
  "$build/examples/spectrum-app" --element gpuspectrum \
    </dev/null >"$build/demo-spectrum-app.log" 2>&1 || {
    echo "demo: spectrum-app failed:" >&2
    cat "$build/demo-spectrum-app.log" >&2
    exit 1
  }
  head -n 3 "$build/demo-spectrum-app.log"
fi
echo
echo "demo: OK. The microphone: /usr/bin/python3 examples/gpufft_monitor.py"
