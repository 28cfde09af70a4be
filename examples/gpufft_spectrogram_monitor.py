#!/usr/bin/python3
"""A live spectrogram monitor (GTK 3): the waterfall and the current spectrum
with its peak-hold trace, drawn by gpufftspectrogram on the GPU, and the
dominant frequency and level from gpufftspectrum, for the microphone
(autoaudiosrc) or any source.

  SOURCE ! audioconvert ! tee
     ! queue ! gpufftspectrogram mode=both ! capsfilter (window size)
       ! appsink (newest frame only)        -> a Gtk.Image
     ! queue ! gpufftspectrum (dominant frequency, level) ! fakesink
                                            -> a label, from bus messages

The window is resizable: a new size becomes new caps on the capsfilter and
the element renegotiates (its axes and labels are redrawn at the new size,
not scaled). Nothing polls: frames arrive through appsink's new-sample
signal (an idle callback then shows the newest), levels through the bus
watch of the GLib main loop.

usage: gpufft_spectrogram_monitor.py [--source DESC] [--axis AXIS]
         [--duration S --screenshot FILE.png]
--duration quits S seconds after the first frame is shown (or fails after
120 s without one); --screenshot first saves what the
window shows (the X server's pixels). On quit it prints the last dominant
frequency and level."""
import argparse
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Gdk, GdkPixbuf, GLib, Gst, Gtk  # noqa: E402

FPS = 30


