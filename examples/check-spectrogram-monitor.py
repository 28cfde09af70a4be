#!/usr/bin/python3
"""Runs gpufft_spectrogram_monitor.py under a virtual X server (xvfb-run) on
a live 1 kHz test tone at amplitude 0.3 for 4 s, with a screenshot of its
window, and checks:
  - it exits with status 0 on its own (quits cleanly) and prints the
    dominant frequency 1000 Hz (+-2) and the level 20 log10 0.3 = -10.46
    dBFS (+-0.2), with frames shown;
  - the screenshot is the window's size (960x600) and shows a spectrogram:
    the waterfall's floor colour (viridis[0] = 68, 1, 84) over at least a
    tenth of it, the tone's bright colours (viridis above entry 200: green
    above 200, red above 110) in at least 200 of the sampled pixels (every
    other row and column), and the spectrum
    panel's background (16, 16, 16).
usage: check-spectrogram-monitor.py XVFB_RUN PYTHON MONITOR"""
import os
import re
import subprocess
import sys
import tempfile

import gi

gi.require_version("GdkPixbuf", "2.0")
from gi.repository import GdkPixbuf  # noqa: E402

xvfb_run, python, monitor = sys.argv[1:4]
shot = os.path.join(tempfile.mkdtemp(prefix="gpufft-monitor-"), "shot.png")
out = subprocess.run([xvfb_run, "-a", "-s", "-screen 0 1280x1024x24",
                      python, monitor, "--source",
                      "audiotestsrc freq=1000 volume=0.3 is-live=true",
                      "--duration", "4", "--screenshot", shot],
                     capture_output=True, text=True, timeout=240)
print(out.stdout, out.stderr[-3000:])
fail = []
if out.returncode != 0:
    fail.append("the monitor exited with %d" % out.returncode)
m = re.search(r"dominant ([0-9.]+) Hz, level (-?[0-9.]+) dBFS, (\d+) frames",
              out.stdout)
if not m:
    fail.append("no dominant/level line")
else:
    f, level, frames = float(m.group(1)), float(m.group(2)), int(m.group(3))
    if abs(f - 1000) > 2 or abs(level + 10.46) > 0.2 or frames < 10:
        fail.append("dominant %.1f Hz, level %.2f dBFS, %d frames" %
                    (f, level, frames))
if not os.path.exists(shot):
    fail.append("no screenshot")
else:
    pb = GdkPixbuf.Pixbuf.new_from_file(shot)
    w, h, n = pb.get_width(), pb.get_height(), pb.get_n_channels()
    stride, px = pb.get_rowstride(), pb.get_pixels()
    floor = bright = panel = 0
    for y in range(0, h, 2):
        for x in range(0, w, 2):
            o = y * stride + x * n
            r, g, b = px[o], px[o + 1], px[o + 2]
            if (r, g, b) == (68, 1, 84):
                floor += 1
            elif g > 200 and r > 110:
                bright += 1
            elif (r, g, b) == (16, 16, 16):
                panel += 1
    total = (w // 2) * (h // 2)
    print("screenshot %dx%d: floor %d, bright %d, panel %d of %d sampled"
          % (w, h, floor, bright, panel, total))
    if (w, h) != (960, 600):
        fail.append("screenshot is %dx%d, not 960x600" % (w, h))
    if floor < total / 10 or bright < 200 or panel < total / 20:
        fail.append("the window shows no spectrogram (floor %d, bright %d, "
                    "panel %d)" % (floor, bright, panel))
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
