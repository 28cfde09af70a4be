#!/usr/bin/python3
"""Two gpufft-watch shards (--shard 0/2 and 1/2) of one config, scraped by
one Prometheus: every stream appears exactly once, on the shard that
FNV-1a 64 of its name (computed here, independently) gives."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Prometheus, Service, check, cleanup, log,
                       skip_without_device, wait_for)

NAMES = [f"studio-{i}" for i in range(8)]


def fnv1a64(name):
    h = 14695981039346656037
    for b in name.encode("utf-8"):
        h ^= b
        h = (h * 1099511628211) % (1 << 64)
    return h


def main():
    config = "[service]\nlisten=127.0.0.1:@PORT@\n"
    for i, n in enumerate(NAMES):
        config += (f"[stream {n}]\nsource=test:\nrate=16000\nchannels=1\n"
                   f"test-freq={200 + 100 * i}\nalarms=down\n")
    shards = [Service(config, name=f"shard{i}", shard=f"{i}/2")
              for i in range(2)]
    expect = [sorted(n for n in NAMES if fnv1a64(n) % 2 == i)
              for i in range(2)]
    log("expected split:", expect)
    check(all(expect), "the names fall on both shards")
    for i, svc in enumerate(shards):
        try:
            svc.wait_ready(len(expect[i]), timeout=60)
        except SystemExit:
            skip_without_device(svc)
            raise
        got = sorted(s["name"] for s in svc.streams())
        check(got == expect[i], f"shard {i}/2 takes {got}")
    prom = Prometheus([s.port for s in shards])
    wait_for("both targets healthy",
             lambda: prom.targets_up() == ["up", "up"], 30)
    wait_for("8 streams up in Prometheus",
             lambda: prom.value("sum(gpufft_stream_up)") == 8, 30)
    per_stream = prom.query("count by (stream) (gpufft_stream_up)")
    counts = {m["stream"]: v for m, v in per_stream}
    check(sorted(counts) == sorted(NAMES), "every stream appears")
    check(all(v == 1 for v in counts.values()),
          f"every stream appears exactly once ({counts})")
    for m, v in prom.query("gpufft_stream_up"):
        i = int(m["instance"].split(":")[1] == str(shards[1].port))
        check(m["stream"] in expect[i],
              f"{m['stream']} is served by shard {i}")
    for i, svc in enumerate(shards):
        check(svc.stop() == 0, f"shard {i} stops cleanly")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
