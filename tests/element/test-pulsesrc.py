#!/usr/bin/python3
"""A real live source: pulsesrc records a PulseAudio null sink (a private
server started here) while a 1 kHz tone plays into it, through
gpufftspectrum, whose plan is made 2 s slow (GPUFFT_DEBUG_SLOW_PLAN_MS, as a
cold driver compiler can be), at the start and again after fft-size changes
from 1024 to 2048 while it plays (2.5 s in, once it has posted). No audio
may be lost:
  - pulsesrc posts no warning (it warns when it cannot record fast enough,
    and then marks the next buffer DISCONT);
  - every buffer after the first is contiguous with the one before (its
    timestamp within 1 ms of the previous end, no DISCONT flag), but
    that the second may begin up to 10 ms before the first one's end
    (pulsesrc times its first buffer before it knows its latency: no
    audio is lost, and the element's times, counted in samples from the
    first timestamp, are that much late until it next starts from a
    buffer's timestamp, at the fft-size change);
  - every buffer leaves the element at once (within 50 ms of entering it),
    also while the plan is being made;
  - after EOS: the messages' intervals tile what entered, from its
    first timestamp to within an interval of its end (check_tiling: 100 ms
    each but for the one the change cut and the last; no hole but that
    cut interval when it held no whole frame, and at the cut a step back
    of at most the second buffer's overlap), `dropped-intervals` 0,
    the messages after the change at fft-size 2048, and the tone at 1 kHz
    in the intervals once it plays.
Exit 77 (skipped) without pulseaudio or GStreamer's pulse plugin: CI
installs both (scripts/setup.sh)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
except (ImportError, ValueError):
    print('SKIP: no GStreamer Python bindings (apt-get install python3-gi '
          'gir1.2-gstreamer-1.0)')
    sys.exit(77)

SECONDS = 6.0
CHANGE_AT = 2.5
SCHED_LOG = None


def start_server(d):
    """A private PulseAudio server with a null sink 't' (48 kHz stereo),
    reachable at unix:d/native. Returns the process."""
    env = dict(os.environ, HOME=d, XDG_RUNTIME_DIR=d, XDG_CONFIG_HOME=d)
    p = subprocess.Popen(
        ['pulseaudio', '-n', '--daemonize=no', '--exit-idle-time=-1',
         '--use-pid-file=no', '--disable-shm=yes', '--log-target=stderr',
         '-L', 'module-null-sink sink_name=t rate=48000 channels=2',
         '-L', 'module-native-protocol-unix socket=%s/native '
         'auth-anonymous=1' % d],
        env=env, stdout=subprocess.DEVNULL, stderr=open(d + '/pa.log', 'w'))
    for _ in range(100):
        if os.path.exists(d + '/native') or p.poll() is not None:
            break
        time.sleep(0.1)
    if not os.path.exists(d + '/native'):
        print('the PulseAudio server did not start:\n' +
              open(d + '/pa.log').read())
        p.kill()
        sys.exit(1)
    return p


def main():
    if shutil.which('pulseaudio') is None:
        print('SKIP: no pulseaudio (apt-get install pulseaudio)')
        return 77
    # (the element's time on each buffer, from GStreamer's own log: the
    # pads' probes here would count the interpreter's lock too)
    log = tempfile.NamedTemporaryFile(prefix='gpufft-pulse-', suffix='.log',
                                      delete=False)
    log.close()
    os.environ['GST_DEBUG'] = 'GST_SCHEDULING:5'
    os.environ['GST_DEBUG_FILE'] = log.name
    os.environ['GST_DEBUG_NO_COLOR'] = '1'
    global SCHED_LOG
    SCHED_LOG = log.name
    Gst.init(None)
    if Gst.ElementFactory.find('pulsesrc') is None:
        print('SKIP: no pulsesrc (apt-get install gstreamer1.0-pulseaudio)')
        return 77
    d = tempfile.mkdtemp(prefix='gpufft-pulse-')
    server = start_server(d)
    os.environ['PULSE_SERVER'] = 'unix:%s/native' % d
    os.environ['GPUFFT_DEBUG_SLOW_PLAN_MS'] = '2000'
    try:
        return run()
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(d, ignore_errors=True)
        os.unlink(SCHED_LOG)


def held_ms(path):
    """How long the element's chain function held each buffer (GStreamer's
    GST_SCHEDULING lines 'calling' and 'called chainfunction' of el's sink
    pad, on the streaming thread), in ms."""
    held, since = [], {}
    with open(path, errors='replace') as f:
        for line in f:
            if '<el:sink>' not in line or 'chainfunction' not in line:
                continue
            fields = line.split()
            h, m, sec = fields[0].split(':')
            t = (int(h) * 3600 + int(m) * 60 + float(sec)) * 1e3
            thread = fields[2]
            if 'calling chainfunction' in line:
                since[thread] = t
            elif 'called chainfunction' in line and thread in since:
                held.append(t - since.pop(thread))
    return held


def check_tiling(msgs, first, last, skew=0):
    """The messages' intervals tile the audio from its first timestamp
    first to its end last: each begins where the one before ended, but for
    one hole shorter than an interval (the interval cut by the fft-size
    change, when it held no whole frame: it posts nothing); each lasts 100
    ms but for the one the change cut and the last; the last ends within
    an interval of the end (a tail that held no whole frame posts nothing).
    Returns the failures."""
    iv = 100 * Gst.MSECOND
    ts = [s.get_value('timestamp') for s in msgs]
    du = [s.get_value('duration') for s in msgs]
    if not msgs:
        return ['no message']
    fails = []
    if abs(ts[0] - first) > Gst.MSECOND:
        fails.append('the first message at %d, the audio from %d' % (
            ts[0], first))
    holes = [i + 1 for i in range(len(ts) - 1) if ts[i + 1] != ts[i] + du[i]]
    cut = [i + 1 for i in range(len(ts) - 1)
           if msgs[i + 1].get_value('fft-size') !=
           msgs[i].get_value('fft-size')]
    if len(holes) > 1 or (holes and not (
            (skew - Gst.MSECOND if skew < 0 else 1) <= ts[holes[0]]
            - ts[holes[0] - 1]
            - du[holes[0] - 1] < iv and holes == cut)):
        fails += ['message %d at %d, the one before ended at %d' % (
            i, ts[i], ts[i - 1] + du[i - 1]) for i in holes[:5]]
    short = [i for i in range(len(du) - 1) if du[i] != iv
             and i + 1 not in cut]
    fails += ['message %d lasts %d ns' % (i, du[i]) for i in short[:5]]
    fails += ['message %d lasts %d ns, over an interval' % (i, du[i])
              for i in range(len(du)) if du[i] > iv][:5]
    end = ts[-1] + du[-1]
    if not last - iv < end <= last + Gst.MSECOND:
        fails.append('the last message ends at %d, the audio at %d' % (
            end, last))
    return fails


def run():
    pipe = Gst.parse_launch(
        'audiotestsrc is-live=true freq=1000 volume=0.5 ! '
        'audio/x-raw,format=F32LE,rate=48000,channels=2 ! '
        'pulsesink device=t '
        'pulsesrc device=t.monitor name=src ! '
        'audio/x-raw,format=F32LE,rate=48000,channels=2 ! '
        'gpufftspectrum name=el fft-size=1024 interval=100000000 ! '
        'fakesink sync=false')
    el = pipe.get_by_name('el')
    ins = []                    # (pts, duration, discont)

    def on_in(pad, info):
        b = info.get_buffer()
        ins.append((b.pts, b.duration,
                    bool(b.get_flags() & Gst.BufferFlags.DISCONT)))
        return Gst.PadProbeReturn.OK

    el.get_static_pad('sink').add_probe(Gst.PadProbeType.BUFFER, on_in)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    # (EOS once the pipeline plays: never while a state change is running)
    ret, _, _ = pipe.get_state(10 * Gst.SECOND)
    if ret == Gst.StateChangeReturn.FAILURE:
        print('FAIL: the pipeline did not start')
        return 1
    msgs, warnings, errors = [], [], []
    start = time.monotonic()
    end = start + SECONDS
    eos_sent = changed = False
    while True:
        now = time.monotonic()
        # (after the first message, so that the first geometry is seen
        # whatever the start took)
        if not changed and msgs and now >= start + CHANGE_AT:
            el.set_property('fft-size', 2048)
            changed = True
        if now >= end and not eos_sent:
            pipe.send_event(Gst.Event.new_eos())
            eos_sent = True
            end = now + 30
        elif now >= end:
            errors.append('no EOS within 30 s')
            break
        m = bus.timed_pop(int(min(end - now, 0.1) * Gst.SECOND))
        if m is None:
            continue
        if m.type == Gst.MessageType.EOS:
            break
        if m.type == Gst.MessageType.ERROR:
            errors.append(m.parse_error()[0].message)
            break
        if m.type == Gst.MessageType.WARNING:
            warnings.append('%s: %s' % (m.src.get_name(),
                                        m.parse_warning()[0].message))
        if m.type == Gst.MessageType.ELEMENT and m.src == el:
            s = m.get_structure()
            if s.get_name() == 'spectrum':
                msgs.append(s.copy())
            elif s.get_name() == 'dominant-frequency':
                msgs[-1].set_value('dominant', s.get_value('frequency'))
    stats = el.get_property('stats')
    pipe.set_state(Gst.State.NULL)

    fails = list(errors)
    fails += ['warning: %s' % w for w in warnings]
    skew = 0
    if len(ins) > 1 and not ins[1][2] and \
            -10 * Gst.MSECOND <= ins[1][0] - ins[0][0] - ins[0][1] < 0:
        skew = ins[1][0] - ins[0][0] - ins[0][1]
        print('the second buffer begins %.1f ms before the first one\'s '
              'end' % (-skew / 1e6))
    gaps = [(i, a, b) for i, (a, b) in enumerate(zip(ins, ins[1:]))
            if (b[2] or abs(b[0] - (a[0] + a[1])) > Gst.MSECOND)
            and not (i == 0 and skew < 0)]
    fails += ['buffer %d: %s (%.1f ms after the previous end)' % (
        i + 1, 'DISCONT' if b[2] else 'not contiguous',
        (b[0] - a[0] - a[1]) / 1e6) for i, a, b in gaps[:5]]
    held = held_ms(SCHED_LOG)
    late = [t for t in held if t > 50]
    if len(held) < len(ins):
        fails.append('the log shows %d of the %d buffers' % (len(held),
                                                            len(ins)))
    if late:
        fails.append('%d buffers held in the element (up to %.0f ms)' % (
            len(late), max(late)))
    audio = sum(b[1] for b in ins)
    fails += check_tiling(msgs, ins[0][0] if ins else 0,
                          ins[-1][0] + ins[-1][1] if ins else 0, skew)
    sizes = [s.get_value('fft-size') for s in msgs]
    if 2048 not in sizes or sizes[-1] != 2048 or sizes[0] != 1024:
        fails.append('fft-size from %s to %s: the change did not take' % (
            sizes[:1], sizes[-1:]))
    if stats.get_value('dropped-intervals') != 0:
        fails.append('dropped-intervals %d' %
                     stats.get_value('dropped-intervals'))
    tone = [s.get_value('dominant') for s in msgs
            if s.has_field('dominant')
            and abs(s.get_value('dominant') - 1000) < 5]
    if len(tone) < len(msgs) // 2:
        fails.append('the tone in %d of %d intervals' % (len(tone),
                                                         len(msgs)))
    print('%d buffers (%.2f s of audio), %d messages, tone in %d, '
          'dropped-intervals %d, warnings %d' % (
              len(ins), audio / 1e9, len(msgs), len(tone),
              stats.get_value('dropped-intervals'), len(warnings)))
    for f in fails:
        print('FAIL: ' + f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
