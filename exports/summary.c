/* SPDX-License-Identifier: MIT */
/*
 * summary: see summary.h.
 *
 * One agreed pass fills a tally for all items, one per repository and
 * one per code of --effort-by, plus the cross tables; the report is then
 * laid out as a list of tables of typed cells (text, count, percentage,
 * number, undefined) that each form renders: the numbers are decided
 * once, so every form shows the same ones.
 */
#include "exports/summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/consensus.h"
#include "core/study/design.h"
#include "core/base/csv.h"
#include "core/base/text.h"
#include "exports/agree_report.h"
#include "exports/export.h"
#include "exports/json_out.h"

#define BAR_WIDTH 30		/* columns of the longest bar */
#define MAX_CODES 64		/* codes of one item in one dimension */

/* ---- tallies --------------------------------------------------------- */

/* Slots of a dimension: its codes, then "(none)", "(not in codebook)",
 * "(pending)". */
#define EXTRA_SLOTS 3

struct nums {
	double *v;
	size_t nr, alloc;
};

struct tally {
	char *name;		/* "all", a repository, or DIM=CODE */
	size_t items;
	long **counts;		/* per dimension: nr_codes + EXTRA_SLOTS */
	struct nums days, comments, lines;
	size_t small, sized;	/* fixes <= N lines; fixes of known size */
	size_t hard, dated;	/* hard bugs; items of known days open */
};

struct tallies {
	const struct codebook *cb;
	const struct summary_opts *o;
	struct tally *v;	/* v[0] is every repository */
	size_t nr, alloc;
	struct tally *by_code;	/* per slot of effort_by, or NULL */
	int eb;			/* effort_by's dimension, -1 if none */
	size_t pending;		/* items seen but not counted */
	int cx, cy, cb3;	/* cross dimensions and --by, -1 if none */
	long *cross;		/* (slots of --by or 1) x kx x ky counts */
	long *dist;		/* per dimension: items with a distributed
				   code */
	int stage;		/* the dimension "stage", -1 if none */
	long *stage_items;	/* per stage slot: items */
	long *stage_dist;	/* per stage slot x dimension */
	size_t last;		/* the tally found last */
};

static size_t nslots(const struct dimension *dim)
{
	return dim->nr_codes + EXTRA_SLOTS;
}

static void nums_add(struct nums *n, double v)
{
	ALLOC_GROW(n->v, n->nr + 1, n->alloc);
	n->v[n->nr++] = v;
}

static void tally_init(struct tally *t, const struct codebook *cb,
		       const char *name)
{
	size_t d;

	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->counts = xcalloc(cb->nr_dims + 1, sizeof(*t->counts));
	for (d = 0; d < cb->nr_dims; d++)
		t->counts[d] = xcalloc(nslots(&cb->dims[d]), sizeof(long));
}

static void tally_release(struct tally *t, const struct codebook *cb)
{
	size_t d;

	for (d = 0; d < cb->nr_dims; d++)
		free(t->counts[d]);
	free(t->counts);
	free(t->name);
	free(t->days.v);
	free(t->comments.v);
	free(t->lines.v);
}

static struct tally *repo_tally(struct tallies *ts, const char *repo)
{
	size_t i;

	if (ts->last && ts->last < ts->nr &&
	    !strcmp(ts->v[ts->last].name, repo))
		return &ts->v[ts->last];
	for (i = 1; i < ts->nr; i++)
		if (!strcmp(ts->v[i].name, repo))
			return &ts->v[ts->last = i];
	ALLOC_GROW(ts->v, ts->nr + 1, ts->alloc);
	tally_init(&ts->v[ts->nr], ts->cb, repo);
	ts->last = ts->nr;
	return &ts->v[ts->nr++];
}

/* The code slots of one dimension of an item, into idx[] (at most
 * `max`). */
static size_t code_slots(const struct dimension *dim,
			 const struct consensus_dim *ad, int *idx, size_t max)
{
	const char *p = ad->final.ptr, *q;
	char key[128];
	size_t n = 0;

	if (ad->status != DIM_AGREED && ad->status != DIM_RESOLVED) {
		idx[0] = (int)dim->nr_codes + 2;
		return 1;
	}
	if (!*p) {
		idx[0] = (int)dim->nr_codes;
		return 1;
	}
	while (*p && n < max) {
		size_t len;
		int i;

		q = strchr(p, ';');
		len = q ? (size_t)(q - p) : strlen(p);
		if (len < sizeof(key)) {
			memcpy(key, p, len);
			key[len] = '\0';
			i = dimension_code_index(dim, key);
		} else {
			i = -1;
		}
		idx[n++] = i < 0 ? (int)dim->nr_codes + 1 : i;
		p = q ? q + 1 : p + len;
	}
	return n;
}

static void tally_item(struct tally *x, const struct consensus_item *it,
		       const struct summary_opts *o)
{
	x->items++;
	/* days open as the export writes them, so that the report can be
	 * recomputed from the CSV */
	if (it->days_open >= 0) {
		double days = export_days2(it->days_open);

		nums_add(&x->days, days);
		x->dated++;
		x->hard += days > o->hard_days &&
			   it->comments >= o->hard_comments;
	}
	nums_add(&x->comments, (double)it->comments);
	if (it->lines_changed >= 0) {
		nums_add(&x->lines, (double)it->lines_changed);
		x->sized++;
		x->small += it->lines_changed <= o->small;
	}
}

