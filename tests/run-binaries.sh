#!/bin/bash
# Runs the built test programs without meson, each with the command line,
# environment and timeout that meson gives it (for the GPU machine, which
# has the runtime but no build tools).
#
#   bash tests/run-binaries.sh manifest [BUILD_DIR]
#       here, where meson is: writes BUILD_DIR/tests/run-binaries.manifest
#       from `meson introspect --tests`: every test whose program is one of
#       the build's (not the Python tests, valgrind's runs, spirv-val, the
#       layer check or the demo), its arguments, environment, timeout and
#       protocol, with the build's path left as @BUILD@.
#   bash tests/run-binaries.sh [--only RE] [--skip RE] [--budget S] [BUILD_DIR]
#       anywhere: runs the tests of BUILD_DIR's manifest (default: build)
#       one after the other, the build's path read as BUILD_DIR's, plus
#       GPUFFT_TESTS_REQUIRE_DEVICE=1 (an engine test without a device
#       fails instead of skipping). --only and --skip select tests by name
#       (extended regular expressions); --budget starts no test after S
#       seconds (the rest are listed as not run). A test whose program is
#       not in BUILD_DIR (a build copied in part) is listed as not run.
#       Prints each test's verdict and time, then "N passed, N failed, N
#       not run"; exits 1 when a test failed.
#   bash tests/run-binaries.sh self-test BUILD_DIR
#       (the meson test run-binaries) writes the manifest, then runs two
#       tests through it, one of which passes only with meson's
#       environment (element-import): exits 0 when both pass.
# Verdicts: a TAP test passes when it exits 0 with no "not ok" or "Bail
# out!" line; any other test when it exits 0. A failed test's lines that
# say why (gst-check's ":F:" and ":E:" lines, TAP's "not ok", criticals)
# follow its verdict.
set -u -o pipefail

if [ "${1:-}" = manifest ]; then
  build=$(cd "${2:-build}" && pwd) || exit 2
  meson introspect --tests "$build" | python3 -c '
import json, os, shlex, sys

build = sys.argv[1]
tests = json.load(sys.stdin)
out = ["# Written by tests/run-binaries.sh manifest: the tests meson runs",
       "# from programs of this build (@BUILD@), one line each:",
       "# name, timeout, protocol, then the environment and command as",
       "# shell words (VAR=value ... -- program args ...)."]
kept = 0
for t in tests:
    prog = t["cmd"][0]
    if not prog.startswith(build + "/"):
        continue
    sub = lambda s: s.replace(build, "@BUILD@")
    env = ["%s=%s" % (k, sub(v)) for k, v in sorted(t["env"].items())]
    words = ([t["name"], str(t["timeout"] or 30), t.get("protocol") or "exitcode"]
             + env + ["--"] + [sub(a) for a in t["cmd"]])
    out.append(" ".join(shlex.quote(w) for w in words))
    kept += 1
path = os.path.join(build, "tests", "run-binaries.manifest")
with open(path, "w") as f:
    f.write("\n".join(out) + "\n")
print("%s: %d of %d tests" % (path, kept, len(tests)))
' "$build"
  exit $?
fi

if [ "${1:-}" = self-test ]; then
  bash "$0" manifest "${2:-build}" || exit 1
  out=$(bash "$0" --only '^(engine-window|element-import)$' "${2:-build}")
  echo "$out"
  grep -q '^2 passed, 0 failed, 0 not run' <<<"$out"
  exit $?
fi

only="" skip="" budget=0 build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift ;;
    --skip) skip=$2; shift ;;
    --budget) budget=$2; shift ;;
    -*) echo "usage: $0 manifest [BUILD_DIR] | [--only RE] [--skip RE] [--budget S] [BUILD_DIR]" >&2
        exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
build=$(cd "$build" && pwd) || exit 2
manifest=$build/tests/run-binaries.manifest
if [ ! -f "$manifest" ]; then
  echo "run-binaries: no $manifest: write it where the build is (bash $0 manifest $build)" >&2
  exit 2
fi

pass=0 fail=0 notrun=0 start=$SECONDS
while IFS= read -r line; do
  case "$line" in '#'*|'') continue ;; esac
  eval "words=($line)"
  name=${words[0]} to=${words[1]} proto=${words[2]}
  env=() cmd=() i=3
  while [ "${words[$i]}" != -- ]; do
    env+=("${words[$i]//@BUILD@/$build}"); i=$((i + 1))
  done
  for w in "${words[@]:$((i + 1))}"; do cmd+=("${w//@BUILD@/$build}"); done
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  if [ -n "$skip" ] && [[ $name =~ $skip ]]; then continue; fi
  if [ ! -x "${cmd[0]}" ]; then
    notrun=$((notrun + 1)); echo "NOT RUN $name (no ${cmd[0]#$build/})"; continue
  fi
  if [ "$budget" -gt 0 ] && [ $((SECONDS - start)) -ge "$budget" ]; then
    notrun=$((notrun + 1)); echo "NOT RUN $name (past the budget)"; continue
  fi
  t0=$SECONDS
  log=$(env GPUFFT_TESTS_REQUIRE_DEVICE=1 "${env[@]}" timeout -k 10 "$to" \
        "${cmd[@]}" 2>&1 </dev/null)
  rc=$?
  ok=0
  [ $rc = 0 ] && ok=1
  if [ "$proto" = tap ] && grep -qE '^(not ok|Bail out)' <<<"$log"; then ok=0; fi
  if [ $ok = 1 ]; then
    pass=$((pass + 1)); echo "PASS $name ($((SECONDS - t0)) s)"
  else
    fail=$((fail + 1)); echo "FAIL $name (exit $rc, $((SECONDS - t0)) s)"
    grep -E '^(not ok|Bail out)|:[FE]:|CRITICAL|ERROR|Checks:' <<<"$log" | head -20
  fi
done < "$manifest"
echo "$pass passed, $fail failed, $notrun not run ($((SECONDS - start)) s)"
[ $fail = 0 ]
