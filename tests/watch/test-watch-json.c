/* gpufft-watch: readings and events as JSON (watch/watch-json.c), against
 * texts written out by hand and read back by json-glib. */
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include "watch-json.h"

static JsonObject *
parse (const gchar * text, JsonParser ** parser)
{
  GError *error = NULL;
  JsonNode *root;

  *parser = json_parser_new ();
  g_assert_true (json_parser_load_from_data (*parser, text, -1, &error));
  g_assert_no_error (error);
  root = json_parser_get_root (*parser);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  return json_node_get_object (root);
}

static void
fill_reading (WatchReading * r)
{
  memset (r, 0, sizeof (*r));
  r->stream = (gchar *) "studio";
  /* 2026-12-07T06:00:00.123Z */
  r->wall_us = G_GINT64_CONSTANT (1796623200123456);
  r->up = TRUE;
  r->channels = 2;
  r->momentary_lufs = -23.004;
  r->shortterm_lufs = -INFINITY;
  r->integrated_lufs = NAN;
  r->lra_lu = 4.5;
  r->true_peak_dbtp = -1.25;
  r->sample_peak_dbfs[0] = -3.0;
  r->sample_peak_dbfs[1] = -INFINITY;
  r->rms_dbfs[0] = -20.0;
  r->rms_dbfs[1] = NAN;
  r->n_bands = 1;
  r->band_hz[0] = 1000.0;
  r->band_db[0] = -30.5;
  r->dominant_hz = 997.0;
  r->restarts = 3;
}

static void
test_reading (void)
{
  WatchReading r;
  gchar *json;
  JsonParser *parser;
  JsonObject *o;
  JsonArray *a;

  fill_reading (&r);
  json = watch_reading_to_json (&r);
  g_assert_cmpstr (json, ==,
      "{\"stream\":\"studio\",\"time\":\"2026-12-07T06:00:00.123Z\","
      "\"up\":true,\"channels\":2,\"momentary_lufs\":-23.00,"
      "\"shortterm_lufs\":\"-inf\",\"integrated_lufs\":null,"
      "\"lra_lu\":4.50,\"true_peak_dbtp\":-1.25,"
      "\"sample_peak_dbfs\":[-3.00,\"-inf\"],\"rms_dbfs\":[-20.00,null],"
      "\"band_hz\":[1000.00],\"band_db\":[-30.50],\"dominant_hz\":997.00,"
      "\"restarts\":3}");
  o = parse (json, &parser);
  g_assert_cmpstr (json_object_get_string_member (o, "stream"), ==,
      "studio");
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (o,
          "momentary_lufs"), -23.0, 1e-9);
  g_assert_true (json_object_get_null_member (o, "integrated_lufs"));
  a = json_object_get_array_member (o, "sample_peak_dbfs");
  g_assert_cmpuint (json_array_get_length (a), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (a, 1), ==, "-inf");
  g_assert_cmpint (json_object_get_int_member (o, "restarts"), ==, 3);
  g_object_unref (parser);
  g_free (json);
}

/* counts beyond the arrays are cut to them; a stream down has none */
static void
test_reading_bounds (void)
{
  WatchReading r;
  gchar *json;
  JsonParser *parser;
  JsonObject *o;

  fill_reading (&r);
  r.channels = 1000;
  r.n_bands = G_MAXUINT;
  json = watch_reading_to_json (&r);
  o = parse (json, &parser);
  g_assert_cmpint (json_object_get_int_member (o, "channels"), ==,
      WATCH_MAX_CHANNELS);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o,
              "rms_dbfs")), ==, WATCH_MAX_CHANNELS);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (o,
              "band_db")), ==, WATCH_MAX_BANDS);
  g_object_unref (parser);
  g_free (json);

  fill_reading (&r);
  r.up = FALSE;
  r.channels = 0;
  r.n_bands = 0;
  r.dominant_hz = 1e300;
  json = watch_reading_to_json (&r);
  g_assert_nonnull (strstr (json, "\"up\":false,\"channels\":0,"));
  g_assert_nonnull (strstr (json, "\"sample_peak_dbfs\":[],"));
  o = parse (json, &parser);
  g_assert_cmpfloat (json_object_get_double_member (o, "dominant_hz"), ==,
      1e300);
  g_object_unref (parser);
  g_free (json);
}

