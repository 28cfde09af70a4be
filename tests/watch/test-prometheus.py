#!/usr/bin/python3
"""A running gpufft-watch with 8 test streams, scraped by a real
Prometheus every second: the exposition passes `promtool check metrics`,
and the values read back from Prometheus's query API match the signals
(BS.1770: a 997 Hz sine at -20 dBFS in both channels of a stereo stream
reads -20 LUFS; its RMS is -23.01 dBFS, its peak -20 dBFS, its 1 kHz
1/3-octave band -20 dB), and the alarms follow them (silence raised
within its hold and cleared when sound returns, clipping, loudness off
target, a stuck tone)."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from watchtest import (Prometheus, Service, check, cleanup, fail, http_get,
                       log, promtool_check, skip_without_device, wait_for)

HOLD = 2
CONFIG = f"""
[service]
listen=127.0.0.1:@PORT@

[defaults]
silence-hold={HOLD}
tone-hold={HOLD}
loudness-hold={HOLD}
loudness-measure=short-term
loudness-target=-23
loudness-tolerance=1
clipping-hold=1
down-hold=3

[stream sine]
source=test:

[stream quiet]
source=test:
test-level=-30

[stream on-target]
source=test:
test-level=-23

[stream tone440]
source=test:
test-freq=440

[stream gated]
source=test:
test-on=5
test-off=7

[stream noise]
source=test:
test-wave=pink-noise
test-level=-20
alarms=silence;clipping;down

[stream mono]
source=test:
channels=1

