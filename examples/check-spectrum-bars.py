#!/usr/bin/env python3
"""Runs examples/spectrum-bars (GStreamer's demo-audiotest.c without its
window) once with `spectrum` and once with only the element name changed
to `gpuspectrum` (after a first run of it that warms the driver's shader
cache), and compares the redraws: the same count, the same number of bars in
each, every bar's height within 0.015 pixels (0.01 dB at 1.5 pixels per dB)
where either reads above the threshold's floor + 1 dB.

    check-spectrum-bars.py SPECTRUM_BARS
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
        if f and f[0] == "redraw":
            rows.append((int(f[3]), [float(v) for v in f[4:]]))
    return rows


def main():
    app = sys.argv[1]
    # (a first run makes the driver compile the kernels of the three
    # geometries, 256, 300 and 301 bands, into its shader cache: on a cold
    # cache the first message comes after the compiler, and the demo draws
    # it at the scale the window has by then)
    run(app, "gpuspectrum")
    ref, got = run(app, "spectrum"), run(app, "gpuspectrum")
    if len(ref) < 25:
        sys.exit("spectrum drew %d times only" % len(ref))
    if len(got) != len(ref):
        sys.exit("%d redraws with gpuspectrum, %d with spectrum"
                 % (len(got), len(ref)))
    worst, compared = 0.0, 0
    for i, ((na, a), (nb, b)) in enumerate(zip(ref, got)):
        if na != nb or len(a) != na or len(b) != nb:
            sys.exit("redraw %d: %d bars with spectrum, %d with gpuspectrum"
                     % (i, na, nb))
        # (the floor: -80 dB; the window's scale: 64 or 96 pixels high,
        # 1 or 1.5 pixels per dB)
        scale = 1.5 if na != 256 else 1.0
        height = 96 if na != 256 else 64
        floor = height - 79 * scale
        for k, (x, y) in enumerate(zip(a, b)):
            if x <= floor and y <= floor:
                continue
            compared += 1
            worst = max(worst, abs(x - y))
            if not abs(x - y) <= 0.015:
                sys.exit("redraw %d bar %d: %.4f pixels with spectrum, %.4f "
                         "with gpuspectrum" % (i, k, x, y))
    if compared < 1000:
        sys.exit("only %d bars above the floor" % compared)
    print("%d redraws alike (%s bars); %d bars above the floor within %.4f "
          "pixels" % (len(ref), sorted({n for n, _ in ref}), compared, worst))


if __name__ == "__main__":
    main()
