#!/usr/bin/python3
"""Runs the analyser-mode examples on a test tone and checks what they print:
  sound_level_monitor.py: a 1 kHz sine at amplitude 0.5 reads LAF -6.0
  dBFS (20 log10 0.5 = -6.02; A-weighting is 0 dB at 1 kHz) and the 1k
  third-octave band is the loudest, at -6.0;
  log_mel.py: 80 mels, the loudest mel band the one 1 kHz falls in (25 or
  26 of librosa's 80 slaney filters at 16 kHz); the same of a WAV file
  whose name holds quotes, '!' and '%' (the name is no part of a pipeline
  description).
usage: check-analysis-examples.py PYTHON EXAMPLES_DIR"""
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import wave

python, exdir = sys.argv[1], sys.argv[2]
tone = "audiotestsrc freq=1000 volume=0.5 num-buffers=100"
fail = []

out = subprocess.run([python, exdir + "/sound_level_monitor.py", "--source",
                      tone, "--duration", "1"], capture_output=True,
                     text=True, timeout=240)
print(out.stdout[-1500:], out.stderr[-1500:])
levels = [float(v) for v in re.findall(r"LAF = +(-?[0-9.]+) dBFS", out.stdout)]
if out.returncode != 0 or len(levels) < 5:
    fail.append("sound_level_monitor: exit %d, %d readings"
                % (out.returncode, len(levels)))
elif abs(levels[-1] + 6.02) > 0.1:
    fail.append("sound_level_monitor: LAF %.1f, expected -6.0" % levels[-1])
last = out.stdout.rsplit("LAF", 1)[-1]
bands = re.findall(r"^ *([0-9.]+k?) Hz +(-?[0-9.]+)", last, re.M)
if not bands:
    fail.append("sound_level_monitor: no bands printed")
else:
    loud = max(bands, key=lambda b: float(b[1]))
    if loud[0] != "1k" or abs(float(loud[1]) + 6.02) > 0.1:
        fail.append("sound_level_monitor: loudest band %s at %s dB" % loud)

out = subprocess.run([python, exdir + "/log_mel.py", "--source", tone],
                     capture_output=True, text=True, timeout=240)
print(out.stdout, out.stderr[-1500:])
m = re.search(r"log-mel: (\d+) mels x (\d+) frames", out.stdout)
k = re.search(r"loudest mel band: (\d+)", out.stdout)
if out.returncode != 0 or not m or int(m.group(1)) != 80 or \
        int(m.group(2)) < 100:
    fail.append("log_mel: exit %d, %s" % (out.returncode,
                                         m.group(0) if m else "no shape"))
elif not k or int(k.group(1)) not in (25, 26):
    fail.append("log_mel: loudest band %s" % (k.group(1) if k else None))

with tempfile.TemporaryDirectory() as tmp:
    wav = os.path.join(tmp, "tone \"live\" 50% ! it's.wav")
    with wave.open(wav, "wb") as w:     # 1 s of 1 kHz at 0.5, 16 kHz mono
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"".join(struct.pack("<h", int(16383 * math.sin(
            2 * math.pi * 1000 * i / 16000))) for i in range(16000)))
    out = subprocess.run([python, exdir + "/log_mel.py", wav],
                         capture_output=True, text=True, timeout=240)
print(out.stdout, out.stderr[-1500:])
m = re.search(r"log-mel: (\d+) mels x (\d+) frames", out.stdout)
k = re.search(r"loudest mel band: (\d+)", out.stdout)
if out.returncode != 0 or not m or int(m.group(2)) < 90 or not k or \
        int(k.group(1)) not in (25, 26):
    fail.append("log_mel FILE: exit %d, %s, loudest band %s"
                % (out.returncode, m.group(0) if m else "no shape",
                   k.group(1) if k else None))

for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
