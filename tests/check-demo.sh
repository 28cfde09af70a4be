#!/usr/bin/env bash
# A test: the README's demo (scripts/demo.sh, apt-get skipped) on a fresh
# machine's caches: an empty Mesa shader cache and an empty cache folder
# (XDG_CACHE_HOME), so that every shader compiles while the pipelines run.
# It must finish, print its dominant frequencies and end with "demo: OK"
# within the bound (a hang shows as the timeout).
#   tests/check-demo.sh SOURCE_ROOT BUILD_DIR
set -u
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$(cd "$src" && GPUFFT_SKIP_SETUP=1 BUILD_DIR="$build" \
  MESA_SHADER_CACHE_DIR="$tmp/mesa" XDG_CACHE_HOME="$tmp/cache" \
  timeout -k 10 600 bash scripts/demo.sh 2>&1 </dev/null)
rc=$?
echo "$out" | tail -n 40
if [ "$rc" != 0 ]; then
  echo "FAIL: demo.sh exited with $rc$([ "$rc" = 124 ] && echo ' (timed out: a hang)')"
  exit 1
fi
grep -q '^demo: OK' <<<"$out" || { echo "FAIL: no 'demo: OK'"; exit 1; }
grep -qE 'dominant +1000\.[0-9]+ Hz' <<<"$out" || { echo "FAIL: no 1000 Hz"; exit 1; }
grep -q 'dominant frequency: 44[0-9]' <<<"$out" || { echo "FAIL: the monitor printed no 440 Hz line"; exit 1; }
echo PASSED
