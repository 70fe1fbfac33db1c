/* SPDX-License-Identifier: MIT */
/*
 * summary_table: a table of typed cells (text, count, percentage,
 * number, undefined, bar) and how each form of the report lays one out:
 * text, Markdown, LaTeX, JSON.
 */
#include "exports/summary_int.h"
#include "exports/tex.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "exports/json_out.h"

#define BAR_WIDTH 30		/* columns of the longest bar */

struct table *sum_table_new(struct report *r, size_t cols, int bar,
			    const char *id, const char *title)
{
	struct table *t;

	ALLOC_GROW(r->t, r->nr + 1, r->alloc);
	t = &r->t[r->nr++];
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->bar = bar;
	t->id = xstrdup(id);
	t->title = xstrdup(title);
	return t;
}

void sum_report_release(struct report *r)
{
	size_t i, j;

	for (i = 0; i < r->nr; i++) {
		for (j = 0; j < r->t[i].nr; j++)
			free(r->t[i].cell[j].s);
		free(r->t[i].cell);
		free(r->t[i].id);
		free(r->t[i].title);
	}
	free(r->t);
}

struct cell *sum_cell_new(struct table *t, enum cell_kind k, double v)
{
	struct cell *c;

	ALLOC_GROW(t->cell, t->nr + 1, t->alloc);
	c = &t->cell[t->nr++];
	c->kind = k;
	c->v = v;
	c->s = NULL;
	return c;
}

void sum_add_text(struct table *t, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	sum_cell_new(t, CELL_TEXT, 0)->s = buf_detach(&b, NULL);
}

void sum_add_int(struct table *t, long long n)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%lld", n);
	sum_cell_new(t, CELL_INT, (double)n)->s = buf_detach(&b, NULL);
}

/* n of `of` as a percentage; undefined when of == 0. */
void sum_add_pct(struct table *t, double n, double of)
{
	struct buf b = BUF_INIT;

	if (of <= 0) {
		sum_cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		return;
	}
	buf_addf(&b, "%.1f%%", 100.0 * n / of);
	sum_cell_new(t, CELL_PCT, 100.0 * n / of)->s = buf_detach(&b, NULL);
}

/* A number: up to two decimals, undefined when NAN. */
void sum_add_num(struct table *t, double v)
{
	struct buf b = BUF_INIT;

	if (isnan(v)) {
		sum_cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		buf_addf(&b, "%.0f", v);
	else
		buf_addf(&b, "%.2f", v);
	sum_cell_new(t, CELL_NUM, v)->s = buf_detach(&b, NULL);
}

/* A bar of share/max of BAR_WIDTH columns. */
void sum_add_bar(struct table *t, double share, double max, int unicode)
{
	static const char *const eighths[] = {
		"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b",
		"\u258a", "\u2589"
	};
	struct buf b = BUF_INIT;
	long units, i;

	if (max > 0 && share > 0 && unicode) {
		units = (long)(share / max * BAR_WIDTH * 8 + 0.5);
		if (!units)
			units = 1;
		for (i = 0; i < units / 8; i++)
			buf_addstr(&b, "\u2588");
		buf_addstr(&b, eighths[units % 8]);
	} else if (max > 0 && share > 0) {
		units = (long)(share / max * BAR_WIDTH + 0.5);
		if (!units)
			units = 1;
		for (i = 0; i < units; i++)
			buf_addch(&b, '#');
	}
	sum_cell_new(t, CELL_BAR, 0)->s = buf_detach(&b, NULL);
}

/* ---- rendering --------------------------------------------------------- */

void sum_add_safe(struct buf *out, const char *s)
{
	text_sanitize(out, s, strlen(s), 1, 0);
}

void sum_md_cell(struct buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\')
			buf_addch(out, '\\');
		if (*s == '\n' || *s == '\r')
			buf_addch(out, ' ');
		else
			buf_addch(out, *s);
	}
}

/* Is column c right-aligned: does it hold a number below the header? */
static int numeric_col(const struct table *t, size_t c)
{
	size_t r, rows = t->nr / t->cols;

	for (r = 1; r < rows; r++)
		if (t->cell[r * t->cols + c].kind != CELL_TEXT &&
		    t->cell[r * t->cols + c].kind != CELL_BAR)
			return 1;
	return 0;
}

