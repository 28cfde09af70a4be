#!/usr/bin/python3
"""gpufft-watch's alarm events on standard output (events=-), a pipe
whose reader stalls: the service never waits on it. With the pipe full,
the endpoints answer at once, the readings go on, and the dropped events
are logged once per stall and counted in /metrics; with the reader back, events flow again; a
second stall is logged again; SIGTERM stops the service while the pipe is
full."""
import fcntl
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, http_get, log,
                       skip_without_device, wait_for)

STALL = "the alarm events: alarm event log -"


def fill(fd):
    """fills the pipe behind fd (the test's own write end) to the brim"""
    fl = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, fl | os.O_NONBLOCK)
    for size in (65536, 4096, 1):
        try:
            while True:
                os.write(fd, b"x" * size)
        except BlockingIOError:
            pass
    fcntl.fcntl(fd, fcntl.F_SETFL, fl)


def drain(fd):
    """what the pipe holds, the test's filler left out"""
    out = b""
    try:
        while True:
            out += os.read(fd, 65536)
    except BlockingIOError:
        pass
    return out.replace(b"x", b"").decode()


def main():
    rd, wr = os.pipe()
    os.set_blocking(rd, False)
    # a sound that stops and starts every 2 s: a silence alarm raised and
    # cleared every 2 s
    svc = Service("[service]\nlisten=127.0.0.1:@PORT@\nevents=-\n"
                  "[stream gated]\nsource=test:\nrate=16000\nchannels=1\n"
                  "test-on=2\ntest-off=2\nsilence-hold=0\n"
                  "alarms=silence\n", stdout=wr)
    try:
        svc.wait_ready(1, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    wait_for("an event on standard output",
             lambda: '"alarm":"silence"' in drain(rd), 20)

    fill(wr)
    wait_for("the stall logged", lambda: svc.log().count(STALL) == 1, 20)
    t0 = time.monotonic()
    status, _, body = http_get(svc.url + "/healthz", timeout=3)
    check(status == 200 and time.monotonic() - t0 < 1,
          f"/healthz answers at once while the pipe is full ({body.strip()})")
    t1 = svc.streams()[0]["time_us"]
    time.sleep(2.5)
    check(svc.streams()[0]["time_us"] - t1 >= 2e6,
          "the readings go on while the pipe is full")
    check(svc.log().count(STALL) == 1, "the stall is logged once")
    metrics = http_get(svc.url + "/metrics")[2]
    dropped = [float(ln.split()[-1]) for ln in metrics.splitlines()
               if ln.startswith('gpufft_output_dropped_total{output="events"}')]
    check(dropped and dropped[0] >= 1,
          f"/metrics counts the dropped events ({dropped})")
    check('gpufft_output_dropped_total{output="mqtt"}' not in metrics,
          "an output not configured has no count")

    got = drain(rd)
    lines = wait_for("events again with the reader back",
                     lambda: [json.loads(x) for x in
                              (got + drain(rd)).splitlines() if x], 20)
    check(all(e["stream"] == "gated" for e in lines),
          f"whole event lines ({len(lines)})")

    fill(wr)
    wait_for("the second stall logged",
             lambda: svc.log().count(STALL) == 2, 20)
    log(svc.log()[-600:])
    t0 = time.monotonic()
    check(svc.stop() == 0 and time.monotonic() - t0 < 10,
          "SIGTERM stops the service with the pipe full")
    os.close(rd)
    os.close(wr)
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