static void count_item(struct tallies *ts, const struct consensus_item *it)
{
	const struct codebook *cb = ts->cb;
	int *slots[64];
	size_t nslot[64] = { 0 };
	int buf[64][MAX_CODES];
	struct tally *t[2];
	size_t d, i, j, k, b;
	int is_dist[64] = { 0 };

	/* repo_tally() may grow ts->v: take v[0] only after it */
	t[1] = repo_tally(ts, it->repo ? it->repo : "");
	t[0] = &ts->v[0];
	for (d = 0; d < cb->nr_dims && d < 64; d++) {
		const struct dimension *dim = &cb->dims[d];

		slots[d] = buf[d];
		nslot[d] = code_slots(dim, &it->dims[d], buf[d], MAX_CODES);
		for (i = 0; i < nslot[d]; i++) {
			int s = buf[d][i];

			for (k = 0; k < 2; k++)
				t[k]->counts[d][s]++;
			if (s < (int)dim->nr_codes &&
			    dim->codes[s].distributed)
				is_dist[d] = 1;
		}
		ts->dist[d] += is_dist[d];
	}
	for (k = 0; k < 2; k++)
		tally_item(t[k], it, ts->o);
	if (ts->eb >= 0)
		for (i = 0; i < nslot[ts->eb]; i++)
			tally_item(&ts->by_code[slots[ts->eb][i]], it, ts->o);
	if (ts->stage >= 0)
		for (i = 0; i < nslot[ts->stage]; i++) {
			int s = slots[ts->stage][i];

			ts->stage_items[s]++;
			for (d = 0; d < cb->nr_dims && d < 64; d++)
				ts->stage_dist[(size_t)s * cb->nr_dims + d] +=
					is_dist[d];
		}
	if (ts->cx >= 0) {
		size_t kx = nslots(&cb->dims[ts->cx]);
		size_t ky = nslots(&cb->dims[ts->cy]);
		size_t nb = ts->cb3 >= 0 ? nslot[ts->cb3] : 1;

		for (b = 0; b < nb; b++) {
			size_t base = ts->cb3 >= 0 ?
				(size_t)slots[ts->cb3][b] * kx * ky : 0;

			for (i = 0; i < nslot[ts->cx]; i++)
				for (j = 0; j < nslot[ts->cy]; j++)
					ts->cross[base +
						  (size_t)slots[ts->cx][i] * ky +
						  (size_t)slots[ts->cy][j]]++;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile p of v[0..n) as R's default (type 7): sorts v; NAN when
 * n == 0. */
static double quantile(double *v, size_t n, double p)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	h = (double)(n - 1) * p;
	lo = floor(h);
	i = (size_t)lo;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - lo) * (v[i + 1] - v[i]);
}

static int cmp_tally(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->name,
		      ((const struct tally *)b)->name);
}

static int find_dim(const struct codebook *cb, const char *key,
		    const char *opt, struct err *e)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return (int)i;
	return err_set(e, ERR_INPUT, "%s: %s is not a dimension of codebook "
		       "%s", opt, key, cb->name);
}

static int collect(struct tallies *ts, struct store *st,
		   const struct actor *a, struct err *e)
{
	const struct codebook *cb = ts->cb;
	const struct summary_opts *o = ts->o;
	struct consensus_iter it;
	size_t i;
	int rc;

	ts->cx = ts->cy = ts->cb3 = ts->eb = ts->stage = -1;
	if (cb->nr_dims > 64)
		return err_set(e, ERR_INPUT, "codebook %s: the report reads at "
			       "most 64 dimensions", cb->name);
	if (o->cross[0] || o->cross[1]) {
		if (!o->cross[0] || !o->cross[1])
			return err_set(e, ERR_INPUT, "--cross takes two "
				       "dimensions, DIM1,DIM2");
		if ((ts->cx = find_dim(cb, o->cross[0], "--cross", e)) < 0 ||
		    (ts->cy = find_dim(cb, o->cross[1], "--cross", e)) < 0)
			return -1;
	} else if (cb->nr_dims >= 2) {
		ts->cx = 0;
		ts->cy = 1;
	}
	if (o->by && (ts->cb3 = find_dim(cb, o->by, "--by", e)) < 0)
		return -1;
	if (o->by && ts->cx < 0)
		return err_set(e, ERR_INPUT, "--by needs a cross table: the "
			       "codebook has one dimension");
	if (o->effort_by &&
	    (ts->eb = find_dim(cb, o->effort_by, "--effort-by", e)) < 0)
		return -1;
	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, "stage"))
			ts->stage = (int)i;
	if (ts->cx >= 0)
		ts->cross = xcalloc((ts->cb3 >= 0 ?
				     nslots(&cb->dims[ts->cb3]) : 1) *
				    nslots(&cb->dims[ts->cx]) *
				    nslots(&cb->dims[ts->cy]), sizeof(long));
	if (ts->eb >= 0) {
		const struct dimension *dim = &cb->dims[ts->eb];

		ts->by_code = xcalloc(nslots(dim), sizeof(*ts->by_code));
		for (i = 0; i < nslots(dim); i++) {
			struct buf n = BUF_INIT;

			buf_addf(&n, "%s=%s", dim->key, i < dim->nr_codes ?
				 dim->codes[i].key : i == dim->nr_codes ?
				 "(none)" : i == dim->nr_codes + 1 ?
				 "(not in codebook)" : "(pending)");
			tally_init(&ts->by_code[i], cb, n.ptr);
			buf_release(&n);
		}
	}
	ts->dist = xcalloc(cb->nr_dims + 1, sizeof(long));
	if (ts->stage >= 0) {
		size_t k = nslots(&cb->dims[ts->stage]);

		ts->stage_items = xcalloc(k, sizeof(long));
		ts->stage_dist = xcalloc(k * cb->nr_dims, sizeof(long));
	}
	ALLOC_GROW(ts->v, 1, ts->alloc);
	tally_init(&ts->v[0], cb, "all");
	ts->nr = 1;
	if (consensus_open(&it, st, a, cb, o->round, e) < 0) {
		consensus_close(&it);
		return -1;
	}
	consensus_skip_fixes(&it);
	while ((rc = consensus_next(&it, e)) > 0) {
		if (!it.item.complete) {
			ts->pending++;
			if (!o->include_pending)
				continue;
		}
		count_item(ts, &it.item);
	}
	consensus_close(&it);
	if (rc < 0)
		return -1;
	qsort(ts->v + 1, ts->nr - 1, sizeof(*ts->v), cmp_tally);
	return 0;
}

