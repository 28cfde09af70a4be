#!/usr/bin/python3
"""gpufft-watch with a source that hangs while it starts: a pulse: stream
whose server (PULSE_SERVER, a socket on 127.0.0.1 that accepts and never
answers) holds pulsesrc's open for its 30 s connect timeout. The other
stream comes up at once, the endpoints answer at once, readings go on
every second, and SIGTERM stops the service within its stop deadline
(5 s) and a margin. Skipped where pulsesrc is not installed."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (SKIP, Service, check, cleanup, fail, http_get, log,
                       skip_without_device, wait_for)


def main():
    inspect = shutil.which("gst-inspect-1.0")
    if inspect is None or subprocess.run(
            [inspect, "--exists", "pulsesrc"]).returncode != 0:
        log("SKIP: pulsesrc is not installed")
        return SKIP
    tarpit = socket.socket()
    tarpit.bind(("127.0.0.1", 0))
    tarpit.listen(16)
    held = []

    def accept():
        while True:
            try:
                held.append(tarpit.accept()[0])
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()

    os.environ["PULSE_SERVER"] = "tcp:127.0.0.1:%d" % tarpit.getsockname()[1]
    svc = Service("[service]\nlisten=127.0.0.1:@PORT@\n"
                  "[stream hung]\nsource=pulse:\n"
                  "[stream a]\nsource=test:\nrate=16000\nchannels=1\n")
    try:
        svc.wait_ready(1, timeout=20)
    except SystemExit:
        skip_without_device(svc)
        raise
    wait_for("pulsesrc connecting to the silent server", lambda: held, 10)
    worst = 0
    t1 = svc.streams()[1]["time_us"]
    for i in range(8):
        t0 = time.monotonic()
        try:
            http_get(svc.url + "/healthz", timeout=3)
        except OSError as e:
            fail(f"/healthz while a source hangs in its start: {e}")
        worst = max(worst, time.monotonic() - t0)
        time.sleep(0.4)
    check(worst < 1, f"/healthz answers at once while a source hangs in its "
          f"start (slowest {worst:.2f} s)")
    s = {x["name"]: x for x in svc.streams()}
    check(s["a"]["up"] and s["a"]["time_us"] - t1 >= 2e6,
          "the other stream is up and read every second")
    check(not s["hung"]["up"], "the hung stream is not up")
    t0 = time.monotonic()
    svc.proc.send_signal(signal.SIGTERM)
    try:
        rc = svc.proc.wait(timeout=12)
    except subprocess.TimeoutExpired:
        fail("SIGTERM: the service did not stop within 12 s")
    check(rc == 0, f"SIGTERM: exit 0 ({rc}) in {time.monotonic() - t0:.1f} s")
    tarpit.close()
    cleanup()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        cleanup()
