#!/bin/bash
# Runs the built test programs without meson, each with the command line,
# environment, working folder and timeout that meson gives it (for the GPU
# machine, which has the runtime but no build tools).
#
#   bash tests/run-binaries.sh manifest [BUILD_DIR]
#       here, where meson is: writes BUILD_DIR/tests/run-binaries.manifest
#       from `meson introspect --tests`: every test whose program is one of
#       the build's (not the Python tests, valgrind's runs, spirv-val, the
#       layer check or the demo), its arguments, environment, timeout and
#       protocol, with the build's path written @BUILD@.
#   bash tests/run-binaries.sh [--only RE] [--skip RE] [--budget S] [BUILD_DIR]
#       anywhere: runs the tests of BUILD_DIR's manifest (default: build)
#       one after the other, in BUILD_DIR, the build's path read as
#       BUILD_DIR's. As meson does, LD_LIBRARY_PATH and PATH keep what the
#       caller's hold after the test's own folders, and MALLOC_PERTURB_ is
#       random where the caller has none. GPUFFT_TESTS_REQUIRE_DEVICE is 1
#       where the caller does not set it (an engine test without a device
#       fails instead of skipping). --only and --skip select tests by name
#       (bash regular expressions); --budget starts no test after S seconds.
#       Prints each test's verdict and time, then "N passed, N failed, N
#       skipped, N not run"; exits 1 when a test failed or its program is
#       not in BUILD_DIR (a build copied in part: --skip it), 0 otherwise
#       (tests past the budget are listed as not run).
#   bash tests/run-binaries.sh self-test BUILD_DIR
#       (the meson test run-binaries) writes the manifest, then runs two
#       tests through it, one of which passes only with meson's
#       environment (element-import): exits 0 when both pass, 77 (skipped)
#       where no Vulkan device can be opened.
# Verdicts: exit status 77 of a test that does not speak TAP, or a TAP
# test with no case or every case skipped, is a skip, as for meson; otherwise a TAP test passes when it
# exits 0 with no "not ok" or "Bail out!" line, any other test when it
# exits 0. A failed test's lines that say why (gst-check's ":F:" and ":E:"
# lines, TAP's "not ok", criticals), or else its last lines, follow its
# verdict.
set -u -o pipefail

usage="usage: $0 manifest [BUILD_DIR] | self-test BUILD_DIR | [--only RE] [--skip RE] [--budget S] [BUILD_DIR]"

if [ "${1:-}" = manifest ]; then
  build=$(cd "${2:-build}" && pwd -P) || exit 2
  meson introspect --tests "$build" | python3 -c '
import json, os, re, shlex, sys

build = os.path.realpath(sys.argv[1])
at = re.compile(re.escape(build) + r"(?=/|:|$)")
sub = lambda s: at.sub("@BUILD@", s)
tests = json.load(sys.stdin)
out = ["# Written by tests/run-binaries.sh manifest: the tests meson runs",
       "# from programs of this build (@BUILD@), one line each: name,",
       "# timeout (0: none), protocol, then the environment and command as",
       "# shell words (VAR=value ... -- program args ...)."]
kept = 0
for t in tests:
    prog = os.path.realpath(t["cmd"][0])
    if not prog.startswith(build + "/"):
        continue
    env = ["%s=%s" % (k, sub(v)) for k, v in sorted(t["env"].items())]
    timeout = t.get("timeout") or 0
    words = ([t["name"], str(max(timeout, 0)), t.get("protocol") or "exitcode"]
             + env + ["--", sub(prog)] + [sub(a) for a in t["cmd"][1:]])
    out.append(" ".join(shlex.quote(w) for w in words))
    kept += 1
if kept == 0:
    sys.exit("run-binaries: none of the %d tests runs a program of %s"
             % (len(tests), build))
path = os.path.join(build, "tests", "run-binaries.manifest")
with open(path, "w") as f:
    f.write("\n".join(out) + "\n")
print("%s: %d of %d tests" % (path, kept, len(tests)))
' "$build"
  exit $?
fi