static void tallies_release(struct tallies *ts)
{
	size_t i;

	for (i = 0; i < ts->nr; i++)
		tally_release(&ts->v[i], ts->cb);
	if (ts->by_code)
		for (i = 0; i < nslots(&ts->cb->dims[ts->eb]); i++)
			tally_release(&ts->by_code[i], ts->cb);
	free(ts->by_code);
	free(ts->v);
	free(ts->cross);
	free(ts->dist);
	free(ts->stage_items);
	free(ts->stage_dist);
}

/* ---- tables ---------------------------------------------------------- */

enum cell_kind {
	CELL_TEXT,
	CELL_INT,
	CELL_PCT,		/* v is a percentage */
	CELL_NUM,
	CELL_NONE,		/* undefined: "-", null */
	CELL_BAR,		/* text only */
};

struct cell {
	enum cell_kind kind;
	char *s;		/* owned: the text shown */
	double v;
};

struct table {
	char *id, *title;	/* owned */
	size_t cols;
	struct cell *cell;	/* row-major; row 0 is the header */
	size_t nr, alloc;
	int bar;		/* the last column holds bars (text only) */
};

struct report {
	struct table *t;
	size_t nr, alloc;
};

static struct table *table_new(struct report *r, size_t cols, int bar,
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

static void report_release(struct report *r)
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

static struct cell *cell_new(struct table *t, enum cell_kind k, double v)
{
	struct cell *c;

	ALLOC_GROW(t->cell, t->nr + 1, t->alloc);
	c = &t->cell[t->nr++];
	c->kind = k;
	c->v = v;
	c->s = NULL;
	return c;
}

static void add_text(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_text(struct table *t, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	cell_new(t, CELL_TEXT, 0)->s = buf_detach(&b, NULL);
}

static void add_int(struct table *t, long long n)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%lld", n);
	cell_new(t, CELL_INT, (double)n)->s = buf_detach(&b, NULL);
}

/* n of `of` as a percentage; undefined when of == 0. */
static void add_pct(struct table *t, double n, double of)
{
	struct buf b = BUF_INIT;

	if (of <= 0) {
		cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		return;
	}
	buf_addf(&b, "%.1f%%", 100.0 * n / of);
	cell_new(t, CELL_PCT, 100.0 * n / of)->s = buf_detach(&b, NULL);
}

/* A number: up to two decimals, undefined when NAN. */
static void add_num(struct table *t, double v)
{
	struct buf b = BUF_INIT;

	if (isnan(v)) {
		cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		buf_addf(&b, "%.0f", v);
	else
		buf_addf(&b, "%.2f", v);
	cell_new(t, CELL_NUM, v)->s = buf_detach(&b, NULL);
}

/* A bar of share/max of BAR_WIDTH columns. */
static void add_bar(struct table *t, double share, double max, int unicode)
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
	cell_new(t, CELL_BAR, 0)->s = buf_detach(&b, NULL);
}

/* ---- rendering --------------------------------------------------------- */

static void add_safe(struct buf *out, const char *s)
{
	text_sanitize(out, s, strlen(s), 1, 0);
}

static void md_cell(struct buf *out, const char *s)
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

static void tex_cell(struct buf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			buf_addstr(out, "\\textbackslash{}");
			break;
		case '~':
			buf_addstr(out, "\\textasciitilde{}");
			break;
		case '^':
			buf_addstr(out, "\\textasciicircum{}");
			break;
		case '<':
			buf_addstr(out, "\\textless{}");
			break;
		case '>':
			buf_addstr(out, "\\textgreater{}");
			break;
		case '&': case '%': case '$': case '#': case '_': case '{':
		case '}':
			buf_addch(out, '\\');
			buf_addch(out, *s);
			break;
		case '\n': case '\r':
			buf_addch(out, ' ');
			break;
		default:
			buf_addch(out, *s);
		}
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

static void render_text(const struct table *t, struct buf *out)
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

static size_t shown_cols(const struct table *t)
{
	return t->bar ? t->cols - 1 : t->cols;
}

static void render_markdown(const struct table *t, struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c, shown = shown_cols(t);

	buf_addstr(out, "## ");
	md_cell(out, t->title);
	buf_add(out, "\n\n", 2);
	if (rows < 2) {
		buf_addstr(out, "(none)\n\n");
		return;
	}
	for (r = 0; r < rows; r++) {
		buf_addch(out, '|');
		for (c = 0; c < shown; c++) {
			buf_addch(out, ' ');
			md_cell(out, t->cell[r * t->cols + c].s);
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

static void render_latex(const struct table *t, struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c, shown = shown_cols(t);

	buf_addstr(out, "\\subsection*{");
	tex_cell(out, t->title);
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
			tex_cell(out, t->cell[r * t->cols + c].s);
		}
		buf_addstr(out, " \\\\\n");
		if (!r)
			buf_addstr(out, "\\hline\n");
	}
	buf_addstr(out, "\\hline\n\\end{tabular}\n\n");
}

static void json_num(struct buf *out, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		buf_addf(out, "%.0f", v);
	else
		buf_addf(out, "%.10g", v);
}

static void render_json(const struct table *t, struct buf *out, int first)
{
	size_t rows = t->nr / t->cols, r, c, shown = shown_cols(t);

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
				json_num(out, x->v);
		}
		buf_addch(out, ']');
	}
	buf_addstr(out, "]}");
}

