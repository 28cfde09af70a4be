#!/usr/bin/python3
"""gpufft-watch's HTTP endpoints under clients that misbehave: 40
connections that send half a request and stop, and 10 that request
/metrics 50 times and never read: a well-behaved client is answered at
once (200) and the readings go on every second; 40 more half requests put
more than 64 in flight: a client gets 503 at once; past the 10 s deadline
every stuck connection is shut, and /metrics answers 200 again. Only GET
and HEAD are served. A closed connection leaves nothing behind: 5000
requests, each on its own connection, grow the service's resident memory
by less than 64 kB (one leaked socket object each grew it by about
220 kB)."""
import json
import os
import socket
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Service, check, cleanup, http_get, log,
                       skip_without_device, wait_for)


def status_of(url, method="GET"):
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=3) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def main():
    svc = Service("[service]\nlisten=127.0.0.1:@PORT@\n"
                  "[stream a]\nsource=test:\nrate=16000\nalarms=down\n")
    try:
        svc.wait_ready(1, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    check(status_of(svc.url + "/metrics", "POST") == 405, "POST: 405")
    check(status_of(svc.url + "/nothing") == 404, "an unknown path: 404")
    check(status_of(svc.url + "/healthz", "HEAD") == 200, "HEAD: 200")

    stuck = []

    def half_requests(n):
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", svc.port))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            stuck.append(s)

    # 50 stuck requests (under the bound of 64): a good client is served
    # at once, and the readings go on
    half_requests(40)
    for i in range(10):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", svc.port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
        stuck.append(s)
    t0 = time.monotonic()
    times = []
    seen = set()
    while time.monotonic() - t0 < 4:
        t = time.monotonic()
        status, _, text = http_get(svc.url + "/api/streams")
        times.append(round(time.monotonic() - t, 3))
        check(status == 200, "a good client: 200")
        reading_us = json.loads(text)["streams"][0]["time_us"]
        seen.add(reading_us)
        age = time.time() - reading_us / 1e6
        check(age < 2.5, f"the readings go on ({age:.1f} s old)")
        time.sleep(0.5)
    log(f"times {times}")
    check(max(times) < 0.5, "a good client is answered at once")
    check(len(seen) >= 3, f"{len(seen)} readings in 4 s")

    # 90 stuck: past the bound, a good client gets 503 at once
    half_requests(40)
    time.sleep(0.5)
    t = time.monotonic()
    st = status_of(svc.url + "/api/streams")
    dt = time.monotonic() - t
    check(st == 503 and dt < 0.5, f"past the bound: {st} in {dt:.3f} s")

    # past the deadline the stuck connections are shut
    def all_closed():
        closed = 0
        for s in stuck:
            s.setblocking(False)
            try:
                while True:
                    d = s.recv(65536)
                    if not d:
                        closed += 1
                        break
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        counts.append(closed)
        return closed >= len(stuck) and closed
    counts = []
    n = wait_for("the stuck connections shut", all_closed, 20, 1)
    log(f"shut: {counts}")
    log(f"{n} connections shut {time.monotonic() - t0:.1f} s after they "
        "stopped")
    check(status_of(svc.url + "/metrics") == 200, "then /metrics: 200")
    s = svc.streams()[0]
    check(s["up"] and s["restarts"] == 0, "the stream ran on untouched")
    for c in stuck:
        c.close()

    # closed connections leave nothing behind (under AddressSanitizer its
    # quarantine grows the memory, and LeakSanitizer checks this instead)
    if "ASAN_OPTIONS" not in os.environ:
        def rss_kb():
            with open(f"/proc/{svc.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        for i in range(500):
            status_of(svc.url + "/healthz")
        r0 = rss_kb()
        for i in range(5000):
            status_of(svc.url + "/healthz")
        r1 = rss_kb()
        log(f"5000 connections: {r0} -> {r1} kB")
        check(r1 - r0 < 64, f"5000 connections grow memory by {r1 - r0} kB")
    check(svc.stop() == 0, "SIGTERM stops the service")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
