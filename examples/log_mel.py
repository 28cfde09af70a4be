#!/usr/bin/python3
"""log_mel.py: a Whisper-style log-mel spectrogram of any file GStreamer
can decode, as a numpy matrix, from gpufftspectrum's message-frames.

    ./log_mel.py speech.ogg                 # prints the shape and a summary
    ./log_mel.py speech.ogg --save mel.npy  # [mels][frames] float32

The element computes every frame's mel power on the GPU exactly as
librosa.feature.melspectrogram (power 2, slaney mel filters) does for
uncentred frames: 16 kHz, fft-size 400, hop 160 (10 ms), Hann, 80 mels,
scaling=raw. Whisper's own log compression follows in numpy:
log10, clamp to (max - 8), (x + 4) / 4.
"""
import argparse
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

import numpy as np  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", help="audio file (any format)")
    ap.add_argument("--source", help="a source launch description instead "
                    "of a file (e.g. \"audiotestsrc num-buffers=100\")")
    ap.add_argument("--mels", type=int, default=80)
    ap.add_argument("--save", help="write the [mels][frames] matrix (.npy)")
    return ap.parse_args()


def log_mel(source, mels, location=None):
    """[mels][frames] float32 of Whisper's log-mel features of the source
    description, or with location of that file (set as a property: the
    name is no part of the description)."""
    Gst.init(None)
    if location is not None:
        source = "filesrc name=file ! decodebin"
    desc = ("%s ! audioconvert ! audioresample ! "
            "audio/x-raw,format=F32LE,rate=16000,channels=1 ! "
            "gpufftspectrum name=mel fft-size=400 hop-size=160 window=hann "
            "frequency-scale=mel mel-bands=%d scaling=raw threshold=-300 "
            "message-frames=true message-format=bytes "
            "message-dominant=false interval=1000000000 ! fakesink"
            % (source, mels))
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:         # a missing element: one line, exit 1
        sys.exit("log_mel.py: %s (is its plugin installed where GStreamer "
                 "looks? `gst-inspect-1.0 NAME` tells)" % e.message)
    if location is not None:
        pipeline.get_by_name("file").set_property("location", location)
    frames = []
    error = []
    loop = GLib.MainLoop()

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() == "spectrum":
                # frame-magnitude: [channels=1][frames][mels] float32 dB;
                # copied inside the handler (the GBytes is the message's)
                b = bytes(s.get_value("frame-magnitude").get_data())
                frames.append(np.frombuffer(b, "<f4").reshape(-1, mels))
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            error.append("%s (%s)" % (err.message, dbg))
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    if error:
        raise RuntimeError(error[0])
    if not frames:
        return np.zeros((mels, 0), np.float32)
    db = np.concatenate(frames).T          # [mels][frames], 10 log10 (power)
    x = db / 10.0                           # log10 of the mel power
    x = np.maximum(x, x.max() - 8.0)
    return ((x + 4.0) / 4.0).astype(np.float32)


def main():
    args = parse_args()
    if not args.source and not args.file:
        print("give a file or --source", file=sys.stderr)
        return 2
    try:
        m = log_mel(args.source, args.mels,
                    None if args.source else args.file)
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    print("log-mel: %d mels x %d frames (%.2f s), min %.3f max %.3f mean %.3f"
          % (m.shape[0], m.shape[1], m.shape[1] * 0.01, m.min() if m.size
             else 0, m.max() if m.size else 0, m.mean() if m.size else 0))
    if m.size:
        print("loudest mel band: %d" % int(np.argmax(m.mean(axis=1))))
    if args.save:
        np.save(args.save, m)
    return 0 if m.size else 1


if __name__ == "__main__":
    sys.exit(main())
