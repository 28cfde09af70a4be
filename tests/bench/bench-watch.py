#!/usr/bin/python3
"""gpufft-watch under load: S live test streams in one service.

For each S of --streams, the service (--watch, default build/watch/
gpufft-watch; GST_PLUGIN_PATH from --plugin-path, else the environment's,
else build/plugin) runs with S streams `source=test:`, white noise at
-20 dBFS peak, 48 kHz stereo (480-sample buffers, as the service makes
them). Once every stream is up and --warmup seconds have passed, over
--seconds:

- CPU: the service process's utime + stime (/proc/PID/stat), in cores
  and in ns per sample (S x 48000 x 2 samples a second);
- memory: its resident set (VmRSS, largest sample and last) and threads;
- real time: /api/streams read once a second, half a second after each
  of the service's readings (the readings' `time_us` give their phase).
  Checked: the readings' times advance by one second each time (no
  reading missed or late: the main thread keeps its cadence), every
  stream is up in every reading, no source restarted, and every stream's
  values (loudness, sample peak and RMS, band levels, dominant frequency:
  noise moves the band levels at every new analysis) change from one
  reading to the next, which they do once a second only while the
  analysers get one second of audio a second; `realtime=1` when all hold
  and `adv_min` >= 0.9. `advanced` is the share of stream-seconds
  with a change, `adv_min` the least of any stream. The service exposes
  no element's dropped counts;
- after the window, /metrics scraped --scrapes (50) times one after the
  other (a new connection each, as the service answers one request per
  connection): median, p99 (interpolated), max, and the body's size;
- `path`: where the streams are analysed, from the service's threads'
  names at the window's end: 'host' (the plugin's gpufft-host threads,
  no device scheduler), 'device' (the device scheduler's gpufft-submit,
  no host threads) or 'both'; `host_threads` counts the gpufft-host
  threads. GPUFFT_HOST_BUDGET, passed on as set (`host_budget`, '-': the
  default), decides.

Baseline, the same S sources for the same seconds after the same
warm-up: one `gst-launch-1.0` (--launch) of S chains `audiotestsrc
is-live=true wave=W volume=0.1 samplesperbuffer=480 ! F32LE 48 kHz stereo !
audioconvert ! F32LE ! identity ! fakesink sync=true async=false` (W:
--wave, white-noise unless set, as the service's sources),
its CPU measured the same way. The service's own CPU = service - baseline
(`own_cores`, `own_ns`). No GStreamer bindings are needed in this Python.

Prints a table and one "@watch streams=S key=value ..." line per S; exit
1 when a service did not start or its streams did not come up.

  /usr/bin/python3 tests/bench/bench-watch.py [--streams 16,256]
      [--seconds 30] [--warmup 5] [--scrapes 50] [--watch PATH] [--wave W]
      [--plugin-path DIR] [--launch gst-launch-1.0 | --no-baseline]
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

RATE = 48000
CHANNELS = 2
LEVEL_DBFS = -20.0
TICK = os.sysconf('SC_CLK_TCK')
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def cpu_s(pid):
    """utime + stime of a process in seconds (fields 14, 15 of stat)"""
    with open('/proc/%d/stat' % pid) as f:
        text = f.read()
    fields = text[text.rindex(')') + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def status(pid):
    """(VmRSS in MiB, threads) of a process"""
    rss, threads = 0.0, 0
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                rss = int(line.split()[1]) / 1024
            elif line.startswith('Threads:'):
                threads = int(line.split()[1])
    return rss, threads


def analysis_path(pid):
    """where the process analyses, from its threads' names: 'host' (the
    plugin's host-analysis threads, gpufft-host, and no device scheduler),
    'device' (the device scheduler's gpufft-submit, no host threads),
    'both', or 'none'; and the number of gpufft-host threads"""
    comms = []
    for t in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/comm' % (pid, t)) as f:
                comms.append(f.read().strip())
        except OSError:
            pass
    host = sum(1 for c in comms if c == 'gpufft-host')
    dev = any(c == 'gpufft-submit' for c in comms)
    return ('both' if host and dev else 'host' if host else
            'device' if dev else 'none'), host


def get(port, path, timeout=10):
    """(status, body bytes, seconds from connect to the body's last byte)"""
    t0 = time.perf_counter()
    c = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        c.request('GET', path)
        r = c.getresponse()
        body = r.read()
    finally:
        c.close()
    return r.status, body, time.perf_counter() - t0


def fingerprint(st):
    return json.dumps([st.get(k) for k in (
        'momentary_lufs', 'shortterm_lufs', 'integrated_lufs', 'lra_lu',
        'true_peak_dbtp', 'sample_peak_dbfs', 'rms_dbfs', 'bands',
        'dominant_hz')])


def quantile(xs, q):
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0]
    pos = q * (len(xs) - 1)
    i = int(pos)
    j = min(i + 1, len(xs) - 1)
    return xs[i] + (xs[j] - xs[i]) * (pos - i)


def stop(proc, sig, timeout=20):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def tail(path, n=30):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-n:])
    except OSError:
        return ''


