#!/usr/bin/env bash
# Installs everything gst-gpufft needs to build, test and run, with apt-get,
# on Debian bookworm (12). Runs as root, or through sudo otherwise.
# Mesa's lavapipe (mesa-vulkan-drivers) gives a Vulkan device on any CPU;
# a GPU's own Vulkan driver is used instead where one is installed.
set -euo pipefail

packages=(
  # build
  meson ninja-build pkg-config gcc libc6-dev
  glslc spirv-tools                     # shaders -> SPIR-V at build time, spirv-val
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  vulkan-validationlayers               # the Vulkan calls checked (scripts/sanitize.sh vklayer)
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev   # includes gstreamer-check-1.0
  # run and demo
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  # tests and examples
  python3 python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0
  gir1.2-gst-plugins-base-1.0 python3-numpy python3-scipy
  valgrind
  libebur128-dev                        # the loudness tests' reference
  pulseaudio gstreamer1.0-pulseaudio    # a real live source (pulsesrc) in a test
  # the spectrogram monitor window (GTK 3) and its test under a virtual X
  xvfb xauth gir1.2-gtk-3.0
  # benchmarks (FFTW peer)
  libfftw3-dev
  # gpufft-watch, the monitoring service (-Dwatch)
  libmosquitto-dev                      # its MQTT publisher (libmosquitto)
  libsoup-3.0-dev                       # its HTTP server (/metrics, /api)
  mosquitto                             # an MQTT broker for its tests
  mosquitto-clients                     # mosquitto_sub: its tests read what it publishes
  prometheus                            # promtool and a real server for its tests
  libjson-glib-dev                      # its tests' independent JSON reader
)

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "setup.sh: run as root, or install sudo" >&2
  exit 1
fi

echo "setup.sh: installing ${#packages[@]} packages with apt-get"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends "${packages[@]}"
