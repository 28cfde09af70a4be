"""gpufft-watch's integration tests: the service, Prometheus and senders
as real processes on 127.0.0.1 (stdlib only).

A Service writes its config to a temporary folder, starts gpufft-watch
($GPUFFT_WATCH) and keeps its stderr in a file; a Prometheus scrapes one
or more services every second and answers queries. Every process is
stopped when the test ends, also when it fails."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77
WATCH = os.environ.get("GPUFFT_WATCH", "gpufft-watch")
_procs = []
_tmp = tempfile.mkdtemp(prefix="gpufft-watch-test-")


def log(*a):
    print(*a, flush=True)


def free_port():
    """a TCP and UDP port free on 127.0.0.1 at the time of asking"""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                u.bind(("127.0.0.1", port))
            return port
        except OSError:
            continue


def tmp_path(name):
    return os.path.join(_tmp, name)


def cleanup():
    for p in _procs:
        if p.poll() is None:
            p.kill()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
    shutil.rmtree(_tmp, ignore_errors=True)


def fail(msg):
    log("FAIL:", msg)
    for p in _procs:
        try:
            lines = read_log(p).splitlines()[-40:]
        except OSError:
            continue
        log(f"--- {' '.join(p.args[:3])} (last lines) ---")
        log("\n".join(lines))
    cleanup()
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    log("ok:", msg)


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def wait_for(what, fn, timeout, interval=0.5):
    """fn() until it returns something true; its value, or fail"""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = fn()
        except (OSError, ValueError, KeyError, IndexError) as e:
            last = e
            v = None
        else:
            v = last
        if v:
            return v
        time.sleep(interval)
    fail(f"{what}: not within {timeout} s (last: {last!r})")


def spawn(args, log_name, stdout=None, **kw):
    """stdout: where the standard output goes (default: with stderr to
    the log file)"""
    out = open(tmp_path(log_name), "w")
    p = subprocess.Popen(args, stdout=out if stdout is None else stdout,
                         stderr=out if stdout is not None
                         else subprocess.STDOUT, **kw)
    p.log_path = tmp_path(log_name)
    _procs.append(p)
    return p


def read_log(p):
    with open(p.log_path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Service:
    def __init__(self, config, name="watch", shard=None, port=None,
                 full_stacks=False, stdout=None):
        """full_stacks: under AddressSanitizer, leak stacks unwound
        through GLib (so that tests/lsan.supp can name GStreamer's frames;
        slower, for a service that must); stdout: a file descriptor for
        the service's standard output (default: the log)"""
        self.port = port or free_port()
        self.name = name
        self.config_path = tmp_path(name + ".conf")
        self.write_config(config)
        args = [WATCH, "--config", self.config_path]
        if shard:
            args += ["--shard", shard]
        env = None
        if full_stacks and "ASAN_OPTIONS" in os.environ:
            env = dict(os.environ)
            env["ASAN_OPTIONS"] += ":fast_unwind_on_malloc=0"
        self.proc = spawn(args, name + ".log", stdout=stdout, env=env)
        self.url = f"http://127.0.0.1:{self.port}"

    def write_config(self, config):
        text = config.replace("@PORT@", str(self.port))
        with open(self.config_path, "w") as f:
            f.write(text)

    def log(self):
        return read_log(self.proc)

    def streams(self):
        return json.loads(http_get(self.url + "/api/streams")[2])["streams"]

    def wait_ready(self, n_up, timeout=90):
        def ready():
            if self.proc.poll() is not None:
                fail(f"{self.name} exited ({self.proc.returncode}):\n"
                     + self.log())
            return sum(1 for s in self.streams() if s["up"]) >= n_up
        try:
            wait_for(f"{n_up} streams up on {self.name}", ready, timeout)
        except SystemExit:
            log(self.log())
            raise

    def stop(self, timeout=15):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
            if rc != 0:
                log(f"{self.name} exited {rc}:\n" + self.log()[-6000:])
            return rc
        except subprocess.TimeoutExpired:
            fail(f"{self.name} did not stop within {timeout} s of SIGTERM")


def skip_without_device(service):
    """77 when the analysers say there is no Vulkan loader, driver or
    device (the elements' own words)"""
    text = service.log()
    if any(w in text for w in ("no Vulkan loader", "no Vulkan driver",
                               "no Vulkan device")):
        log("SKIP: no Vulkan device:\n" + text[-2000:])
        cleanup()
        sys.exit(SKIP)


class Prometheus:
    def __init__(self, targets):
        self.port = free_port()
        cfg = tmp_path("prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n"
                    "  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: gpufft\n"
                    "    scrape_interval: 1s\n    scrape_timeout: 900ms\n"
                    "    static_configs:\n      - targets: ["
                    + ", ".join(f"'127.0.0.1:{t}'" for t in targets)
                    + "]\n")
        exe = shutil.which("prometheus") or "/usr/bin/prometheus"
        self.proc = spawn([exe, "--config.file=" + cfg,
                           "--storage.tsdb.path=" + tmp_path("tsdb"),
                           "--web.listen-address=127.0.0.1:%d" % self.port,
                           "--log.level=warn"], "prometheus.log")
        self.url = f"http://127.0.0.1:{self.port}"
        wait_for("prometheus ready",
                 lambda: http_get(self.url + "/-/ready")[0] == 200, 60)

    def query(self, q):
        """[(labels, value)] of an instant query"""
        url = self.url + "/api/v1/query?" + urllib.parse.urlencode(
            {"query": q})
        body = json.loads(http_get(url)[2])
        if body["status"] != "success":
            raise ValueError(body)
        return [(r["metric"], float(r["value"][1]))
                for r in body["data"]["result"]]

    def value(self, q):
        """the single value of an instant query, or None"""
        r = self.query(q)
        return r[0][1] if len(r) == 1 else None

    def targets_up(self):
        url = self.url + "/api/v1/targets"
        body = json.loads(http_get(url)[2])
        return [t["health"] for t in body["data"]["activeTargets"]]


def promtool_check(text):
    exe = shutil.which("promtool") or "/usr/bin/promtool"
    r = subprocess.run([exe, "check", "metrics"], input=text,
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr
