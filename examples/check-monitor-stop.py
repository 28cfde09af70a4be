#!/usr/bin/python3
"""The monitor examples stop cleanly whenever --duration runs out: after
0.1 s and 1 s of an endless test tone, live and not, and during the first
buffer's shader compilation (an empty Mesa shader cache of its own: on a
CPU Vulkan device the first plan then compiles for seconds while the
pipeline still prerolls). Each run must exit 0 within its bound (a
deadlock shows as a timeout).
usage: check-monitor-stop.py MONITOR_COMMAND..."""
import os
import subprocess
import sys
import tempfile

monitor = sys.argv[1:]
cases = [
    ("0.1 s", "audiotestsrc freq=440", "0.1", False),
    ("1 s", "audiotestsrc freq=440", "1", False),
    ("1 s, live", "audiotestsrc is-live=true freq=440", "1", False),
    ("0.1 s, compiling", "audiotestsrc freq=440", "0.1", True),
    ("0.1 s, live, compiling", "audiotestsrc is-live=true freq=440", "0.1",
     True),
]
fail = []
for name, source, duration, cold in cases:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if cold:
            env["MESA_SHADER_CACHE_DIR"] = cache
            env["XDG_CACHE_HOME"] = cache
        try:
            out = subprocess.run(monitor + ["--source", source, "--duration",
                                            duration], env=env,
                                 stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=180)
        except subprocess.TimeoutExpired:
            fail.append("%s: no exit within 180 s (deadlock)" % name)
            continue
    print("%s: exit %d, %d lines" % (name, out.returncode,
                                     len(out.stdout.splitlines())))
    if out.returncode != 0:
        fail.append("%s: exit %d: %s" % (name, out.returncode,
                                          out.stderr[-800:]))
for f in fail:
    print("FAIL: " + f)
print("FAILED" if fail else "PASSED")
sys.exit(1 if fail else 0)