class Monitor:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.latest = None           # (bytes, width, height, stride)
        self.idle_pending = False
        self.size = (0, 0)
        self.resize_id = 0
        self.dominant = None
        self.level = None
        self.frames_shown = 0

        self.window = Gtk.Window(title="gpufft spectrogram monitor")
        self.window.set_default_size(args.width, args.height)
        self.window.connect("destroy", self.quit)
        box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        # EXTERNAL: the picture does not hold the window at its size
        self.scroller = Gtk.ScrolledWindow()
        self.scroller.set_policy(Gtk.PolicyType.EXTERNAL,
                                 Gtk.PolicyType.EXTERNAL)
        self.image = Gtk.Image()
        self.scroller.add(self.image)
        self.scroller.connect("size-allocate", self.on_size_allocate)
        box.pack_start(self.scroller, True, True, 0)
        self.label = Gtk.Label(label="waiting for sound", xalign=0)
        self.label.set_margin_start(6)
        box.pack_start(self.label, False, False, 4)
        self.window.add(box)

        try:
            self.pipeline = Gst.parse_launch(
                "%s ! audioconvert ! tee name=t "
                "t. ! queue max-size-time=200000000 leaky=downstream "
                "! gpufftspectrogram name=sg mode=both frequency-axis=%s "
                "! capsfilter name=size "
                "caps=video/x-raw,format=RGBA,framerate=%d/1,width=%d,height=%d "
                "! appsink name=sink emit-signals=true max-buffers=1 drop=true "
                "t. ! queue leaky=downstream ! gpufftspectrum fft-size=4096 "
                "message-magnitude=false interval=100000000 ! fakesink"
                % (args.source, args.axis, FPS, args.width, args.height))
        except GLib.Error as e:     # a missing element: one line, exit 1
            sys.exit("gpufft_spectrogram_monitor.py: %s (is its plugin "
                     "installed where GStreamer looks? `gst-inspect-1.0 "
                     "NAME` tells)" % e.message)
        self.capsfilter = self.pipeline.get_by_name("size")
        self.pipeline.get_by_name("sink").connect("new-sample",
                                                  self.on_sample)
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)

    # --- frames: streaming thread -> main loop ---------------------------
    def on_sample(self, sink):
        sample = sink.emit("pull-sample")
        if sample is None:
            return Gst.FlowReturn.OK
        s = sample.get_caps().get_structure(0)
        w, h = s.get_value("width"), s.get_value("height")
        buf = sample.get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        if ok:
            data = bytes(info.data)
            buf.unmap(info)
            with self.lock:
                self.latest = (data, w, h, len(data) // h)
                schedule = not self.idle_pending
                self.idle_pending = True
            if schedule:
                GLib.idle_add(self.show_frame)
        return Gst.FlowReturn.OK

    def show_frame(self):
        with self.lock:
            frame, self.latest = self.latest, None
            self.idle_pending = False
        if frame:
            data, w, h, stride = frame
            pb = GdkPixbuf.Pixbuf.new_from_bytes(
                GLib.Bytes.new(data), GdkPixbuf.Colorspace.RGB, True, 8, w,
                h, stride)
            self.image.set_from_pixbuf(pb)
            self.frames_shown += 1
            # (--duration counts from the first frame shown: a device that
            # takes long to start, e.g. a busy CPU device compiling its
            # kernels, does not cut the run short)
            if self.frames_shown == 1 and self.args.duration > 0:
                GLib.source_remove(self.watchdog_id)
                GLib.timeout_add(int(self.args.duration * 1000), self.timeout)
        return False

    # --- resizing: new caps for the element ------------------------------
    def on_size_allocate(self, widget, alloc):
        size = (max(64, alloc.width), max(64, alloc.height))
        if size != self.size:
            self.size = size
            if self.resize_id:
                GLib.source_remove(self.resize_id)
            self.resize_id = GLib.timeout_add(150, self.apply_size)

    def apply_size(self):
        self.resize_id = 0
        w, h = self.size
        self.capsfilter.set_property("caps", Gst.Caps.from_string(
            "video/x-raw,format=RGBA,framerate=%d/1,width=%d,height=%d"
            % (FPS, w, h)))
        return False

    # --- messages: main loop ---------------------------------------------
    def on_message(self, bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() == "dominant-frequency":
                self.dominant = s.get_value("frequency")
            elif s.get_name() == "spectrum" and s.has_field("level"):
                self.level = s.get_value("level")
            if self.dominant is not None and self.level is not None:
                self.label.set_text("dominant %8.1f Hz    level %6.1f dBFS"
                                    % (self.dominant, self.level))
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print("error: %s (%s)" % (err.message, dbg), file=sys.stderr)
            self.failed = True
            self.quit()
        elif msg.type == Gst.MessageType.EOS:
            self.quit()

    def screenshot(self):
        gw = self.window.get_window()
        pb = Gdk.pixbuf_get_from_window(gw, 0, 0, gw.get_width(),
                                        gw.get_height())
        if pb is None:
            print("error: no screenshot", file=sys.stderr)
            self.failed = True
        else:
            pb.savev(self.args.screenshot, "png", [], [])
            print("screenshot %dx%d: %s" % (pb.get_width(), pb.get_height(),
                                            self.args.screenshot))

    def timeout(self):
        if self.args.screenshot:
            self.screenshot()
        self.quit()
        return False

    def no_frame(self):
        print("error: no frame within 120 s", file=sys.stderr)
        self.failed = True
        self.quit()
        return False

    def quit(self, *unused):
        if not getattr(self, "stopped", False):
            self.stopped = True
            self.pipeline.set_state(Gst.State.NULL)
            Gtk.main_quit()

    def run(self):
        self.failed = False
        self.window.show_all()
        self.pipeline.set_state(Gst.State.PLAYING)
        if self.args.duration > 0:
            self.watchdog_id = GLib.timeout_add_seconds(120, self.no_frame)
        Gtk.main()
        if self.dominant is not None and self.level is not None:
            print("dominant %.1f Hz, level %.1f dBFS, %d frames shown"
                  % (self.dominant, self.level, self.frames_shown))
        return 1 if self.failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", default="autoaudiosrc",
                    help="gst-launch description of the audio source")
    ap.add_argument("--axis", default="log",
                    choices=["linear", "log", "mel", "octave"])
    ap.add_argument("--width", type=int, default=960)
    ap.add_argument("--height", type=int, default=600)
    ap.add_argument("--duration", type=float, default=0,
                    help="quit after this many seconds (0: run until closed)")
    ap.add_argument("--screenshot", help="save the window as PNG on quit")
    args = ap.parse_args()
    Gst.init(None)
    if not Gtk.init_check(sys.argv)[0]:
        print("error: no display", file=sys.stderr)
        return 1
    return Monitor(args).run()


if __name__ == "__main__":
    sys.exit(main())
