#!/usr/bin/env python3
"""Runs examples/spectrum-app (a program written for GStreamer's spectrum)
once with `spectrum` and once with only the element name changed to
`gpuspectrum`, and compares what it prints: the same messages, end times
and loudest bands, levels within 0.01 dB.

    check-spectrum-app.py SPECTRUM_APP
"""
import subprocess
import sys


def run(app, element):
    out = subprocess.run([app, "--element", element], capture_output=True,
                         text=True, timeout=240)
    if out.returncode != 0:
        sys.exit("%s with %s failed (%d): %s" % (app, element, out.returncode,
                                                 out.stderr))
    rows = []
    for line in out.stdout.splitlines():
        f = line.split()
        if f and f[0] == "message":
            rows.append(dict(zip(f[0::2], f[1::2])))
    return rows


def main():
    app = sys.argv[1]
    ref, got = run(app, "spectrum"), run(app, "gpuspectrum")
    if not ref:
        sys.exit("spectrum posted nothing")
    if len(got) != len(ref):
        sys.exit("%d messages with gpuspectrum, %d with spectrum"
                 % (len(got), len(ref)))
    worst = 0.0
    for a, b in zip(ref, got):
        for key in ("endtime", "band"):
            if a[key] != b[key]:
                sys.exit("message %s: %s %s with spectrum, %s with gpuspectrum"
                         % (a["message"], key, a[key], b[key]))
        for key in ("magnitude", "below", "above"):
            if a[key] == "nan" and b[key] == "nan":
                continue            # (no neighbour at the spectrum's edge)
            d = abs(float(a[key]) - float(b[key]))
            if not d <= 0.01:       # (a NaN on one side fails too)
                sys.exit("message %s: %s %s dB with spectrum, %s with "
                         "gpuspectrum" % (a["message"], key, a[key], b[key]))
            worst = max(worst, d)
    print("%d messages alike; levels within %.5f dB" % (len(ref), worst))


if __name__ == "__main__":
    main()
