/* SPDX-License-Identifier: MIT */
/*
 * figure_draw: the canvas, text and colours of the figures, and the
 * making of one figure's file (see figure.h).
 *
 * Reproducible output: cairo's PDF surface writes a creation date (the
 * time of drawing, unless one is set), so the date is set to a fixed
 * stand-in and its entry then blanked to spaces of the same length (the
 * cross-reference offsets stay right; the PDF has no date at all).  The
 * SVG surface names its top group after a process-wide surface counter
 * ("surface42"), so those ids are renumbered per file in the order they
 * appear.  PNG output holds no time.
 */
#include "exports/figure.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"

#ifndef BUGCODER_VERSION
#define BUGCODER_VERSION "unknown"
#endif

/* ---- colours ----------------------------------------------------------- */

const struct rgb fig_ink = { 0.13, 0.13, 0.13 };
const struct rgb fig_grid = { 0.80, 0.80, 0.80 };
const struct rgb fig_bar = { 0x3b / 255.0, 0x52 / 255.0, 0x8b / 255.0 };
const struct rgb fig_bar_dist = { 0x5e / 255.0, 0xc9 / 255.0, 0x62 / 255.0 };
const struct rgb fig_bar_extra = { 0.72, 0.72, 0.72 };

/* viridis at 0, 0.1, ..., 1 */
static const unsigned viridis[] = {
	0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c,
	0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725,
};

/* ColorBrewer's YlGnBu, light to dark: safe for colour blindness and
 * monotone in lightness, so it prints in grey. */
static const unsigned ylgnbu[] = {
	0xffffd9, 0xedf8b1, 0xc7e9b4, 0x7fcdbb, 0x41b6c4, 0x1d91c0,
	0x225ea8, 0x253494, 0x081d58,
};

static struct rgb ramp(const unsigned *v, size_t n, double t)
{
	struct rgb c;
	double pos;
	size_t i;
	double f;
	unsigned a, b;

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	pos = t * (double)(n - 1);
	i = (size_t)floor(pos);
	if (i >= n - 1)
		i = n - 2;
	f = pos - (double)i;
	a = v[i];
	b = v[i + 1];
	c.r = (((a >> 16) & 255) * (1 - f) + ((b >> 16) & 255) * f) / 255.0;
	c.g = (((a >> 8) & 255) * (1 - f) + ((b >> 8) & 255) * f) / 255.0;
	c.b = ((a & 255) * (1 - f) + (b & 255) * f) / 255.0;
	return c;
}

struct rgb fig_category(size_t i, size_t n)
{
	/* from dark purple to light green: the yellow end is too pale
	 * for lines and thin ribbons on white */
	double t = n > 1 ? 0.85 * (double)i / (double)(n - 1) : 0.3;

	return ramp(viridis, sizeof(viridis) / sizeof(*viridis), t);
}

struct rgb fig_sequential(double t)
{
	return ramp(ylgnbu, sizeof(ylgnbu) / sizeof(*ylgnbu), t);
}

int fig_dark(struct rgb c)
{
	return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b < 0.5;
}

void fig_set(struct canvas *cv, struct rgb c)
{
	cairo_set_source_rgb(cv->cr, c.r, c.g, c.b);
}

/* ---- text --------------------------------------------------------------- */

void fig_canvas_init(cairo_t *cr)
{
	cairo_font_options_t *fo = cairo_font_options_create();

	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
}

void fig_font(struct canvas *cv, double size, int bold)
{
	cairo_select_font_face(cv->cr, FIG_FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD :
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cv->cr, size);
}

double fig_text_width(struct canvas *cv, const char *s)
{
	cairo_text_extents_t ex;

	cairo_text_extents(cv->cr, s, &ex);
	return ex.x_advance;
}

void fig_text(struct canvas *cv, double x, double y, enum fig_align al,
	      const char *s)
{
	double w;

	if (!*s)
		return;
	w = al == FIG_LEFT ? 0 : fig_text_width(cv, s);
	cairo_move_to(cv->cr, al == FIG_RIGHT ? x - w : al == FIG_CENTER ?
		      x - w / 2 : x, y);
	cairo_show_text(cv->cr, s);
	cairo_new_path(cv->cr);
}

void fig_text_up(struct canvas *cv, double x, double y, const char *s)
{
	cairo_save(cv->cr);
	cairo_translate(cv->cr, x, y);
	cairo_rotate(cv->cr, -M_PI / 2);
	cairo_move_to(cv->cr, 0, 0);
	cairo_show_text(cv->cr, s);
	cairo_new_path(cv->cr);
	cairo_restore(cv->cr);
}

