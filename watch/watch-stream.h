/* gpufft-watch: one stream: its pipeline, its current measurements, and
 * its restarts.
 *
 * The pipeline is SOURCE ! audioconvert ! F32LE ! gpuloudness !
 * gpufftspectrum ! level ! fakesink (sync), every analyser passing the
 * audio through and posting once a second: gpuloudness the loudness
 * (momentary, short-term, integrated, LRA, true peak since the start),
 * gpufftspectrum (1/3-octave bands from 20 Hz, mean of the channels,
 * [service] fft-size, Hann) the band levels and the dominant frequency, and
 * GStreamer's level the per-channel sample peak and RMS of the second.
 * Sources: a URI (uridecodebin: file, http(s), rtsp, srt, ...), rtp://
 * (udpsrc ! rtpjitterbuffer ! depayloader [! opusdec]), pulsesrc,
 * alsasrc, audiotestsrc (live).
 *
 * Threads: the analysers' messages are read by a synchronous bus handler
 * on the posting thread and only update the stream's values under its
 * mutex (held for a copy, never across a call out); errors and EOS go to
 * a bus watch on the main context. Every other function is called from
 * the main thread. A pipeline is started (set to PLAYING) and stopped
 * (set to NULL) on threads of its own, so a source that hangs in its
 * start (a sound server that does not answer) or its stop holds no other
 * stream and not the main loop; a stream has at most one start and one
 * stop thread at a time (a stop waits for the start to return, the next
 * start for the stop).
 *
 * Audio is what has passed the analysers (a probe on the sink's pad): a
 * stream is up while some passed within its down-hold, across restarts.
 * Every duration here (down-hold, grace, backoff, the test source's
 * on/off) counts on the monotonic clock: a step of the wall clock takes
 * no stream for down and delays no restart.
 *
 * Restarts: an error, an EOS, or no audio for the stream's down-hold ends
 * the pipeline; a new one starts after a backoff that doubles from 1 s up
 * to restart-max, and returns to 1 s once audio has flowed for 10 s. A
 * pipeline that has passed no audio yet has START_GRACE_S (30 s) or the
 * down-hold, the longer, before it counts as stalled: opening the device
 * and making the spectrum's plan may take that long on a CPU Vulkan
 * device. */
#ifndef __WATCH_STREAM_H__
#define __WATCH_STREAM_H__

#include <gst/gst.h>
#include "watch-config.h"
#include "watch-reading.h"

G_BEGIN_DECLS

typedef struct _WatchStream WatchStream;

/* takes a copy of what it needs from @config; starts nothing */
WatchStream *watch_stream_new (const WatchStreamConfig * config,
    gint device_index, guint fft_size, gdouble restart_max_s);
const gchar *watch_stream_name (WatchStream * stream);
const WatchStreamConfig *watch_stream_config (WatchStream * stream);
/* builds the pipeline and starts playing it (on a thread of its own) */
void watch_stream_start (WatchStream * stream);
/* called about every 250 ms with g_get_monotonic_time (): restarts,
 * stall detection, the test source's on/off */
void watch_stream_tick (WatchStream * stream, gint64 mono_us);
/* the stream's values now (out->stream is a new string), stamped
 * @wall_us (g_get_real_time) and @mono_us (g_get_monotonic_time) */
void watch_stream_read (WatchStream * stream, gint64 wall_us,
    gint64 mono_us, WatchReading * out);
/* stops the pipeline (on its own thread) and drops the caller's
 * reference; the stream's memory goes when the stop is done */
void watch_stream_release (WatchStream * stream);
/* how many streams are still stopping */
guint watch_stream_stopping (void);

G_END_DECLS
#endif /* __WATCH_STREAM_H__ */