if [ "${1:-}" = self-test ]; then
  [ $# = 2 ] || { echo "$usage" >&2; exit 2; }
  bash "$0" manifest "$2" || exit 1
  out=$(GPUFFT_TESTS_REQUIRE_DEVICE=1 \
        bash "$0" --only '^(engine-window|element-import)$' "$2")
  rc=$?
  echo "$out"
  grep -q '^2 passed, 0 failed, 0 skipped, 0 not run' <<<"$out" && exit 0
  # (no Vulkan device here: the element tests cannot run either)
  grep -q 'no Vulkan device could be opened' <<<"$out" && exit 77
  exit $((rc ? rc : 1))
fi

only="" skip="" budget=0 build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=${2?"$usage"}; shift ;;
    --skip) skip=${2?"$usage"}; shift ;;
    --budget) budget=${2?"$usage"}; shift ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) build=$1 ;;
  esac
  shift
done
build=$(cd "$build" && pwd -P) || exit 2
manifest=$build/tests/run-binaries.manifest
if [ ! -f "$manifest" ]; then
  echo "run-binaries: no $manifest: write it where the build is (bash $0 manifest BUILD_DIR)" >&2
  exit 2
fi
if [ "$build/meson-info/intro-tests.json" -nt "$manifest" ]; then
  echo "run-binaries: warning: the build's tests changed after $manifest was written (bash $0 manifest BUILD_DIR)" >&2
fi

# tap_skipped LOG: the TAP output has no case, or skips every case
tap_skipped() {
  local all skip
  grep -qE '^1\.\.0([^0-9]|$)' <<<"$1" && return 0
  all=$(grep -cE '^ok' <<<"$1")
  skip=$(grep -cE '^ok .*# SKIP' <<<"$1")
  [ "$skip" -gt 0 ] && [ "$skip" = "$all" ]
}

pass=0 fail=0 skipped=0 missing=0 late=0 start=$SECONDS
while IFS= read -r line; do
  case "$line" in '#'*|'') continue ;; esac
  eval "words=($line)"
  name=${words[0]} to=${words[1]} proto=${words[2]}
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  if [ -n "$skip" ] && [[ $name =~ $skip ]]; then continue; fi
  env=() cmd=() i=3
  while [ "${words[$i]}" != -- ]; do
    w=${words[$i]//@BUILD@/"$build"}
    case "$w" in
      LD_LIBRARY_PATH=*) w=$w${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;;
      PATH=*) w=$w${PATH:+:$PATH} ;;
    esac
    env+=("$w"); i=$((i + 1))
  done
  for w in "${words[@]:$((i + 1))}"; do cmd+=("${w//@BUILD@/"$build"}"); done
  if [ ! -x "${cmd[0]}" ]; then
    missing=$((missing + 1)); echo "NOT RUN $name (no ${cmd[0]#$build/})"; continue
  fi
  if [ "$budget" -gt 0 ] && [ $((SECONDS - start)) -ge "$budget" ]; then
    late=$((late + 1)); echo "NOT RUN $name (past the budget)"; continue
  fi
  t0=$SECONDS
  log=$(cd "$build" && env GPUFFT_TESTS_REQUIRE_DEVICE="${GPUFFT_TESTS_REQUIRE_DEVICE-1}" \
        MALLOC_PERTURB_="${MALLOC_PERTURB_-$((RANDOM % 255 + 1))}" "${env[@]}" \
        timeout -k 10 "$to" "${cmd[@]}" 2>&1 </dev/null)
  rc=$?
  verdict=FAIL
  if [ "$proto" = tap ]; then
    if grep -qE '^(not ok|Bail out)' <<<"$log"; then verdict=FAIL
    elif [ $rc = 0 ] && tap_skipped "$log"; then verdict=SKIP
    elif [ $rc = 0 ]; then verdict=PASS
    fi
  elif [ $rc = 77 ]; then verdict=SKIP
  elif [ $rc = 0 ]; then verdict=PASS
  fi
  case $verdict in
    PASS) pass=$((pass + 1)); echo "PASS $name ($((SECONDS - t0)) s)" ;;
    SKIP) skipped=$((skipped + 1)); echo "SKIP $name ($((SECONDS - t0)) s)" ;;
    FAIL)
      fail=$((fail + 1)); echo "FAIL $name (exit $rc, $((SECONDS - t0)) s)"
      why=$(grep -E '^(not ok|Bail out)|:[FE]:|CRITICAL|ERROR|Checks:' <<<"$log" | head -20)
      if [ -n "$why" ]; then echo "$why"; else tail -n 10 <<<"$log"; fi ;;
  esac
done < "$manifest"
echo "$pass passed, $fail failed, $skipped skipped, $((missing + late)) not run ($((SECONDS - start)) s)"
[ $fail = 0 ] && [ $missing = 0 ]