/* Byte offsets of the character boundaries of s, in *v (owned). */
static size_t boundaries(const char *s, size_t **v)
{
	size_t len = strlen(s), i = 0, n = 0;

	*v = xcalloc(len + 2, sizeof(**v));
	while (i < len) {
		uint32_t cp;
		size_t k = text_decode(s + i, len - i, &cp);

		(*v)[n++] = i;
		i += k ? k : 1;
	}
	(*v)[n] = len;
	return n;
}

char *fig_fit(struct canvas *cv, const char *s, double maxw, int *cut)
{
	static const char ell[] = "\xe2\x80\xa6";	/* … */
	struct buf b = BUF_INIT;
	size_t *at, n, lo, hi;

	if (cut)
		*cut = 0;
	if (fig_text_width(cv, s) <= maxw)
		return xstrdup(s);
	if (cut)
		*cut = 1;
	n = boundaries(s, &at);
	/* the longest prefix of lo characters that fits with the ellipsis */
	lo = 0;
	hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;

		buf_reset(&b);
		buf_add(&b, s, at[mid]);
		while (b.len && b.ptr[b.len - 1] == ' ')
			buf_setlen(&b, b.len - 1);
		buf_addstr(&b, ell);
		if (fig_text_width(cv, b.ptr) <= maxw)
			lo = mid;
		else
			hi = mid - 1;
	}
	buf_reset(&b);
	buf_add(&b, s, at[lo]);
	while (b.len && b.ptr[b.len - 1] == ' ')
		buf_setlen(&b, b.len - 1);
	buf_addstr(&b, ell);
	free(at);
	return buf_detach(&b, NULL);
}

int fig_drawable(struct canvas *cv, const char *s)
{
	cairo_scaled_font_t *sf = cairo_get_scaled_font(cv->cr);
	cairo_glyph_t *g = NULL;
	int n = 0, i, ok = 1;

	if (cairo_scaled_font_text_to_glyphs(sf, 0, 0, s, -1, &g, &n, NULL,
					     NULL, NULL) !=
	    CAIRO_STATUS_SUCCESS)
		return 0;
	for (i = 0; i < n; i++)
		if (g[i].index == 0)
			ok = 0;
	cairo_glyph_free(g);
	return ok;
}

double fig_paragraph(struct canvas *cv, double x, double y, double maxw,
		     const char *s)
{
	struct buf line = BUF_INIT, word = BUF_INIT;
	const double step = FIG_SMALL + 1.5;
	const char *p = s;

	while (*p) {
		const char *q = p;

		while (*q && *q != ' ')
			q++;
		buf_reset(&word);
		buf_add(&word, p, (size_t)(q - p));
		{
			struct buf t = BUF_INIT;

			buf_addstr(&t, line.ptr);
			if (line.len)
				buf_addch(&t, ' ');
			buf_addstr(&t, word.ptr);
			if (!line.len || fig_text_width(cv, t.ptr) <= maxw) {
				buf_set(&line, t.ptr);
			} else {
				fig_text(cv, x, y, FIG_LEFT, line.ptr);
				y += step;
				buf_set(&line, word.ptr);
			}
			buf_release(&t);
		}
		if (fig_text_width(cv, line.ptr) > maxw) {
			char *c = fig_fit(cv, line.ptr, maxw, NULL);

			buf_set(&line, c);
			free(c);
		}
		p = *q ? q + 1 : q;
	}
	if (line.len) {
		fig_text(cv, x, y, FIG_LEFT, line.ptr);
		y += step;
	}
	buf_release(&line);
	buf_release(&word);
	return y - step + 2.5;
}

/* ---- shapes --------------------------------------------------------------- */

void fig_line(struct canvas *cv, double x0, double y0, double x1,
	      double y1, double width, double dash)
{
	cairo_set_line_width(cv->cr, width);
	if (dash > 0) {
		double d[2];

		d[0] = dash;
		d[1] = dash;
		cairo_set_dash(cv->cr, d, 2, 0);
	}
	cairo_move_to(cv->cr, x0, y0);
	cairo_line_to(cv->cr, x1, y1);
	cairo_stroke(cv->cr);
	cairo_set_dash(cv->cr, NULL, 0, 0);
}

void fig_rect(struct canvas *cv, double x, double y, double w, double h)
{
	cairo_rectangle(cv->cr, x, y, w, h);
	cairo_fill(cv->cr);
}

/* ---- one figure ----------------------------------------------------------- */

void figure_start(struct figure *f, const struct fig_ctx *x,
		  const char *name, const char *kind, const char *title)
{
	(void)x;
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->title = xstrdup(title);
	f->entry = cJSON_CreateObject();
	csvw_init(&f->csv, NULL, CSV_GUARD);
	cJSON_AddStringToObject(f->entry, "file", "");
	cJSON_AddStringToObject(f->entry, "kind", kind);
	cJSON_AddStringToObject(f->entry, "title", title);
}

