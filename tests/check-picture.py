#!/usr/bin/python3
"""The README's picture is what the program draws: runs
scripts/make-readme-picture.sh into a temporary file and compares its
pixels (decoded by GStreamer's pngdec) with the tracked docs/spectrogram.png.

On one Vulkan device the script's output is the same bytes run after run.
Another kernel path (a GPU's kernels, or GPUFFT_KERNEL_PATH=other) rounds
the last bits of some levels differently, which moves a colour-map entry
here and there by one: 71 pixels, by at most 2 per channel, between the
two kernel paths of lavapipe. So the pictures must have the same size, no
channel may differ by more than 3, and at most 0.1 % of the pixels may
differ at all. A picture drawn by older code fails: the one whose first
and last waterfall columns were drawn with zeros in the stream's pad
differs in 9558 pixels, by up to 122.
usage: check-picture.py SOURCE_DIR BUILD_DIR"""
import os
import subprocess
import sys
import tempfile

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

MAX_CHANNEL_DIFF = 3
MAX_DIFFERING_SHARE = 0.001


def decode(path):
    p = Gst.parse_launch("filesrc name=src ! pngdec ! videoconvert ! "
                         "video/x-raw,format=RGBA ! appsink name=sink")
    p.get_by_name("src").set_property("location", path)
    p.set_state(Gst.State.PLAYING)
    sample = p.get_by_name("sink").emit("pull-preroll")
    if sample is None:
        sys.exit("%s could not be decoded" % path)
    s = sample.get_caps().get_structure(0)
    w, h = s.get_value("width"), s.get_value("height")
    buf = sample.get_buffer()
    ok, info = buf.map(Gst.MapFlags.READ)
    data = bytes(info.data)
    buf.unmap(info)
    p.set_state(Gst.State.NULL)
    return w, h, data


def main():
    src, build = sys.argv[1], sys.argv[2]
    tracked = os.path.join(src, "docs", "spectrogram.png")
    with tempfile.TemporaryDirectory(prefix="gpufft-picture-") as tmp:
        out = os.path.join(tmp, "spectrogram.png")
        r = subprocess.run(["bash",
                            os.path.join(src, "scripts",
                                         "make-readme-picture.sh"),
                            build, out], timeout=600)
        if r.returncode != 0:
            sys.exit("make-readme-picture.sh exited with %d" % r.returncode)
        Gst.init(None)
        w1, h1, a = decode(tracked)
        w2, h2, b = decode(out)
        if (w1, h1) != (w2, h2):
            sys.exit("docs/spectrogram.png is %dx%d, the script draws %dx%d"
                     % (w1, h1, w2, h2))
    stride = len(a) // h1
    differing, worst, columns = 0, 0, set()
    for y in range(h1):
        ra = a[y * stride:y * stride + 4 * w1]
        rb = b[y * stride:y * stride + 4 * w1]
        if ra == rb:
            continue
        for x in range(w1):
            d = max(abs(ra[4 * x + c] - rb[4 * x + c]) for c in range(4))
            if d:
                differing += 1
                worst = max(worst, d)
                columns.add(x)
    total = w1 * h1
    print("%dx%d: %d of %d pixels differ, by at most %d"
          % (w1, h1, differing, total, worst))
    if columns:
        cols = sorted(columns)
        print("columns with a difference: %d, from %d to %d (first: %s)"
              % (len(cols), cols[0], cols[-1], cols[:16]))
    if worst > MAX_CHANNEL_DIFF or differing > MAX_DIFFERING_SHARE * total:
        sys.exit("docs/spectrogram.png is not what the program draws now: "
                 "run scripts/make-readme-picture.sh and commit the picture")
    print("docs/spectrogram.png matches the program's output")


if __name__ == "__main__":
    main()
