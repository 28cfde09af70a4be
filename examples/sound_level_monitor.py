#!/usr/bin/python3
"""sound_level_monitor.py: a sound level meter in the terminal: 1/3-octave
bars in dB(A) with Fast time weighting and the A-weighted level LAF, from
the gpufftspectrum element (PyGObject + numpy).

    ./sound_level_monitor.py                              # microphone
    ./sound_level_monitor.py --source "audiotestsrc wave=pink-noise"
    ./sound_level_monitor.py --weighting c --time-constant 1   # LCS

The element does all of it on the GPU: frequency-scale=octave
octave-fraction=3 (IEC 61260-1 bands), weighting=a (IEC 61672-1),
averaging=exponential time-constant=0.125 (Fast), every 100 ms. Levels are
dBFS (a full-scale sine reads 0 dB): add your microphone's calibration
offset to read dB SPL.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

import numpy as np  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="autoaudiosrc",
                    help="source launch description (default: autoaudiosrc)")
    ap.add_argument("--duration", type=float, default=0,
                    help="stop after this many seconds of audio")
    ap.add_argument("--weighting", default="a", choices=["a", "c", "z"])
    ap.add_argument("--time-constant", type=float, default=0.125,
                    help="seconds: 0.125 Fast (default), 1 Slow")
    ap.add_argument("--fraction", type=int, default=3,
                    help="octave fraction: 1, 3 (default), 6, 12, 24")
    ap.add_argument("--floor", type=float, default=-90.0,
                    help="lowest level shown, dBFS (default -90)")
    return ap.parse_args()


def main():
    args = parse_args()
    Gst.init(None)
    tty = sys.stdout.isatty()
    desc = ("%s ! audioconvert ! audioresample ! audio/x-raw,rate=48000 ! "
            "gpufftspectrum name=slm fft-size=8192 hop-size=2048 "
            "frequency-scale=octave octave-fraction=%d weighting=%s "
            "averaging=exponential time-constant=%g threshold=%d "
            "message-format=bytes message-dominant=false ! "
            "fakesink sync=%s"
            % (args.source, args.fraction, args.weighting,
               args.time_constant, int(args.floor),
               "true" if tty else "false"))
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:         # a missing element: one line, exit 1
        sys.exit("sound_level_monitor.py: %s (is its plugin installed where "
                 "GStreamer looks? `gst-inspect-1.0 NAME` tells)" % e.message)
    loop = GLib.MainLoop()
    state = {"code": 0, "shown": 0}

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() != "spectrum":
                return
            # copy inside the handler: the GBytes belongs to the message
            mags = np.frombuffer(bytes(s.get_value("magnitude").get_data()),
                                 "<f4")
            nominal = s.get_value("band-nominal")
            labels = list(nominal.array)
            level = s.get_double("level")[1]
            t = s.get_uint64("timestamp")[1] / Gst.SECOND
            if tty:
                sys.stdout.write("\x1b[H\x1b[2J")
            print("t=%7.2f s  L%sF = %6.1f dBFS (%s-weighted, tau %g s)"
                  % (t, args.weighting.upper(), level, args.weighting,
                     args.time_constant))
            for f, v in zip(labels, mags):
                n = int(max(0.0, (v - args.floor)) / -args.floor * 50)
                name = ("%gk" % (f / 1000)) if f >= 1000 else "%g" % f
                print("%6s Hz %6.1f %s" % (name, v, "#" * n))
            sys.stdout.flush()
            state["shown"] += 1
            if args.duration and t + 0.1 >= args.duration:
                # (an EOS sent while the pipeline still changes state would
                # wait for that change, which waits for this thread: quit)
                _, cur, pending = pipeline.get_state(0)
                if cur == Gst.State.PLAYING and \
                        pending == Gst.State.VOID_PENDING:
                    pipeline.send_event(Gst.Event.new_eos())
                else:
                    loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("error: %s (%s)" % (err.message, dbg), file=sys.stderr)
            state["code"] = 1
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    pipeline.set_state(Gst.State.NULL)
    if state["shown"] == 0 and state["code"] == 0:
        print("no spectrum message", file=sys.stderr)
        state["code"] = 1
    return state["code"]


if __name__ == "__main__":
    sys.exit(main())
