#!/usr/bin/python3
"""Every example program, run where GStreamer cannot find the gst-gpufft
plugin (an empty GST_PLUGIN_PATH and a registry of its own), says so in one
line naming the missing element and exits 1, within 60 s (it used to print
GLib criticals and a traceback, fail with "not-linked", or wait forever).
usage: check-missing-element.py BUILD_EXAMPLES_DIR SOURCE_EXAMPLES_DIR
(the C programs are looked for in the first, the Python ones in the second;
a missing one is reported and fails the test)"""
import os
import subprocess
import sys
import tempfile
import wave

bindir, srcdir = sys.argv[1], sys.argv[2]
py = "/usr/bin/python3"
fail = []
with tempfile.TemporaryDirectory() as tmp:
    wav = os.path.join(tmp, "tone.wav")
    with wave.open(wav, "wb") as w:     # 0.5 s of silence, 16-bit mono
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(48000)
        w.writeframes(b"\0\0" * 24000)
    env = dict(os.environ, GST_PLUGIN_PATH=os.path.join(tmp, "none"),
               GST_REGISTRY=os.path.join(tmp, "registry.bin"))
    src = "audiotestsrc num-buffers=10"
    runs = [
        ("gpufft-monitor", "gpufftspectrum",
         [os.path.join(bindir, "gpufft-monitor"), "--source", src]),
        ("gpufft-spectrogram", "gpufftspectrogram",
         [os.path.join(bindir, "gpufft-spectrogram"), wav, "-o",
          os.path.join(tmp, "out.png")]),
        ("spectrum-app --element gpuspectrum", "gpuspectrum",
         [os.path.join(bindir, "spectrum-app"), "--element", "gpuspectrum"]),
        ("spectrum-bars --element gpuspectrum", "gpuspectrum",
         [os.path.join(bindir, "spectrum-bars"), "--element", "gpuspectrum"]),
        ("gpufft_monitor.py", "gpufftspectrum",
         [py, os.path.join(srcdir, "gpufft_monitor.py"), "--source", src]),
        ("sound_level_monitor.py", "gpufftspectrum",
         [py, os.path.join(srcdir, "sound_level_monitor.py"), "--source",
          src]),
        ("log_mel.py", "gpufftspectrum",
         [py, os.path.join(srcdir, "log_mel.py"), "--source", src]),
        ("loudness_monitor.py", "gpuloudness",
         [py, os.path.join(srcdir, "loudness_monitor.py"), "--source", src]),
    ]
    for name, element, cmd in runs:
        if not os.path.exists(cmd[0] if cmd[0] != py else cmd[1]):
            fail.append("%s: not found" % name)
            continue
        try:
            out = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            fail.append("%s: no exit within 60 s" % name)
            continue
        err = out.stderr.strip().splitlines()
        print("%s: exit %d, stderr %r" % (name, out.returncode, err))
        if out.returncode != 1:
            fail.append("%s: exit %d, expected 1" % (name, out.returncode))
        if len(err) != 1 or element not in err[0]:
            fail.append("%s: expected one stderr line naming %s, got %r"
                        % (name, element, err))
for f in fail:
    print("FAIL: " + f)
print("FAILED" if fail else "PASSED")
sys.exit(1 if fail else 0)
