#!/usr/bin/python3
"""bench-soak: many live streams for a long time, poked at random.

S pipelines in one process (GStreamer's Python bindings), each
  audiotestsrc is-live=true samplesperbuffer=480 freq=F
    ! capsfilter caps=audio/x-raw,format=F32LE,rate=R,channels=C
    ! gpufftspectrum fft-size=N interval=100 ms ! fakesink sync=true
and every --poke-ms one of them, at random (seeded), gets one of:
  restart   NULL, then PLAYING again
  pause     PAUSED for 0.3 s, then PLAYING
  fft-size  a new fft-size while playing (1024, 2048, 4096, 960)
  caps      a new rate or channel count while playing (renegotiation)
  reset     the `reset` action signal
  flush     a flushing seek to 0 (the live source starts its timestamps
            again; the element drops what it held and starts anew)
Checked for every stream, from its bus (a watch on the main loop):
  - between two spectrum messages, the second's timestamp is the first's
    timestamp + duration, plus one interval per interval counted in its
    `dropped` field: nothing lost that is not counted ("holes"; a message
    next to a timestamp below 0, which a live audiotestsrc gives after some
    flushing seeks, wraps round and is counted apart); the next
    jump within 60 s of a poke of the stream starts a new run instead;
  - no ERROR message; WARNING messages are counted;
  - each stream posts: its longest silence while PLAYING is reported (a
    new plan's compile, on a busy CPU device, can take seconds), and one
    silent for 60 s, or still silent at the end, is "stalled".
Sampled every 10 s: the process's resident memory and open file
descriptors (flat: the last third's mean within --rss-tolerance of the
second third's).
Prints a summary table and one "@soak key=value ..." line; exit 1 when a
check failed.

  tests/bench/bench-soak.py [--plugin-path DIR] [--streams 32]
      [--minutes 20] [--poke-ms 500] [--seed 1]
"""
import argparse
import os
import random
import sys
import time

import gi
gi.require_version('Gst', '1.0')
from gi.repository import GLib, Gst  # noqa: E402

INTERVAL = 100 * Gst.MSECOND
FFT_SIZES = [1024, 2048, 4096, 960]
RATES = [48000, 44100]
CHANNELS = [2, 1]


def rss_kib():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def fd_count():
    return len(os.listdir('/proc/self/fd'))


