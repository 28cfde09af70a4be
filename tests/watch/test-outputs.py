#!/usr/bin/python3
"""gpufft-watch's outputs beside HTTP, from the running service: MQTT to a
real mosquitto broker (read back with mosquitto_sub: each stream's
retained reading, a silence alarm raised and cleared as QoS 1 events, the
service's online status), the alarm events as JSON lines in a file, and
the per-stream loudness log (CSV, one line a second), flushed by SIGTERM:
after the stop, each stream's file holds a line for about every second it
ran, the sine's at -20 LUFS momentary."""
import csv
import glob
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (SKIP, Service, check, cleanup, fail, free_port, log,
                       skip_without_device, spawn, tmp_path, wait_for)

HOLD = 2


def mqtt_read(port, topic, count, timeout):
    """count messages of topic (wildcards allowed) as (topic, payload)"""
    r = subprocess.run(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(port),
                        "-t", topic, "-C", str(count), "-W", str(timeout),
                        "-v", "-q", "1"],
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
    svc = Service(f"""
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
""")
    try:
        svc.wait_ready(2, timeout=120)
    except SystemExit:
        skip_without_device(svc)
        raise
    skip_without_device(svc)

    # the retained readings, and the service online
    got = mqtt_read(mport, "gpufft/test/+/reading", 2, 20)
    check(sorted(t for t, _ in got) == ["gpufft/test/gated/reading",
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
