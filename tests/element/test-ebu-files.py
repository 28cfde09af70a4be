#!/usr/bin/python3
"""gpuloudness against the EBU's own test files (the EBU loudness test set:
Tech 3341 and Tech 3342's WAV files), where they are at hand.

Some cases cannot be generated from the documents' text: Tech 3341 cases 7
and 8 and Tech 3342 cases 5 and 6 are authentic programmes, and Tech 3341
cases 20-23 are bursts synthesised and filtered by a process the text does
not fix. element-loudness generates every other case; this test reads the
files themselves, every case whose reading is one figure for the whole file:

  Tech 3341 cases 1-8   integrated loudness, +-0.1 LU
  Tech 3341 cases 15-23 true peak (the largest of the channels), +0.2/-0.4 dB
  Tech 3342 cases 1-6   loudness range, +-1 LU

  meson configure build -Debu_files=/path/to/ebu-loudness-test-setv05
  meson test -C build element-ebu-files
(or GPUFFT_EBU_DIR=/path/to/the/set GST_PLUGIN_PATH=build/plugin
/usr/bin/python3 tests/element/test-ebu-files.py). Meson has the test only
where the option names a folder: the files are the EBU's to distribute, and
CI has none.

Each file runs through `filesrc ! wavparse ! audioconvert ! gpuloudness`
(one interval of an hour: the reading at EOS). A case whose file is not in
the folder is listed as missing; the test fails on any reading outside its
tolerance, on a folder with none of the files and on a path that is no
folder. Exit 77 (skipped) without GPUFFT_EBU_DIR. The true peak's array
needs python3-gst-1.0's overrides (Gst.ValueArray)."""
import math
import os
import sys

try:
    import gi
    gi.require_version('Gst', '1.0')
    from gi.repository import Gst
except (ImportError, ValueError):
    print('SKIP: no GStreamer Python bindings (apt-get install python3-gi '
          'gir1.2-gstreamer-1.0 python3-gst-1.0)')
    sys.exit(77)

# (case, file names as the test set spells them, field, expected, minus,
# plus)
I, TP, LRA = 'global-loudness', 'true-peak', 'loudness-range'
CASES = [
    ('3341-1', ['seq-3341-1-16bit.wav'], I, -23.0, 0.1, 0.1),
    ('3341-2', ['seq-3341-2-16bit.wav'], I, -33.0, 0.1, 0.1),
    ('3341-3', ['seq-3341-3-16bit-v02.wav', 'seq-3341-3-16bit.wav'], I,
     -23.0, 0.1, 0.1),
    ('3341-4', ['seq-3341-4-16bit-v02.wav', 'seq-3341-4-16bit.wav'], I,
     -23.0, 0.1, 0.1),
    ('3341-5', ['seq-3341-5-16bit-v02.wav', 'seq-3341-5-16bit.wav'], I,
     -23.0, 0.1, 0.1),
    ('3341-6', ['seq-3341-6-5channels-16bit.wav'], I, -23.0, 0.1, 0.1),
    ('3341-6 (6 channels)', ['seq-3341-6-6channels-WAVEEX-16bit.wav'], I,
     -23.0, 0.1, 0.1),
    ('3341-7', ['seq-3341-7_seq-3342-5-24bit.wav'], I, -23.0, 0.1, 0.1),
    ('3341-8', ['seq-3341-2011-8_seq-3342-6-24bit-v02.wav',
                'seq-3341-2011-8_seq-3342-6-24bit.wav'], I, -23.0, 0.1, 0.1),
] + [
    ('3341-%d' % n, ['seq-3341-%d-24bit.wav.wav' % n,
                     'seq-3341-%d-24bit.wav' % n], TP, tp, 0.4, 0.2)
    for n, tp in [(15, -6.0), (16, -6.0), (17, -6.0), (18, -6.0), (19, 3.0),
                  (20, 0.0), (21, 0.0), (22, 0.0), (23, 0.0)]
] + [
    ('3342-1', ['seq-3342-1-16bit.wav'], LRA, 10.0, 1.0, 1.0),
    ('3342-2', ['seq-3342-2-16bit.wav'], LRA, 5.0, 1.0, 1.0),
    ('3342-3', ['seq-3342-3-16bit.wav'], LRA, 20.0, 1.0, 1.0),
    ('3342-4', ['seq-3342-4-16bit.wav'], LRA, 15.0, 1.0, 1.0),
    ('3342-5', ['seq-3341-7_seq-3342-5-24bit.wav'], LRA, 5.0, 1.0, 1.0),
    ('3342-6', ['seq-3341-2011-8_seq-3342-6-24bit-v02.wav',
                'seq-3341-2011-8_seq-3342-6-24bit.wav'], LRA, 15.0, 1.0, 1.0),
]


def measure(path):
    """The last ebur128-level message's structure (at EOS)."""
    if Gst.ElementFactory.find('wavparse') is None:
        raise RuntimeError('no wavparse (gstreamer1.0-plugins-good)')
    pipe = Gst.parse_launch('filesrc name=src ! wavparse ! audioconvert ! '
                            'gpuloudness interval=%d ! fakesink'
                            % (3600 * Gst.SECOND))
    pipe.get_by_name('src').set_property('location', path)
    bus = pipe.get_bus()
    pipe.set_state(Gst.State.PLAYING)
    last = None
    while True:
        msg = bus.timed_pop_filtered(
            600 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS
            | Gst.MessageType.ELEMENT)
        if msg is None:
            pipe.set_state(Gst.State.NULL)
            raise RuntimeError('no EOS in 600 s')
        if msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            pipe.set_state(Gst.State.NULL)
            raise RuntimeError(err.message)
        if msg.type == Gst.MessageType.EOS:
            break
        s = msg.get_structure()
        if s.get_name() == 'ebur128-level':
            last = s.copy()
    pipe.set_state(Gst.State.NULL)
    if last is None:
        raise RuntimeError('no ebur128-level message')
    return last


def reading(s, field):
    if field == TP:
        peaks = s.get_value(TP)
        return max(20.0 * math.log10(p) if p > 0 else -math.inf
                   for p in peaks)
    return s.get_value(field)


def main():
    d = os.environ.get('GPUFFT_EBU_DIR')
    if not d:
        print('SKIP: set GPUFFT_EBU_DIR to a folder of the EBU loudness '
              'test set\'s WAV files')
        return 77
    if not os.path.isdir(d):
        print('FAIL: GPUFFT_EBU_DIR=%s is not a folder' % d)
        return 1
    Gst.init(None)
    cache = {}
    found = failed = 0
    for case, names, field, want, minus, plus in CASES:
        path = next((os.path.join(d, n) for n in names
                     if os.path.isfile(os.path.join(d, n))), None)
        if path is None:
            print('# %-20s missing (%s)' % (case, names[0]))
            continue
        found += 1
        if path not in cache:
            cache[path] = measure(path)
        got = reading(cache[path], field)
        ok = want - minus <= got <= want + plus
        failed += not ok
        print('%s %-20s %-16s %8.2f  expected %6.1f (-%.1f/+%.1f)  %s' % (
            'ok  ' if ok else 'FAIL', case, field, got, want, minus, plus,
            os.path.basename(path)))
    if found == 0:
        print('FAIL: none of the EBU files in %s' % d)
        return 1
    print('# %d cases read, %d outside their tolerance' % (found, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
