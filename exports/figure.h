/* SPDX-License-Identifier: MIT */
/*
 * figure: what the figure writers (exports/figure_*.c) share: a canvas
 * over cairo, text that fits, the palettes, and the record of one figure
 * (its file, its entry in figures.json, its data as CSV).
 *
 * Every figure is one column of a two-column paper wide (FIG_WIDTH
 * points, 8.5 cm) and as tall as its content: a figure's draw function
 * runs twice, first on a measuring canvas (a 1x1 image, nothing kept)
 * that finds the height, then on the real surface.  Its drawing must
 * therefore depend only on its data.
 *
 * Text is drawn with cairo's own font API in one face (FIG_FONT, found
 * by fontconfig) and measured with its metrics; every label is one line,
 * so no text layout engine is needed.  A label that does not fit is cut
 * with an ellipsis; a code name with a character the face lacks is shown
 * by its key (keys are ASCII).  Nothing here prints or exits.
 */
#ifndef BUGCODER_FIGURE_H
#define BUGCODER_FIGURE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/base/err.h"
#include "exports/cairo_lazy.h"
#include "exports/csv_out.h"
#include "exports/figures.h"
#include "exports/summary.h"

#define FIG_WIDTH 241.0		/* points: 8.5 cm */
#define FIG_MARGIN 4.0
#define FIG_FONT "DejaVu Sans"
#define FIG_TEXT 7.0		/* labels */
#define FIG_SMALL 6.5		/* numbers, captions, legends */
#define FIG_TITLE 8.0
#define FIG_LINE 8.5		/* a line of FIG_TEXT */
#define FIG_PNG_DPI 300.0

struct canvas {
	cairo_t *cr;
	int measuring;		/* the first pass: nothing is kept */
	double w;		/* FIG_WIDTH */
};

struct rgb {
	double r, g, b;
};

/* Colour-blind-safe colours that stay apart in grey: samples of the
 * viridis scale (perceptually uniform, monotone in lightness). */
extern const struct rgb fig_ink;	/* text and axes: near black */
extern const struct rgb fig_grid;	/* light grey rules */
extern const struct rgb fig_bar;	/* bars: dark blue */
extern const struct rgb fig_bar_dist;	/* distributed codes: green */
extern const struct rgb fig_bar_extra;	/* (none), (pending): grey */
/* Categorical colour i of n, dark to light, never the palest end. */
struct rgb fig_category(size_t i, size_t n);
/* Sequential colour for t in [0, 1]: pale yellow to dark blue. */
struct rgb fig_sequential(double t);
/* Is colour c dark (text on it should be white)? */
int fig_dark(struct rgb c);
void fig_set(struct canvas *cv, struct rgb c);

enum fig_align {
	FIG_LEFT,
	FIG_RIGHT,
	FIG_CENTER,
};

/* Make `cr` measure text as every other canvas does: unhinted metrics,
 * whatever the surface, so a label measured on one surface has the same
 * width on another.  Call once, after cairo_create(). */
void fig_canvas_init(cairo_t *cr);
void fig_font(struct canvas *cv, double size, int bold);
double fig_text_width(struct canvas *cv, const char *s);
/* Draw one line of text with its baseline at y. */
void fig_text(struct canvas *cv, double x, double y, enum fig_align al,
	      const char *s);
/* The same, turned 90 degrees counter-clockwise (reading upwards),
 * starting at (x, y). */
void fig_text_up(struct canvas *cv, double x, double y, const char *s);
/* `s` cut to fit `maxw` points in the current font, with an ellipsis;
 * owned.  *cut (may be NULL) says whether it was cut. */
char *fig_fit(struct canvas *cv, const char *s, double maxw, int *cut);
/* Does the current font have a glyph for every character of s? */
int fig_drawable(struct canvas *cv, const char *s);
/* `s` broken into lines of at most `maxw` points (at spaces; a word
 * longer than a line is cut); drawn from baseline y on, FIG_SMALL + 1.5
 * apart.  Returns the y below the last line. */