void figure_release(struct figure *f)
{
	free(f->name);
	free(f->title);
	cJSON_Delete(f->entry);
	csvw_release(&f->csv);
	memset(f, 0, sizeof(*f));
}

char *fig_code_label(struct canvas *cv, const struct dimension *dim,
		     const char *key)
{
	const struct code *c = NULL;
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; dim && i < dim->nr_codes; i++)
		if (!strcmp(dim->codes[i].key, key))
			c = &dim->codes[i];
	if (!c || !c->name || !*c->name)
		return xstrdup(key);
	text_sanitize(&b, c->name, strlen(c->name), 1, 0);
	if (!fig_drawable(cv, b.ptr)) {
		buf_release(&b);
		return xstrdup(key);
	}
	return buf_detach(&b, NULL);
}

void figure_shortened(struct figure *f, const char *shown,
		      const char *full, const char *key)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(f->entry, "shortened");
	cJSON *o = cJSON_CreateObject();

	if (!list)
		list = cJSON_AddArrayToObject(f->entry, "shortened");
	if (key)
		cJSON_AddStringToObject(o, "code", key);
	cJSON_AddStringToObject(o, "shown", shown);
	cJSON_AddStringToObject(o, "full", full);
	cJSON_AddItemToArray(list, o);
}

struct draw_all {
	fig_draw_fn draw;
	void *data;
	const char *caption;
};

static double draw_all(struct canvas *cv, const struct draw_all *d)
{
	double y = d->draw(cv, d->data);

	fig_font(cv, FIG_SMALL, 0);
	fig_set(cv, fig_ink);
	y = fig_paragraph(cv, FIG_MARGIN, y + 4 + FIG_SMALL,
			  cv->w - 2 * FIG_MARGIN, d->caption);
	return ceil(y + FIG_MARGIN);
}

static cairo_status_t to_buf(void *closure, const unsigned char *data,
			     unsigned int len)
{
	buf_add(closure, data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* Blank the PDF's /CreationDate entry (same length: offsets hold). */
static void pdf_strip_date(struct buf *b)
{
	static const char key[] = "/CreationDate (";
	size_t kl = sizeof(key) - 1, i;
	char *q;

	for (i = 0; i + kl <= b->len; i++)
		if (!memcmp(b->ptr + i, key, kl))
			break;
	if (i + kl > b->len)
		return;
	q = memchr(b->ptr + i, ')', b->len - i);
	if (q)
		memset(b->ptr + i, ' ', (size_t)(q - (b->ptr + i)) + 1);
}

/* Renumber "surfaceN" ids (after '"' or '#') in order of appearance. */
static void svg_renumber(struct buf *b)
{
	static const char word[] = "surface";
	struct buf out = BUF_INIT;
	long *seen = NULL;
	size_t nr = 0, alloc = 0, i = 0, wl = sizeof(word) - 1;

	while (i < b->len) {
		char *end;
		long id;
		size_t k;

		if (i + wl < b->len && i > 0 &&
		    (b->ptr[i - 1] == '"' || b->ptr[i - 1] == '#') &&
		    !memcmp(b->ptr + i, word, wl) &&
		    b->ptr[i + wl] >= '0' && b->ptr[i + wl] <= '9') {
			id = strtol(b->ptr + i + wl, &end, 10);
			for (k = 0; k < nr && seen[k] != id; k++)
				;
			if (k == nr) {
				ALLOC_GROW(seen, nr + 1, alloc);
				seen[nr++] = id;
			}
			buf_addf(&out, "%s%zu", word, k + 1);
			i = (size_t)(end - b->ptr);
			continue;
		}
		buf_addch(&out, b->ptr[i++]);
	}
	free(seen);
	buf_release(b);
	*b = out;
}

static int drawing_failed(cairo_status_t s, const char *name, struct err *e)
{
	return err_set(e, ERR_INPUT, "drawing %s: %s", name,
		       cairo_status_to_string(s));
}

static void add_file(struct figure_files *files, const char *name,
		     struct buf *data)
{
	struct figure_file *f;

	ALLOC_GROW(files->v, files->nr + 1, files->alloc);
	f = &files->v[files->nr++];
	f->name = xstrdup(name);
	f->data = *data;
	buf_init(data, 0);
}

int figure_finish(struct figure *f, const struct fig_ctx *x,
		  fig_draw_fn draw, void *data, const char *caption,
		  struct err *e)
{
	enum figure_format fmt = x->o->format;
	struct draw_all d = { draw, data, caption };
	struct canvas cv;
	cairo_surface_t *s = NULL;
	cairo_status_t st;
	struct buf out = BUF_INIT, name = BUF_INIT;
	double h;
	int ret = -1;

	/* measure */
	cv.w = FIG_WIDTH;
	cv.measuring = 1;
	s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cv.cr = cairo_create(s);
	fig_canvas_init(cv.cr);
	h = draw_all(&cv, &d);
	st = cairo_status(cv.cr);
	cairo_destroy(cv.cr);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS)
		return drawing_failed(st, f->name, e);

	/* draw */
	cv.measuring = 0;
	if (fmt == FIGURE_PDF) {
		s = cairo_pdf_surface_create_for_stream(to_buf, &out, cv.w, h);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE,
					       f->title);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
					       "bugcoder " BUGCODER_VERSION);
		cairo_pdf_surface_set_metadata(s,
			CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00Z");
	} else if (fmt == FIGURE_SVG) {
		s = cairo_svg_surface_create_for_stream(to_buf, &out, cv.w, h);
	} else {
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
			(int)ceil(cv.w * FIG_PNG_DPI / 72.0),
			(int)ceil(h * FIG_PNG_DPI / 72.0));
	}
	cv.cr = cairo_create(s);
	fig_canvas_init(cv.cr);
	if (fmt == FIGURE_PNG) {
		cairo_scale(cv.cr, FIG_PNG_DPI / 72.0, FIG_PNG_DPI / 72.0);
		cairo_set_source_rgb(cv.cr, 1, 1, 1);
		cairo_paint(cv.cr);
	}
	draw_all(&cv, &d);
	st = cairo_status(cv.cr);
	cairo_destroy(cv.cr);
	if (st == CAIRO_STATUS_SUCCESS && fmt == FIGURE_PNG)
		st = cairo_surface_write_to_png_stream(s, to_buf, &out);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		drawing_failed(st, f->name, e);
		goto out;
	}
	if (fmt == FIGURE_PDF)
		pdf_strip_date(&out);
	else if (fmt == FIGURE_SVG)
		svg_renumber(&out);

	buf_addf(&name, "%s.%s", f->name, figure_ext(fmt));
	cJSON_ReplaceItemInObjectCaseSensitive(f->entry, "file",
					       cJSON_CreateString(name.ptr));
	add_file(x->files, name.ptr, &out);
	buf_reset(&name);
	buf_addf(&name, "%s.csv", f->name);
	cJSON_AddStringToObject(f->entry, "data", name.ptr);
	cJSON_AddStringToObject(f->entry, "caption", caption);
	cJSON_AddNumberToObject(f->entry, "width_pt", cv.w);
	cJSON_AddNumberToObject(f->entry, "height_pt", h);
	add_file(x->files, name.ptr, &f->csv.row);
	cJSON_AddItemToArray(x->list, f->entry);
	f->entry = NULL;
	ret = 0;