/* ---- the tables -------------------------------------------------------- */

static const char *slot_name(const struct dimension *dim, size_t i)
{
	if (i < dim->nr_codes)
		return dim->codes[i].key;
	if (i == dim->nr_codes)
		return "(none)";
	return i == dim->nr_codes + 1 ? "(not in codebook)" : "(pending)";
}

/* Is slot i worth a row: a code of the codebook, or a used extra slot? */
static int slot_shown(const struct dimension *dim, const long *counts,
		      size_t i)
{
	return i < dim->nr_codes || counts[i] > 0;
}

static void add_blank(struct table *t)
{
	cell_new(t, CELL_NONE, 0)->s = xstrdup("");
}

static void shares_table(struct report *r, const struct tallies *ts,
			 size_t d)
{
	const struct dimension *dim = &ts->cb->dims[d];
	const struct tally *all = &ts->v[0];
	const long *cnt = all->counts[d];
	struct buf title = BUF_INIT, id = BUF_INIT;
	struct table *t;
	long max = 0;
	size_t i;

	buf_addstr(&title, dim->key);
	if (dim->name && strcmp(dim->name, dim->key)) {
		buf_addstr(&title, ": ");
		add_safe(&title, dim->name);
	}
	buf_addstr(&title, dim->select_many ? " (select many: an item counts "
		   "under each of its codes)" : " (one code per item)");
	buf_addf(&id, "shares.%s", dim->key);
	t = table_new(r, 4, 1, id.ptr, title.ptr);
	add_text(t, "code");
	add_text(t, "items");
	add_text(t, "share");
	add_text(t, "%s", "");
	for (i = 0; i < nslots(dim); i++)
		if (cnt[i] > max)
			max = cnt[i];
	for (i = 0; i < nslots(dim); i++) {
		if (!slot_shown(dim, cnt, i))
			continue;
		add_text(t, "%s", slot_name(dim, i));
		add_int(t, cnt[i]);
		add_pct(t, (double)cnt[i], (double)all->items);
		add_bar(t, (double)cnt[i], (double)max, ts->o->unicode);
	}
	add_text(t, "total");
	add_int(t, (long long)all->items);
	add_blank(t);
	add_text(t, "%s", "");
	buf_release(&title);
	buf_release(&id);
}

static void repo_table(struct report *r, const struct tallies *ts, size_t d)
{
	const struct dimension *dim = &ts->cb->dims[d];
	struct buf title = BUF_INIT, id = BUF_INIT;
	struct table *t;
	size_t i, k;

	buf_addf(&title, "%s by repository: items and share of the "
		 "repository's items", dim->key);
	buf_addf(&id, "repo.%s", dim->key);
	t = table_new(r, 2 * ts->nr + 1, 0, id.ptr, title.ptr);
	add_text(t, "%s", dim->key);
	for (k = 0; k < ts->nr; k++) {
		add_text(t, "%s", ts->v[k].name);
		add_text(t, "%s %%", ts->v[k].name);
	}
	for (i = 0; i < nslots(dim); i++) {
		if (!slot_shown(dim, ts->v[0].counts[d], i))
			continue;
		add_text(t, "%s", slot_name(dim, i));
		for (k = 0; k < ts->nr; k++) {
			add_int(t, ts->v[k].counts[d][i]);
			add_pct(t, (double)ts->v[k].counts[d][i],
				(double)ts->v[k].items);
		}
	}
	buf_release(&title);
	buf_release(&id);
}

static int has_distributed(const struct dimension *dim)
{
	size_t i;

	for (i = 0; i < dim->nr_codes; i++)
		if (dim->codes[i].distributed)
			return 1;
	return 0;
}

static void distributed_tables(struct report *r, const struct tallies *ts)
{
	const struct codebook *cb = ts->cb;
	struct table *t;
	size_t d, s;

	t = table_new(r, 4, 0, "distributed", "Codes marked distributed "
		      "(arising only in distributed systems): items with "
		      "such a code, per dimension");
	add_text(t, "dimension");
	add_text(t, "items");
	add_text(t, "distributed");
	add_text(t, "share");
	for (d = 0; d < cb->nr_dims; d++) {
		if (!has_distributed(&cb->dims[d]))
			continue;
		add_text(t, "%s", cb->dims[d].key);
		add_int(t, (long long)ts->v[0].items);
		add_int(t, ts->dist[d]);
		add_pct(t, (double)ts->dist[d], (double)ts->v[0].items);
	}
	if (ts->stage < 0)
		return;
	{
		const struct dimension *sd = &cb->dims[ts->stage];
		size_t cols = 2;

		for (d = 0; d < cb->nr_dims; d++)
			if (has_distributed(&cb->dims[d]))
				cols += 2;
		t = table_new(r, cols, 0, "distributed.stage", "Codes marked "
			      "distributed, per stage: items of the stage "
			      "with such a code");
		add_text(t, "stage");
		add_text(t, "items");
		for (d = 0; d < cb->nr_dims; d++)
			if (has_distributed(&cb->dims[d])) {
				add_text(t, "%s distributed",
					 cb->dims[d].key);
				add_text(t, "%s share", cb->dims[d].key);
			}
		for (s = 0; s < nslots(sd); s++) {
			if (!ts->stage_items[s])
				continue;
			add_text(t, "%s", slot_name(sd, s));
			add_int(t, ts->stage_items[s]);
			for (d = 0; d < cb->nr_dims; d++) {
				long n = ts->stage_dist[s * cb->nr_dims + d];

				if (!has_distributed(&cb->dims[d]))
					continue;
				add_int(t, n);
				add_pct(t, (double)n,
					(double)ts->stage_items[s]);
			}
		}
	}
}

