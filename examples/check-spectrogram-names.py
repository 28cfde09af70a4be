#!/usr/bin/python3
"""gpufft-spectrogram writes the file named by -o, byte for byte: names
holding printf conversions (%n, a lone %, %x), spaces, UTF-8 and bytes that
are not UTF-8. After each run the output folder holds exactly that file (no
other name was made from it), a PNG (its signature, decoded by GStreamer's
pngdec at the size asked). An output folder that does not exist: exit 1, a
message, no file.
usage: check-spectrogram-names.py PROGRAM"""
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import wave

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

W, H = 160, 96
program = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="gpufft-names-")
wav = os.path.join(tmp, "tone.wav")
with wave.open(wav, "wb") as w:         # 0.2 s of a quiet sine, 8 kHz
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(8000)
    w.writeframes(b"".join(struct.pack("<h", int(3000 * math.sin(
        2 * math.pi * 1000 * i / 8000))) for i in range(1600)))

Gst.init(None)


def png_size(path):
    """(width, height) of the PNG at path (bytes), or None."""
    with open(path, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            return None
    copy = os.path.join(tmp, "decoded.png")     # (a name filesrc takes)
    shutil.copyfile(path, copy)
    p = Gst.parse_launch("filesrc name=src ! pngdec ! appsink name=sink")
    p.get_by_name("src").set_property("location", copy)
    p.set_state(Gst.State.PLAYING)
    sample = p.get_by_name("sink").emit("pull-preroll")
    p.set_state(Gst.State.NULL)
    if sample is None:
        return None
    s = sample.get_caps().get_structure(0)
    return s.get_value("width"), s.get_value("height")


names = [b"x%n.png", b"50%.png", b"%x%x%x%x.png", b"%s%s%s%d.png",
         b"two words.png", "Spektrum \u00c4\u00d6\u00fc \u266b.png".encode(),
         b"latin1-\xe4\xf6.png", b"no-suffix"]
fail = []
outdir = os.path.join(os.fsencode(tmp), b"out")
for name in names:
    shutil.rmtree(outdir, ignore_errors=True)
    os.mkdir(outdir)
    target = os.path.join(outdir, name)
    out = subprocess.run([os.fsencode(program), os.fsencode(wav), b"-o",
                          target, b"-x", b"%d" % W, b"-y", b"%d" % H],
                         capture_output=True, timeout=300)
    made = sorted(os.listdir(outdir))
    print("%r: exit %d, folder %r" % (name, out.returncode, made))
    if out.returncode != 0:
        fail.append("%r: exit %d: %s" % (name, out.returncode,
                                          out.stderr[-500:]))
    if made != [name]:
        fail.append("%r: the folder holds %r" % (name, made))
        continue
    size = png_size(target)
    if size != (W, H):
        fail.append("%r: not a %dx%d PNG (%r)" % (name, W, H, size))

# a folder that is not there: a message and exit 1, nothing made
missing = os.path.join(outdir, b"no such folder", b"out.png")
shutil.rmtree(outdir, ignore_errors=True)
os.mkdir(outdir)
out = subprocess.run([os.fsencode(program), os.fsencode(wav), b"-o", missing,
                      b"-x", b"%d" % W, b"-y", b"%d" % H],
                     capture_output=True, timeout=300)
print("missing folder: exit %d, %r" % (out.returncode, out.stderr[-300:]))
if out.returncode != 1 or b"no such folder" not in out.stderr:
    fail.append("missing folder: exit %d, stderr %r"
                % (out.returncode, out.stderr[-300:]))
if os.listdir(outdir):
    fail.append("missing folder: made %r" % os.listdir(outdir))

shutil.rmtree(tmp, ignore_errors=True)
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