static void
test_string_escaping (void)
{
  /* quote, backslash, newline, tab, other controls, DEL, non-ASCII,
   * U+2028, and a byte that is not UTF-8 */
  const gchar *in = "a\"b\\c\nd\te\x01\x1f\x7f \xc3\xa9\xe2\x82\xac "
      "\xe2\x80\xa8 \xff/";
  const gchar *expect = "\"a\\\"b\\\\c\\nd\\te\\u0001\\u001f\\u007f "
      "\xc3\xa9\xe2\x82\xac \\u2028 \xef\xbf\xbd/\"";
  GString *out = g_string_new (NULL);
  gchar *doc;
  JsonParser *parser;
  JsonObject *o;

  watch_json_append_string (out, in);
  g_assert_cmpstr (out->str, ==, expect);
  doc = g_strdup_printf ("{\"s\":%s}", out->str);
  o = parse (doc, &parser);
  g_assert_cmpstr (json_object_get_string_member (o, "s"), ==,
      "a\"b\\c\nd\te\x01\x1f\x7f \xc3\xa9\xe2\x82\xac \xe2\x80\xa8 "
      "\xef\xbf\xbd/");
  g_object_unref (parser);
  g_free (doc);
  g_string_free (out, TRUE);

  out = g_string_new (NULL);
  watch_json_append_string (out, NULL);
  g_assert_cmpstr (out->str, ==, "null");
  g_string_free (out, TRUE);
}

static void
test_event (void)
{
  WatchEvent e = { 0 };
  gchar *json, *detail;
  JsonParser *parser;
  JsonObject *o;
  gint i;

  e.stream = (gchar *) "news \"live\"";
  e.kind = WATCH_ALARM_STUCK_TONE;
  e.raised = TRUE;
  e.wall_us = G_GINT64_CONSTANT (1796623200123456);
  e.detail = (gchar *) "997 Hz\nfor 30 s";
  json = watch_event_to_json (&e);
  g_assert_cmpstr (json, ==,
      "{\"time\":\"2026-12-07T06:00:00.123Z\",\"stream\":\"news \\\"live\\\"\","
      "\"alarm\":\"stuck_tone\",\"state\":\"raised\","
      "\"detail\":\"997 Hz\\nfor 30 s\"}");
  g_free (json);

  e.raised = FALSE;
  e.kind = WATCH_ALARM_DOWN;
  e.detail = NULL;
  json = watch_event_to_json (&e);
  g_assert_nonnull (strstr (json,
          "\"alarm\":\"down\",\"state\":\"cleared\",\"detail\":null}"));
  g_free (json);

  /* a long detail is cut at a character boundary: after one ASCII byte,
   * 2-byte characters; byte 1024 is the second of one, so the cut is
   * before it, at 1023 bytes */
  detail = g_malloc (2002);
  detail[0] = 'x';
  for (i = 0; i < 1000; i++)
    memcpy (detail + 1 + 2 * i, "\xc3\xa9", 2);
  detail[2001] = '\0';
  e.detail = detail;
  json = watch_event_to_json (&e);
  o = parse (json, &parser);
  g_assert_cmpuint (strlen (json_object_get_string_member (o, "detail")),
      <=, WATCH_JSON_MAX_DETAIL);
  g_assert_true (g_utf8_validate (json_object_get_string_member (o,
              "detail"), -1, NULL));
  g_assert_cmpuint (strlen (json_object_get_string_member (o, "detail")),
      ==, 1023);
  g_object_unref (parser);
  g_free (json);
  g_free (detail);
}

static void
test_time (void)
{
  GString *out = g_string_new (NULL);

  watch_json_append_time (out, 0);
  g_string_append_c (out, ' ');
  /* 2024-02-29T23:59:59.999Z */
  watch_json_append_time (out, G_GINT64_CONSTANT (1709251199999999));
  g_string_append_c (out, ' ');
  watch_json_append_time (out, -5);
  g_assert_cmpstr (out->str, ==, "1970-01-01T00:00:00.000Z "
      "2024-02-29T23:59:59.999Z 1970-01-01T00:00:00.000Z");
  g_string_free (out, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/watch/json/reading", test_reading);
  g_test_add_func ("/watch/json/reading-bounds", test_reading_bounds);
  g_test_add_func ("/watch/json/string-escaping", test_string_escaping);
  g_test_add_func ("/watch/json/event", test_event);
  g_test_add_func ("/watch/json/time", test_time);
  return g_test_run ();
}
