#!/usr/bin/python3
"""gpufft-watch's refusals and failures: bad config values, unknown
groups and keys, a missing file, a bad --shard (exit 2, one error naming
the group and the key, nothing listening); the port in use (exit 1);
unreachable sources (the service runs, the stream is down with its error
logged and its source retried, the other streams unaffected; the log
names a stream in UTF-8 whatever the locale's character set); --help
and --check."""
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (WATCH, Service, check, cleanup, free_port, log,
                       skip_without_device, tmp_path, wait_for)


# a name beyond ASCII
NOFILE = "nofile \u20ac\u00e9"


def run(args, config=None, timeout=20, env=None):
    if config is not None:
        path = tmp_path("bad.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write(config.replace("@PORT@", str(free_port())))
        args = ["--config", path] + args
    r = subprocess.run([WATCH] + args, capture_output=True, timeout=timeout,
                       env=env)
    return r.returncode, (r.stdout + r.stderr).decode("utf-8", "replace")


def refused(config, needles, what, env=None):
    port = free_port()
    rc, out = run([], config.replace("@PORT@", str(port)), env=env)
    check(rc == 2, f"{what}: exit 2 ({rc})")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    check(len(lines) == 1, f"{what}: one line of error: {out.strip()}")
    for n in needles:
        check(n in out, f"{what}: names '{n}'")
    with socket.socket() as s:
        check(s.connect_ex(("127.0.0.1", port)) != 0,
              f"{what}: nothing listens")


def main():
    base = "[service]\nlisten=127.0.0.1:@PORT@\n"
    ok = "[stream a]\nsource=test:\nrate=16000\n"
    refused(base + ok + "[stream b]\nsource=test:\ncolour=red\n",
            ["[stream b]", "colour", "unknown key"], "an unknown key")
    refused(base + ok + "[stream b]\nsource=test:\nsilence-hold=-3\n",
            ["[stream b]", "silence-hold", "-3"], "a negative hold")
    refused(base + "[defaults]\nloudness-target=loud\n" + ok,
            ["[defaults]", "loudness-target", "loud"], "not a number")
    refused(base + ok + f"[stream {NOFILE}]\nsource=test:\ncolour=red\n",
            [f"[stream {NOFILE}]", "colour"], "a name beyond ASCII, C locale",
            env=dict(os.environ, LC_ALL="C"))
    refused(base + "[streams a]\nsource=test:\n",
            ["[streams a]", "unknown group"], "an unknown group")
    refused(base + "[stream b]\nrate=16000\n",
            ["[stream b]", "source", "missing"], "no source")
    refused(base + "[stream b]\nsource=rtp://127.0.0.1\n",
            ["[stream b]", "source", "rtp://HOST:PORT"], "rtp without port")
    refused("[service]\nlisten=127.0.0.1:99999\n" + ok,
            ["[service]", "listen", "99999"], "a bad port")
    rc, out = run(["--config", tmp_path("none.conf")])
    check(rc == 2 and "none.conf" in out, f"a missing file: 2, {out.strip()}")
    rc, out = run(["--shard", "2/2"], base + ok)
    check(rc == 2 and "--shard" in out, f"a bad shard: 2, {out.strip()}")
    rc, out = run([])
    check(rc == 2 and "--config" in out, "no --config: 2")
    rc, out = run(["--check"], base + ok)
    check(rc == 0 and "1 streams" in out, f"--check: 0, {out.strip()}")
    rc, out = run(["--help"])
    for section in ("SYNOPSIS", "CONFIGURATION", "SHARDS", "ENDPOINTS",
                    "SIGNALS", "EXIT STATUS", "FNV-1a 64"):
        check(rc == 0 and section in out, f"--help has {section}")

    # the port in use
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        rc, out = run([], f"[service]\nlisten=127.0.0.1:{port}\n" + ok)
        check(rc == 1, f"the port in use: exit 1 ({rc})")
        check("listen" in out and str(port) in out and "in use" in out,
              f"the port in use: {out.strip()}")

    # unreachable sources: the service runs and retries them (in the C
    # locale, whose character set is ASCII)
    closed = free_port()
    lc_all = os.environ.get("LC_ALL")
    os.environ["LC_ALL"] = "C"
    svc = Service(base + "restart-max=2\n" + ok +
                  "[defaults]\ndown-hold=2\nalarms=down\n"
                  f"[stream {NOFILE}]\nsource=file:///nonexistent/x.wav\n"
                  f"[stream nohttp]\nsource=http://127.0.0.1:{closed}/x\n",
                  full_stacks=True)
    if lc_all is None:
        del os.environ["LC_ALL"]
    else:
        os.environ["LC_ALL"] = lc_all
    try:
        svc.wait_ready(1, timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise

    def by_name():
        return {s["name"]: s for s in svc.streams()}
    wait_for("both unreachable streams retried",
             lambda: all(by_name()[n]["restarts"] >= 2
                         for n in (NOFILE, "nohttp")), 30)
    wait_for("down alarms", lambda: all(by_name()[n]["alarms"]["down"]
                                         for n in (NOFILE, "nohttp")), 10)
    s = by_name()
    check(not s[NOFILE]["up"] and not s["nohttp"]["up"],
          "the unreachable streams read down")
    check(s["a"]["up"] and s["a"]["restarts"] == 0
          and not s["a"]["alarms"]["down"], "the good stream is unaffected")
    text = svc.log()
    check(f"stream '{NOFILE}': error" in text and "restarting in" in text,
          "the file's error is logged with its stream")
    check("stream 'nohttp': error" in text, "the HTTP error is logged")
    check(svc.stop() == 0, "SIGTERM stops the service: 0")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