def measure_cpu(pid, seconds, every=None):
    """CPU seconds of pid over `seconds`, RSS and threads sampled each
    second; every(k) is called once a second (k = 0, 1, ...) when given"""
    rss, threads = [], []
    c0 = cpu_s(pid)
    t0 = time.monotonic()
    k = 0
    while True:
        r, th = status(pid)
        rss.append(r)
        threads.append(th)
        if every is not None:
            every(k)
        k += 1
        now = time.monotonic()
        if now >= t0 + seconds:
            break
        time.sleep(max(0.0, min(t0 + k, t0 + seconds) - now))
    c1 = cpu_s(pid)
    wall = time.monotonic() - t0
    return c1 - c0, wall, rss, threads


def run_service(args, S, env, top):
    port = free_port()
    conf = os.path.join(top, 'watch-%d.conf' % S)
    log_path = os.path.join(top, 'watch-%d.log' % S)
    with open(conf, 'w') as f:
        f.write('[service]\nlisten=127.0.0.1:%d\n' % port)
        for i in range(S):
            f.write('[stream s%04d]\nsource=test:\ntest-wave=%s\n'
                    'test-level=%g\nrate=%d\nchannels=%d\n'
                    % (i, args.wave, LEVEL_DBFS, RATE, CHANNELS))
    log = open(log_path, 'w')
    t_start = time.monotonic()
    proc = subprocess.Popen([args.watch, '--config', conf], stdout=log,
                            stderr=subprocess.STDOUT, env=env)
    res = {'port': port, 'log': log_path}
    try:
        deadline = t_start + args.up_timeout
        up = 0
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                res['error'] = 'the service exited (%d)' % proc.returncode
                return res
            try:
                st, body, _ = get(port, '/api/streams')
                streams = json.loads(body)['streams']
                up = sum(1 for s in streams if s['up'])
                if st == 200 and len(streams) == S and up == S:
                    break
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                pass
            time.sleep(0.5)
        else:
            res['error'] = '%d of %d streams up after %d s' % (
                up, S, args.up_timeout)
            return res
        res['up_s'] = time.monotonic() - t_start
        time.sleep(args.warmup)

        # half a second after the service's readings (taken once a second,
        # on its 250 ms tick)
        _, body, _ = get(port, '/api/streams')
        t_read = json.loads(body)['streams'][0]['time_us'] / 1e6
        lag = (time.time() - t_read) % 1.0
        time.sleep((0.5 - lag) % 1.0)
        polls = []

        def poll(k):
            try:
                _, b, _ = get(port, '/api/streams')
                polls.append(json.loads(b)['streams'])
            except (OSError, ValueError, KeyError,
                    http.client.HTTPException) as e:
                polls.append(e)

        cpu, wall, rss, threads = measure_cpu(proc.pid, args.seconds, poll)
        res.update(cpu=cpu, wall=wall, rss_max=max(rss), rss_last=rss[-1],
                   threads=threads[-1], path=analysis_path(proc.pid))

        # real time: the readings' times and every stream's values
        failed = sum(1 for p in polls if not isinstance(p, list))
        good = [p for p in polls if isinstance(p, list)]
        steps = len(good) - 1
        bad_steps = 0
        changed = {}
        down = 0
        restarts = 0
        for a, b in zip(good, good[1:]):
            ra = {s['name']: s['restarts'] for s in a}
            restarts += sum(s['restarts'] - ra.get(s['name'], 0) for s in b)
            ta = [s['time_us'] / 1e6 for s in a]
            tb = [s['time_us'] / 1e6 for s in b]
            if any(abs(y - x - 1.0) > 0.3 for x, y in zip(ta, tb)):
                bad_steps += 1
            fa = {s['name']: fingerprint(s) for s in a}
            for s in b:
                n = s['name']
                changed[n] = changed.get(n, 0) + (fingerprint(s) != fa.get(n))
        for p in good:
            down += sum(1 for s in p if not s['up'])
        res['polls'] = len(polls)
        res['poll_failed'] = failed
        res['late_readings'] = bad_steps
        res['down'] = down
        res['restarts'] = restarts
        res['advanced'] = (sum(changed.values()) / (S * steps)
                           if steps > 0 else 0.0)
        res['adv_min'] = (min(changed.values()) / steps
                          if steps > 0 and changed else 0.0)
        res['realtime'] = int(failed == 0 and bad_steps == 0 and down == 0
                              and restarts == 0
                              and steps > 0 and res['adv_min'] >= 0.9)

        times, size = [], 0
        for _ in range(args.scrapes):
            try:
                st, body, dt = get(port, '/metrics')
            except (OSError, http.client.HTTPException) as e:
                res['error'] = '/metrics: %s' % e
                return res
            if st != 200:
                res['error'] = '/metrics answered %d' % st
                return res
            times.append(dt * 1e3)
            size = len(body)
        res.update(scrape_p50=statistics.median(times),
                   scrape_p99=quantile(times, 0.99), scrape_max=max(times),
                   body_bytes=size)
        return res
    finally:
        stop(proc, signal.SIGTERM)
        log.close()
        res['exit'] = proc.returncode


