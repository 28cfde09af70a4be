#!/usr/bin/env bash
# Draws the README's picture, docs/spectrogram.png: examples/demo_signal.py's
# WAV file (a chirp, a steady 1 kHz tone, a melody and two noise bursts,
# 6 s at 48 kHz) through the picture program, gpufft-spectrogram, at its
# default 1280x720 with a log frequency axis. The picture depends only on
# the code: the signal is seeded, and two runs on one Vulkan device give
# the same bytes (tests/check-picture.py compares it with the tracked file).
#   usage: scripts/make-readme-picture.sh [BUILD_DIR [OUT.png]]
#   BUILD_DIR defaults to ./build, OUT.png to docs/spectrogram.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$root/docs/spectrogram.png}
python=/usr/bin/python3
[ -x "$python" ] || python=python3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GST_PLUGIN_PATH="$build/plugin"
export GST_REGISTRY="$tmp/registry.bin"

"$python" "$root/examples/demo_signal.py" "$tmp/demo.wav"
"$build/examples/gpufft-spectrogram" "$tmp/demo.wav" -o "$tmp/out.png" \
  -a log --title "chirp, tones, a melody and noise (gpufftspectrogram)"
mv "$tmp/out.png" "$out"
echo "wrote $out"
