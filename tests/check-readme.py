#!/usr/bin/python3
"""Runs what README.md shows: every command of its ```sh blocks that can
run on this machine, and its ```python example.

Each command line (continuations joined) is either run or skipped by a
rule below that says why (a network peer, a second device, the quick
start's own tests); a command that no rule covers fails the test, so that a
new recipe is either run here or skipped with its reason.

What runs is changed only where this machine lacks what the README
assumes: the microphone (`autoaudiosrc`) becomes a live test tone, every
`audiotestsrc` gets a `num-buffers` bound, `music.ogg` is a Vorbis file
made here, output files go to a temporary folder, `autovideosink` becomes
`fakesink`. A `gst-launch-1.0` must exit 0; with `-m`, each analyser must
have posted its messages (`spectrum` / `ebur128-level`); a `| grep X`
must find X; a program's output file must be there. The Python example
runs on a 1000 Hz tone and must print a dominant frequency within 1 Hz of
it. Every relative link of README.md, docs/*.md and tests/bench/README.md
must name a file of the tree, and its #anchor a heading of that file.
usage: check-readme.py SOURCE_DIR BUILD_DIR"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

SKIP = [
    (r"^scripts/(demo|test)\.sh\b", "the quick start: the demo test and CI "
     "run it"),
    (r"^(sudo )?meson ", "building and installing"),
    (r"^export GST_PLUGIN_PATH=\$PWD/build/plugin$", "the test's own "
     "environment names the build's plugin"),
    (r"\b(udpsrc|udpsink|srtsrc|srtsink|souphttpsrc|rtspsrc)\b",
     "needs a network peer"),
    (r"device-index=[1-9]", "needs a second Vulkan device"),
]
ANALYSERS = {"gpufftspectrum": "spectrum", "gpuspectrum": "spectrum",
             "gpuloudness": "ebur128-level"}
TIMEOUT = 300


def blocks(path):
    """(language, text) of each fenced block."""
    out, lang, lines = [], None, []
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^```(\w*)\s*$", line)
        if m and lang is None:
            lang, lines = m.group(1), []
        elif line.startswith("```") and lang is not None:
            out.append((lang, "".join(lines)))
            lang = None
        elif lang is not None:
            lines.append(line)
    return out


def commands(text):
    joined = re.sub(r"\\\n\s*", " ", text)
    for line in joined.splitlines():
        line = re.sub(r"\s{2,}#.*$", "", line).strip()
        if line and not line.startswith("#"):
            yield re.sub(r"\s+", " ", line)


def bound_sources(cmd):
    cmd = cmd.replace("autoaudiosrc", "audiotestsrc is-live=true")

    def bound(m):
        props = m.group(1)
        return m.group(0) if "num-buffers=" in props else \
            "audiotestsrc num-buffers=30" + props
    return re.sub(r"audiotestsrc((?: [a-z-]+=[^ !]+)*)", bound, cmd)


def make_music(tmp):
    path = os.path.join(tmp, "music.ogg")
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", "wave=ticks",
                    "num-buffers=100", "!", "audioconvert", "!", "vorbisenc",
                    "!", "oggmux", "!", "filesink", "location=" + path],
                   check=True, timeout=TIMEOUT)
    return path


def run(argv, shell=False):
    r = subprocess.run(argv, shell=shell, capture_output=True, text=True,
                       timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    return r.returncode, r.stdout + r.stderr


def check_command(cmd, src, build, tmp, music, fail):
    grep = None
    m = re.match(r"^(.*?) \| grep (\S+)$", cmd)
    if m:
        cmd, grep = m.group(1), m.group(2)
    outputs = []
    cmd = cmd.replace("location=music.ogg", "location=" + music)
    cmd = re.sub(r"(?<=\s)music\.ogg\b", music, cmd)
    for name in ("music.png", "spectrogram.ogv"):
        if name in cmd:
            path = os.path.join(tmp, name)
            cmd = re.sub(r"(?<=[\s=])" + re.escape(name) + r"\b", path, cmd)
            outputs.append(path)
    cmd = cmd.replace("autovideosink", "fakesink")
    if cmd.startswith("gst-launch-1.0 "):
        cmd = bound_sources(cmd)
        rc, out = run(shlex.split(cmd))
        if rc != 0:
            fail.append("%s: exit %d\n%s" % (cmd, rc, out[-2000:]))
            return
        if " -m " in cmd:
            for el, msg in ANALYSERS.items():
                if re.search(r"!\s*%s\b" % el, cmd) and \
                        "(element): %s," % msg not in out:
                    fail.append("%s: no %s message" % (cmd, msg))
    elif cmd.startswith("gst-inspect-1.0 "):
        rc, out = run(shlex.split(cmd))
        if rc != 0:
            fail.append("%s: exit %d\n%s" % (cmd, rc, out[-2000:]))
            return
    elif cmd.startswith("build/examples/"):
        argv = shlex.split(cmd)
        argv[0] = os.path.join(build, argv[0][len("build/"):])
        rc, out = run(argv)
        if rc != 0:
            fail.append("%s: exit %d\n%s" % (cmd, rc, out[-2000:]))
            return
    elif cmd.startswith("build/watch/"):
        argv = shlex.split(cmd)
        argv[0] = os.path.join(build, argv[0][len("build/"):])
        argv = [os.path.join(src, a) if a.startswith("examples/") else a
                for a in argv]
        rc, out = run(argv)
        if rc != 0:
            fail.append("%s: exit %d\n%s" % (cmd, rc, out[-2000:]))
            return
    elif cmd.startswith("/usr/bin/python3 examples/"):
        argv = shlex.split(cmd)
        argv[1] = os.path.join(src, argv[1])
        rc, out = run(argv)
        if rc != 0:
            fail.append("%s: exit %d\n%s" % (cmd, rc, out[-2000:]))
            return
    else:
        fail.append("no rule runs or skips this command: %s" % cmd)
        return
    if grep is not None and grep not in out:
        fail.append("%s: the output has no %r" % (cmd, grep))
    for path in outputs:
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            fail.append("%s: wrote no %s" % (cmd, path))
    print("ran: %s" % cmd)


def check_python(text, tmp, fail):
    path = os.path.join(tmp, "example.py")
    with open(path, "w") as f:
        f.write(text)
    src = "audiotestsrc freq=1000 num-buffers=50"
    rc, out = run(["/usr/bin/python3", path, src])
    print(out[-1500:])
    if rc != 0:
        fail.append("the Python example: exit %d\n%s" % (rc, out[-2000:]))
        return
    freqs = [float(m) for m in re.findall(r"dominant\s+([0-9.]+) Hz", out)]
    levels = re.findall(r"level\s+(-?[0-9.]+) dBFS", out)
    if not freqs or not levels:
        fail.append("the Python example printed no dominant frequency or "
                    "level")
    elif not all(abs(f - 1000) < 1 for f in freqs):
        fail.append("the Python example's dominant frequencies are not "
                    "1000 Hz: %s" % freqs)
    print("ran: the Python example (%d intervals)" % len(freqs))


def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    out, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif line.startswith("#") and not fence:
            t = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", t).replace(" ", "-"))
    return out


def check_links(src, fail):
    pages = ["README.md", "tests/bench/README.md"] + sorted(
        "docs/" + f for f in os.listdir(os.path.join(src, "docs"))
        if f.endswith(".md"))
    n = 0
    for page in pages:
        text = open(os.path.join(src, page), encoding="utf-8").read()
        for m in re.finditer(r"\]\(([^)#\s]*)(#[^)\s]*)?\)", text):
            target, anchor = m.group(1), m.group(2)
            if re.match(r"^[a-z]+:", target):
                continue
            path = os.path.normpath(os.path.join(
                src, os.path.dirname(page), target)) if target else \
                os.path.join(src, page)
            n += 1
            if not os.path.exists(path):
                fail.append("%s: link to %s: no such file" % (page, target))
            elif anchor and path.endswith(".md") and \
                    anchor[1:] not in anchors(path):
                fail.append("%s: link to %s%s: no such heading"
                            % (page, target, anchor))
    print("checked %d links of %d pages" % (n, len(pages)))


def main():
    src, build = sys.argv[1], sys.argv[2]
    fail, ran, skipped = [], 0, 0
    check_links(src, fail)
    os.chdir(src)
    with tempfile.TemporaryDirectory(prefix="gpufft-readme-") as tmp:
        music = make_music(tmp)
        pythons = 0
        for lang, text in blocks(os.path.join(src, "README.md")):
            if lang == "python":
                check_python(text, tmp, fail)
                pythons += 1
                continue
            if lang != "sh":
                continue
            for cmd in commands(text):
                rule = next((r for r in SKIP if re.search(r[0], cmd)), None)
                if rule:
                    print("skipped (%s): %s" % (rule[1], cmd))
                    skipped += 1
                    continue
                check_command(cmd, src, build, tmp, music, fail)
                ran += 1
        if pythons == 0:
            fail.append("README.md has no Python example")
    for f in fail:
        print("FAIL:", f)
    print("%d commands run, %d skipped with their reason, %d failures"
          % (ran, skipped, len(fail)))
    if fail or ran == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
