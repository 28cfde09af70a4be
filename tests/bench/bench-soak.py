#!/usr/bin/python3
"""bench-soak: many live streams for a long time, poked at random.

S pipelines in one process (GStreamer's Python bindings), the elements of
--elements in turn (default all four):
  audiotestsrc is-live=true samplesperbuffer=480 freq=F
    ! capsfilter caps=audio/x-raw,format=F32LE,rate=R,channels=C
    ! gpufftspectrum fft-size=N interval=100 ms   (or gpuspectrum, or
      gpuloudness interval=100 ms)                ! fakesink sync=true
  ... ! gpufftspectrogram ! video/x-raw,width=320,height=200,framerate=10/1
    ! fakesink sync=true
and every --poke-ms one of them, at random (seeded), gets one of:
  restart   NULL, then PLAYING again
  pause     PAUSED for 0.3 s, then PLAYING
  property  a new analysis while playing: gpufftspectrum's fft-size (1024,
            2048, 4096, 960), gpuspectrum's bands (64, 128, 256, 100),
            gpuloudness's mode, gpufftspectrogram's fft-size (0, 1024, 2048)
  caps      a new rate or channel count while playing (renegotiation)
  reset     the `reset` action signal (where the element has one;
            gpuloudness's intervals start again there)
  flush     a flushing seek to 0 (the live source starts its timestamps
            again; the element drops what it held and starts anew)
Checked for every stream, from its bus (a watch on the main loop):
  - between two analysis messages, the second's interval starts where the
    first's ended (spectrum: timestamp + duration; ebur128-level, whose
    timestamp is the interval's end: the end, then end - duration), plus
    one interval per interval counted in its `dropped` field: nothing lost
    that is not counted ("holes"; a message next to a timestamp below 0,
    which a live audiotestsrc gives after some flushing seeks, wraps round
    and is counted apart); the next jump within 60 s of a poke of the
    stream starts a new run instead, and so does, within 10 s of a new
    rate, a jump by as much as the input's timestamps jumped there (a live
    audiotestsrc counts its samples at the new rate: its timestamps jump
    by the ratio after the first buffer of the new caps, which keeps the
    old count; gpuspectrum's messages, as spectrum's, take the PTS of the
    buffer an interval begins with; a probe on the analyser's sink pad
    for the first two buffers of the new caps measures the jump);
    gpuspectrum's messages, as spectrum's, have no `dropped` field: a gap
    of whole intervals within 12 s of its WARNING that intervals of
    analysis are dropped (posted at most every 10 s) is counted dropped,
    not a hole; the spectrogram's pictures likewise
    (PTS + duration = the next PTS, a probe on the sink), a jump counted
    in the element's stats `dropped` not a hole;
  - no ERROR message; WARNING messages are counted;
  - each stream posts: its longest silence while PLAYING is reported (a
    new plan's compile, on a busy CPU device, can take seconds), and one
    silent for 60 s, or still silent at the end, is "stalled".
Sampled every 10 s: the process's resident memory, open file descriptors
and threads. Their slopes (least squares over the samples after the
warm-up: the first third, or --warmup-min, 2, if longer) per minute are
reported: flat is a pass (RSS
within --rss-slope % of its mean a minute, fds and threads less than one
more over the run), and the last third's mean RSS against the middle
third's (within --rss-tolerance).
Pokes that hold the application's thread over 1 s (a state change or a
property set that does not return promptly) are listed.
Prints a summary table and one "@soak key=value ..." line; exit 1 when a
check failed.

  nice tests/bench/bench-soak.py [--plugin-path DIR] [--streams 32]
      [--minutes 20] [--poke-ms 500] [--seed 1]
      [--elements gpufftspectrum,gpuspectrum,gpuloudness,gpufftspectrogram]
"""
import argparse
import collections
import os
import random
import sys
import time

import gi
gi.require_version('Gst', '1.0')
from gi.repository import GLib, GObject, Gst  # noqa: E402

INTERVAL = 100 * Gst.MSECOND
FFT_SIZES = [1024, 2048, 4096, 960]
BANDS = [64, 128, 256, 100]
SPECTROGRAM_FFT = [0, 1024, 2048]
LOUDNESS_MODES = ['momentary', 'momentary+short-term',
                  'momentary+short-term+global+loudness-range+sample-peak',
                  'true-peak+sample-peak+loudness-range+global+short-term'
                  '+momentary']
