#!/usr/bin/python3
"""gpufft-watch on a file:// source (a WAV written here: a 997 Hz sine at
-20 dBFS in both channels, 4 s; fft-size 2048, whose plan a CPU Vulkan
device makes at once): it plays in real time and reads -20 LUFS;
at its end the source restarts (restart-max 1 s), and a gap shorter than
the down-hold never reads down nor raises the down alarm."""
import math
import os
import struct
import sys
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, log, skip_without_device,
                       tmp_path, wait_for)

RATE = 48000
SECONDS = 4


def write_wav(path):
    amp = 0.1 * 32767
    frames = bytearray()
    for i in range(RATE * SECONDS):
        v = int(round(amp * math.sin(2 * math.pi * 997 * i / RATE)))
        frames += struct.pack("<hh", v, v)
    with wave.open(path, "wb") as w:
        w.setnchannels(2)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))


def main():
    path = tmp_path("sine.wav")
    write_wav(path)
    svc = Service("[service]\nlisten=127.0.0.1:@PORT@\nrestart-max=1\n"
                  "fft-size=2048\n"
                  "[defaults]\ndown-hold=6\nalarms=down\n"
                  f"[stream file]\nsource=file://{path}\n")
    try:
        svc.wait_ready(1, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise

    def file_stream():
        return svc.streams()[0]
    wait_for("momentary loudness -20 LUFS", lambda: abs(
        (file_stream()["momentary_lufs"] or 0) + 20) < 0.1, 10, 0.2)
    check(True, "the file reads -20 LUFS momentary")
    downs = 0
    end = time.monotonic() + 3 * SECONDS + 4
    while time.monotonic() < end:
        s = file_stream()
        if not s["up"] or s["alarms"]["down"]:
            downs += 1
        time.sleep(0.2)
    s = file_stream()
    check(s["restarts"] >= 2, f"the source restarted at its end "
          f"({s['restarts']} times)")
    check(downs == 0, f"never down across the restarts ({downs} polls)")
    check("alarm down" not in svc.log(), "no down alarm in the log")
    check("end of stream; restarting in 1 s" in svc.log(),
          "the log tells the end and the restart")
    check(svc.stop() == 0, "SIGTERM stops the service")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
