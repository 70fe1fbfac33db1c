/* SPDX-License-Identifier: MIT */
/*
 * cairo_lazy: cairo, loaded when the first figure is drawn.
 *
 * cairo brings some twenty libraries (pixman, FreeType, fontconfig,
 * libpng, X11 and xcb ...) whose loading costs every bugcoder process
 * about 4 MB of memory and 10 ms, although only `report --figures` and
 * `export --package` draw.  So, as with libcurl (core/github/curl_lazy.h), the
 * binary does not link cairo: cairo_lazy_load() fills a table from
 * libcairo.so.2 on first use, and the macros below send the figure
 * code's cairo_* calls through it.  Include this header instead of
 * <cairo.h>, and call cairo_lazy_load() before any cairo function.
 */
#ifndef BUGCODER_CAIRO_LAZY_H
#define BUGCODER_CAIRO_LAZY_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "core/base/err.h"

/* Every cairo entry point the figures use, as (name). */
#define CAIRO_LAZY_LIST(_) \
	_(arc) \
	_(close_path) \
	_(create) \
	_(curve_to) \
	_(debug_reset_static_data) \
	_(destroy) \
	_(fill) \
	_(font_options_create) \
	_(font_options_destroy) \
	_(font_options_set_hint_metrics) \
	_(font_options_set_hint_style) \
	_(get_scaled_font) \
	_(glyph_free) \
	_(image_surface_create) \
	_(line_to) \
	_(move_to) \
	_(new_path) \
	_(paint) \
	_(pdf_surface_create_for_stream) \
	_(pdf_surface_set_metadata) \
	_(rectangle) \
	_(restore) \
	_(rotate) \
	_(save) \
	_(scale) \
	_(scaled_font_text_to_glyphs) \
	_(select_font_face) \
	_(set_dash) \
	_(set_font_options) \
	_(set_font_size) \
	_(set_line_width) \
	_(set_source_rgb) \
	_(set_source_rgba) \
	_(show_text) \
	_(status) \
	_(status_to_string) \
	_(stroke) \
	_(surface_destroy) \
	_(surface_finish) \
	_(surface_status) \
	_(surface_write_to_png_stream) \
	_(svg_surface_create_for_stream) \
	_(text_extents) \
	_(translate)

struct cairo_lazy {
#define CAIRO_LAZY_FIELD(n) __typeof__(cairo_##n) *n;
	CAIRO_LAZY_LIST(CAIRO_LAZY_FIELD)
#undef CAIRO_LAZY_FIELD
};

/* The loaded entry points; valid after cairo_lazy_load() succeeded. */
extern struct cairo_lazy cairo_lazy;

/* Load cairo (once; later calls return at once).  Returns 0, or -1 with
 * ERR_IO naming what is missing. */
int cairo_lazy_load(struct err *e);

/* Drop cairo's and fontconfig's caches (fonts, patterns, the config),
 * which live as long as the process: a sanitizer build calls this when
 * no cairo object is left, so that LeakSanitizer sees only our memory.
 * cairo loads them again if used after. */
void cairo_lazy_drop_caches(void);

#define cairo_arc (*cairo_lazy.arc)
#define cairo_close_path (*cairo_lazy.close_path)
#define cairo_create (*cairo_lazy.create)
#define cairo_curve_to (*cairo_lazy.curve_to)
#define cairo_debug_reset_static_data (*cairo_lazy.debug_reset_static_data)
#define cairo_destroy (*cairo_lazy.destroy)
#define cairo_fill (*cairo_lazy.fill)
#define cairo_font_options_create (*cairo_lazy.font_options_create)
#define cairo_font_options_destroy (*cairo_lazy.font_options_destroy)
#define cairo_font_options_set_hint_metrics (*cairo_lazy.font_options_set_hint_metrics)
#define cairo_font_options_set_hint_style (*cairo_lazy.font_options_set_hint_style)
#define cairo_get_scaled_font (*cairo_lazy.get_scaled_font)
#define cairo_glyph_free (*cairo_lazy.glyph_free)
#define cairo_image_surface_create (*cairo_lazy.image_surface_create)
#define cairo_line_to (*cairo_lazy.line_to)
#define cairo_move_to (*cairo_lazy.move_to)
#define cairo_new_path (*cairo_lazy.new_path)
#define cairo_paint (*cairo_lazy.paint)
#define cairo_pdf_surface_create_for_stream (*cairo_lazy.pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata (*cairo_lazy.pdf_surface_set_metadata)
#define cairo_rectangle (*cairo_lazy.rectangle)
#define cairo_restore (*cairo_lazy.restore)
#define cairo_rotate (*cairo_lazy.rotate)
#define cairo_save (*cairo_lazy.save)
#define cairo_scale (*cairo_lazy.scale)
#define cairo_scaled_font_text_to_glyphs (*cairo_lazy.scaled_font_text_to_glyphs)
#define cairo_select_font_face (*cairo_lazy.select_font_face)
#define cairo_set_dash (*cairo_lazy.set_dash)
#define cairo_set_font_options (*cairo_lazy.set_font_options)
#define cairo_set_font_size (*cairo_lazy.set_font_size)
#define cairo_set_line_width (*cairo_lazy.set_line_width)
#define cairo_set_source_rgb (*cairo_lazy.set_source_rgb)
#define cairo_set_source_rgba (*cairo_lazy.set_source_rgba)
#define cairo_show_text (*cairo_lazy.show_text)
#define cairo_status (*cairo_lazy.status)
#define cairo_status_to_string (*cairo_lazy.status_to_string)
#define cairo_stroke (*cairo_lazy.stroke)
#define cairo_surface_destroy (*cairo_lazy.surface_destroy)
#define cairo_surface_finish (*cairo_lazy.surface_finish)
#define cairo_surface_status (*cairo_lazy.surface_status)
#define cairo_surface_write_to_png_stream (*cairo_lazy.surface_write_to_png_stream)
#define cairo_svg_surface_create_for_stream (*cairo_lazy.svg_surface_create_for_stream)
#define cairo_text_extents (*cairo_lazy.text_extents)
#define cairo_translate (*cairo_lazy.translate)

#endif