/* The cross tables of one code of --by (b), or of every item. */
static void cross_tables(struct report *r, const struct tallies *ts,
			 size_t b)
{
	const struct codebook *cb = ts->cb;
	const struct dimension *dx = &cb->dims[ts->cx];
	const struct dimension *dy = &cb->dims[ts->cy];
	const struct dimension *db = ts->cb3 >= 0 ? &cb->dims[ts->cb3] : NULL;
	size_t kx = nslots(dx), ky = nslots(dy), i, j, v;
	const long *m = ts->cross + b * kx * ky;
	long *rows = xcalloc(kx, sizeof(long));
	long *cols = xcalloc(ky, sizeof(long));
	struct buf id = BUF_INIT, title = BUF_INIT, where = BUF_INIT;
	static const char *const kinds[] = { "counts", "row_share",
					     "col_share" };
	static const char *const what[] = {
		"items per pair of codes",
		"share of the row's pairs",
		"share of the column's pairs",
	};
	long total = 0;

	for (i = 0; i < kx; i++)
		for (j = 0; j < ky; j++) {
			rows[i] += m[i * ky + j];
			cols[j] += m[i * ky + j];
			total += m[i * ky + j];
		}
	if (db && !total)
		goto out;
	if (db)
		buf_addf(&where, " where %s = %s", db->key, slot_name(db, b));
	for (v = 0; v < 3; v++) {
		struct table *t;
		size_t nused = 0;

		for (j = 0; j < ky; j++)
			nused += cols[j] > 0;
		buf_reset(&id);
		buf_reset(&title);
		buf_addstr(&id, "cross");
		if (db)
			buf_addf(&id, ".%s", slot_name(db, b));
		buf_addf(&id, ".%s", kinds[v]);
		buf_addf(&title, "%s x %s%s (%s)", dx->key, dy->key,
			 where.ptr ? where.ptr : "", what[v]);
		t = table_new(r, nused + 2, 0, id.ptr, title.ptr);
		add_text(t, "%s \\ %s", dx->key, dy->key);
		for (j = 0; j < ky; j++)
			if (cols[j])
				add_text(t, "%s", slot_name(dy, j));
		add_text(t, "total");
		if (!nused) {
			/* no pairs: the table stays, empty ("(none)") */
			for (j = 0; j < t->nr; j++)
				free(t->cell[j].s);
			t->nr = 0;
			free(t->cell);
			t->cell = NULL;
			t->alloc = 0;
			continue;
		}
		for (i = 0; i < kx; i++) {
			if (!rows[i])
				continue;
			add_text(t, "%s", slot_name(dx, i));
			for (j = 0; j < ky; j++) {
				if (!cols[j])
					continue;
				if (v == 0)
					add_int(t, m[i * ky + j]);
				else
					add_pct(t, (double)m[i * ky + j],
						(double)(v == 1 ? rows[i] :
							 cols[j]));
			}
			if (v == 0)
				add_int(t, rows[i]);
			else
				add_pct(t, (double)rows[i], v == 1 ?
					(double)rows[i] : (double)total);
		}
		add_text(t, "total");
		for (j = 0; j < ky; j++) {
			if (!cols[j])
				continue;
			if (v == 0)
				add_int(t, cols[j]);
			else
				add_pct(t, (double)cols[j], v == 2 ?
					(double)cols[j] : (double)total);
		}
		if (v == 0)
			add_int(t, total);
		else
			add_pct(t, (double)total, (double)total);
	}
out:
	buf_release(&id);
	buf_release(&title);
	buf_release(&where);
	free(rows);
	free(cols);
}

static void effort_row(struct table *t, struct tally *x, int size)
{
	add_text(t, "%s", x->name);
	add_int(t, (long long)x->items);
	if (size) {
		add_int(t, (long long)x->small);
		add_int(t, (long long)x->sized);
		add_pct(t, (double)x->small, (double)x->sized);
		add_int(t, (long long)x->hard);
		add_int(t, (long long)x->dated);
		add_pct(t, (double)x->hard, (double)x->dated);
		return;
	}
	add_num(t, quantile(x->days.v, x->days.nr, 0.25));
	add_num(t, quantile(x->days.v, x->days.nr, 0.5));
	add_num(t, quantile(x->days.v, x->days.nr, 0.75));
	add_num(t, quantile(x->comments.v, x->comments.nr, 0.25));
	add_num(t, quantile(x->comments.v, x->comments.nr, 0.5));
	add_num(t, quantile(x->comments.v, x->comments.nr, 0.75));
	add_num(t, quantile(x->lines.v, x->lines.nr, 0.25));
	add_num(t, quantile(x->lines.v, x->lines.nr, 0.5));
	add_num(t, quantile(x->lines.v, x->lines.nr, 0.75));
}

static void effort_tables(struct report *r, struct tallies *ts)
{
	static const char *const q[] = {
		"days open q1", "days open median", "days open q3",
		"comments q1", "comments median", "comments q3",
		"lines changed q1", "lines changed median", "lines changed q3",
	};
	const struct summary_opts *o = ts->o;
	struct buf title = BUF_INIT;
	size_t pass, size, i;

	for (pass = 0; pass < 2; pass++) {
		struct table *t;

		size = !pass;
		buf_reset(&title);
		if (size)
			buf_addf(&title, "Effort: fixes of at most %ld lines "
				 "(of the fixes of known size); hard bugs, "
				 "open more than %g days with at least %ld "
				 "comments (of the items of known days open)",
				 o->small, o->hard_days, o->hard_comments);
		else
			buf_addstr(&title, "Effort: quartiles (R's default, "
				   "type 7)");
		t = table_new(r, size ? 8 : 11, 0, size ? "effort.size" :
			      "effort.quartiles", title.ptr);
		add_text(t, "group");
		add_text(t, "items");
		if (size) {
			add_text(t, "fixes <= %ld lines", o->small);
			add_text(t, "fixes of known size");
			add_text(t, "share");
			add_text(t, "hard");
			add_text(t, "items of known days open");
			add_text(t, "hard share");
		} else {
			for (i = 0; i < 9; i++)
				add_text(t, "%s", q[i]);
		}
		for (i = 0; i < ts->nr; i++)
			if (!i || ts->nr > 2)
				effort_row(t, &ts->v[i], (int)size);
		if (ts->eb >= 0)
			for (i = 0; i < nslots(&ts->cb->dims[ts->eb]); i++)
				if (ts->by_code[i].items)
					effort_row(t, &ts->by_code[i],
						   (int)size);
	}
	buf_release(&title);
}