ELEMENTS = ['gpufftspectrum', 'gpuspectrum', 'gpuloudness',
            'gpufftspectrogram']
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


def thread_count():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('Threads:'):
                return int(line.split()[1])
    return 0


def slope(points):
    """Least-squares slope of (x, y) points (0 with fewer than 2)."""
    n = len(points)
    if n < 2:
        return 0.0
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    if sxx == 0:
        return 0.0
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx


class Stream:
    def __init__(self, i, rng, kind):
        self.i = i
        self.rng = rng
        self.kind = kind
        self.rate = 48000
        self.channels = 2
        self.fft = 1024
        if kind == 'gpufftspectrum':
            el = 'gpufftspectrum name=el fft-size=%d interval=%d' % (
                self.fft, INTERVAL)
        elif kind == 'gpuspectrum':
            el = 'gpuspectrum name=el bands=128 interval=%d' % INTERVAL
        elif kind == 'gpuloudness':
            el = 'gpuloudness name=el interval=%d' % INTERVAL
        else:
            el = ('gpufftspectrogram name=el ! video/x-raw,width=320,'
                  'height=200,framerate=10/1')
        self.pipe = Gst.parse_launch(
            'audiotestsrc is-live=true samplesperbuffer=480 freq=%d '
            '! capsfilter name=cf ! %s ! fakesink name=sink sync=true'
            % (200 + 37 * i, el))
        self.cf = self.pipe.get_by_name('cf')
        self.el = self.pipe.get_by_name('el')
        self.set_caps()
        self.has_reset = GObject.signal_lookup(
            'reset', self.el.__gtype__) != 0
        # the spectrogram's pictures (from the streaming thread)
        self.pic_expect = None
        self.pic_jumps = 0           # frames missing, not yet accounted
        self.pic_dropped = 0         # the element's stats dropped, last read
        if kind == 'gpufftspectrogram':
            pad = self.pipe.get_by_name('sink').get_static_pad('sink')
            pad.add_probe(Gst.PadProbeType.BUFFER, self.on_picture)
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
        # how far the input's timestamps jumped at a new rate: (ns,
        # monotonic time) of the last few jumps
        self.in_jumps = collections.deque(maxlen=8)
        # (monotonic time of its last WARNING that intervals are dropped)
        self.drop_warned_at = -100.0
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

    def watch_new_caps(self):
        """The jump of the input's timestamps at the caps just set: a
        probe on the analyser's sink pad (streaming thread) from the first
        buffer of those caps to the next, then removed."""
        want = (self.rate, self.channels)
        first_end = [None]

        def on_buffer(pad, info):
            caps = pad.get_current_caps()
            buf = info.get_buffer()
            if caps is None or buf.pts == Gst.CLOCK_TIME_NONE:
                return Gst.PadProbeReturn.OK
            st = caps.get_structure(0)
            rate = st.get_int('rate')[1]
            channels = st.get_int('channels')[1]
            if (rate, channels) != want:
                # (a buffer of the caps before, or caps set since)
                return Gst.PadProbeReturn.OK if first_end[0] is None \
                    else Gst.PadProbeReturn.REMOVE
            if first_end[0] is None:
                first_end[0] = buf.pts + \
                    (buf.get_size() // (4 * channels)) * Gst.SECOND // rate
                return Gst.PadProbeReturn.OK
            if abs(buf.pts - first_end[0]) > 1000000:
                self.in_jumps.append((buf.pts - first_end[0],
                                      time.monotonic()))
            return Gst.PadProbeReturn.REMOVE

        self.el.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER,
                                                 on_buffer)

    def input_jumped_by(self, delta):
        """Whether the input's timestamps jumped by delta ns (within 1 ms)
        at a new rate in the last 10 s (that jump is then used up)."""
        now = time.monotonic()
        for jump in list(self.in_jumps):
            by, when = jump
            if now - when < 10 and abs(by - delta) <= 1000000:
                self.in_jumps.remove(jump)
                return True
        return False

    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            self.errors.append('%s (%s)' % (err.message, dbg))
        elif t == Gst.MessageType.WARNING:
            self.warnings += 1
            err, dbg = msg.parse_warning()
            if 'intervals of analysis are dropped' in err.message:
                self.drop_warned_at = time.monotonic()
        elif t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is None or s.get_name() not in ('spectrum',
                                                  'ebur128-level'):
                return
            ts = s.get_value('timestamp')
            dur = s.get_value('duration')
            ok, dropped = s.get_uint('dropped')
            # (gpufftspectrum's has the field only where intervals were
            # dropped; gpuspectrum's, as spectrum's, never: None)
            dropped = dropped if ok else (
                None if self.kind == 'gpuspectrum' else 0)
            if s.get_name() == 'ebur128-level':
                # (the timestamp is the interval's end)
                if ts is None or dur is None or ts >= 2 ** 63 or ts < dur:
                    return
                ts -= dur
            self.check(ts, dur, dropped)

    def on_picture(self, pad, info):
        """A picture of the spectrogram (streaming thread): one more
        message; a jump is counted against the element's dropped frames at
        the next sample (count_pictures)."""
        buf = info.get_buffer()
        pts, dur = buf.pts, buf.duration
        self.messages += 1
        self.last_msg_at = time.monotonic()
        if pts == Gst.CLOCK_TIME_NONE or dur == Gst.CLOCK_TIME_NONE:
            return Gst.PadProbeReturn.OK
        if pts >= 2 ** 63 or (self.pic_expect is not None
                              and self.pic_expect >= 2 ** 63):
            # (a wrapped upstream timestamp, as for the messages)
            self.wrapped += 1
        elif (self.pic_expect is not None
              and abs(pts - self.pic_expect) > 1000000):
            if time.monotonic() < self.forgive_until:
                self.forgive_until = 0
            elif pts > self.pic_expect:
                self.pic_jumps += round((pts - self.pic_expect) / dur)
            else:
                self.holes += 1
                self.hole_notes.append('stream %d (%s): picture at %.3f s, '
                                       'expected %.3f s' % (
                                           self.i, self.kind, pts / 1e9,
                                           self.pic_expect / 1e9))
        self.pic_expect = pts + dur
        return Gst.PadProbeReturn.OK

    def count_pictures(self):
        """The spectrogram's jumps since the last call against the frames
        its stats say it dropped meanwhile."""
        if self.kind != 'gpufftspectrogram':
            return
        st = self.el.get_property('stats')
        ok, dropped = st.get_uint64('dropped') if st else (False, 0)
        dropped = dropped if ok else self.pic_dropped
        counted = max(0, dropped - self.pic_dropped)
        self.pic_dropped = dropped
        self.dropped += counted
        if self.pic_jumps > counted:
            self.holes += 1
            self.hole_ns += (self.pic_jumps - counted) * 100000000
            self.hole_notes.append('stream %d (%s): %d pictures missing, %d '
                                   'counted dropped' % (
                                       self.i, self.kind, self.pic_jumps,
                                       counted))
        self.pic_jumps = 0

    def uncounted_drops(self, gap):
        """A message without a `dropped` field (gpuspectrum's) gap ns
        after where the one before ended: whole intervals within 12 s of
        the element's WARNING that it drops intervals are counted
        dropped."""
        k = round(gap / INTERVAL)
        if k < 1 or abs(gap - k * INTERVAL) > 50000 or \
                time.monotonic() - self.drop_warned_at >= 12:
            return False
        self.dropped += k
        return True

    def check(self, ts, dur, dropped):
        """One analysis message: contiguous with the one before
        (dropped None: the message has no `dropped` field)."""
        counted = dropped is not None
        dropped = dropped if counted else 0
        self.messages += 1
        self.last_msg_at = time.monotonic()
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
            elif self.input_jumped_by(ts - want):
                pass
            elif not counted and self.uncounted_drops(ts - want):
                pass
            else:
                self.holes += 1
                self.hole_ns += abs(ts - want)
                self.hole_notes.append(
                    'stream %d (%s): %+.3f s at %.3f s (the message '
                    'before: %.3f s + %.3f s), last poke %s %.1f s before'
                    % (self.i, self.kind, (ts - want) / 1e9, ts / 1e9,
                       self.prev[0] / 1e9, self.prev[1] / 1e9,
                       self.last_poke[0],
                       time.monotonic() - self.last_poke[1]))
        self.expect = ts + dur
        self.prev = (ts, dur)

    def poke(self):
        self.pokes += 1
        what = self.rng.choice(['restart', 'pause', 'property', 'caps',
                                'reset', 'flush'])
        if what == 'reset' and not self.has_reset:
            what = 'property'
        self.last_poke = (what, time.monotonic())
        if what == 'restart':
            self.pipe.set_state(Gst.State.NULL)
            self.new_run()
            self.pipe.set_state(Gst.State.PLAYING)
        elif what == 'pause':
            self.pipe.set_state(Gst.State.PAUSED)
            self.new_run()
            GLib.timeout_add(300, self.resume)
        elif what == 'property':
            self.new_run()
            if self.kind == 'gpufftspectrum':
                self.fft = self.rng.choice([n for n in FFT_SIZES
                                            if n != self.fft])
                self.el.set_property('fft-size', self.fft)
            elif self.kind == 'gpuspectrum':
                self.el.set_property('bands', self.rng.choice(BANDS))
            elif self.kind == 'gpuloudness':
                Gst.util_set_object_arg(self.el, 'mode',
                                        self.rng.choice(LOUDNESS_MODES))
            else:
                self.el.set_property('fft-size',
                                     self.rng.choice(SPECTROGRAM_FFT))
        elif what == 'caps':
            if self.rng.random() < 0.5:
                self.rate = RATES[1 - RATES.index(self.rate)]
            else:
                self.channels = CHANNELS[1 - CHANNELS.index(self.channels)]
            self.new_run()
            self.watch_new_caps()
            self.set_caps()
        elif what == 'flush':
            self.new_run()
            if not self.pipe.seek_simple(Gst.Format.TIME,
                                         Gst.SeekFlags.FLUSH, 0):
                self.errors.append('the flushing seek was refused')
        else:
            if self.kind == 'gpuloudness':
                # (its intervals start again at a reset)
                self.new_run()
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
    ap.add_argument('--rss-slope', type=float, default=0.5,
                    help='%% of the mean RSS a minute (default 0.5)')
    ap.add_argument('--elements', default=','.join(ELEMENTS))
    ap.add_argument('--warmup-min', type=float, default=2,
                    help='minutes left out of the slopes (at least the '
                    'first third; default 2)')
    args = ap.parse_args()
    if args.plugin_path:
        os.environ['GST_PLUGIN_PATH'] = args.plugin_path
    Gst.init(None)
    kinds = args.elements.split(',')
    for k in kinds:
        if Gst.ElementFactory.find(k) is None:
            print('bench-soak: no %s element (GST_PLUGIN_PATH, '
                  '--plugin-path)' % k, file=sys.stderr)
            return 1
    rng = random.Random(args.seed)
    streams = [Stream(i, random.Random(args.seed * 1000 + i),
                      kinds[i % len(kinds)])
               for i in range(args.streams)]
    for s in streams:
        s.pipe.set_state(Gst.State.PLAYING)
    loop = GLib.MainLoop()
    start = time.monotonic()
    samples = []
    pokes = {}
    stalled = set()

    slow_pokes = []

    def poke():
        s = rng.choice(streams)
        t0 = time.monotonic()
        what = s.poke()
        took = time.monotonic() - t0
        if took > 1:
            # the application's thread held: a state change or property
            # set that did not return promptly
            slow_pokes.append((took, what, s.i, s.kind, t0 - start))
        pokes[what] = pokes.get(what, 0) + 1
        return True

    def sample():
        now = time.monotonic()
        samples.append((now - start, rss_kib(), fd_count(), thread_count()))
        for s in streams:
            s.count_pictures()
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
    # slopes a minute over the samples after the warm-up (the first third)
    warm = [x for x in samples if x[0] >= args.warmup_min * 60]
    steady = samples[third:] if len(samples) >= 3 else samples
    if len(warm) < len(steady) and len(warm) >= 3:
        steady = warm
    rss_slope = slope([(x[0] / 60, x[1]) for x in steady])      # KiB/min
    fd_slope = slope([(x[0] / 60, x[2]) for x in steady])
    thr_slope = slope([(x[0] / 60, x[3]) for x in steady])
    rss_mean = sum(x[1] for x in steady) / max(1, len(steady))
    rss_slope_pct = 100 * rss_slope / rss_mean if rss_mean else 0
    steady_min = (steady[-1][0] - steady[0][0]) / 60 if steady else 0
    msgs = sum(s.messages for s in streams)
    holes = sum(s.holes for s in streams)
    wrapped = sum(s.wrapped for s in streams)
    dropped = sum(s.dropped for s in streams)
    errors = [e for s in streams for e in s.errors]
    warnings = sum(s.warnings for s in streams)

    print('bench-soak: %s UTC, %d live streams (%s), %.1f min, a poke every '
          '%d ms (seed %d), plugin path %s'
          % (time.strftime('%Y-%m-%d %H:%M', time.gmtime()), args.streams,
             args.elements, elapsed / 60, args.poke_ms, args.seed,
             os.environ.get('GST_PLUGIN_PATH', '-')))
    print('pokes: ' + ', '.join('%s %d' % kv for kv in sorted(pokes.items())))
    print('%-10s %10s %7s %8s' % ('time s', 'RSS MiB', 'fds', 'threads'))
    for t, r, f, th in samples[::max(1, len(samples) // 12)] + samples[-1:]:
        print('%-10.0f %10.1f %7d %8d' % (t, r / 1024, f, th))
    longest = max([getattr(s, 'longest', 0) for s in streams])
    for k in args.elements.split(','):
        ks = [s for s in streams if s.kind == k]
        print('%-18s %d streams: %d messages%s, %d dropped (counted), %d '
              'holes' % (k, len(ks), sum(s.messages for s in ks),
                         ' (pictures)' if k == 'gpufftspectrogram' else '',
                         sum(s.dropped for s in ks),
                         sum(s.holes for s in ks)))
    print('messages %d, intervals dropped (counted) %d, holes (not counted) '
          '%d, messages next to a wrapped upstream timestamp %d, errors %d, '
          'warnings %d, stalled streams %d, longest silence while playing '
          '%.0f s (counted from 10 s)'
          % (msgs, dropped, holes, wrapped, len(errors), warnings,
             len(stalled), longest))
    print('RSS: %.1f -> %.1f MiB (%+.1f %%, middle third to last), fds %.0f '
          '-> %.0f' % (rss_mid / 1024, rss_last / 1024, 100 * rss_growth,
                       fd_mid, fd_last))
    print('slopes after the first third (%.1f min): RSS %+.0f KiB/min '
          '(%+.2f %% of %.1f MiB a minute), fds %+.2f/min, threads %+.2f/min'
          % (steady_min, rss_slope, rss_slope_pct, rss_mean / 1024,
             fd_slope, thr_slope))
    slow_pokes.sort(reverse=True)
    print('pokes that held the application thread over 1 s: %d%s'
          % (len(slow_pokes), ''.join(
              '\n  %.1f s: %s of stream %d (%s) at %.0f s' % p
              for p in slow_pokes[:5])))
    for e in errors[:5]:
        print('error: ' + e)
    for n in [n for s in streams for n in s.hole_notes][:10]:
        print('hole: ' + n)
    for n in [n for s in streams for n in s.stall_notes][:10]:
        print('silent: ' + n)
    flat = (rss_slope_pct <= args.rss_slope
            and fd_slope * steady_min < 1 and thr_slope * steady_min < 1)
    ok = (not errors and holes == 0 and not stalled and flat
          and rss_growth <= args.rss_tolerance and fd_last <= fd_mid + 2)
    print('@soak streams=%d minutes=%.1f pokes=%d messages=%d dropped=%d '
          'holes=%d wrapped=%d errors=%d warnings=%d stalled=%d '
          'rss_mid_kib=%.0f rss_last_kib=%.0f fd_mid=%.0f fd_last=%.0f '
          'rss_slope_kib_min=%.0f rss_slope_pct_min=%.2f fd_slope_min=%.2f '
          'threads_slope_min=%.2f slow_pokes=%d flat=%d ok=%d'
          % (args.streams, elapsed / 60, sum(pokes.values()), msgs, dropped,
             holes, wrapped, len(errors), warnings, len(stalled), rss_mid,
             rss_last, fd_mid, fd_last, rss_slope, rss_slope_pct, fd_slope,
             thr_slope, len(slow_pokes), flat, ok))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
