#!/usr/bin/python3
"""gpufft-spectrogram's options: a value it cannot use ends the program
before any decoding with exit 2 and one message naming the option and what
is valid (for -a, -c and --window every value of the element's enum, read
here from the element's property, which --help lists too); what it
documents works:
  -a/-c/--window bogus, --min-db nan, --max-db inf, --min-db >= --max-db,
  levels beyond the element's range (+-400), --min-frequency -100,
  --max-frequency nan/-1, --min-frequency >= --max-frequency, --fft-size
  odd/above the element's largest/negative, -x/-y outside 16..8192, a
  picture of more than 2^25 pixels (8192x8192), an unparsable number, no
  input, no -o: exit 2;
  -t with a non-ASCII title under C.UTF-8: a PNG;
  --fft-size 65536 (the largest) on a 1200-column waterfall: a PNG (the
  renderer's column batch was too big for one storage buffer).
usage: check-spectrogram-options.py PROGRAM"""
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

program = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="gpufft-options-")
wav = os.path.join(tmp, "tone.wav")
with wave.open(wav, "wb") as w:         # 0.05 s of a 1 kHz sine, 8 kHz
    w.setnchannels(1)
    w.setsampwidth(2)
    w.setframerate(8000)
    w.writeframes(b"".join(struct.pack("<h", int(3000 * math.sin(
        2 * math.pi * 1000 * i / 8000))) for i in range(400)))
png = os.path.join(tmp, "out.png")

Gst.init(None)
element = Gst.ElementFactory.make("gpufftspectrogram", None)
if element is None:
    sys.exit("gpufftspectrogram not found")


def nicks(prop):
    values = element.find_property(prop).enum_class.__enum_values__
    return [values[k].value_nick for k in sorted(values)]


enums = {"axis": nicks("frequency-axis"), "colormap": nicks("colormap"),
         "window": nicks("window")}
fail = []


def run(args, env=None):
    if os.path.exists(png):
        os.unlink(png)
    return subprocess.run([program] + args, capture_output=True, text=True,
                          timeout=600, env=env)


helptext = run(["--help"]).stdout
for opt, values in enums.items():
    line = next((l for l in helptext.splitlines() if "--" + opt in l), "")
    missing = [v for v in values if v not in line]
    if missing:
        fail.append("--help's --%s line %r lacks %s" % (opt, line, missing))

# (args, words the message must hold)
bad = [
    (["-a", "bogus"], ["axis", "bogus"] + enums["axis"]),
    (["--axis", "LINEAR"], ["axis"] + enums["axis"]),
    (["-c", "bogus"], ["colormap", "bogus"] + enums["colormap"]),
    (["--window", "bogus"], ["window", "bogus"] + enums["window"]),
    (["--window", "1"], ["window"] + enums["window"]),
    (["--min-db", "nan"], ["min-db"]),
    (["--max-db", "inf"], ["max-db"]),
    (["--max-db", "-inf"], ["max-db"]),
    (["--min-db", "-500"], ["min-db", "400"]),
    (["--max-db", "1e6"], ["max-db", "400"]),
    (["--min-db", "-10", "--max-db", "-20"], ["min-db", "max-db"]),
    (["--min-db", "-10", "--max-db", "-10"], ["min-db", "max-db"]),
    (["--min-frequency", "-100"], ["min-frequency"]),
    (["--min-frequency", "nan"], ["min-frequency"]),
    (["--max-frequency", "nan"], ["max-frequency"]),
    (["--max-frequency", "-1"], ["max-frequency"]),
    (["--min-frequency", "1000", "--max-frequency", "500"],
     ["min-frequency", "max-frequency"]),
    (["--fft-size", "1001"], ["fft-size", "65536"]),
    (["--fft-size", "65538"], ["fft-size", "65536"]),
    (["--fft-size", "131072"], ["fft-size", "65536"]),
    (["--fft-size", "-2"], ["fft-size", "65536"]),
    (["-x", "8"], ["width", "16", "8192"]),
    (["-y", "9000"], ["height", "16", "8192"]),
    (["-x", "8192", "-y", "8192"], ["8192", "33554432"]),
    (["-x", "abc"], ["abc"]),
    (["--min-db", "low"], ["low"]),
]
for args, words in bad:
    out = run([wav, "-o", png] + args)
    msg = out.stderr.strip()
    print("%s: exit %d, %r" % (" ".join(args), out.returncode, msg))
    if out.returncode != 2:
        fail.append("%s: exit %d, expected 2" % (" ".join(args),
                                                 out.returncode))
    lacking = [wd for wd in words if wd not in msg]
    if lacking or len(msg.splitlines()) != 1:
        fail.append("%s: message %r (one line naming %s)"
                    % (" ".join(args), msg, lacking or words))
    if os.path.exists(png):
        fail.append("%s: wrote %s" % (" ".join(args), png))
for args in ([wav], ["-o", png], [wav, wav, "-o", png]):
    out = run(args)
    print("%s: exit %d, %r" % (" ".join(args), out.returncode, out.stderr))
    if out.returncode != 2 or "usage" not in out.stderr:
        fail.append("%s: exit %d, %r (expected 2 and the usage)"
                    % (" ".join(args), out.returncode, out.stderr))


def good(args, env=None):
    out = run([wav, "-o", png] + args, env=env)
    print("%s: exit %d, %s %s" % (" ".join(args), out.returncode,
                                  out.stdout.strip(), out.stderr[-600:]))
    if out.returncode != 0:
        fail.append("%s: exit %d: %s" % (" ".join(args), out.returncode,
                                          out.stderr[-600:]))
        return
    with open(png, "rb") as f:
        if f.read(8) != b"\x89PNG\r\n\x1a\n":
            fail.append("%s: %s is not a PNG" % (" ".join(args), png))


good(["-t", "\u00c4", "-x", "200", "-y", "120"],
     env=dict(os.environ, LC_ALL="C.UTF-8"))
good(["--fft-size", "65536", "-x", "1200", "-y", "64", "--no-axes"])

shutil.rmtree(tmp, ignore_errors=True)
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
