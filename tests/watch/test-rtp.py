#!/usr/bin/python3
"""RTP streams from another process (gst-launch-1.0 senders, L16 and
OPUS): a 997 Hz sine at -20 dBFS in both channels reads -20 LUFS; the
L16 sender killed -> its stream is down and the down alarm raised; the
sender started again -> the stream recovers and the alarm clears, without
restarting the service; the other streams are unaffected throughout."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, free_port, log, spawn,
                       skip_without_device, wait_for)

DOWN_HOLD = 2


def sender(port, encoding, name):
    args = ["gst-launch-1.0", "-q", "audiotestsrc", "is-live=true",
            "freq=997", "volume=0.1", "!"]
    if encoding == "L16":
        args += ["audio/x-raw,format=S16BE,rate=48000,channels=2", "!",
                 "rtpL16pay", "pt=96"]
    else:
        args += ["audio/x-raw,rate=48000,channels=2", "!", "opusenc",
                 "bitrate=128000", "!", "rtpopuspay", "pt=96"]
    args += ["!", "udpsink", "host=127.0.0.1", f"port={port}"]
    return spawn(args, name + ".log")


def by_name(svc):
    return {s["name"]: s for s in svc.streams()}


def main():
    p16, popus = free_port(), free_port()
    config = f"""
[service]
listen=127.0.0.1:@PORT@
restart-max=2

[defaults]
down-hold={DOWN_HOLD}
alarms=down;silence
silence-hold=2

[stream rtp-l16]
source=rtp://127.0.0.1:{p16}
rtp-encoding=L16
rate=48000
channels=2
rtp-latency=100

[stream rtp-opus]
source=rtp://127.0.0.1:{popus}
rtp-encoding=OPUS
rtp-latency=100

[stream local]
source=test:
rate=16000
"""
    s16 = sender(p16, "L16", "send-l16")
    sopus = sender(popus, "OPUS", "send-opus")
    svc = Service(config)
    try:
        svc.wait_ready(3, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    pid = svc.proc.pid

    def settled():
        s = by_name(svc)["rtp-l16"]
        return s["shortterm_lufs"] is not None and \
            abs(s["shortterm_lufs"] + 20) < 0.1
    wait_for("rtp-l16 short-term at -20 LUFS", settled, 20)
    s = by_name(svc)
    check(abs(s["rtp-l16"]["momentary_lufs"] + 20) <= 0.1,
          f"rtp-l16: momentary {s['rtp-l16']['momentary_lufs']} LUFS")
    check(abs(s["rtp-l16"]["dominant_hz"] - 997) < 0.5,
          f"rtp-l16: dominant {s['rtp-l16']['dominant_hz']} Hz")
    wait_for("rtp-opus short-term near -20 LUFS", lambda: abs(
        (by_name(svc)["rtp-opus"]["shortterm_lufs"] or 0) + 20) < 0.5, 20)
    check(True, "rtp-opus: short-term within 0.5 LU of -20 LUFS")

    # the L16 sender killed
    s16.kill()
    s16.wait()
    t_kill = time.monotonic()
    wait_for("rtp-l16 down alarm",
             lambda: by_name(svc)["rtp-l16"]["alarms"]["down"], 15, 0.2)
    dt = time.monotonic() - t_kill
    log(f"down alarm {dt:.1f} s after the sender was killed")
    check(DOWN_HOLD - 0.5 <= dt <= DOWN_HOLD + 2.5,
          f"the down alarm within the down-hold ({dt:.1f} s)")
    s = by_name(svc)
    check(not s["rtp-l16"]["up"], "rtp-l16 reads down")
    check(s["local"]["up"] and s["rtp-opus"]["up"], "the others stay up")
    time.sleep(3)  # a few restarts with backoff while the sender is away

    # the sender back: the stream recovers, the alarm clears
    s16 = sender(p16, "L16", "send-l16-2")
    t_back = time.monotonic()
    wait_for("rtp-l16 up again", lambda: by_name(svc)["rtp-l16"]["up"],
             20, 0.2)
    wait_for("rtp-l16 down alarm cleared",
             lambda: not by_name(svc)["rtp-l16"]["alarms"]["down"], 10, 0.2)
    log(f"recovered {time.monotonic() - t_back:.1f} s after the sender "
        "came back")
    wait_for("rtp-l16 short-term at -20 LUFS again", settled, 20)
    check(svc.proc.poll() is None and svc.proc.pid == pid,
          "the service ran on throughout")
    s = by_name(svc)
    check(s["rtp-l16"]["restarts"] >= 1,
          f"rtp-l16's source restarted ({s['rtp-l16']['restarts']})")
    check(s["local"]["restarts"] == 0 and s["rtp-opus"]["restarts"] == 0,
          "the other sources never restarted")
    check(not s["local"]["alarms"]["down"]
          and not s["rtp-opus"]["alarms"]["down"], "no other down alarm")
    log_text = svc.log()
    check("alarm down raised" in log_text and "alarm down cleared" in
          log_text, "the log tells the alarm's raise and clear")
    check(svc.stop() == 0, "SIGTERM stops the service")
    sopus.kill()
    s16.kill()
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
