#!/usr/bin/python3
"""Runs loudness_monitor.py on 5 test tones (1 kHz stereo at -14, -18, -23,
-33 and -43 dBFS, 4 s) and checks its last table: each stream's M, S and I
equal its level in LUFS (a 1 kHz stereo sine at L dBFS reads L LUFS) within
0.1 LU, LRA 0, TP its level in dBTP within 0.1 dB, the flags right (I off
-23 by more than 1 LU), and exit 0.
usage: check-loudness-monitor.py PYTHON EXAMPLES_DIR"""
import re
import subprocess
import sys

python, exdir = sys.argv[1], sys.argv[2]
out = subprocess.run([python, exdir + "/loudness_monitor.py", "--test", "5",
                      "--duration", "4"], capture_output=True, text=True,
                     timeout=300)
print(out.stdout[-3000:], out.stderr[-1500:])
fail = []
if out.returncode != 0:
    fail.append("exit %d" % out.returncode)
table = out.stdout.rsplit("#         M", 1)[-1]
rows = re.findall(r"^(\d+) +(-?[0-9.]+) +(-?[0-9.]+) +(-?[0-9.]+) +"
                  r"(-?[0-9.]+) +(-?[0-9.]+)  test tone (-?\d+) dBFS(.*)$",
                  table, re.M)
if len(rows) != 5:
    fail.append("%d rows in the last table" % len(rows))
for r in rows:
    m, s, i, lra, tp, level = (float(v) for v in r[1:7])
    for name, v in (("M", m), ("S", s), ("I", i)):
        if abs(v - level) > 0.1:
            fail.append("stream %s: %s %.1f, expected %.0f" % (r[0], name, v,
                                                               level))
    if lra != 0.0 or abs(tp - level) > 0.1:
        fail.append("stream %s: LRA %.1f TP %.1f" % (r[0], lra, tp))
    if ("I off target" in r[7]) != (abs(level + 23) > 1):
        fail.append("stream %s: flags '%s'" % (r[0], r[7]))
if fail:
    print("FAIL:", "; ".join(fail))
    sys.exit(1)
print("loudness_monitor.py: 5 streams, every reading right")
