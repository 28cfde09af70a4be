#!/usr/bin/python3
"""gpufft-watch when the wall clock steps (an NTP correction, an operator
setting the date; the service's wall clock shifted by a preload library,
watch-clockshift): an hour back, the readings go on every second (their
times an hour back), a stream stays up; two hours forward, no stream is
taken for down, restarted or alarmed, and a silence 30 s from its alarm is
still not alarmed (the hold is not taken as passed). Holds and schedules
count on the monotonic clock; only the readings' times follow the wall
clock."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (SKIP, Service, check, cleanup, log,
                       skip_without_device, tmp_path, wait_for)


def main():
    preload = os.environ.get("WATCH_CLOCKSHIFT")
    if not preload or "ASAN_OPTIONS" in os.environ:
        log("SKIP: the clock-shifting preload is not built, or the service "
            "runs under AddressSanitizer (which must come first)")
        return SKIP
    shift = tmp_path("clock-shift")

    def set_shift(seconds):
        with open(shift + ".new", "w") as f:
            f.write(f"{seconds}\n")
        os.replace(shift + ".new", shift)

    set_shift(0)
    os.environ["WATCH_CLOCK_SHIFT_FILE"] = shift
    os.environ["LD_PRELOAD"] = preload
    try:
        svc = Service("[service]\nlisten=127.0.0.1:@PORT@\n"
                      "[defaults]\ndown-hold=2\nalarms=down;silence\n"
                      "[stream a]\nsource=test:\nrate=16000\nchannels=1\n"
                      "[stream quiet]\nsource=test:\nrate=16000\n"
                      "channels=1\ntest-wave=silence\nsilence-hold=30\n")
    finally:
        del os.environ["LD_PRELOAD"]
    try:
        svc.wait_ready(2, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise

    def stream(name="a"):
        return {s["name"]: s for s in svc.streams()}[name]

    t0 = stream()["time_us"]
    set_shift(-3600)
    wait_for("a reading from an hour back",
             lambda: stream()["time_us"] < t0 - 3500e6, 5)
    t1 = stream()["time_us"]
    time.sleep(3.2)
    s = stream()
    check(s["time_us"] - t1 >= 2.5e6,
          f"the readings go on after the clock stepped back an hour "
          f"({(s['time_us'] - t1) / 1e6:.1f} s of readings in 3.2 s)")
    check(s["up"] and s["restarts"] == 0, "the stream stays up")

    # the silence measured (its hold running) before the step
    wait_for("the silence measured", lambda: stream("quiet")["rms_dbfs"], 10)
    set_shift(7200)
    wait_for("a reading from two hours on",
             lambda: stream()["time_us"] > t0 + 7000e6, 5)
    time.sleep(2.5)
    s = stream()
    check(s["up"] and s["restarts"] == 0 and not any(s["alarms"].values()),
          f"a step two hours forward takes no stream for down "
          f"(up {s['up']}, restarts {s['restarts']}, alarms {s['alarms']})")
    check("no audio" not in svc.log(), "nothing logged as missing audio")
    q = stream("quiet")
    check(q["up"] and not q["alarms"]["silence"],
          f"the silence 30 s from its alarm is not alarmed by the step "
          f"({q['alarms']})")
    check(svc.stop() == 0, "SIGTERM stops the service")
    cleanup()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        cleanup()
