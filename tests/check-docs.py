#!/usr/bin/python3
"""The reference pages in docs/ say what the elements really have.

For each element page (docs/ELEMENT.md) it reads two kinds of tables:
- the property table (the one whose header starts "| name | type | range |
  default | access |"): every property the plugin's own classes define
  (those of GstObject, GstElement and GstBaseTransform, such as `qos`,
  are GStreamer's and left out), with its GType, its range (integers and
  doubles: "MIN .. MAX", with G_MAXINT, G_MAXUINT, G_MAXUINT64,
  G_MAXDOUBLE and G_MININT for GLib's limits; enums and flags: every
  value's nick), its default and its access ("rw", "rw, ready", "rw,
  playing" for GST_PARAM_MUTABLE_READY / _PLAYING, "read-only");
- field tables (those whose header starts "| field | type |"), each under
  a heading holding the structure's name in backquotes, e.g.
  "### The `spectrum` message": every field, with every GType it may have
  in the second column (in backquotes).

It compares them with the elements (GObject introspection) and with the
structures the elements really make: messages posted by short pipelines
run in a set of configurations that between them produce every field,
and the `stats` and `layout` properties read after them. Any property or
field missing from either side, and any type, range, default, access or
enum value that differs, is a failure. A field that no short run can
produce is listed in UNOBSERVABLE with the reason.
usage: check-docs.py DOCS_DIR   (GST_PLUGIN_PATH naming the build's plugin)
       check-docs.py --dump ELEMENT   (print the element's property rows)"""
import math
import os
import re
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst  # noqa: E402

ELEMENTS = ["gpufftspectrum", "gpuspectrum", "gpufftspectrogram",
            "gpuloudness"]
GSTREAMER_OWNERS = {"GstObject", "GstElement", "GstBaseTransform"}
LIMITS = {
    "G_MAXINT": 2 ** 31 - 1, "G_MININT": -2 ** 31,
    "G_MAXUINT": 2 ** 32 - 1, "G_MAXUINT64": 2 ** 64 - 1,
    "G_MAXINT64": 2 ** 63 - 1, "G_MAXDOUBLE": sys.float_info.max,
    "-G_MAXDOUBLE": -sys.float_info.max,
}
MUTABLE_READY, MUTABLE_PLAYING = 1 << 10, 1 << 12

# Pipelines run for the field tables: (element, description). Between them
# they produce every field that a short run can produce.
TONE = "audiotestsrc num-buffers=12 samplesperbuffer=4410"
STEREO = TONE + " ! audio/x-raw,channels=2"
RUNS = [
    ("gpufftspectrum", TONE + " ! gpufftspectrum name=e ! fakesink"),
    ("gpufftspectrum", TONE + " ! gpufftspectrum name=e peaks=2 "
     "message-frames=true message-phase=true ! fakesink"),
    ("gpufftspectrum", STEREO + " ! gpufftspectrum name=e multi-channel=true"
     " peaks=3 message-phase=true message-format=bytes frequency-scale=octave"
     " message-frames=true ! fakesink"),
    ("gpufftspectrum", STEREO + " ! gpufftspectrum name=e multi-channel=true"
     " frequency-scale=mel message-frames=true ! fakesink"),
    ("gpuspectrum", TONE + " ! gpuspectrum name=e message-phase=true "
     "! fakesink"),
    ("gpuspectrum", STEREO + " ! gpuspectrum name=e multi-channel=true "
     "message-phase=true ! fakesink"),
    ("gpuloudness", "audiotestsrc num-buffers=30 samplesperbuffer=4800 ! "
     "audio/x-raw,rate=48000,channels=2 ! gpuloudness name=e ! fakesink"),
    ("gpuloudness", "audiotestsrc num-buffers=30 samplesperbuffer=4800 ! "
     "audio/x-raw,rate=48000,channels=1 ! gpuloudness name=e "
     "mode=momentary+sample-peak ! fakesink"),
    ("gpufftspectrogram", TONE + " ! gpufftspectrogram name=e ! "
     "video/x-raw,width=160,height=120,framerate=10/1 ! fakesink"),
]
# (element, structure, field): fields no short run produces.
UNOBSERVABLE = {
    # only after intervals of a live stream were dropped (the device or
    # the host fell behind)
    ("gpufftspectrum", "spectrum", "dropped"),
    # only when frames held a NaN, an infinite sample or one beyond
    # +-2^32, which no source of a pipeline description makes
    ("gpufftspectrum", "spectrum", "frames-left-out"),
}


