/* bench-poster: the poster alone (plugin/common/gstgpufftposter.c compiled
 * in; no device, no engine). R rounds, one every P ms (g_usleep, as a
 * completion round's pace): the calling thread builds one element message
 * for each of E elements (a structure of B floats, as a spectrum's) and
 * pushes it to the element's poster (`poster`), or posts it itself
 * (`direct`: the floor, no thread). The elements share one bus whose
 * synchronous handler drops each message (an application that reads them
 * there). At the end every poster is waited for.
 *
 * Per mode: process CPU time (getrusage: user and kernel time, every
 * thread) per message in ns, and the poster's cost (poster less direct);
 * per round: the process's voluntary context switches (a thread's sleep,
 * each followed by a wake-up) and the poster's posting-thread wake-ups
 * (gst_gpu_fft_poster_get_wakeups: those that found messages, and the
 * idle ones; absent where the poster compiled in has no such count). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <gst/gst.h>
#include "gstgpufftposter.h"

GST_DEBUG_CATEGORY (gst_gpu_fft_base_debug);

typedef GstElement BenchPoster;
typedef GstElementClass BenchPosterClass;
G_DEFINE_TYPE (BenchPoster, bench_poster, GST_TYPE_ELEMENT);
static void
bench_poster_class_init (BenchPosterClass * klass)
{
}

static void
bench_poster_init (BenchPoster * self)
{
}

static gint elements_arg = 256;
static gint rounds_arg = 100;
static gint pace_arg = 10;
static gint floats_arg = 64;

static const GOptionEntry entries[] = {
  {"elements", 0, 0, G_OPTION_ARG_INT, &elements_arg,
      "Elements, 1 to 4096 (default 256)", "E"},
  {"rounds", 0, 0, G_OPTION_ARG_INT, &rounds_arg,
      "Rounds, 1 to 100000 (default 100)", "R"},
  {"pace", 0, 0, G_OPTION_ARG_INT, &pace_arg,
      "Sleep between rounds, ms, 0 to 1000 (default 10)", "P"},
  {"floats", 0, 0, G_OPTION_ARG_INT, &floats_arg,
      "Floats in each message, 0 to 65536 (default 64)", "B"},
  {NULL}
};

static gint dropped_by_handler;

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * m, gpointer data)
{
  g_atomic_int_inc (&dropped_by_handler);
  /* (a sync handler that drops a message unrefs it) */
  gst_message_unref (m);
  return GST_BUS_DROP;
}

static GstMessage *
build (GstElement * e, guint round)
{
  GBytes *bytes;
  gfloat *v = g_new (gfloat, floats_arg);
  gint i;

  for (i = 0; i < floats_arg; i++)
    v[i] = (gfloat) (round + i);
  bytes = g_bytes_new_take (v, floats_arg * sizeof (gfloat));
  return gst_message_new_element (GST_OBJECT (e),
      gst_structure_new ("bench", "round", G_TYPE_UINT, round,
          "magnitude", G_TYPE_BYTES, bytes, NULL));
}

static gdouble
cpu_s (struct rusage *u)
{
  return u->ru_utime.tv_sec + u->ru_utime.tv_usec * 1e-6
      + u->ru_stime.tv_sec + u->ru_stime.tv_usec * 1e-6;
}

/* ns per message; the counts per round in *csw, *wakes, *idle */
static gdouble
run (GstElement ** el, GstGpuFftPoster ** posters, gboolean direct,
    gdouble * csw, gdouble * wakes, gdouble * idle)
{
  struct rusage a, b;
  guint64 w0, w1, i0 = 0, i1 = 0;
  gint r, i;

  w0 = gst_gpu_fft_poster_get_wakeups (&i0);
  getrusage (RUSAGE_SELF, &a);
  for (r = 0; r < rounds_arg; r++) {
    if (pace_arg > 0)
      g_usleep (pace_arg * 1000);
    for (i = 0; i < elements_arg; i++) {
      if (direct)
        gst_element_post_message (el[i], build (el[i], r));
      else
        gst_gpu_fft_poster_push (posters[i], build (el[i], r), NULL, FALSE,
            0, TRUE);
    }
  }
  for (i = 0; i < elements_arg; i++)
    gst_gpu_fft_poster_wait (posters[i]);
  getrusage (RUSAGE_SELF, &b);
  w1 = gst_gpu_fft_poster_get_wakeups (&i1);
  *csw = (gdouble) (b.ru_nvcsw - a.ru_nvcsw) / rounds_arg;
  *wakes = (gdouble) (w1 - w0) / rounds_arg;
  *idle = (gdouble) (i1 - i0) / rounds_arg;
  return (cpu_s (&b) - cpu_s (&a)) * 1e9 / ((gdouble) rounds_arg *
      elements_arg);
}

int
main (int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new ("- the poster's cost");
  GError *error = NULL;
  GstElement **el;
  GstGpuFftPoster **posters;
  GstBus *bus;
  gdouble ns_d, ns_p, csw_d, csw_p, w_d, w_p, i_d, i_p;
  gint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (elements_arg < 1 || elements_arg > 4096 || rounds_arg < 1
      || rounds_arg > 100000 || pace_arg < 0 || pace_arg > 1000
      || floats_arg < 0 || floats_arg > 65536) {
    fprintf (stderr, "bench-poster: --elements 1..4096, --rounds "
        "1..100000, --pace 0..1000, --floats 0..65536\n");
    return 2;
  }
  GST_DEBUG_CATEGORY_INIT (gst_gpu_fft_base_debug, "gpufftbase", 0, "poster");
  bus = gst_bus_new ();
  gst_bus_set_sync_handler (bus, on_message, NULL, NULL);
  el = g_new (GstElement *, elements_arg);
  posters = g_new (GstGpuFftPoster *, elements_arg);
  for (i = 0; i < elements_arg; i++) {
    el[i] = gst_object_ref_sink (g_object_new (bench_poster_get_type (),
            NULL));
    gst_element_set_bus (el[i], bus);
    posters[i] = gst_gpu_fft_poster_new (el[i], NULL);
  }
  /* (interleaved, the second pair counted: the posting threads exist) */
  run (el, posters, FALSE, &csw_p, &w_p, &i_p);
  ns_d = run (el, posters, TRUE, &csw_d, &w_d, &i_d);
  ns_p = run (el, posters, FALSE, &csw_p, &w_p, &i_p);
  printf ("elements %d rounds %d pace %d ms floats %d\n", elements_arg,
      rounds_arg, pace_arg, floats_arg);
  printf ("direct  %8.0f ns/message  %7.1f csw/round\n", ns_d, csw_d);
  printf ("poster  %8.0f ns/message  %7.1f csw/round  %7.2f wakeups/round"
      "  %5.2f idle wakeups/round\n", ns_p, csw_p, w_p, i_p);
  printf ("poster's cost %8.0f ns/message\n", ns_p - ns_d);
  for (i = 0; i < elements_arg; i++) {
    gst_gpu_fft_poster_stop (posters[i]);
    gst_gpu_fft_poster_free (posters[i]);
    gst_element_set_bus (el[i], NULL);
    gst_object_unref (el[i]);
  }
  g_free (posters);
  g_free (el);
  gst_object_unref (bus);
  return 0;
}