static int agreement_table(struct report *r, struct store *st,
			   const struct actor *a, const struct codebook *cb,
			   const struct summary_opts *o, struct err *e)
{
	static const char *const cols[] = {
		"dimension", "round", "closed", "codebook_version", "items",
		"coefficient", "kappa", "ci_low", "ci_high", "ci_method",
		"bootstrap_samples", "bootstrap_degenerate", "bootstrap_seed",
		"band", "undefined_reason",
	};
	static const char *const heads[] = {
		"dimension", "round", "closed", "codebook", "items",
		"coefficient", "kappa", "ci low", "ci high", "ci method",
		"resamples", "degenerate", "seed", "band", "note",
	};
	enum { NCOLS = sizeof(cols) / sizeof(cols[0]) };
	struct buf text = BUF_INIT;
	struct csv c = CSV_INIT;
	struct table *t;
	int idx[NCOLS], items_col;
	size_t i, k;
	int ret = -1;

	if (report_agreement_by_round(st, a, cb, NULL, REPORT_CSV, NULL,
				      &text, e) < 0 ||
	    csv_parse(&c, text.ptr, text.len, "agreement", e) < 0)
		goto out;
	t = table_new(r, NCOLS, 0, "agreement", "Agreement per dimension and "
		      "round, the whole study last (kappa with its 95% "
		      "interval: its method, and for a bootstrap the "
		      "resamples, the degenerate ones drawn again and the "
		      "seed; the codebook versions coded under)");
	for (k = 0; k < NCOLS; k++) {
		add_text(t, "%s", heads[k]);
		idx[k] = c.nr ? csv_column(&c.v[0], cols[k]) : -1;
		if (idx[k] < 0) {
			err_set(e, ERR_INPUT, "agreement: no column %s",
				cols[k]);
			goto out;
		}
	}
	items_col = c.nr ? csv_column(&c.v[0], "ci_items") : -1;
	for (i = 1; i < c.nr; i++) {
		const struct csv_record *rec = &c.v[i];

		if (rec->nr < c.v[0].nr)
			continue;
		if (o->round && strcmp(rec->fields[idx[1]], o->round))
			continue;
		for (k = 0; k < NCOLS; k++) {
			const char *f = rec->fields[idx[k]];
			int whole = k == 4 || (k >= 10 && k <= 12);

			if (whole || (k >= 6 && k <= 8)) {
				if (!*f)
					cell_new(t, CELL_NONE, 0)->s =
						xstrdup("-");
				else
					cell_new(t, whole ? CELL_INT :
						 CELL_NUM, strtod(f, NULL))->s =
						xstrdup(f);
			} else if (k == NCOLS - 1 && !*f && items_col >= 0 &&
				   *rec->fields[idx[7]] &&
				   atol(rec->fields[items_col]) <
				   AGREE_SMALL_N) {
				/* the note: why a figure is undefined, or that
				 * an interval rests on few items */
				add_text(t, "only %s item%s, under %d: the "
					 "interval says little",
					 rec->fields[items_col],
					 strcmp(rec->fields[items_col], "1") ?
					 "s" : "", AGREE_SMALL_N);
			} else {
				add_text(t, "%s", f);
			}
		}
	}
	ret = 0;
out:
	csv_release(&c);
	buf_release(&text);
	return ret;
}

/* The selection flow (core/study/design): per repository, every issue seen
 * to every bug agreed. */
static int flow_table(struct report *r, struct store *st,
		      const struct actor *a, const struct codebook *cb,
		      struct err *e)
{
	struct flow f = FLOW_INIT;
	struct table *t;
	size_t i, k;

	if (design_flow(st, a, cb, &f, e) < 0)
		return -1;
	t = table_new(r, 9 + f.nr_reasons, 0, "flow", f.screens ?
		      "Selection flow per repository: issues seen (imported, "
		      "fetched or still to fetch), with a merged fix, "
		      "screened, included, excluded per reason, coded by every "
		      "assigned coder, then agreed without adjudication, "
		      "adjudicated or still open" :
		      "Selection flow per repository: issues seen (imported, "
		      "fetched or still to fetch), with a merged fix, coded by "
		      "every assigned coder, then agreed without adjudication, "
		      "adjudicated or still open (no screening round: "
		      "screening columns are empty)");
	add_text(t, "repository");
	add_text(t, "seen");
	add_text(t, "with merged fix");
	add_text(t, "screened");
	add_text(t, "included");
	for (k = 0; k < f.nr_reasons; k++)
		add_text(t, "excluded: %s", f.reasons[k]);
	add_text(t, "coded");
	add_text(t, "agreed");
	add_text(t, "adjudicated");
	add_text(t, "open");
	for (i = 0; i < f.nr_rows; i++) {
		const struct flow_row *x = &f.rows[i];

		add_text(t, "%s", x->repo ? x->repo : "all");
		add_int(t, x->seen);
		add_int(t, x->with_fix);
		if (x->screened < 0) {
			cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
			cell_new(t, CELL_NONE, 0)->s = xstrdup("-");
		} else {
			add_int(t, x->screened);
			add_int(t, x->included);
		}
		for (k = 0; k < f.nr_reasons; k++)
			add_int(t, x->excluded[k]);
		add_int(t, x->coded);
		add_int(t, x->agreed);
		add_int(t, x->adjudicated);
		add_int(t, x->open);
	}
	flow_release(&f);
	return 0;
}