[stream clip]
source=test:
test-wave=square
test-freq=100
test-level=0
"""
NAMES = ["sine", "quiet", "on-target", "tone440", "gated", "noise", "mono",
         "clip"]


def q1(prom, metric, stream, extra=""):
    return prom.value(f'{metric}{{stream="{stream}"{extra}}}')


def main():
    svc = Service(CONFIG)
    try:
        svc.wait_ready(len(NAMES), timeout=60)
    except SystemExit:
        skip_without_device(svc)
        raise
    prom = Prometheus([svc.port])

    # the exposition itself
    status, ctype, text = http_get(svc.url + "/metrics")
    check(status == 200 and ctype.startswith("text/plain; version=0.0.4"),
          f"/metrics answers 200 with {ctype}")
    rc, out = promtool_check(text)
    check(rc == 0, f"promtool check metrics passes ({out.strip()!r})")
    status, _, body = http_get(svc.url + "/healthz")
    check(status == 200 and body.startswith("ok"), "/healthz answers ok")
    streams = json.loads(http_get(svc.url + "/api/streams")[2])["streams"]
    check(sorted(s["name"] for s in streams) == sorted(NAMES),
          "/api/streams lists the 8 streams")

    # Prometheus scrapes it, and reads every stream up
    wait_for("the target healthy in Prometheus",
             lambda: prom.targets_up() == ["up"], 30)
    wait_for("8 streams up in Prometheus",
             lambda: prom.value("sum(gpufft_stream_up)") == 8, 30)

    # loudness after the 3 s short-term window has filled
    def settled():
        v = q1(prom, "gpufft_loudness_shortterm_lufs", "sine")
        return v is not None and abs(v + 20) < 0.1
    wait_for("short-term of the sine at -20 LUFS", settled, 30)
    time.sleep(1.5)
    for metric in ("momentary", "shortterm", "integrated"):
        v = q1(prom, f"gpufft_loudness_{metric}_lufs", "sine")
        check(v is not None and abs(v + 20.0) <= 0.1,
              f"sine: {metric} {v} LUFS is -20.0 +- 0.1")
    v = q1(prom, "gpufft_loudness_shortterm_lufs", "quiet")
    check(v is not None and abs(v + 30.0) <= 0.1,
          f"quiet: short-term {v} LUFS is -30.0 +- 0.1")
    v = q1(prom, "gpufft_loudness_shortterm_lufs", "mono")
    check(v is not None and abs(v + 20.0) <= 0.1,
          f"mono (dual-mono weighting): short-term {v} LUFS is -20.0 +- 0.1")
    v = q1(prom, "gpufft_loudness_range_lu", "sine")
    check(v is not None and abs(v) <= 0.1, f"sine: LRA {v} LU is 0")
    v = q1(prom, "gpufft_true_peak_dbtp", "sine")
    check(v is not None and abs(v + 20.0) <= 0.2,
          f"sine: true peak {v} dBTP is -20 +- 0.2")
    for ch in ("0", "1"):
        v = q1(prom, "gpufft_rms_dbfs", "sine", f',channel="{ch}"')
        check(v is not None and abs(v + 23.0103) <= 0.02,
              f"sine channel {ch}: RMS {v} dBFS is -23.01")
        v = q1(prom, "gpufft_sample_peak_dbfs", "sine", f',channel="{ch}"')
        check(v is not None and -20.05 <= v <= -19.99,
              f"sine channel {ch}: sample peak {v} dBFS is -20")
    check(len(prom.query('gpufft_rms_dbfs{stream="mono"}')) == 1,
          "mono: one channel")
    v = q1(prom, "gpufft_band_level_db", "sine", ',band_hz="1000"')
    check(v is not None and abs(v + 20.0) <= 0.3,
          f"sine: the 1 kHz 1/3-octave band reads {v} dB (-20)")
    v = q1(prom, "gpufft_band_level_db", "sine", ',band_hz="2000"')
    check(v is not None and v < -60, f"sine: the 2 kHz band reads {v} dB")
    bands = prom.query('gpufft_band_level_db{stream="sine"}')
    check(len(bands) == 31, f"sine: 31 bands at 48 kHz ({len(bands)})")
    v = q1(prom, "gpufft_dominant_frequency_hertz", "sine")
    check(v is not None and abs(v - 997.0) < 0.5,
          f"sine: dominant frequency {v} Hz is 997")
    v = q1(prom, "gpufft_dominant_frequency_hertz", "tone440")
    check(v is not None and abs(v - 440.0) < 0.5,
          f"tone440: dominant frequency {v} Hz is 440")

    # alarms as Prometheus sees them
    def alarm(stream, kind):
        return q1(prom, "gpufft_alarm_active", stream, f',alarm="{kind}"')
    check(alarm("sine", "stuck_tone") == 1, "sine: stuck_tone raised")
    check(alarm("noise", "stuck_tone") == 0, "noise: no stuck tone")
    check(alarm("sine", "loudness") == 1, "sine: loudness off target raised")
    check(alarm("quiet", "loudness") == 1,
          "quiet: loudness off target raised")
    check(alarm("on-target", "loudness") == 0,
          "on-target: no loudness alarm at -23 LUFS")
    check(alarm("clip", "clipping") == 1, "clip: clipping raised")
    check(alarm("sine", "clipping") == 0, "sine: no clipping")
    check(alarm("sine", "silence") == 0, "sine: no silence")
    check(alarm("sine", "down") == 0, "sine: not down")

    # silence: gated alternates 5 s of sound and 7 s of silence; Prometheus
    # sees the silence begin (RMS), then the alarm within the hold (plus a
    # reading and a scrape), then sound again and the alarm cleared
    def rms_gated():
        return q1(prom, "gpufft_rms_dbfs", "gated", ',channel="0"')

    def poll(what, cond, timeout):
        return wait_for(what, lambda: (cond() and time.monotonic()), timeout,
                        interval=0.2)
    poll("gated sounding", lambda: (rms_gated() or -999) > -30, 20)
    t_silent = poll("gated silent", lambda: (rms_gated() or 0) < -60, 20)
    t_raised = poll("silence raised on gated",
                    lambda: alarm("gated", "silence") == 1, 15)
    log(f"silence raised {t_raised - t_silent:.1f} s after Prometheus saw "
        f"the silence (hold {HOLD} s)")
    check(HOLD - 1.5 <= t_raised - t_silent <= HOLD + 2.5,
          "silence raised within its hold")
    t_sound = poll("gated sounding again", lambda: (rms_gated() or -999) >
                   -30, 20)
    t_cleared = poll("silence cleared on gated",
                     lambda: alarm("gated", "silence") == 0, 15)
    log(f"silence cleared {t_cleared - t_sound:.1f} s after the sound")
    check(t_cleared - t_sound <= 2.5, "silence cleared when sound returned")
    check(alarm("sine", "silence") == 0 and alarm("sine", "down") == 0,
          "the other streams untouched")
    check(prom.value('sum(gpufft_source_restarts_total)') == 0,
          "no source restarted")

    rc = svc.stop()
    check(rc == 0, f"SIGTERM stops the service with 0 ({rc})")
    check("stopping" in svc.log(), "the service logs its stop")
    cleanup()


if __name__ == "__main__":
    try:
        main()
    finally:
        cleanup()
