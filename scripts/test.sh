#!/usr/bin/env bash
# The README's test command: installs the dependencies (scripts/setup.sh),
# configures and builds in ./build, and runs every meson test.
#   GPUFFT_SKIP_SETUP=1   do not run apt-get (dependencies already there)
#   BUILD_DIR=dir         build somewhere else than ./build
# Extra arguments go to `meson test` (e.g. --suite engine).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${GPUFFT_SKIP_SETUP:-0}" != 1 ]; then
  scripts/setup.sh
fi

build=${BUILD_DIR:-build}
# (with the benchmarks: they must build, and one test checks bench-kernel)
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" -Dbenchmarks=enabled
else
  meson setup "$build" -Dbenchmarks=enabled
fi
ninja -C "$build"
meson test -C "$build" --print-errorlogs "$@"
