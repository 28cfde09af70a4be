#!/usr/bin/python3
"""bench-startup: what a user feels when a pipeline starts.

For each element and mode, one fresh process (bench-startup-run, built
with the benchmarks) runs
  audiotestsrc [is-live=true] samplesperbuffer=480 num-buffers=B
    ! audio/x-raw,format=F32LE,rate=48000,channels=2 ! ELEMENT ! fakesink
and reports, from the PLAYING request:
  first_buf_ms  the first buffer leaving the element (a probe on its src pad)
  first_msg_ms  its first element message (spectrum, dominant-frequency,
                level, ebur128-level; none for identity and the
                spectrogram)
  wall_s, cpu_s the whole process (GStreamer, registry, device, plans),
                from its start to EOS: user + system CPU
Caches: cold = an empty Mesa shader cache (MESA_SHADER_CACHE_DIR), an
empty NVIDIA shader cache (__GL_SHADER_DISK_CACHE_PATH) and an empty
XDG_CACHE_HOME (the plugin's pipeline cache), all fresh for every run, as on
a fresh machine; warm = shared cache folders that one unrecorded run filled
first.
identity and GStreamer's spectrum run in the same invocation, as the
baselines. Each figure is the median of --runs runs.

  tests/bench/bench-startup.py [--plugin-path DIR] [--runs 3] [--buffers 100]
      [--modes live,nonlive] [--caches cold,warm] [--elements a,b,...]
      [--child PATH]
An element name with a suffix, such as fft1024/off, runs with that
GPUFFT_HOST_START (off, on, auto): the host start against none in one
invocation; /device runs with GPUFFT_HOST_BUDGET=0 (no stream on the host
alone: the device opened, the host start until its plan is made); /nolead
with GPUFFT_HOST_LEAD=0 (a stream that is not live on the device from its
first interval).
(fft65536 runs 140 buffers at least: its first message needs 1.4 s.)
--child: where bench-startup-run is (default: in the build folder of
--plugin-path, else of build/plugin). No GStreamer bindings are needed in
this Python (a machine with only a GStreamer runtime has none).
Prints a table and one "@startup key=value ..." line per row.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ELEMENTS = {
    'identity': 'identity',
    'spectrum': 'spectrum bands=1024 interval=100000000',
    'gpuspectrum': 'gpuspectrum bands=1024 interval=100000000',
    'fft1024': 'gpufftspectrum fft-size=1024 interval=100000000',
    'fft4096': 'gpufftspectrum fft-size=4096 interval=100000000',
    'fft65536': 'gpufftspectrum fft-size=65536 interval=1000000000',
    'fft960': 'gpufftspectrum fft-size=960 interval=100000000',
    'spectrogram': 'gpufftspectrogram',
    'loudness': 'gpuloudness interval=100000000',
}


CHILD = [None]
# (fft 65536 posts its first message after its first second: 1.4 s of audio
# at least)
MIN_BUFFERS = {'fft65536': 140}


def spawn(name, live, buffers, env):
    elem, _, host = name.partition('/')
    if host == 'device':
        env = dict(env, GPUFFT_HOST_BUDGET='0')
    elif host == 'nolead':
        env = dict(env, GPUFFT_HOST_LEAD='0')
    elif host:
        env = dict(env, GPUFFT_HOST_START=host)
    buffers = max(buffers, MIN_BUFFERS.get(elem, 0))
    cmd = [CHILD[0]] + (['--live'] if live else []) + [str(buffers),
                                                       ELEMENTS[elem]]
    if elem == 'spectrogram':
        cmd.append('video/x-raw,width=320,height=240,framerate=25/1')
    p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                       timeout=600)
    for line in p.stdout.splitlines():
        if line.startswith('{'):
            return json.loads(line)
    return {'error': 'exit %d: %s' % (p.returncode, p.stderr.strip()[-300:])}


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def fmt(v, f='%.0f'):
    return '-' if v is None else f % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--plugin-path')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--buffers', type=int, default=100)
    ap.add_argument('--modes', default='live,nonlive')
    ap.add_argument('--caches', default='cold,warm')
    ap.add_argument('--elements', default=','.join(ELEMENTS))
    ap.add_argument('--child')
    args = ap.parse_args()
    for name, given, valid in (('--modes', args.modes, ('live', 'nonlive')),
                               ('--caches', args.caches, ('cold', 'warm')),
                               ('--elements', args.elements, tuple(ELEMENTS))):
        bad = [v for v in given.split(',')
               if (v.partition('/')[0] if name == '--elements' else v)
               not in valid]
        if bad:
            print('bench-startup: %s: unknown %s (valid: %s)' % (
                name, ', '.join(bad), ', '.join(valid)), file=sys.stderr)
            return 2
    CHILD[0] = args.child
    if not CHILD[0]:
        d = os.path.dirname(os.path.abspath(args.plugin_path or 'build/plugin'))
        CHILD[0] = os.path.join(d, 'tests', 'bench', 'bench-startup-run')
    if not os.access(CHILD[0], os.X_OK):
        print('bench-startup: no %s (built with -Dbenchmarks=enabled): pass '
              '--child' % CHILD[0], file=sys.stderr)
        return 2

    env = dict(os.environ)
    if args.plugin_path:
        env['GST_PLUGIN_PATH'] = os.path.abspath(args.plugin_path)
    top = tempfile.mkdtemp(prefix='bench-startup-')
    env.setdefault('GST_REGISTRY', os.path.join(top, 'registry.bin'))
    warm = {'MESA_SHADER_CACHE_DIR': os.path.join(top, 'warm-mesa'),
            '__GL_SHADER_DISK_CACHE_PATH': os.path.join(top, 'warm-nv'),
            'XDG_CACHE_HOME': os.path.join(top, 'warm-cache')}
    for d in warm.values():
        os.makedirs(d, exist_ok=True)
    print('bench-startup: %s, %d runs per row, %d buffers of 10 ms, '
          'plugin path %s, child %s' % (
              time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), args.runs,
              args.buffers, env.get('GST_PLUGIN_PATH', '-'), CHILD[0]))
    # (the registry, once, outside every figure)
    spawn('identity', False, 1, env)
    rows = []
    print('%-13s %-7s %-5s %10s %10s %8s %8s  %s' % (
        'element', 'mode', 'cache', 'first buf', 'first msg', 'wall s',
        'cpu s', 'errors'))
    for cache in args.caches.split(','):
        for mode in args.modes.split(','):
            live = mode == 'live'
            for elem in args.elements.split(','):
                res = []
                if cache == 'warm':
                    spawn(elem, live, args.buffers, dict(env, **warm))
                for _ in range(args.runs):
                    e = dict(env)
                    if cache == 'cold':
                        d = tempfile.mkdtemp(dir=top)
                        for k, sub in (('MESA_SHADER_CACHE_DIR', 'mesa'),
                                       ('__GL_SHADER_DISK_CACHE_PATH', 'nv'),
                                       ('XDG_CACHE_HOME', 'cache')):
                            e[k] = os.path.join(d, sub)
                            os.makedirs(e[k])
                    else:
                        e.update(warm)
                    res.append(spawn(elem, live, args.buffers, e))
                errs = [r['error'] for r in res if r.get('error')]
                row = {k: med([r.get(k) for r in res])
                       for k in ('first_buf_ms', 'first_msg_ms', 'wall_s',
                                 'cpu_s')}
                print('%-13s %-7s %-5s %8s ms %8s ms %8s %8s  %s' % (
                    elem, mode, cache, fmt(row['first_buf_ms']),
                    fmt(row['first_msg_ms']), fmt(row['wall_s'], '%.2f'),
                    fmt(row['cpu_s'], '%.2f'), '; '.join(errs)[:80] or '0'),
                    flush=True)
                rows.append((elem, mode, cache, row, len(errs)))
    for elem, mode, cache, row, n_err in rows:
        print('@startup element=%s mode=%s cache=%s first_buf_ms=%s '
              'first_msg_ms=%s wall_s=%s cpu_s=%s errors=%d' % (
                  elem, mode, cache, fmt(row['first_buf_ms'], '%.1f'),
                  fmt(row['first_msg_ms'], '%.1f'),
                  fmt(row['wall_s'], '%.3f'), fmt(row['cpu_s'], '%.3f'),
                  n_err))
    shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
