#!/usr/bin/python3
"""gpufft-spectrogram on a file of two hours (longer than the element's
longest video frame, an hour): a WAV file written here at 200 Hz, 16-bit
mono, a 20 Hz sine at amplitude 0.5 (-6 dB) in the first hour and a 70 Hz
sine at amplitude 0.5 in the second.

The PNG (decoded with GStreamer's pngdec) must be 640x360 and show the
whole file: with the grayscale colour map and the linear axis, the brightest
row of every waterfall column from 3 % to 97 % of the plot's width is
floor (f / f_max * H) for 20 Hz in the first hour and 70 Hz in the second,
at grey round (255 (-6 + 100) / 100) (+-3), and the program's line says
7200 s.
usage: check-spectrogram-long.py PROGRAM"""
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import wave

import gi
import numpy as np

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

RATE, SECONDS, W, H = 200, 7200, 640, 360
program = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="gpufft-long-")
wav, png = os.path.join(tmp, "two hours.wav"), os.path.join(tmp, "out.png")

t = np.arange(RATE * SECONDS) / RATE
x = np.where(t < SECONDS / 2, 0.5 * np.sin(2 * np.pi * 20 * t),
             0.5 * np.sin(2 * np.pi * 70 * t))
with wave.open(wav, "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(RATE)
    w.writeframes(np.round(x * 32767).astype("<i2").tobytes())

out = subprocess.run([program, wav, "-o", png, "-x", str(W), "-y", str(H),
                      "--colormap", "grayscale"], capture_output=True,
                     text=True, timeout=1200)
print(out.stdout, out.stderr[-3000:])
if out.returncode != 0:
    sys.exit("gpufft-spectrogram exited with %d" % out.returncode)
if sorted(os.listdir(tmp)) != ["out.png", "two hours.wav"]:
    sys.exit("the folder holds %r" % os.listdir(tmp))
m = re.search(r", ([0-9.]+) s, waterfall (\d+),(\d+) (\d+)x(\d+), "
              r"fft-size (\d+), ([0-9.]+)\.\.([0-9.]+) Hz", out.stdout)
if not m:
    sys.exit("no layout line printed")
duration = float(m.group(1))
wx, wy, ww, wh = (int(v) for v in m.groups()[1:5])
f_lo, f_hi = float(m.group(7)), float(m.group(8))

Gst.init(None)
p = Gst.parse_launch("filesrc name=src ! pngdec ! videoconvert ! "
                     "video/x-raw,format=RGBA ! appsink name=sink")
p.get_by_name("src").set_property("location", png)
p.set_state(Gst.State.PLAYING)
sample = p.get_by_name("sink").emit("pull-preroll")
if sample is None:
    sys.exit("the PNG could not be decoded")
s = sample.get_caps().get_structure(0)
pw, ph = s.get_value("width"), s.get_value("height")
buf = sample.get_buffer()
ok, info = buf.map(Gst.MapFlags.READ)
data = bytes(info.data)
buf.unmap(info)
p.set_state(Gst.State.NULL)
stride = len(data) // ph
fail = []
if (pw, ph) != (W, H):
    fail.append("PNG is %dx%d, expected %dx%d" % (pw, ph, W, H))
if abs(duration - SECONDS) > 0.01:
    fail.append("duration %.3f s, expected %d" % (duration, SECONDS))


def row_of(f):
    return min(wh - 1, int(math.floor((f - f_lo) / (f_hi - f_lo) * wh)))


expect_grey = round(255 * (-6 + 100) / 100)
checked = 0
for frac in [0.03 + 0.94 * k / 40 for k in range(41)]:
    col = wx + int(frac * (ww - 1))
    when = frac * SECONDS
    if abs(when - SECONDS / 2) < 120:
        continue                # the change of tone
    column = [data[(wy + wh - 1 - r) * stride + 4 * col] for r in range(wh)]
    best = max(range(wh), key=lambda r: column[r])
    expect = row_of(20 if when < SECONDS / 2 else 70)
    if best != expect or abs(column[best] - expect_grey) > 3:
        fail.append("t = %.0f s: brightest row %d (grey %d), expected row %d "
                    "(grey %d)" % (when, best, column[best], expect,
                                   expect_grey))
    checked += 1
print("PNG %dx%d, waterfall %d,%d %dx%d, %g..%g Hz, %d columns checked"
      % (pw, ph, wx, wy, ww, wh, f_lo, f_hi, checked))
shutil.rmtree(tmp, ignore_errors=True)
for f in fail[:20]:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