out:
	buf_release(&out);
	buf_release(&name);
	return ret;
}

const char *figure_ext(enum figure_format f)
{
	return f == FIGURE_SVG ? "svg" : f == FIGURE_PNG ? "png" : "pdf";
}

char *fig_report_command(const struct figures_opts *o, const char *cross,
			 const char *by)
{
	const struct summary_opts *r = &o->report;
	struct buf b = BUF_INIT;

	buf_addstr(&b, "bugcoder report --format json");
	if (r->round)
		buf_addf(&b, " --round %s", r->round);
	if (r->include_pending)
		buf_addstr(&b, " --include-pending");
	if (cross)
		buf_addf(&b, " --cross %s", cross);
	else if (r->cross[0] && r->cross[1])
		buf_addf(&b, " --cross %s,%s", r->cross[0], r->cross[1]);
	if (by || r->by)
		buf_addf(&b, " --by %s", by ? by : r->by);
	if (r->effort_by)
		buf_addf(&b, " --effort-by %s", r->effort_by);
	buf_addf(&b, " --small %ld --hard %g,%ld", r->small, r->hard_days,
		 r->hard_comments);
	return buf_detach(&b, NULL);
}

void fig_counting(struct buf *b, const struct fig_ctx *x,
		  const struct summary *s)
{
	size_t n = summary_items(s), p = summary_pending(s);

	if (x->o->report.include_pending)
		buf_addf(b, "%zu item%s counted, %zu of them not agreed yet",
			 n, n == 1 ? "" : "s", p);
	else if (p)
		buf_addf(b, "%zu agreed item%s (%zu not agreed yet left out)",
			 n, n == 1 ? "" : "s", p);
	else
		buf_addf(b, "%zu agreed item%s", n, n == 1 ? "" : "s");
}

void fig_source(cJSON *entry, const struct fig_ctx *x,
		const char *const *tables, size_t n, const char *cross)
{
	cJSON *src = cJSON_AddObjectToObject(entry, "source");
	cJSON *arr = cJSON_AddArrayToObject(src, "tables");
	char *cmd = fig_report_command(x->o, cross, NULL);
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(tables[i]));
	cJSON_AddStringToObject(src, "report", cmd);
	free(cmd);
}