class Stream:
    def __init__(self, i, rng):
        self.i = i
        self.rng = rng
        self.rate = 48000
        self.channels = 2
        self.fft = 1024
        self.pipe = Gst.parse_launch(
            'audiotestsrc is-live=true samplesperbuffer=480 freq=%d '
            '! capsfilter name=cf ! gpufftspectrum name=el fft-size=%d '
            'interval=%d ! fakesink sync=true'
            % (200 + 37 * i, self.fft, INTERVAL))
        self.cf = self.pipe.get_by_name('cf')
        self.el = self.pipe.get_by_name('el')
        self.set_caps()
        self.messages = 0
        self.holes = 0
        self.wrapped = 0
        self.hole_ns = 0
        self.dropped = 0
        self.errors = []
        self.warnings = 0
        self.pokes = 0
        self.last_msg_at = time.monotonic()
        self.last_poke = ('start', self.last_msg_at)
        self.stall_notes = []
        self.hole_notes = []
        self.expect = None
        self.new_run()
        bus = self.pipe.get_bus()
        bus.add_signal_watch()
        bus.connect('message', self.on_message)

    def set_caps(self):
        self.cf.set_property('caps', Gst.Caps.from_string(
            'audio/x-raw,format=F32LE,rate=%d,channels=%d'
            % (self.rate, self.channels)))

    def new_run(self):
        """A restart, renegotiation or geometry change: the next jump in
        the timestamps, within 60 s, starts a new run (the messages of the
        old one that are still queued on the bus are contiguous)."""
        self.forgive_until = time.monotonic() + 60

    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            self.errors.append('%s (%s)' % (err.message, dbg))
        elif t == Gst.MessageType.WARNING:
            self.warnings += 1
        elif t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is None or s.get_name() != 'spectrum':
                return
            self.messages += 1
            self.last_msg_at = time.monotonic()
            ts = s.get_value('timestamp')
            dur = s.get_value('duration')
            ok, dropped = s.get_uint('dropped')
            dropped = dropped if ok else 0
            self.dropped += dropped
            wrapped = ts >= 2 ** 63 or (self.expect is not None
                                        and self.expect >= 2 ** 63)
            if wrapped:
                # a timestamp below 0, wrapped (a live audiotestsrc gives
                # some after flushing seeks, without any analyser)
                self.wrapped += 1
            elif self.expect is not None:
                want = self.expect + dropped * INTERVAL
                # (an interval's length is a whole number of samples: a
                # few ns of rounding)
                if abs(ts - want) <= 50000:
                    pass
                elif time.monotonic() < self.forgive_until:
                    self.forgive_until = 0
                else:
                    self.holes += 1
                    self.hole_ns += abs(ts - want)
                    self.hole_notes.append(
                        'stream %d: %+.3f s at %.3f s (the message before: '
                        '%.3f s + %.3f s), last poke %s %.1f s before'
                        % (self.i, (ts - want) / 1e9, ts / 1e9,
                           self.prev[0] / 1e9, self.prev[1] / 1e9,
                           self.last_poke[0],
                           time.monotonic() - self.last_poke[1]))
            self.expect = ts + dur
            self.prev = (ts, dur)

    def poke(self):
        self.pokes += 1
        what = self.rng.choice(['restart', 'pause', 'fft-size', 'caps',
                                'reset', 'flush'])
        self.last_poke = (what, time.monotonic())
        if what == 'restart':
            self.pipe.set_state(Gst.State.NULL)
            self.new_run()
            self.pipe.set_state(Gst.State.PLAYING)
        elif what == 'pause':
            self.pipe.set_state(Gst.State.PAUSED)
            self.new_run()
            GLib.timeout_add(300, self.resume)
        elif what == 'fft-size':
            self.fft = self.rng.choice([n for n in FFT_SIZES
                                        if n != self.fft])
            self.new_run()
            self.el.set_property('fft-size', self.fft)
        elif what == 'caps':
            if self.rng.random() < 0.5:
                self.rate = RATES[1 - RATES.index(self.rate)]
            else:
                self.channels = CHANNELS[1 - CHANNELS.index(self.channels)]
            self.new_run()
            self.set_caps()
        elif what == 'flush':
            self.new_run()
            if not self.pipe.seek_simple(Gst.Format.TIME,
                                         Gst.SeekFlags.FLUSH, 0):
                self.errors.append('the flushing seek was refused')
        else:
            self.el.emit('reset')
        self.last_msg_at = time.monotonic()
        return what

    def resume(self):
        self.pipe.set_state(Gst.State.PLAYING)
        self.last_msg_at = time.monotonic()
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--plugin-path')
    ap.add_argument('--streams', type=int, default=32)
    ap.add_argument('--minutes', type=float, default=20)
    ap.add_argument('--poke-ms', type=int, default=500)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--rss-tolerance', type=float, default=0.10)
    args = ap.parse_args()
    if args.plugin_path:
        os.environ['GST_PLUGIN_PATH'] = args.plugin_path
    Gst.init(None)
    if Gst.ElementFactory.find('gpufftspectrum') is None:
        print('bench-soak: no gpufftspectrum element (GST_PLUGIN_PATH, '
              '--plugin-path)', file=sys.stderr)
        return 1
    rng = random.Random(args.seed)
    streams = [Stream(i, random.Random(args.seed * 1000 + i))
               for i in range(args.streams)]
    for s in streams:
        s.pipe.set_state(Gst.State.PLAYING)
    loop = GLib.MainLoop()
    start = time.monotonic()
    samples = []
    pokes = {}
    stalled = set()

    def poke():
        s = rng.choice(streams)
        what = s.poke()
        pokes[what] = pokes.get(what, 0) + 1
        return True

    def sample():
        now = time.monotonic()
        samples.append((now - start, rss_kib(), fd_count()))
        for s in streams:
            silent = now - s.last_msg_at
            if silent > 10 and \
                    s.pipe.get_state(0)[1] == Gst.State.PLAYING:
                s.longest = max(getattr(s, 'longest', 0), silent)
                if silent > 60 or now - start >= args.minutes * 60:
                    stalled.add(s.i)
                s.stall_notes.append(
                    'stream %d: silent %.0f s at %.0f s, fft %d, %d Hz, %d '
                    'ch, last poke %s %.1f s before'
                    % (s.i, now - s.last_msg_at, now - start, s.fft, s.rate,
                       s.channels, s.last_poke[0], now - s.last_poke[1]))
        if now - start >= args.minutes * 60:
            loop.quit()
            return False
        return True

    GLib.timeout_add(args.poke_ms, poke)
    GLib.timeout_add(10000, sample)
    sample()
    loop.run()
    for s in streams:
        s.pipe.set_state(Gst.State.NULL)
        s.pipe.get_bus().remove_signal_watch()
    elapsed = time.monotonic() - start

    third = max(1, len(samples) // 3)
    mid = samples[third:2 * third] or samples
    last = samples[2 * third:] or samples
    rss_mid = sum(x[1] for x in mid) / len(mid)
    rss_last = sum(x[1] for x in last) / len(last)
    fd_mid = sum(x[2] for x in mid) / len(mid)
    fd_last = sum(x[2] for x in last) / len(last)
    rss_growth = rss_last / rss_mid - 1 if rss_mid else 0
    msgs = sum(s.messages for s in streams)
    holes = sum(s.holes for s in streams)
    wrapped = sum(s.wrapped for s in streams)
    dropped = sum(s.dropped for s in streams)
    errors = [e for s in streams for e in s.errors]
    warnings = sum(s.warnings for s in streams)

    print('bench-soak: %s UTC, %d live streams, %.1f min, a poke every %d '
          'ms (seed %d), plugin path %s'
          % (time.strftime('%Y-%m-%d %H:%M', time.gmtime()), args.streams,
             elapsed / 60, args.poke_ms, args.seed,
             os.environ.get('GST_PLUGIN_PATH', '-')))
    print('pokes: ' + ', '.join('%s %d' % kv for kv in sorted(pokes.items())))
    print('%-10s %10s' % ('time s', 'RSS MiB') + '%8s' % 'fds')
    for t, r, f in samples[::max(1, len(samples) // 12)] + samples[-1:]:
        print('%-10.0f %10.1f %7d' % (t, r / 1024, f))
    longest = max([getattr(s, 'longest', 0) for s in streams])
    print('messages %d, intervals dropped (counted) %d, holes (not counted) '
          '%d, messages next to a wrapped upstream timestamp %d, errors %d, '
          'warnings %d, stalled streams %d, longest silence while playing '
          '%.0f s (counted from 10 s)'
          % (msgs, dropped, holes, wrapped, len(errors), warnings,
             len(stalled), longest))
    print('RSS: %.1f -> %.1f MiB (%+.1f %%, middle third to last), fds %.0f '
          '-> %.0f' % (rss_mid / 1024, rss_last / 1024, 100 * rss_growth,
                       fd_mid, fd_last))
    for e in errors[:5]:
        print('error: ' + e)
    for n in [n for s in streams for n in s.hole_notes][:10]:
        print('hole: ' + n)
    for n in [n for s in streams for n in s.stall_notes][:10]:
        print('silent: ' + n)
    ok = (not errors and holes == 0 and not stalled
          and rss_growth <= args.rss_tolerance and fd_last <= fd_mid + 2)
    print('@soak streams=%d minutes=%.1f pokes=%d messages=%d dropped=%d '
          'holes=%d wrapped=%d errors=%d warnings=%d stalled=%d '
          'rss_mid_kib=%.0f rss_last_kib=%.0f fd_mid=%.0f fd_last=%.0f ok=%d'
          % (args.streams, elapsed / 60, sum(pokes.values()), msgs, dropped,
             holes, wrapped, len(errors), warnings, len(stalled), rss_mid,
             rss_last, fd_mid, fd_last, ok))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
