#!/usr/bin/env python3
"""Runs a monitor example and checks what it printed (test helper).

    check-monitor-output.py EXPECTED_HZ TOLERANCE_HZ BANDS -- COMMAND ...

Passes when the command exits 0, prints at least two
"dominant frequency: <f> Hz" lines, every <f> is within TOLERANCE_HZ of
EXPECTED_HZ, and the bar display has BANDS lines per update whose loudest
band holds EXPECTED_HZ. Standard library only.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 6 or sys.argv[4] != "--":
        sys.stderr.write(__doc__)
        return 2
    expected, tol, bands = float(sys.argv[1]), float(sys.argv[2]), \
        int(sys.argv[3])
    cmd = sys.argv[5:]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=300)
    out = proc.stdout
    sys.stdout.write(out)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        print("FAIL: exit status %d" % proc.returncode)
        return 1
    freqs = [float(f) for f in
             re.findall(r"^dominant frequency: ([0-9.]+) Hz", out, re.M)]
    if len(freqs) < 2:
        print("FAIL: %d dominant-frequency lines" % len(freqs))
        return 1
    bad = [f for f in freqs if abs(f - expected) > tol]
    if bad:
        print("FAIL: dominant frequencies off by more than %g Hz: %s"
              % (tol, bad))
        return 1
    # bar blocks: a "t = ..." header then `bands` lines "<f0> Hz |###| <dB>"
    lines = out.splitlines()
    blocks = 0
    for i, line in enumerate(lines):
        if not line.startswith("t = "):
            continue
        rows = lines[i + 1:i + 1 + bands]
        parsed = [re.match(r"^\s*([0-9.]+) Hz \|([# ]*)\| +(-?[0-9.]+) dB$",
                           r) for r in rows]
        if len(parsed) != bands or not all(parsed):
            print("FAIL: malformed bar block after line %d" % (i + 1))
            return 1
        lows = [float(p.group(1)) for p in parsed] + [float("inf")]
        levels = [float(p.group(3)) for p in parsed]
        loudest = max(range(bands), key=lambda b: levels[b])
        if not lows[loudest] <= expected <= lows[loudest + 1] * 1.0001:
            print("FAIL: loudest band starts at %g Hz, tone at %g Hz"
                  % (lows[loudest], expected))
            return 1
        blocks += 1
    if blocks < 2:
        print("FAIL: %d bar blocks" % blocks)
        return 1
    print("OK: %d dominant-frequency lines within %g Hz of %g, %d bar blocks"
          % (len(freqs), tol, expected, blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
