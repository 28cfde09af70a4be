#!/usr/bin/python3
"""Checks gpufft-spectrogram (a file's spectrogram as a PNG) on a WAV file
written here: 3 s at 48 kHz, 16-bit mono, a 3 kHz sine at amplitude 0.1
(-20 dB) for the whole file, and a 9 kHz sine at amplitude 0.5 (-6 dB) in
the second half only.

The PNG (decoded with GStreamer's pngdec) must be 800x400; with the
grayscale colour map, min-db -100, max-db 0 and the linear axis, in every
waterfall column from 3 % to 97 % of the plot's width the brightest row is
floor (f / f_max * H) for 3 kHz (first half) and 9 kHz (second half), with
grey round (255 (L + 100) / 100) (+-2 for the window's edges); the 9 kHz row
is at the floor grey in the first half; the title strip holds text.
usage: check-spectrogram-png.py PROGRAM"""
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import wave

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

RATE, SECONDS, W, H = 48000, 3.0, 800, 400
program = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="gpufft-png-")
wav, png = os.path.join(tmp, "two tones.wav"), os.path.join(tmp, "out.png")

n = int(RATE * SECONDS)
with wave.open(wav, "wb") as w:
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(RATE)
    frames = bytearray()
    for i in range(n):
        t = i / RATE
        x = 0.1 * math.sin(2 * math.pi * 3000 * t)
        if i >= n // 2:
            x += 0.5 * math.sin(2 * math.pi * 9000 * t + 0.5)
        frames += struct.pack("<h", int(round(x * 32767)))
    w.writeframes(bytes(frames))

out = subprocess.run([program, wav, "-o", png, "-x", str(W), "-y", str(H),
                      "--colormap", "grayscale", "--min-db", "-100",
                      "--max-db", "0"], capture_output=True, text=True,
                     timeout=600)
print(out.stdout, out.stderr[-3000:])
fail = []
if out.returncode != 0:
    sys.exit("gpufft-spectrogram exited with %d" % out.returncode)
m = re.search(r"waterfall (\d+),(\d+) (\d+)x(\d+), fft-size (\d+), "
              r"([0-9.]+)\.\.([0-9.]+) Hz", out.stdout)
if not m:
    sys.exit("no layout line printed")
wx, wy, ww, wh = (int(v) for v in m.groups()[:4])
f_lo, f_hi = float(m.group(6)), float(m.group(7))

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
print("PNG %dx%d, waterfall %d,%d %dx%d, %g..%g Hz" % (pw, ph, wx, wy, ww,
                                                      wh, f_lo, f_hi))
if (pw, ph) != (W, H):
    fail.append("PNG is %dx%d, expected %dx%d" % (pw, ph, W, H))


def grey(x, y):
    o = y * stride + 4 * x
    r, g, b = data[o], data[o + 1], data[o + 2]
    if not (r == g == b):
        fail.append("pixel (%d, %d) is not grey: %d %d %d" % (x, y, r, g, b))
    return r


def row_of(f):
    return min(wh - 1, int(math.floor((f - f_lo) / (f_hi - f_lo) * wh)))


def level(db):
    return round(255 * (db + 100) / 100)


r3, r9 = row_of(3000), row_of(9000)
checked = 0
for frac in [0.03 + 0.94 * k / 30 for k in range(31)]:
    col = wx + int(frac * (ww - 1))
    t = frac * SECONDS
    if abs(t - SECONDS / 2) < 0.1:
        continue                # the 9 kHz onset
    column = [grey(col, wy + wh - 1 - r) for r in range(wh)]
    best = max(range(wh), key=lambda r: column[r])
    expect_row, expect_db = (r9, -6) if t > SECONDS / 2 else (r3, -20)
    if best != expect_row or abs(column[best] - level(expect_db)) > 2:
        fail.append("t = %.2f s: brightest row %d (grey %d), expected row "
                    "%d (grey %d)" % (t, best, column[best], expect_row,
                                      level(expect_db)))
    if t < SECONDS / 2 - 0.1 and column[r9] > level(-90):
        fail.append("t = %.2f s: 9 kHz row is %d before the tone"
                    % (t, column[r9]))
    if abs(column[r3] - level(-20)) > 2:
        fail.append("t = %.2f s: 3 kHz row is %d, expected %d"
                    % (t, column[r3], level(-20)))
    checked += 1
title_px = sum(1 for y in range(0, wy) for x in range(W // 3, 2 * W // 3)
               if data[y * stride + 4 * x] > 200)
if title_px < 20:
    fail.append("no title text (%d light pixels)" % title_px)
print("%d columns checked, title %d pixels" % (checked, title_px))
for f in fail[:20]:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