void sum_render_text(const struct table *t, struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c;
	int *w = xcalloc(t->cols + 1, sizeof(int));

	buf_addstr(out, t->title);
	buf_addch(out, '\n');
	if (rows < 2) {
		buf_addstr(out, "  (none)\n\n");
		free(w);
		return;
	}
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->cols; c++) {
			const char *s = t->cell[r * t->cols + c].s;
			int n = text_width(s, strlen(s));

			if (n > w[c])
				w[c] = n;
		}
	for (r = 0; r < rows; r++) {
		size_t start = out->len;

		buf_addstr(out, "  ");
		for (c = 0; c < t->cols; c++) {
			const char *s = t->cell[r * t->cols + c].s;
			int pad = w[c] - text_width(s, strlen(s));
			int right = numeric_col(t, c);

			if (c)
				buf_add(out, "  ", 2);
			if (right)
				buf_addf(out, "%*s", pad, "");
			buf_addstr(out, s);
			if (!right && c + 1 < t->cols)
				buf_addf(out, "%*s", pad, "");
		}
		while (out->len > start && out->ptr[out->len - 1] == ' ')
			buf_setlen(out, out->len - 1);
		buf_addch(out, '\n');
	}
	buf_addch(out, '\n');
	free(w);
}

size_t sum_shown_cols(const struct table *t)
{
	return t->bar ? t->cols - 1 : t->cols;
}

void sum_render_markdown(const struct table *t, struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c, shown = sum_shown_cols(t);

	buf_addstr(out, "## ");
	sum_md_cell(out, t->title);
	buf_add(out, "\n\n", 2);
	if (rows < 2) {
		buf_addstr(out, "(none)\n\n");
		return;
	}
	for (r = 0; r < rows; r++) {
		buf_addch(out, '|');
		for (c = 0; c < shown; c++) {
			buf_addch(out, ' ');
			sum_md_cell(out, t->cell[r * t->cols + c].s);
			buf_add(out, " |", 2);
		}
		buf_addch(out, '\n');
		if (r)
			continue;
		buf_addch(out, '|');
		for (c = 0; c < shown; c++)
			buf_addstr(out, numeric_col(t, c) ? "---:|" : "---|");
		buf_addch(out, '\n');
	}
	buf_addch(out, '\n');
}

void sum_render_latex(const struct table *t, struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c, shown = sum_shown_cols(t);

	buf_addstr(out, "\\subsection*{");
	tex_escape(out, t->title);
	buf_addstr(out, "}\n");
	if (rows < 2) {
		buf_addstr(out, "(none)\n\n");
		return;
	}
	buf_addstr(out, "\\begin{tabular}{");
	for (c = 0; c < shown; c++)
		buf_addch(out, numeric_col(t, c) ? 'r' : 'l');
	buf_addstr(out, "}\n\\hline\n");
	for (r = 0; r < rows; r++) {
		for (c = 0; c < shown; c++) {
			if (c)
				buf_addstr(out, " & ");
			tex_escape(out, t->cell[r * t->cols + c].s);
		}
		buf_addstr(out, " \\\\\n");
		if (!r)
			buf_addstr(out, "\\hline\n");
	}
	buf_addstr(out, "\\hline\n\\end{tabular}\n\n");
}

void sum_json_num(struct buf *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		buf_addf(out, "%.0f", v);
	else
		buf_addf(out, "%.10g", v);
}

void sum_render_json(const struct table *t, struct buf *out, int first)
{
	size_t rows = t->nr / t->cols, r, c, shown = sum_shown_cols(t);

	buf_addstr(out, first ? "\n    {\"id\": " : ",\n    {\"id\": ");
	json_quote(out, t->id, strlen(t->id));
	buf_addstr(out, ", \"title\": ");
	json_quote(out, t->title, strlen(t->title));
	buf_addstr(out, ",\n     \"columns\": [");
	/* a table left empty (no items: no header either) has none */
	for (c = 0; c < shown && c < t->nr; c++) {
		if (c)
			buf_addstr(out, ", ");
		json_quote(out, t->cell[c].s, strlen(t->cell[c].s));
	}
	buf_addstr(out, "],\n     \"rows\": [");
	for (r = 1; r < rows; r++) {
		buf_addstr(out, r > 1 ? ",\n       [" : "\n       [");
		for (c = 0; c < shown; c++) {
			const struct cell *x = &t->cell[r * t->cols + c];

			if (c)
				buf_addstr(out, ", ");
			if (x->kind == CELL_TEXT)
				json_quote(out, x->s, strlen(x->s));
			else if (x->kind == CELL_NONE)
				buf_addstr(out, "null");
			else
				sum_json_num(out, x->v);
		}
		buf_addch(out, ']');
	}
	buf_addstr(out, "]}");
}
