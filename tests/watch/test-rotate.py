#!/usr/bin/python3
"""gpufft-watch's files under logrotate's default (create) mode: the
alarm events file and a loudness log renamed away, then SIGHUP: the next
events and lines go to new files at the configured paths, none to the
renamed ones (before, they went on into the renamed files for ever, and
into deleted ones once rotation removed them)."""
import glob
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, log, skip_without_device,
                       tmp_path, wait_for)


def lines(path):
    try:
        with open(path) as f:
            return [x for x in f.read().splitlines() if x]
    except FileNotFoundError:
        return []


def main():
    events = tmp_path("events.jsonl")
    logdir = tmp_path("loudness")
    # a sound that stops and starts every 2 s: a silence alarm raised and
    # cleared every 2 s
    svc = Service("[service]\nlisten=127.0.0.1:@PORT@\n"
                  f"events={events}\nlog-dir={logdir}\n"
                  "[stream gated]\nsource=test:\nrate=16000\nchannels=1\n"
                  "test-on=2\ntest-off=2\nsilence-hold=0\n"
                  "alarms=silence\n")
    try:
        svc.wait_ready(1, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    wait_for("an event in the file", lambda: lines(events), 20)
    logs = glob.glob(os.path.join(logdir, "gated-*.csv"))
    check(len(logs) == 1, f"one loudness log ({logs})")

    os.rename(events, events + ".1")
    os.rename(logs[0], logs[0] + ".1")
    svc.proc.send_signal(signal.SIGHUP)
    wait_for("the reload", lambda: svc.log().count("streams (") == 2, 10)
    before = len(lines(events + ".1"))
    wait_for("an event in a new file at the path",
             lambda: lines(events), 20)
    e = json.loads(lines(events)[0])
    check(e["stream"] == "gated", "the new file holds whole events")
    check(len(lines(events + ".1")) == before,
          "no event went to the renamed file after SIGHUP")
    time.sleep(1)
    rc = svc.stop()
    check(rc == 0, "SIGTERM: exit 0")
    check(len(lines(logs[0])) >= 2,
          f"the loudness log goes on in a new file ({len(lines(logs[0]))} "
          f"lines with its header)")
    renamed = lines(logs[0] + ".1")
    check(all(ln.startswith("time,") or ln < lines(logs[0])[1]
              for ln in renamed),
          "the renamed log holds only lines from before the SIGHUP")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