def fmt_number(v, is_float):
    for name, lim in LIMITS.items():
        if v == lim and (is_float == isinstance(lim, float)):
            return name
    if is_float:
        return ("%d" % v) if float(v).is_integer() and abs(v) < 1e15 \
            else repr(float(v))
    return str(v)


def parse_number(text, is_float):
    text = text.strip().strip("`")
    if text in LIMITS:
        return LIMITS[text]
    return float(text) if is_float else int(text)


def enum_values(pspec):
    t = pspec.value_type
    if t.is_a(GObject.TYPE_ENUM):
        vals = type(pspec.default_value).__enum_values__
        return [vals[k].value_nick for k in sorted(vals)]
    vals = type(pspec.default_value).__flags_values__
    return [vals[k].first_value_nick for k in sorted(vals) if k]


def describe(pspec):
    """(type, range, default, access) as the docs write them."""
    t = pspec.value_type
    tname = GObject.type_name(t)
    dv = pspec.default_value
    if t.is_a(GObject.TYPE_ENUM):
        typ = "enum `%s`" % tname
        rng = ", ".join("`%s`" % n for n in enum_values(pspec))
        default = "`%s`" % dv.value_nick
    elif t.is_a(GObject.TYPE_FLAGS):
        typ = "flags `%s`" % tname
        rng = ", ".join("`%s`" % n for n in enum_values(pspec))
        vals = type(dv).__flags_values__
        nicks = [vals[k].first_value_nick for k in sorted(vals)
                 if k and (int(dv) & k) == k]
        default = "`%s`" % "+".join(nicks) if nicks else "0"
    else:
        typ = "`%s`" % tname
        if hasattr(pspec, "minimum"):
            isf = t in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT)
            rng = "%s .. %s" % (fmt_number(pspec.minimum, isf),
                                fmt_number(pspec.maximum, isf))
            default = fmt_number(dv, isf)
        else:
            rng = ""
            if t == GObject.TYPE_BOOLEAN:
                default = "true" if dv else "false"
            elif t == GObject.TYPE_STRING:
                default = "NULL" if dv is None else '"%s"' % dv
            else:
                default = "NULL"
    flags = int(pspec.flags)
    if not flags & GObject.ParamFlags.WRITABLE:
        access = "read-only"
    elif flags & MUTABLE_PLAYING:
        access = "rw, playing"
    elif flags & MUTABLE_READY:
        access = "rw, ready"
    else:
        access = "rw"
    return typ, rng, default, access


def own_properties(name):
    el = Gst.ElementFactory.make(name, None)
    if el is None:
        sys.exit("no element %s: is GST_PLUGIN_PATH the build's plugin?"
                 % name)
    return [p for p in el.list_properties()
            if p.owner_type.name not in GSTREAMER_OWNERS]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_tables(path):
    """Property rows {name: cells} and field tables {structure: {field:
    set of types}} of one page."""
    props, fields = {}, {}
    heading, mode, current = "", None, None
    for line in open(path, encoding="utf-8"):
        if line.startswith("#"):
            heading, mode = line, None
            continue
        if not line.startswith("|"):
            mode = None
            continue
        c = cells(line)
        if c[:5] == ["name", "type", "range", "default", "access"]:
            mode = "props"
            continue
        if c[:2] == ["field", "type"]:
            m = re.search(r"`([a-z0-9-]+)`", heading)
            if not m:
                sys.exit("%s: a field table under a heading without a "
                         "structure name: %s" % (path, heading.strip()))
            mode, current = "fields", fields.setdefault(m.group(1), {})
            continue
        if set(line.strip()) <= set("|-: "):
            continue
        if mode == "props":
            names = re.findall(r"`([a-z0-9-]+)`", c[0])
            for n in names:
                props[n] = c
        elif mode == "fields":
            types = set(re.findall(r"`([A-Za-z0-9_]+)`", c[1]))
            for n in re.findall(r"`([a-z0-9-]+)`", c[0]):
                current[n] = types
    return props, fields


