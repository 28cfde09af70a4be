#!/usr/bin/python3
"""SIGHUP while a scraper polls /metrics every 50 ms: streams added,
removed and changed as the file says, the others untouched (their start
time and source kept, never missing from a scrape); a bad file on SIGHUP
is refused with the group and key named, and the service runs on with
what it had."""
import os
import signal
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, log, promtool_check,
                       skip_without_device, wait_for)


def stream(name, freq):
    return (f"[stream {name}]\nsource=test:\nrate=16000\nchannels=1\n"
            f"test-freq={freq}\nalarms=down\n")


HEAD = "[service]\nlisten=127.0.0.1:@PORT@\n"
FIRST = HEAD + stream("keep", 300) + stream("drop", 400) + \
    stream("change", 500)
SECOND = HEAD + stream("keep", 300) + stream("change", 600) + \
    stream("new", 700)
BAD = SECOND + "[stream broken]\nsource=test:\ntest-freq=-5\n"


class Scraper(threading.Thread):
    def __init__(self, url):
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.scrapes = 0
        self.errors = []
        self.keep_missing = 0
        self.last = ""

    def run(self):
        while not self.stop.is_set():
            try:
                with urllib.request.urlopen(self.url, timeout=5) as r:
                    text = r.read().decode()
                    if r.status != 200:
                        self.errors.append(r.status)
            except OSError as e:
                self.errors.append(repr(e))
                continue
            self.scrapes += 1
            self.last = text
            if 'gpufft_stream_up{stream="keep"} 1' not in text:
                self.keep_missing += 1
            time.sleep(0.05)


def starts(svc):
    return {s["name"]: s["start_time_us"] for s in svc.streams()}


def main():
    svc = Service(FIRST)
    try:
        svc.wait_ready(3, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    before = starts(svc)
    scraper = Scraper(svc.url + "/metrics")
    scraper.start()
    time.sleep(1)

    svc.write_config(SECOND)
    svc.proc.send_signal(signal.SIGHUP)
    wait_for("the new set of streams",
             lambda: sorted(starts(svc)) == ["change", "keep", "new"], 10)
    svc.wait_ready(3, timeout=30)
    after = starts(svc)
    check(after["keep"] == before["keep"], "'keep' untouched by the reload")
    check(after["change"] != before["change"], "'change' restarted")
    s = {x["name"]: x for x in svc.streams()}
    wait_for("'change' at its new frequency", lambda: abs(
        ({x["name"]: x for x in svc.streams()}["change"]["dominant_hz"]
         or 0) - 600) < 1, 10)
    check(abs(s["keep"]["dominant_hz"] - 300) < 1, "'keep' still at 300 Hz")
    check("3 streams (1 added, 1 changed, 1 removed)" in svc.log(),
          "the log counts what the reload did")

    # a bad file: refused, naming the group and key; nothing changes
    svc.write_config(BAD)
    svc.proc.send_signal(signal.SIGHUP)
    wait_for("the refusal in the log",
             lambda: "reload refused" in svc.log(), 10)
    line = [ln for ln in svc.log().splitlines() if "reload refused" in ln][0]
    check("[stream broken] test-freq" in line, f"it names them: {line}")
    time.sleep(1.5)
    check(starts(svc) == after, "the streams run on as they were")

    scraper.stop.set()
    scraper.join(10)
    log(f"{scraper.scrapes} scrapes during the reloads")
    check(scraper.scrapes >= 20, "the scraper was served throughout")
    check(not scraper.errors, f"no scrape failed ({scraper.errors[:3]})")
    check(scraper.keep_missing == 0, "'keep' was up in every scrape")
    rc, out = promtool_check(scraper.last)
    check(rc == 0, "the last scrape passes promtool")
    check('stream="drop"' not in scraper.last, "'drop' gone from /metrics")
    check(svc.stop() == 0, "SIGTERM stops the service")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