static void statement(struct buf *s, const struct tallies *ts)
{
	const struct summary_opts *o = ts->o;

	if (o->include_pending)
		buf_addf(s, "Counting every item (--include-pending): %zu "
			 "item%s, %zu of them not agreed yet; a dimension not "
			 "decided yet counts under (pending).", ts->v[0].items,
			 ts->v[0].items == 1 ? "" : "s", ts->pending);
	else
		buf_addf(s, "Counting agreed items only (every dimension "
			 "agreed or adjudicated); %zu item%s not agreed yet "
			 "%s left out (--include-pending counts them).",
			 ts->pending, ts->pending == 1 ? "" : "s",
			 ts->pending == 1 ? "is" : "are");
}

struct summary {
	struct summary_opts o;	/* a copy; ts.o points here */
	struct tallies ts;
	struct report r;
	struct buf head;	/* "20 agreed items; ..." */
	struct buf statement;	/* which items count */
	struct buf scope;	/* the design's scope lines */
};

void summary_free(struct summary *s)
{
	if (!s)
		return;
	report_release(&s->r);
	tallies_release(&s->ts);
	buf_release(&s->head);
	buf_release(&s->statement);
	buf_release(&s->scope);
	free(s);
}

int summary_build(struct store *st, const struct actor *a,
		  const struct codebook *cb, const struct summary_opts *o,
		  struct summary **out, struct err *e)
{
	struct summary *s = xcalloc(1, sizeof(*s));
	struct tallies *ts = &s->ts;
	size_t d, i, g;

	*out = NULL;
	s->o = *o;
	buf_init(&s->head, 0);
	buf_init(&s->statement, 0);
	buf_init(&s->scope, 0);
	ts->cb = cb;
	ts->o = &s->o;
	if (collect(ts, st, a, e) < 0)
		goto fail;
	if (flow_table(&s->r, st, a, cb, e) < 0 ||
	    design_scope(st, o->round, &s->scope, e) < 0)
		goto fail;
	for (d = 0; d < cb->nr_dims; d++)
		shares_table(&s->r, ts, d);
	if (ts->nr > 2)
		for (d = 0; d < cb->nr_dims; d++)
			repo_table(&s->r, ts, d);
	distributed_tables(&s->r, ts);
	if (ts->cx >= 0) {
		if (ts->cb3 >= 0)
			for (i = 0; i < nslots(&cb->dims[ts->cb3]); i++)
				cross_tables(&s->r, ts, i);
		else
			cross_tables(&s->r, ts, 0);
	}
	effort_tables(&s->r, ts);
	if (!o->no_agreement && agreement_table(&s->r, st, a, cb, o, e) < 0)
		goto fail;
	/* the quartiles sorted some of these in place; sort them all */
	for (g = 0; g < ts->nr; g++) {
		struct tally *x = &ts->v[g];

		if (x->days.nr)
			qsort(x->days.v, x->days.nr, sizeof(double),
			      cmp_double);
		if (x->comments.nr)
			qsort(x->comments.v, x->comments.nr, sizeof(double),
			      cmp_double);
		if (x->lines.nr)
			qsort(x->lines.v, x->lines.nr, sizeof(double),
			      cmp_double);
	}

	if (o->include_pending)
		buf_addf(&s->head, "%zu %s counted (%zu not agreed yet)",
			 ts->v[0].items, text_plural((long long)ts->v[0].items,
						     "item", "items"),
			 ts->pending);
	else {
		buf_addf(&s->head, "%zu agreed item%s", ts->v[0].items,
			 ts->v[0].items == 1 ? "" : "s");
		if (ts->pending)
			buf_addf(&s->head, " (%zu more not agreed yet, left "
				 "out)", ts->pending);
	}
	buf_addf(&s->head, "; %zu repositor%s", ts->nr - 1, ts->nr == 2 ?
		 "y" : "ies");
	if (o->round)
		buf_addf(&s->head, "; round %s", o->round);
	buf_addstr(&s->head, "; codebook ");
	add_safe(&s->head, cb->name);
	buf_addch(&s->head, ' ');
	add_safe(&s->head, cb->version);
	buf_addch(&s->head, '.');
	statement(&s->statement, ts);
	*out = s;
	return 0;
fail:
	summary_free(s);
	return -1;
}

