#!/usr/bin/env python3
"""A test (meson suite 'bench'): bench-kernel reports the kernel-only GPU
time and the whole-submission time, and they agree.

Runs bench-kernel (argv[1]) on two small sizes and checks each @kernel line:
the results are right (ok=1), the FFT and reduce kernels' times are both
positive and add up to the GPU time, the GPU time of the kernels lies within
the host's time of the rerun's whole submission (submit to fence), every
trial was reported and the median is one of them."""
import subprocess
import sys


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def main():
    exe = sys.argv[1]
    cmd = [exe, "--small", "--mib", "2", "--sizes", "256,4096", "--repeats",
           "4", "--trials", "3", "--warmup-ms", "20", "--no-copy"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=600)
    print(out.stdout)
    lines = [l for l in out.stdout.splitlines() if l.startswith("@kernel ")]
    failures = []
    if out.returncode != 0:
        failures.append("bench-kernel exited with %d" % out.returncode)
    if len(lines) != 2:
        failures.append("expected 2 @kernel lines, got %d" % len(lines))
    for line in lines:
        f = fields(line)
        n = f.get("n", "?")
        gpu = float(f["gpu_ns"])
        fft = float(f["fft_ns"])
        red = float(f["reduce_ns"])
        host = float(f["host_ns"])
        trials = [float(t) for t in f["trial_ns"].split(",")]
        if f["ok"] != "1":
            failures.append("N=%s: wrong results" % n)
        if not (fft > 0 and red > 0 and gpu > 0):
            failures.append("N=%s: kernel times missing (fft %g, reduce %g, "
                            "gpu %g)" % (n, fft, red, gpu))
        if abs(fft + red - gpu) > 2:
            failures.append("N=%s: fft %g + reduce %g != gpu %g"
                            % (n, fft, red, gpu))
        if not gpu <= host:
            failures.append("N=%s: kernels %g ns > whole submission %g ns"
                            % (n, gpu, host))
        if int(f["trials"]) != 3 or len(trials) != 3:
            failures.append("N=%s: %s trials reported, 3 asked"
                            % (n, f["trials"]))
        if gpu not in trials:
            failures.append("N=%s: the median %g is none of the trials %s"
                            % (n, gpu, trials))
        spread = (max(trials) - min(trials)) / sorted(trials)[1]
        if abs(spread - float(f["spread"])) > 1e-3:
            failures.append("N=%s: spread %s, trials say %.4f"
                            % (n, f["spread"], spread))
    for msg in failures:
        print("FAIL: " + msg)
    print("FAILED" if failures else "PASSED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
