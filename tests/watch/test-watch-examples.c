/* gpufft-watch's examples (examples/): the configuration passes the
 * service's own checks (gpufft-watch --check); the Grafana dashboard is
 * JSON whose queries use exactly the service's metric names, and (with
 * promtool) each query is valid PromQL. argv[1]: the examples folder. */
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

static gchar *examples;

/* the service's metric families (the names /metrics serves) */
static const gchar *const metrics[] = {
  "gpufft_loudness_momentary_lufs", "gpufft_loudness_shortterm_lufs",
  "gpufft_loudness_integrated_lufs", "gpufft_loudness_range_lu",
  "gpufft_true_peak_dbtp", "gpufft_sample_peak_dbfs", "gpufft_rms_dbfs",
  "gpufft_band_level_db", "gpufft_dominant_frequency_hertz",
  "gpufft_stream_up", "gpufft_alarm_active", "gpufft_source_restarts_total",
  NULL
};

/* the example configuration passes the service's own checks
 * (gpufft-watch --check: every group and key known, every value valid),
 * and holds the three streams its comments describe */
static void
test_config (void)
{
  const gchar *watch = g_getenv ("GPUFFT_WATCH");
  gchar *path = g_build_filename (examples, "gpufft-watch.conf", NULL);
  const gchar *argv[] = { watch, "--config", path, "--check", NULL };
  gchar *out = NULL, *err = NULL;
  gint status = -1;
  GError *error = NULL;

  if (watch == NULL) {
    g_test_skip ("GPUFFT_WATCH is not set: the service is not built");
    g_free (path);
    return;
  }
  g_assert_true (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_DEFAULT,
          NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, ": 3 streams"));
  g_free (out);
  g_free (err);
  g_free (path);
}

static void
collect_exprs (JsonNode * node, GPtrArray * out)
{
  if (JSON_NODE_HOLDS_OBJECT (node)) {
    JsonObject *o = json_node_get_object (node);
    GList *members = json_object_get_members (o), *l;

    for (l = members; l != NULL; l = l->next) {
      JsonNode *v = json_object_get_member (o, l->data);

      if (strcmp (l->data, "expr") == 0 && JSON_NODE_HOLDS_VALUE (v))
        g_ptr_array_add (out, g_strdup (json_node_get_string (v)));
      else
        collect_exprs (v, out);
    }
    g_list_free (members);
  } else if (JSON_NODE_HOLDS_ARRAY (node)) {
    JsonArray *a = json_node_get_array (node);
    guint i;

    for (i = 0; i < json_array_get_length (a); i++)
      collect_exprs (json_array_get_element (a, i), out);
  }
}

static void
test_dashboard (void)
{
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  gchar *path = g_build_filename (examples, "gpufft-watch-dashboard.json",
      NULL);
  GPtrArray *exprs = g_ptr_array_new_with_free_func (g_free);
  GHashTable *used = g_hash_table_new (g_str_hash, g_str_equal);
  GRegex *names = g_regex_new ("gpufft_[a-z_]+", 0, 0, NULL);
  gchar *promtool = g_find_program_in_path ("promtool");
  GString *rules = g_string_new ("groups:\n- name: dashboard\n  rules:\n");
  guint i, j;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  collect_exprs (json_parser_get_root (parser), exprs);
  g_assert_cmpuint (exprs->len, >=, 12);
  for (i = 0; i < exprs->len; i++) {
    const gchar *e = g_ptr_array_index (exprs, i);
    GMatchInfo *mi;
    gchar *plain, *quoted;
    GRegex *var = g_regex_new ("\\$[a-z_]+", 0, 0, NULL);

    g_regex_match (names, e, 0, &mi);
    while (g_match_info_matches (mi)) {
      gchar *n = g_match_info_fetch (mi, 0);

      for (j = 0; metrics[j] != NULL && strcmp (metrics[j], n) != 0; j++);
      if (metrics[j] == NULL)
        g_error ("the dashboard queries %s, not a metric of the service", n);
      g_hash_table_add (used, (gpointer) metrics[j]);
      g_free (n);
      g_match_info_next (mi, NULL);
    }
    g_match_info_free (mi);
    /* $instance, $stream: any value */
    plain = g_regex_replace_literal (var, e, -1, 0, ".*", 0, NULL);
    quoted = g_strescape (plain, NULL);
    g_string_append_printf (rules, "  - record: dashboard_%u\n"
        "    expr: \"%s\"\n", i, quoted);
    g_free (plain);
    g_free (quoted);
    g_regex_unref (var);
  }
  for (j = 0; metrics[j] != NULL; j++)
    if (!g_hash_table_contains (used, metrics[j]))
      g_error ("the dashboard shows no %s", metrics[j]);

  if (promtool != NULL) {
    gchar *dir = g_dir_make_tmp ("watch-examples-XXXXXX", NULL);
    gchar *file = g_build_filename (dir, "rules.yml", NULL);
    gchar *argv[] = { promtool, (gchar *) "check", (gchar *) "rules", file,
      NULL
    };
    gchar *out = NULL, *err = NULL;
    gint status;

    g_assert_true (g_file_set_contents (file, rules->str, -1, NULL));
    g_assert_true (g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL,
            NULL, &out, &err, &status, &error));
    g_assert_no_error (error);
    if (!g_spawn_check_wait_status (status, NULL))
      g_error ("promtool check rules:\n%s%s\n%s", out, err, rules->str);
    g_free (out);
    g_free (err);
    g_unlink (file);
    g_rmdir (dir);
    g_free (file);
    g_free (dir);
  } else {
    g_test_message ("promtool not found: the queries' syntax not checked");
  }
  g_free (promtool);
  g_string_free (rules, TRUE);
  g_regex_unref (names);
  g_hash_table_destroy (used);
  g_ptr_array_unref (exprs);
  g_object_unref (parser);
  g_free (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: %s EXAMPLES-FOLDER", argv[0]);
  examples = argv[1];
  g_test_add_func ("/watch/examples/config", test_config);
  g_test_add_func ("/watch/examples/dashboard", test_dashboard);
  return g_test_run ();
}