def run_baseline(args, S, env, top):
    caps = ('audio/x-raw,format=F32LE,rate=%d,channels=%d,layout=interleaved'
            % (RATE, CHANNELS))
    volume = 10 ** (LEVEL_DBFS / 20)
    argv = [args.launch, '-q']
    for i in range(S):
        argv += ('audiotestsrc is-live=true wave=%s volume=%g '
                 'samplesperbuffer=%d ! %s ! audioconvert ! '
                 'audio/x-raw,format=F32LE,layout=interleaved ! identity ! '
                 'fakesink sync=true async=false' % (
                     args.wave, volume, RATE // 100, caps)).split()
    log_path = os.path.join(top, 'baseline-%d.log' % S)
    log = open(log_path, 'w')
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                            env=env)
    res = {'log': log_path}
    try:
        time.sleep(args.warmup)
        if proc.poll() is not None:
            res['error'] = 'gst-launch-1.0 exited (%d)' % proc.returncode
            return res
        cpu, wall, rss, _ = measure_cpu(proc.pid, args.seconds)
        if proc.poll() is not None:
            res['error'] = 'gst-launch-1.0 exited (%d)' % proc.returncode
            return res
        res.update(cpu=cpu, wall=wall, rss_max=max(rss))
        return res
    finally:
        stop(proc, signal.SIGINT)
        log.close()


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--streams', default='16,256',
                    help='comma-separated stream counts (default 16,256)')
    ap.add_argument('--seconds', type=float, default=30,
                    help='measured seconds per run (default 30)')
    ap.add_argument('--warmup', type=float, default=5,
                    help='seconds after every stream is up (the baseline: '
                    'after its start) before measuring (default 5)')
    ap.add_argument('--scrapes', type=int, default=50,
                    help='sequential /metrics scrapes timed (default 50)')
    ap.add_argument('--up-timeout', type=int, default=180,
                    help='seconds for every stream to come up (default 180)')
    ap.add_argument('--watch', default=os.path.join(ROOT, 'build', 'watch',
                                                    'gpufft-watch'))
    ap.add_argument('--plugin-path', default=None,
                    help='GST_PLUGIN_PATH (default: the environment\'s, '
                    'else build/plugin)')
    ap.add_argument('--launch', default='gst-launch-1.0',
                    help='gst-launch-1.0 for the baseline')
    ap.add_argument('--no-baseline', action='store_true')
    ap.add_argument('--wave', default='white-noise',
                    choices=('white-noise', 'pink-noise', 'sine'),
                    help='the sources\' wave, the service\'s and the '
                    'baseline\'s (default white-noise)')
    args = ap.parse_args()

    env = dict(os.environ)
    if args.plugin_path:
        env['GST_PLUGIN_PATH'] = args.plugin_path
    elif 'GST_PLUGIN_PATH' not in env:
        env['GST_PLUGIN_PATH'] = os.path.join(ROOT, 'build', 'plugin')
    if not os.access(args.watch, os.X_OK):
        sys.exit('bench-watch: %s is not an executable (--watch)' % args.watch)
    launch = None if args.no_baseline else shutil.which(args.launch)
    if not args.no_baseline and launch is None:
        print('bench-watch: %s not found: no baseline' % args.launch,
              file=sys.stderr)
    args.launch = launch
    counts = [int(x) for x in args.streams.split(',') if x]

    top = tempfile.mkdtemp(prefix='bench-watch-')
    rows = []
    ok = True
    try:
        for S in counts:
            print('# %d streams: the service' % S, file=sys.stderr, flush=True)
            svc = run_service(args, S, env, top)
            if 'error' in svc:
                print('bench-watch: %d streams: %s\n%s' % (
                    S, svc['error'], tail(svc['log'])), file=sys.stderr)
                ok = False
                rows.append((S, svc, None))
                continue
            base = None
            if args.launch:
                print('# %d streams: the baseline' % S, file=sys.stderr,
                      flush=True)
                base = run_baseline(args, S, env, top)
                if 'error' in base:
                    print('bench-watch: %d streams: baseline: %s\n%s' % (
                        S, base['error'], tail(base['log'])), file=sys.stderr)
                    base = None
            rows.append((S, svc, base))
    finally:
        shutil.rmtree(top, ignore_errors=True)

    hdr = ('streams', 'up s', 'cores', 'ns/smp', 'base cores', 'own cores',
           'own ns/smp', 'RSS MiB', 'threads', 'advanced', 'adv min',
           'realtime', 'scrape p50/p99/max ms', 'body KiB', 'path')
    table = []
    lines = []
    for S, svc, base in rows:
        if 'error' in svc:
            table.append((str(S), svc['error']))
            continue
        samples = S * RATE * CHANNELS * svc['wall']
        cores = svc['cpu'] / svc['wall']
        ns = svc['cpu'] / samples * 1e9
        if base:
            bcores = base['cpu'] / base['wall']
            own = cores - bcores
            own_ns = ns - base['cpu'] / (S * RATE * CHANNELS * base['wall']) * 1e9
            bc, oc, on = '%.3f' % bcores, '%.3f' % own, '%.2f' % own_ns
        else:
            bc = oc = on = '-'
        table.append((
            str(S), '%.1f' % svc['up_s'], '%.3f' % cores, '%.2f' % ns, bc, oc,
            on, '%.1f' % svc['rss_max'], str(svc['threads']),
            '%.3f' % svc['advanced'], '%.3f' % svc['adv_min'],
            'yes' if svc['realtime'] else 'NO',
            '%.2f / %.2f / %.2f' % (svc['scrape_p50'], svc['scrape_p99'],
                                    svc['scrape_max']),
            '%.1f' % (svc['body_bytes'] / 1024), svc['path'][0]))
        lines.append('@watch streams=%d seconds=%.1f up_s=%.1f cores=%.4f ns=%.2f '
              'base_cores=%s own_cores=%s own_ns=%s rss_mib=%.1f '
              'rss_last_mib=%.1f base_rss_mib=%s threads=%d polls=%d '
              'poll_failed=%d late_readings=%d down=%d restarts=%d advanced=%.3f '
              'adv_min=%.3f realtime=%d scrapes=%d scrape_p50_ms=%.2f '
              'scrape_p99_ms=%.2f scrape_max_ms=%.2f body_bytes=%d '
              'path=%s host_threads=%d host_budget=%s exit=%s'
              % (S, svc['wall'], svc['up_s'], cores, ns,
                 bc if base else '-', oc, on, svc['rss_max'], svc['rss_last'],
                 '%.1f' % base['rss_max'] if base else '-', svc['threads'],
                 svc['polls'], svc['poll_failed'], svc['late_readings'],
                 svc['down'], svc['restarts'], svc['advanced'], svc['adv_min'],
                 svc['realtime'], args.scrapes, svc['scrape_p50'],
                 svc['scrape_p99'], svc['scrape_max'], svc['body_bytes'],
                 svc['path'][0], svc['path'][1], env.get('GPUFFT_HOST_BUDGET') or '-',
                 svc.get('exit')))
    widths = [max(len(h), *(len(r[i]) for r in table if len(r) > i))
              for i, h in enumerate(hdr)]
    print('  '.join(h.rjust(w) for h, w in zip(hdr, widths)))
    for r in table:
        print('  '.join(c.rjust(w) for c, w in zip(r, widths)))
    for line in lines:
        print(line)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
