#!/usr/bin/python3
"""gpufft-watch's outputs beside HTTP, from the running service: MQTT to a
real mosquitto broker (read back with mosquitto_sub: each stream's
retained reading, a silence alarm raised and cleared as QoS 1 events, the
service's online status), the alarm events as JSON lines in a file, and
the per-stream loudness log (CSV, one line a second), flushed by SIGTERM:
after the stop, each stream's file holds a line for about every second it
ran, the sine's at -20 LUFS momentary. A stream removed by SIGHUP leaves
nothing behind: its log file written to its last reading and closed at
once, its retained reading cleared from the broker."""
import csv
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (SKIP, Service, check, cleanup, fail, free_port, log,
                       skip_without_device, spawn, tmp_path, wait_for)

HOLD = 2
EXTRA = "[stream extra]\nsource=test:\nalarms=none\n"


def mqtt_read(port, topic, count, timeout, retained_only=False):
    """count messages of topic (wildcards allowed) as (topic, payload);
    retained_only: the retained messages the broker holds, up to the first
    live one"""
    r = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port),
                        "-t", topic, "-C", str(count), "-W", str(timeout),
                        "-v", "-q", "1"]
                       + (["--retained-only"] if retained_only else []),
                       capture_output=True, text=True, timeout=timeout + 5)
    out = []
    for line in r.stdout.splitlines():
        t, _, payload = line.partition(" ")
        out.append((t, payload))
    return out


def main():
    broker = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.path.exists(broker) or shutil.which("mosquitto_sub") is None:
        log("SKIP: mosquitto or mosquitto_sub is not installed")
        return SKIP
    mport = free_port()
    with open(tmp_path("mosquitto.conf"), "w") as f:
        f.write(f"listener {mport} 127.0.0.1\nallow_anonymous true\n")
    spawn([broker, "-c", tmp_path("mosquitto.conf")], "mosquitto.log")
    wait_for("the broker", lambda: subprocess.run(
        ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(mport), "-t", "x",
         "-m", "x"], capture_output=True).returncode == 0, 20)

    logdir = tmp_path("loudness")
    events = tmp_path("events.jsonl")
    config = f"""
[service]
listen=127.0.0.1:@PORT@
log-dir={logdir}
events={events}
mqtt-host=127.0.0.1
mqtt-port={mport}
mqtt-topic=gpufft/test

[defaults]
silence-hold={HOLD}
alarms=silence;down

[stream sine]
source=test:

[stream gated]
source=test:
test-on=4
test-off=5
""" + EXTRA
    svc = Service(config)
    try:
        svc.wait_ready(3, timeout=120)
    except SystemExit:
        skip_without_device(svc)
        raise
    skip_without_device(svc)

    # the retained readings, and the service online
    got = mqtt_read(mport, "gpufft/test/+/reading", 3, 20)
    check(sorted(t for t, _ in got) == ["gpufft/test/extra/reading",
                                        "gpufft/test/gated/reading",
                                        "gpufft/test/sine/reading"],
          f"a reading of each stream on MQTT ({[t for t, _ in got]})")
    reading = dict(got)["gpufft/test/sine/reading"]
    check(json.loads(reading)["stream"] == "sine", "the reading's JSON")
    status = mqtt_read(mport, "gpufft/test/status", 1, 10)
    check(status and status[0][1] == "online", f"status online ({status})")

    # the gated stream's silence: raised, then cleared, as QoS 1 events
    ev = mqtt_read(mport, "gpufft/test/gated/event", 2, 40)
    kinds = [(json.loads(p)["alarm"], json.loads(p)["state"]) for _, p in ev]
    check(("silence", "raised") in kinds and ("silence", "cleared") in kinds,
          f"the silence alarm raised and cleared on MQTT ({kinds})")

    # 'extra' removed by a reload: its log written out and closed, its
    # retained reading gone from the broker
    extra = glob.glob(os.path.join(logdir, "extra-*.csv"))
    check(len(extra) == 1, f"extra: one loudness log file ({extra})")
    svc.write_config(config.replace(EXTRA, ""))
    removed_us = time.time() * 1e6
    svc.proc.send_signal(signal.SIGHUP)
    wait_for("'extra' removed",
             lambda: sorted(s["name"] for s in svc.streams())
             == ["gated", "sine"], 10)

    def open_files():
        d = f"/proc/{svc.proc.pid}/fd"
        return [os.readlink(os.path.join(d, f)) for f in os.listdir(d)]
    wait_for("the removed stream's log closed",
             lambda: extra[0] not in open_files(), 5)
    with open(extra[0]) as f:
        rows = list(csv.reader(f))
    last = rows[-1][0]
    last_us = time.mktime(time.strptime(last[:19], "%Y-%m-%dT%H:%M:%S")) \
        * 1e6 - time.timezone * 1e6
    check(removed_us - last_us < 3e6,
          f"extra: its log holds its lines to the removal ({last})")
    # (the clear is a QoS 1 message the broker takes in its own time)
    seen = []

    def cleared():
        got = mqtt_read(mport, "gpufft/test/+/reading", 3, 2, True)
        seen.append(sorted(t for t, _ in got))
        return seen[-1] == ["gpufft/test/gated/reading",
                            "gpufft/test/sine/reading"]
    wait_for("extra's retained reading cleared", cleared, 10, 0.2)
    log(f"retained readings: {seen}")

    # a second of readings more, then SIGTERM: the logs flushed
    time.sleep(2)
    rc = svc.stop()
    check(rc == 0, f"SIGTERM: exit 0 ({rc})")
    with open(events) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    check(any(e["stream"] == "gated" and e["alarm"] == "silence"
              and e["state"] == "raised" for e in lines),
          f"the events file holds the raised silence ({len(lines)} events)")
    for name in ("sine", "gated"):
        files = glob.glob(os.path.join(logdir, name + "-*.csv"))
        check(len(files) == 1, f"{name}: one loudness log file ({files})")
        with open(files[0]) as f:
            rows = list(csv.reader(f))
        check(len(rows) >= 8, f"{name}: a line a second ({len(rows) - 1} "
              f"lines), the last ones flushed by the stop")
        if name == "sine":
            m = float(rows[-1][1])
            check(abs(m + 20.0) < 0.2, f"sine: momentary -20 LUFS ({m})")
    cleanup()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as e:
        fail(f"{type(e).__name__}: {e}")