static void summary_render(const struct summary *sum, struct buf *out)
{
	const struct summary_opts *o = &sum->o;
	const struct tallies *ts = &sum->ts;
	const struct codebook *cb = ts->cb;
	const struct report *r = &sum->r;
	const struct buf *s = &sum->head, *st_line = &sum->statement;
	size_t i;

	switch (o->format) {
	case SUMMARY_JSON:
		buf_addstr(out, "{\"counting\": ");
		buf_addstr(out, o->include_pending ? "\"all\"" :
			   "\"agreed\"");
		buf_addstr(out, ",\n \"statement\": ");
		json_quote(out, st_line->ptr, st_line->len);
		buf_addstr(out, ",\n \"scope\": [");
		{
			const char *p = sum->scope.ptr, *nl;
			int k = 0;

			for (; (nl = strchr(p, '\n')); p = nl + 1) {
				if (k++)
					buf_addstr(out, ", ");
				json_quote(out, p, (size_t)(nl - p));
			}
		}
		buf_addch(out, ']');
		buf_addf(out, ",\n \"items\": %zu, \"pending\": %zu, "
			 "\"repositories\": %zu,\n \"round\": ",
			 ts->v[0].items, ts->pending, ts->nr - 1);
		if (o->round)
			json_quote(out, o->round, strlen(o->round));
		else
			buf_addstr(out, "null");
		buf_addstr(out, ", \"codebook\": ");
		json_quote(out, cb->name, strlen(cb->name));
		buf_addstr(out, ", \"codebook_version\": ");
		json_quote(out, cb->version, strlen(cb->version));
		buf_addf(out, ",\n \"small\": %ld, \"hard_days\": ", o->small);
		json_num(out, o->hard_days);
		buf_addf(out, ", \"hard_comments\": %ld,\n \"tables\": [",
			 o->hard_comments);
		for (i = 0; i < r->nr; i++)
			render_json(&r->t[i], out, !i);
		buf_addstr(out, "\n]}\n");
		break;
	case SUMMARY_LATEX:
		buf_addstr(out, "% bugcoder report: a fragment for \\input\n"
			   "\\section*{Agreed data}\n");
		tex_cell(out, s->ptr);
		buf_addstr(out, "\n\n");
		tex_cell(out, st_line->ptr);
		buf_addstr(out, "\n\n");
		tex_cell(out, sum->scope.ptr);
		buf_addstr(out, "\n\n");
		for (i = 0; i < r->nr; i++)
			render_latex(&r->t[i], out);
		break;
	case SUMMARY_MARKDOWN:
		buf_addstr(out, "# Agreed data\n\n");
		md_cell(out, s->ptr);
		buf_add(out, "\n\n", 2);
		md_cell(out, st_line->ptr);
		buf_add(out, "\n\n", 2);
		{
			const char *p = sum->scope.ptr, *nl;

			for (; (nl = strchr(p, '\n')); p = nl + 1) {
				struct buf l = BUF_INIT;

				buf_add(&l, p, (size_t)(nl - p));
				md_cell(out, l.ptr);
				buf_add(out, "\n\n", 2);
				buf_release(&l);
			}
		}
		for (i = 0; i < r->nr; i++)
			render_markdown(&r->t[i], out);
		break;
	default:
		buf_addstr(out, s->ptr);
		buf_addch(out, '\n');
		buf_addstr(out, st_line->ptr);
		buf_addch(out, '\n');
		{
			const char *p = sum->scope.ptr, *nl;

			for (; (nl = strchr(p, '\n')); p = nl + 1) {
				struct buf l = BUF_INIT;

				buf_add(&l, p, (size_t)(nl - p));
				add_safe(out, l.ptr);
				buf_addch(out, '\n');
				buf_release(&l);
			}
		}
		buf_addch(out, '\n');
		for (i = 0; i < r->nr; i++)
			render_text(&r->t[i], out);
	}
}

int summary_write(struct store *st, const struct actor *a,
		 const struct codebook *cb, const struct summary_opts *o,
		 struct buf *out, struct err *e)
{
	struct summary *s;

	if (summary_build(st, a, cb, o, &s, e) < 0)
		return -1;
	summary_render(s, out);
	summary_free(s);
	return 0;
}

/* ---- the report as data ------------------------------------------------ */

size_t summary_items(const struct summary *s)
{
	return s->ts.v[0].items;
}

size_t summary_pending(const struct summary *s)
{
	return s->ts.pending;
}

size_t summary_repositories(const struct summary *s)
{
	return s->ts.nr - 1;
}

const char *summary_statement(const struct summary *s)
{
	return s->statement.ptr;
}

size_t summary_nr_tables(const struct summary *s)
{
	return s->r.nr;
}

int summary_table(const struct summary *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->r.nr; i++)
		if (!strcmp(s->r.t[i].id, id))
			return (int)i;
	return -1;
}

const char *summary_table_id(const struct summary *s, size_t t)
{
	return s->r.t[t].id;
}

const char *summary_table_title(const struct summary *s, size_t t)
{
	return s->r.t[t].title;
}

size_t summary_table_cols(const struct summary *s, size_t t)
{
	return shown_cols(&s->r.t[t]);
}

size_t summary_table_rows(const struct summary *s, size_t t)
{
	const struct table *x = &s->r.t[t];

	return x->nr / x->cols > 0 ? x->nr / x->cols - 1 : 0;
}

const char *summary_column(const struct summary *s, size_t t, size_t c)
{
	const struct table *x = &s->r.t[t];

	return x->nr > c ? x->cell[c].s : "";
}

int summary_column_index(const struct summary *s, size_t t,
			 const char *name)
{
	size_t c, n = summary_table_cols(s, t);

	for (c = 0; c < n; c++)
		if (!strcmp(summary_column(s, t, c), name))
			return (int)c;
	return -1;
}

const char *summary_text(const struct summary *s, size_t t, size_t r,
			 size_t c)
{
	const struct table *x = &s->r.t[t];

	return x->cell[(r + 1) * x->cols + c].s;
}

int summary_value(const struct summary *s, size_t t, size_t r, size_t c,
		  double *v)
{
	const struct table *x = &s->r.t[t];
	const struct cell *cl = &x->cell[(r + 1) * x->cols + c];

	if (cl->kind != CELL_INT && cl->kind != CELL_PCT &&
	    cl->kind != CELL_NUM)
		return 0;
	*v = cl->v;
	return 1;
}

size_t summary_nr_groups(const struct summary *s)
{
	return s->ts.nr;
}

const char *summary_group_name(const struct summary *s, size_t g)
{
	return s->ts.v[g].name;
}

const double *summary_values(const struct summary *s, size_t g,
			     enum summary_measure m, size_t *n)
{
	const struct tally *x = &s->ts.v[g];
	const struct nums *v = m == SUMMARY_DAYS_OPEN ? &x->days :
			       m == SUMMARY_COMMENTS ? &x->comments : &x->lines;

	*n = v->nr;
	return v->v;
}