def compare_props(name, documented, fail):
    real = own_properties(name)
    seen = set()
    for p in real:
        seen.add(p.name)
        row = documented.get(p.name)
        if row is None:
            fail.append("%s: property %s is not documented" % (name, p.name))
            continue
        typ, rng, default, access = describe(p)
        if row[1] != typ:
            fail.append("%s: %s's type: docs %r, element %r"
                        % (name, p.name, row[1], typ))
        if rng and "`" not in rng:
            isf = p.value_type in (GObject.TYPE_DOUBLE, GObject.TYPE_FLOAT)
            try:
                lo, hi = (parse_number(v, isf) for v in row[2].split(".."))
                ok = (lo, hi) == (p.minimum, p.maximum)
            except ValueError:
                ok = False
            if not ok:
                fail.append("%s: %s's range: docs %r, element %r"
                            % (name, p.name, row[2], rng))
            try:
                ok = parse_number(row[3], isf) == p.default_value
            except ValueError:
                ok = False
            if not ok:
                fail.append("%s: %s's default: docs %r, element %r"
                            % (name, p.name, row[3], default))
        else:
            if row[2] != rng and not (rng == "" and row[2] == "—"):
                fail.append("%s: %s's range: docs %r, element %r"
                            % (name, p.name, row[2], rng))
            if row[3] != default:
                fail.append("%s: %s's default: docs %r, element %r"
                            % (name, p.name, row[3], default))
        if row[4] != access:
            fail.append("%s: %s's access: docs %r, element %r"
                        % (name, p.name, row[4], access))
    for n in documented:
        if n not in seen:
            fail.append("%s: the docs list property %s, which the element "
                        "does not have" % (name, n))


def add_structure(got, s):
    d = got.setdefault(s.get_name(), {})
    for i in range(s.n_fields()):
        n = s.nth_field_name(i)
        d.setdefault(n, set()).add(GObject.type_name(s.get_field_type(n)))


def observe(fail):
    got = {}
    for name, desc in RUNS:
        g = got.setdefault(name, {})
        p = Gst.parse_launch(desc)
        bus = p.get_bus()
        p.set_state(Gst.State.PLAYING)
        n = 0
        while True:
            m = bus.timed_pop_filtered(
                120 * Gst.SECOND, Gst.MessageType.ELEMENT
                | Gst.MessageType.EOS | Gst.MessageType.ERROR)
            if m is None:
                fail.append("%s: no EOS within 120 s" % desc)
                break
            if m.type == Gst.MessageType.ERROR:
                fail.append("%s: %s" % (desc, m.parse_error()[0].message))
                break
            if m.type == Gst.MessageType.EOS:
                break
            if m.src.get_name() == "e":
                add_structure(g, m.get_structure())
                n += 1
        el = p.get_by_name("e")
        for prop in ("stats", "layout"):
            if el.find_property(prop) is None:
                continue
            s = el.get_property(prop)
            if s is not None:
                g.setdefault("prop:" + prop, {})
                add_structure(g, s)
        p.set_state(Gst.State.NULL)
        print("ran: %s (%d messages)" % (desc, n))
    return got


def compare_fields(name, documented, observed, fail):
    observed = {k: v for k, v in observed.items()
                if not k.startswith("prop:")}
    for sname, fields in observed.items():
        doc = documented.get(sname)
        if doc is None:
            fail.append("%s: structure %s has no field table"
                        % (name, sname))
            continue
        for f, types in fields.items():
            if f not in doc:
                fail.append("%s: %s's field %s is not documented"
                            % (name, sname, f))
            elif not types <= doc[f]:
                fail.append("%s: %s's field %s has type %s, the docs say %s"
                            % (name, sname, f, sorted(types),
                               sorted(doc[f])))
    for sname, doc in documented.items():
        for f in doc:
            if (name, sname, f) in UNOBSERVABLE:
                continue
            if f not in observed.get(sname, {}):
                fail.append("%s: the docs list %s's field %s, which no run "
                            "produced" % (name, sname, f))


def main():
    Gst.init(None)
    if sys.argv[1] == "--dump":
        for p in own_properties(sys.argv[2]):
            print("| `%s` | %s | %s | %s | %s | |"
                  % ((p.name,) + describe(p)))
        return
    docs, fail = sys.argv[1], []
    observed = observe(fail)
    for name in ELEMENTS:
        path = os.path.join(docs, name + ".md")
        if not os.path.exists(path):
            fail.append("no page %s" % path)
            continue
        props, fields = read_tables(path)
        if not props:
            fail.append("%s: no property table" % path)
        compare_props(name, props, fail)
        compare_fields(name, fields, observed.get(name, {}), fail)
        print("%s: %d properties, %d structures documented"
              % (name, len(props), len(fields)))
    for f in fail:
        print("FAIL:", f)
    if fail:
        sys.exit("%d differences between docs/ and the elements" % len(fail))
    print("docs/ matches the elements")


if __name__ == "__main__":
    main()