double fig_paragraph(struct canvas *cv, double x, double y, double maxw,
		     const char *s);

/* A rule from (x0, y0) to (x1, y1), `width` points, dashed when `dash`
 * (points on, points off; 0 for solid). */
void fig_line(struct canvas *cv, double x0, double y0, double x1,
	      double y1, double width, double dash);
void fig_rect(struct canvas *cv, double x, double y, double w, double h);

/* One figure. */
struct figure {
	char *name;		/* file name without extension, owned */
	char *title;		/* owned */
	cJSON *entry;		/* its figures.json entry (owned until
				   figure_done hands it over) */
	struct csv_out csv;	/* its data as CSV, built in csv.row */
};

/* What every figure writer is given. */
struct fig_ctx {
	const struct codebook *cb;
	const struct figures_opts *o;
	const struct summary *main;	/* the report of `o` */
	struct figure_files *files;	/* where finished files go */
	cJSON *list;		/* figures.json's "figures" array */
	struct canvas *probe;	/* a measuring canvas for layout */
};

/* Start figure `name` of `kind` with `title`; its entry gets "file",
 * "kind", "title".  Release with figure_release(). */
void figure_start(struct figure *f, const struct fig_ctx *x,
		  const char *name, const char *kind, const char *title);
void figure_release(struct figure *f);

/* The code label to draw for slot `i` of `dim` (a code, or the report's
 * "(none)", "(not in codebook)", "(pending)"): its name, made safe, or
 * its key when the font lacks a character of the name; owned. */
char *fig_code_label(struct canvas *cv, const struct dimension *dim,
		     const char *key);

/* Record that `shown` stands for `full` in the figure (a label cut to
 * fit): the entry's "shortened" list. */
void figure_shortened(struct figure *f, const char *shown,
		      const char *full, const char *key);

/* Draw the figure: draw(cv, data) lays it out from y = 0 and returns the
 * height it used; it runs once to measure and once to draw.  The caption
 * `caption` is set below it on every figure.  The file goes to x->files
 * as NAME.EXT, the CSV as NAME.csv, the entry to x->list.  Returns 0, or
 * -1 with `e` filled (a cairo error). */
typedef double (*fig_draw_fn)(struct canvas *cv, void *data);
int figure_finish(struct figure *f, const struct fig_ctx *x,
		  fig_draw_fn draw, void *data, const char *caption,
		  struct err *e);

/* The figure writers, one per kind; each adds its files to x->files and
 * entries to x->list.  Return 0, or -1 with `e` filled. */
int figure_shares(const struct fig_ctx *x, struct err *e);
int figure_cross(const struct fig_ctx *x, struct err *e);
/* The flow over dims[0..3) (dims[2] NULL: two axes) from `a` (the
 * cross tables of dims[0], dims[1]) and `b` (dims[1], dims[2]; NULL with
 * two axes); with `by`, one figure per code of it. */
int figure_flow(const struct fig_ctx *x, const struct summary *a,
		const struct summary *b, const char *const dims[3],
		const char *by, struct err *e);
int figure_effort(const struct fig_ctx *x, struct err *e);
int figure_agreement(const struct fig_ctx *x, struct store *st,
		     struct err *e);

/* "20 agreed items (4 not agreed yet left out)", or with
 * --include-pending "24 items counted, 4 of them not agreed yet". */
void fig_counting(struct buf *b, const struct fig_ctx *x,
		  const struct summary *s);
/* The entry's "source": the report tables `tables[0..n)` and the command
 * that prints them (with --cross `cross` when not NULL). */
void fig_source(cJSON *entry, const struct fig_ctx *x,
		const char *const *tables, size_t n, const char *cross);

/* The report command that prints a figure's numbers: "bugcoder report
 * --format json" with the options of `o` (and `cross` when not NULL);
 * owned. */
char *fig_report_command(const struct figures_opts *o, const char *cross,
			 const char *by);

#endif
