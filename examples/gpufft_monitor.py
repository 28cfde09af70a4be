#!/usr/bin/python3
"""gpufft_monitor.py: live dominant frequency and a terminal bar spectrum
from the gpufftspectrum element, in Python (PyGObject + numpy).

    ./gpufft_monitor.py                                  # microphone
    ./gpufft_monitor.py --source "audiotestsrc freq=440" --duration 5
    ./gpufft_monitor.py --source "filesrc location=a.ogg ! decodebin"

The element runs with message-format=bytes: `magnitude` is a GBytes of
little-endian float32, channel-major, read with one np.frombuffer call.
"""
import argparse
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

import numpy as np  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default="autoaudiosrc",
                    help="source launch description (default: autoaudiosrc)")
    ap.add_argument("--num-buffers", type=int, default=-1,
                    help="stop after this many buffers from the source")
    ap.add_argument("--duration", type=float, default=0,
                    help="stop after this many seconds")
    ap.add_argument("--fft-size", type=int, default=4096,
                    help="FFT size, any even size 16..65536 (default 4096)")
    ap.add_argument("--bands", type=int, default=16,
                    help="bars in the spectrum display (default 16)")
    ap.add_argument("--interval", type=int, default=100,
                    help="milliseconds between updates (default 100)")
    return ap.parse_args()


HINT = "(is its plugin installed where GStreamer looks? " \
    "`gst-inspect-1.0 NAME` tells)"


class Monitor:
    WIDTH = 50

    def __init__(self, args):
        self.args = args
        self.tty = sys.stdout.isatty()
        self.exit_code = 0
        self.dominant = (0.0, 0.0)
        self.printed_device = False
        self.last_spectrum = None
        desc = ("%s ! audioconvert ! gpufftspectrum name=spec fft-size=%d "
                "interval=%d message-format=bytes ! fakesink sync=true"
                % (args.source, args.fft_size, args.interval * Gst.MSECOND))
        try:
            self.pipeline = Gst.parse_launch(desc)
        except GLib.Error as e:     # a missing element: one line, exit 1
            sys.exit("gpufft_monitor.py: %s %s" % (e.message, HINT))
        self.spec = self.pipeline.get_by_name("spec")
        if args.num_buffers > 0:
            it = self.pipeline.iterate_sources()
            while True:
                res, src = it.next()
                if res != Gst.IteratorResult.OK:
                    break
                if src.find_property("num-buffers"):
                    src.set_property("num-buffers", args.num_buffers)
        self.loop = GLib.MainLoop()
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)

    def bars(self, s):
        """Draws the highest level in each log-spaced band of spectrum s."""
        rate = s.get_value("rate")
        n = s.get_value("fft-size")
        # (the GLib.Bytes is borrowed from the message and freed with it:
        # copy it before keeping anything made from it past this handler)
        data = bytes(s.get_value("magnitude").get_data())
        mag = np.frombuffer(data, dtype="<f4")
        mag = mag.reshape(-1, n // 2 + 1)[0]   # first channel (or the mix)
        thr = self.spec.get_property("threshold")
        lo, hi = rate / n, rate / 2
        edges = lo * (hi / lo) ** (np.arange(self.args.bands + 1)
                                   / self.args.bands)
        freqs = np.arange(mag.size) * rate / n
        out = []
        if self.tty:
            out.append("\033[H\033[2J")
        out.append("t = %.2f s   peak %.1f Hz (%.1f dB)\n"
                   % (s.get_value("timestamp") / Gst.SECOND, *self.dominant))
        for b in range(self.args.bands):
            sel = mag[(freqs >= edges[b]) & (freqs <= edges[b + 1])]
            level = max(float(sel.max()), thr) if sel.size else thr
            n_hash = int(round((level - thr) / -thr * self.WIDTH))
            n_hash = min(max(n_hash, 0), self.WIDTH)
            out.append("%8.0f Hz |%s| %6.1f dB\n"
                       % (edges[b], ("#" * n_hash).ljust(self.WIDTH), level))
        sys.stdout.write("".join(out))
        sys.stdout.flush()

    def on_message(self, bus, msg):
        t = msg.type
        if t == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if not self.printed_device:
                print("device: %s" % self.spec.get_property("device-name"))
                self.printed_device = True
            # `spectrum` comes first, then `dominant-frequency` of the same
            # interval: draw both together
            if s.get_name() == "spectrum" and s.has_field("magnitude"):
                self.last_spectrum = s.copy()
            elif s.get_name() == "dominant-frequency":
                self.dominant = (s.get_value("frequency"),
                                 s.get_value("magnitude"))
                if not self.tty:
                    print("dominant frequency: %.1f Hz (%.1f dB)"
                          % self.dominant, flush=True)
                if self.last_spectrum is not None:
                    self.bars(self.last_spectrum)
                    self.last_spectrum = None
        elif t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            sys.stderr.write("error: %s\n%s\n" % (err.message, dbg or ""))
            self.exit_code = 1
            self.loop.quit()
        elif t == Gst.MessageType.EOS:
            self.loop.quit()

    def run(self):
        if self.args.duration > 0:
            GLib.timeout_add(int(self.args.duration * 1000), self.stop)
        if self.pipeline.set_state(Gst.State.PLAYING) == \
                Gst.StateChangeReturn.FAILURE:
            msg = self.pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
            if msg:
                self.on_message(None, msg)
            self.exit_code = 1
        else:
            self.loop.run()
        self.pipeline.set_state(Gst.State.NULL)
        return self.exit_code

    def stop(self):
        """--duration is up: EOS (the last interval's messages come, then
        the loop ends) once the pipeline plays; before that (it still
        prerolls: the first buffer can wait for the element's plan) just
        quit. An EOS sent to a pipeline whose state change is still in
        flight waits for that change's lock, which waits for the preroll,
        which waits for this thread: a deadlock."""
        _, state, pending = self.pipeline.get_state(0)
        if state == Gst.State.PLAYING and pending == Gst.State.VOID_PENDING:
            self.pipeline.send_event(Gst.Event.new_eos())
        else:
            self.loop.quit()
        return False


def main():
    args = parse_args()
    Gst.init(None)
    if args.bands < 1 or args.interval < 1:
        sys.stderr.write("--bands and --interval must be positive\n")
        return 2
    return Monitor(args).run()


if __name__ == "__main__":
    sys.exit(main())
