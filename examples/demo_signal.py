#!/usr/bin/python3
"""Writes the README's demo signal as a WAV file (48 kHz, 16-bit mono, 6 s):
a linear chirp from 200 Hz to 8 kHz (amplitude 0.14), a steady 1 kHz tone
(0.035), a melody of eight notes with five harmonics each (0.75 s per note,
fast attack, exponential decay), two bursts of white noise (2.0-2.5 s and
4.2-4.3 s) and a faint noise floor. Deterministic (seeded).

usage: demo_signal.py OUT.wav
then:  build/examples/gpufft-spectrogram OUT.wav -o docs/spectrogram.png -a log \\
         --title "chirp, tones, a melody and noise (gpufftspectrogram)" """
import math
import random
import struct
import sys
import wave

RATE, SECONDS = 48000, 6
NOTES = [440, 494, 523, 587, 659, 587, 523, 494]


def main():
    random.seed(1)
    frames = bytearray()
    for i in range(RATE * SECONDS):
        t = i / RATE
        x = 0.2 * math.sin(2 * math.pi * (200 * t + (8000 - 200) * t * t
                                          / (2 * SECONDS)))
        x += 0.05 * math.sin(2 * math.pi * 1000 * t)
        k = int(t / 0.75)
        f, age = NOTES[k % 8], t - k * 0.75
        env = min(1, age * 40) * math.exp(-age * 3)
        for h in range(1, 6):
            x += 0.15 / h * env * math.sin(2 * math.pi * f * h * t)
        if 2 < t < 2.5 or 4.2 < t < 4.3:
            x += 0.05 * random.gauss(0, 1)
        x += 0.002 * random.gauss(0, 1)
        v = int(x * 32767 * 0.7)
        frames += struct.pack("<h", max(-32767, min(32767, v)))
    with wave.open(sys.argv[1], "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(bytes(frames))


if __name__ == "__main__":
    main()
