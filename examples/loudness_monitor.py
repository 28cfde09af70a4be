#!/usr/bin/python3
"""loudness_monitor.py: EBU R128 loudness of many streams at once, in one
process, on the GPU (the gpuloudness element; PyGObject).

    ./loudness_monitor.py --uri http://host/a.mp3 --uri rtsp://host/b
    ./loudness_monitor.py --source "pulsesrc" --source "audiotestsrc is-live=true"
    ./loudness_monitor.py --test 8 --duration 10     # 8 test tones

Each stream is one branch of one pipeline:
    SOURCE ! audioconvert ! audioresample ! gpuloudness ! fakesink
(a --uri goes through uridecodebin). Every element's work goes to the same
device in shared submissions. Once a second it prints, per stream, the
momentary (M, 400 ms), short-term (S, 3 s) and integrated (I, gated)
loudness in LUFS, the loudness range (LRA, LU) and the true peak (TP,
dBTP, the largest of the channels since the start), and flags a stream
whose integrated loudness is off -23 LUFS (EBU R128) by more than 1 LU or
whose true peak is above -1 dBTP.
"""
import argparse
import math
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", action="append", default=[],
                    help="a stream to decode (repeat for more)")
    ap.add_argument("--source", action="append", default=[],
                    help="a source launch description (repeat for more)")
    ap.add_argument("--test", type=int, default=0,
                    help="N test tones (1 kHz stereo) at -14, -18, -23, "
                    "-33, -43 dBFS")
    ap.add_argument("--duration", type=float, default=0,
                    help="stop once every stream has measured this many "
                    "seconds of audio")
    ap.add_argument("--target", type=float, default=-23.0,
                    help="target integrated loudness, LUFS (default -23)")
    return ap.parse_args()


def fmt(v, width=6):
    return ("%*.1f" % (width, v)) if math.isfinite(v) else "%*s" % (width, "-inf")


def main():
    args = parse_args()
    Gst.init(None)
    sources = []
    for uri in args.uri:
        sources.append(("uridecodebin uri=%s" % uri, uri))
    for src in args.source:
        sources.append((src, src))
    levels = [-14, -18, -23, -33, -43]
    for i in range(args.test):
        db = levels[i % len(levels)]
        # (1 kHz stereo at -23 dBFS reads -23 LUFS)
        sources.append(("audiotestsrc freq=1000 volume=%g num-buffers=%d ! "
                        "audio/x-raw,channels=2"
                        % (10 ** (db / 20.0),
                           int((args.duration or 10) * 44100 / 1024) + 1),
                        "test tone %d dBFS" % db))
    if not sources:
        sys.exit("loudness_monitor.py: give --uri, --source or --test")
    desc = " ".join(
        "%s ! audioconvert ! audioresample ! gpuloudness name=loud%d ! "
        "fakesink sync=false" % (src, i) for i, (src, _) in enumerate(sources))
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:         # a missing element: one line, exit 1
        sys.exit("loudness_monitor.py: %s (is its plugin installed where "
                 "GStreamer looks? `gst-inspect-1.0 gpuloudness` tells)"
                 % e.message)
    loop = GLib.MainLoop()
    latest = {}
    reached = {}                    # stream -> seconds measured
    state = {"code": 0, "printed": 0, "eos": False}

    def show():
        print("%-4s %6s %6s %6s %5s %6s  %s" % ("#", "M", "S", "I", "LRA",
                                               "TP", "stream"))
        for i, (_, name) in enumerate(sources):
            s = latest.get(i)
            if s is None:
                print("%-4d %s" % (i, "(waiting)"))
                continue
            tp = max(s.get_value("true-peak").array or [0.0])
            tp_db = 20 * math.log10(tp) if tp > 0 else -math.inf
            i_lufs = s.get_double("global-loudness")[1]
            flags = []
            if math.isfinite(i_lufs) and abs(i_lufs - args.target) > 1.0:
                flags.append("I off target")
            if tp_db > -1.0:
                flags.append("TP > -1")
            print("%-4d %s %s %s %s %s  %s%s"
                  % (i, fmt(s.get_double("momentary-loudness")[1]),
                     fmt(s.get_double("shortterm-loudness")[1]),
                     fmt(i_lufs), fmt(s.get_double("loudness-range")[1], 5),
                     fmt(tp_db), name,
                     ("  [" + ", ".join(flags) + "]") if flags else ""))
        sys.stdout.flush()
        state["printed"] += 1

    def tick():
        if latest:
            show()
        return not state["eos"]

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() != "ebur128-level":
                return
            name = msg.src.get_name()
            latest[int(name[4:])] = s
            reached[int(name[4:])] = s.get_uint64("timestamp")[1] / Gst.SECOND
            # (the streams run at their own pace: stop once every one of
            # them has measured the duration)
            if args.duration and len(reached) == len(sources) and \
                    min(reached.values()) + 0.05 >= args.duration:
                # (an EOS sent while the pipeline still changes state would
                # wait for that change, which waits for this thread: quit)
                _, cur, pending = pipeline.get_state(0)
                if cur == Gst.State.PLAYING and \
                        pending == Gst.State.VOID_PENDING:
                    pipeline.send_event(Gst.Event.new_eos())
                else:
                    loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            state["eos"] = True
            show()
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("error: %s (%s)" % (err.message, dbg), file=sys.stderr)
            state["code"] = 1
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    GLib.timeout_add(1000, tick)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    pipeline.set_state(Gst.State.NULL)
    if not latest and state["code"] == 0:
        print("no loudness message", file=sys.stderr)
        state["code"] = 1
    return state["code"]


if __name__ == "__main__":
    sys.exit(main())
