/* The spectrogram's built-in 5x7 font alone (plain C, no device): lower-case
 * letters without an ascender sit at the x-height (their two top rows
 * blank), so that 'g' does not read as '9' (titles showed "music.o99");
 * every printable character has a glyph of its own; characters outside
 * 32..126 draw as '?'. */
#include <string.h>

#include "gstgpufftfont.h"

static void
test_x_height (void)
{
  const gchar *short_letters = "acegmnopqrsuvwxyz";
  const gchar *c;

  for (c = short_letters; *c; c++) {
    const guint8 *g = gst_gpu_fft_font_glyph (*c);

    if (g[0] != 0 || g[1] != 0)
      g_test_fail_printf ("'%c' has ink above the x-height (rows 0x%02x "
          "0x%02x)", *c, g[0], g[1]);
  }
  /* ... and the digits do not: they are not confused with letters */
  if (gst_gpu_fft_font_glyph ('9')[0] == 0)
    g_test_fail_printf ("'9' starts below the top row");
}

static void
test_distinct (void)
{
  gint a, b;

  for (a = 32; a < 127; a++)
    for (b = a + 1; b < 127; b++)
      if (memcmp (gst_gpu_fft_font_glyph (a), gst_gpu_fft_font_glyph (b),
              GST_GPU_FFT_FONT_H) == 0)
        g_test_fail_printf ("'%c' and '%c' share a glyph", a, b);
  g_assert_true (gst_gpu_fft_font_glyph ('\001') ==
      gst_gpu_fft_font_glyph ('?'));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/font/x-height", test_x_height);
  g_test_add_func ("/font/distinct", test_distinct);
  return g_test_run ();
}
