/*
 * summary: see summary.h.
 *
 * One agreed pass fills a tally for all items and one per repository;
 * the tables are then laid out from the tallies.  Tables are built as
 * rows of owned strings and rendered either as aligned text (widths in
 * columns, core/text) or as Markdown.
 */
#include "exports/summary.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/agreed.h"

#define BAR_WIDTH 30		/* columns of the longest bar */

/* ---- tallies --------------------------------------------------------- */

struct tally {
	char *repo;		/* NULL for all repositories */
	size_t items;
	long **counts;		/* per dimension: nr_codes + 2 slots,
				   [nr_codes] "(none)", [nr_codes + 1] codes
				   not in the codebook */
	double *days, *comments;
	size_t nr_days, alloc_days, nr_comments, alloc_comments;
	size_t small, sized;	/* fixes <= 10 lines; fixes of known size */
};

struct tallies {
	const struct codebook *cb;
	struct tally *v;	/* v[0] is every repository */
	size_t nr, alloc;
	size_t pending;		/* items seen but not agreed */
	int cx, cy;		/* the cross table's dimensions, -1 if none */
	long *cross;		/* (kx + 2) x (ky + 2) counts */
	size_t last;		/* the tally found last */
};

static void tally_init(struct tally *t, const struct codebook *cb,
		       const char *repo)
{
	size_t d;

	memset(t, 0, sizeof(*t));
	t->repo = repo ? xstrdup(repo) : NULL;
	t->counts = xcalloc(cb->nr_dims + 1, sizeof(*t->counts));
	for (d = 0; d < cb->nr_dims; d++)
		t->counts[d] = xcalloc(cb->dims[d].nr_codes + 2, sizeof(long));
}

static void tally_release(struct tally *t, const struct codebook *cb)
{
	size_t d;

	for (d = 0; d < cb->nr_dims; d++)
		free(t->counts[d]);
	free(t->counts);
	free(t->repo);
	free(t->days);
	free(t->comments);
}

static struct tally *repo_tally(struct tallies *ts, const char *repo)
{
	size_t i;

	if (ts->last && ts->last < ts->nr &&
	    !strcmp(ts->v[ts->last].repo, repo))
		return &ts->v[ts->last];
	for (i = 1; i < ts->nr; i++)
		if (!strcmp(ts->v[i].repo, repo))
			return &ts->v[ts->last = i];
	ALLOC_GROW(ts->v, ts->nr + 1, ts->alloc);
	tally_init(&ts->v[ts->nr], ts->cb, repo);
	ts->last = ts->nr;
	return &ts->v[ts->nr++];
}

/* The code slots of one agreed dimension, into idx[] (at most `max`). */
static size_t code_slots(const struct dimension *dim, const char *final,
			 int *idx, size_t max)
{
	const char *p = final, *q;
	char key[128];
	size_t n = 0;

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

static void count_item(struct tallies *ts, const struct agreed_item *it)
{
	const struct codebook *cb = ts->cb;
	struct tally *t[2];
	int xs[64], ys[64];
	size_t nx = 0, ny = 0, d, i, j, k;

	/* repo_tally() may grow ts->v: take v[0] only after it */
	t[1] = repo_tally(ts, it->repo ? it->repo : "");
	t[0] = &ts->v[0];
	for (d = 0; d < cb->nr_dims; d++) {
		int idx[64];
		size_t n = code_slots(&cb->dims[d], it->dims[d].final.ptr, idx,
				      64);

		for (k = 0; k < 2; k++)
			for (i = 0; i < n; i++)
				t[k]->counts[d][idx[i]]++;
		if ((int)d == ts->cx) {
			memcpy(xs, idx, n * sizeof(int));
			nx = n;
		}
		if ((int)d == ts->cy) {
			memcpy(ys, idx, n * sizeof(int));
			ny = n;
		}
	}
	if (ts->cx >= 0) {
		size_t ky = cb->dims[ts->cy].nr_codes + 2;

		for (i = 0; i < nx; i++)
			for (j = 0; j < ny; j++)
				ts->cross[(size_t)xs[i] * ky + (size_t)ys[j]]++;
	}
	for (k = 0; k < 2; k++) {
		struct tally *x = t[k];

		x->items++;
		if (it->days_open >= 0) {
			ALLOC_GROW(x->days, x->nr_days + 1, x->alloc_days);
			x->days[x->nr_days++] = it->days_open;
		}
		ALLOC_GROW(x->comments, x->nr_comments + 1, x->alloc_comments);
		x->comments[x->nr_comments++] = (double)it->comments;
		if (it->lines_changed >= 0) {
			x->sized++;
			x->small += it->small_fix > 0;
		}
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorted here); -1 when n == 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmp_tally(const void *a, const void *b)
{
	return strcmp(((const struct tally *)a)->repo,
		      ((const struct tally *)b)->repo);
}

static int find_dim(const struct codebook *cb, const char *key)
{
	size_t i;

	for (i = 0; i < cb->nr_dims; i++)
		if (!strcmp(cb->dims[i].key, key))
			return (int)i;
	return -1;
}

static int collect(struct tallies *ts, struct store *st,
		   const struct actor *a, const struct summary_opts *o,
		   struct err *e)
{
	const struct codebook *cb = ts->cb;
	struct agreed_iter it;
	int rc;

	ts->cx = ts->cy = -1;
	if (o->cross[0] || o->cross[1]) {
		if (!o->cross[0] || !o->cross[1])
			return err_set(e, ERR_INPUT, "--cross takes two "
				       "dimensions, DIM1,DIM2");
		ts->cx = find_dim(cb, o->cross[0]);
		ts->cy = find_dim(cb, o->cross[1]);
		if (ts->cx < 0 || ts->cy < 0)
			return err_set(e, ERR_INPUT, "--cross: %s is not a "
				       "dimension of codebook %s", ts->cx < 0 ?
				       o->cross[0] : o->cross[1], cb->name);
	} else if (cb->nr_dims >= 2) {
		ts->cx = 0;
		ts->cy = 1;
	}
	if (ts->cx >= 0)
		ts->cross = xcalloc((cb->dims[ts->cx].nr_codes + 2) *
				    (cb->dims[ts->cy].nr_codes + 2),
				    sizeof(long));
	ALLOC_GROW(ts->v, 1, ts->alloc);
	tally_init(&ts->v[0], cb, NULL);
	ts->nr = 1;
	if (agreed_open(&it, st, a, cb, o->round, e) < 0) {
		agreed_close(&it);
		return -1;
	}
	while ((rc = agreed_next(&it, e)) > 0) {
		if (!it.item.complete) {
			ts->pending++;
			continue;
		}
		count_item(ts, &it.item);
	}
	agreed_close(&it);
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
	free(ts->v);
	free(ts->cross);
}

/* ---- tables ---------------------------------------------------------- */

struct table {
	size_t cols;
	char **cell;		/* row-major, owned; row 0 is the header */
	size_t nr, alloc;
	unsigned right;		/* bit i: column i is right-aligned; bit 31
				   stands for every column from 31 on */
	int bar;		/* text only: the last column holds bars */
};

static void table_init(struct table *t, size_t cols, unsigned right, int bar)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
	t->right = right;
	t->bar = bar;
}

static void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		free(t->cell[i]);
	free(t->cell);
}

static int right(const struct table *t, size_t c)
{
	return (t->right >> (c < 31 ? c : 31)) & 1;
}

static void table_add(struct table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void table_add(struct table *t, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	ALLOC_GROW(t->cell, t->nr + 1, t->alloc);
	t->cell[t->nr++] = buf_detach(&b, NULL);
}

/* Codebook text as one safe line, in both forms: a Markdown report may
 * be read on a terminal too. */
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

static void table_render(const struct table *t, enum summary_format fmt,
			 struct buf *out)
{
	size_t rows = t->nr / t->cols, r, c;
	size_t shown = t->bar && fmt == SUMMARY_MARKDOWN ? t->cols - 1 :
		       t->cols;
	int *w = xcalloc(t->cols + 1, sizeof(int));

	if (fmt == SUMMARY_MARKDOWN) {
		for (r = 0; r < rows; r++) {
			buf_addch(out, '|');
			for (c = 0; c < shown; c++) {
				buf_addch(out, ' ');
				md_cell(out, t->cell[r * t->cols + c]);
				buf_add(out, " |", 2);
			}
			buf_addch(out, '\n');
			if (r)
				continue;
			buf_addch(out, '|');
			for (c = 0; c < shown; c++)
				buf_addstr(out, right(t, c) ? "---:|" :
					   "---|");
			buf_addch(out, '\n');
		}
		buf_addch(out, '\n');
		free(w);
		return;
	}
	for (r = 0; r < rows; r++)
		for (c = 0; c < t->cols; c++) {
			const char *s = t->cell[r * t->cols + c];
			int n = text_width(s, strlen(s));

			if (n > w[c])
				w[c] = n;
		}
	for (r = 0; r < rows; r++) {
		size_t start = out->len;

		buf_addstr(out, "  ");
		for (c = 0; c < t->cols; c++) {
			const char *s = t->cell[r * t->cols + c];
			int pad = w[c] - text_width(s, strlen(s));

			if (c)
				buf_add(out, "  ", 2);
			if (right(t, c))
				buf_addf(out, "%*s", pad, "");
			buf_addstr(out, s);
			if (!(right(t, c)) && c + 1 < t->cols)
				buf_addf(out, "%*s", pad, "");
		}
		while (out->len > start && out->ptr[out->len - 1] == ' ')
			buf_setlen(out, out->len - 1);
		buf_addch(out, '\n');
	}
	buf_addch(out, '\n');
	free(w);
}

/* A bar of share/max of BAR_WIDTH columns. */
static char *bar(double share, double max, int unicode)
{
	static const char *const eighths[] = {
		"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b",
		"\u258a", "\u2589"
	};
	struct buf b = BUF_INIT;
	long units, i;

	if (max <= 0 || share <= 0)
		return buf_detach(&b, NULL);
	if (unicode) {
		units = (long)(share / max * BAR_WIDTH * 8 + 0.5);
		if (!units)
			units = 1;
		for (i = 0; i < units / 8; i++)
			buf_addstr(&b, "\u2588");
		buf_addstr(&b, eighths[units % 8]);
	} else {
		units = (long)(share / max * BAR_WIDTH + 0.5);
		if (!units)
			units = 1;
		for (i = 0; i < units; i++)
			buf_addch(&b, '#');
	}
	return buf_detach(&b, NULL);
}

static void pct(struct buf *b, long n, size_t of)
{
	if (of)
		buf_addf(b, "%.1f%%", 100.0 * (double)n / (double)of);
	else
		buf_addstr(b, "-");
}

static void heading(struct buf *out, enum summary_format fmt, int level,
		    const char *text)
{
	if (fmt == SUMMARY_MARKDOWN) {
		buf_addf(out, "%.*s ", level, "####");
		md_cell(out, text);
		buf_add(out, "\n\n", 2);
	} else {
		buf_addstr(out, text);
		buf_addch(out, '\n');
	}
}

/* The name of code slot `i` of a dimension. */
static const char *slot_name(const struct dimension *dim, size_t i)
{
	if (i < dim->nr_codes)
		return dim->codes[i].key;
	return i == dim->nr_codes ? "(none)" : "(not in codebook)";
}

/* Is slot i worth a row: a code of the codebook, or a used extra slot? */
static int slot_shown(const struct dimension *dim, const long *counts,
		      size_t i)
{
	return i < dim->nr_codes || counts[i] > 0;
}

static void dim_title(struct buf *t, const struct dimension *dim)
{
	buf_addstr(t, dim->key);
	if (dim->name && strcmp(dim->name, dim->key)) {
		buf_addstr(t, ": ");
		add_safe(t, dim->name);
	}
	buf_addstr(t, dim->select_many ? " (select many: an item counts under "
		   "each of its codes)" : " (one code per item)");
}

static void dim_section(struct buf *out, const struct tallies *ts, size_t d,
			const struct summary_opts *o)
{
	const struct dimension *dim = &ts->cb->dims[d];
	const struct tally *all = &ts->v[0];
	const long *cnt = all->counts[d];
	struct buf title = BUF_INIT, s = BUF_INIT;
	struct table t;
	long max = 0;
	size_t i;

	dim_title(&title, dim);
	heading(out, o->format, 2, title.ptr);
	table_init(&t, 4, 0x6, 1);
	table_add(&t, "code");
	table_add(&t, "items");
	table_add(&t, "share");
	table_add(&t, "%s", "");
	for (i = 0; i < dim->nr_codes + 2; i++)
		if (cnt[i] > max)
			max = cnt[i];
	for (i = 0; i < dim->nr_codes + 2; i++) {
		if (!slot_shown(dim, cnt, i))
			continue;
		buf_reset(&s);
		pct(&s, cnt[i], all->items);
		table_add(&t, "%s", slot_name(dim, i));
		table_add(&t, "%ld", cnt[i]);
		table_add(&t, "%s", s.ptr);
		ALLOC_GROW(t.cell, t.nr + 1, t.alloc);
		t.cell[t.nr++] = bar((double)cnt[i], (double)max, o->unicode);
	}
	table_add(&t, "total");
	table_add(&t, "%zu", all->items);
	table_add(&t, "%s", "");
	table_add(&t, "%s", "");
	table_render(&t, o->format, out);
	table_release(&t);
	buf_release(&title);
	buf_release(&s);
}

static void cross_section(struct buf *out, const struct tallies *ts,
			  const struct summary_opts *o)
{
	const struct dimension *dx = &ts->cb->dims[ts->cx];
	const struct dimension *dy = &ts->cb->dims[ts->cy];
	size_t kx = dx->nr_codes + 2, ky = dy->nr_codes + 2, i, j;
	long *rows = xcalloc(kx, sizeof(long)), *cols = xcalloc(ky,
								 sizeof(long));
	size_t *used = xcalloc(ky, sizeof(size_t)), nused = 0, width = 0;
	struct buf title = BUF_INIT;
	struct table t;
	int legend;

	for (i = 0; i < kx; i++)
		for (j = 0; j < ky; j++) {
			rows[i] += ts->cross[i * ky + j];
			cols[j] += ts->cross[i * ky + j];
		}
	for (j = 0; j < ky; j++)
		if (cols[j]) {
			used[nused++] = j;
			width += strlen(slot_name(dy, j)) + 2;
		}
	/* wide tables get numbered columns and a legend in text form */
	legend = o->format == SUMMARY_TEXT && width > 90;
	buf_addf(&title, "%s x %s (items per pair of codes)", dx->key,
		 dy->key);
	heading(out, o->format, 2, title.ptr);
	table_init(&t, nused + 2, ~1u, 0);
	table_add(&t, "%s \\ %s", dx->key, dy->key);
	for (j = 0; j < nused; j++) {
		if (legend)
			table_add(&t, "%zu", j + 1);
		else
			table_add(&t, "%s", slot_name(dy, used[j]));
	}
	table_add(&t, "total");
	for (i = 0; i < kx; i++) {
		if (!rows[i])
			continue;
		table_add(&t, "%s", slot_name(dx, i));
		for (j = 0; j < nused; j++)
			table_add(&t, "%ld", ts->cross[i * ky + used[j]]);
		table_add(&t, "%ld", rows[i]);
	}
	table_add(&t, "total");
	for (j = 0; j < nused; j++)
		table_add(&t, "%ld", cols[used[j]]);
	table_add(&t, "%s", "");
	if (nused)
		table_render(&t, o->format, out);
	else
		buf_addstr(out, o->format == SUMMARY_TEXT ? "  (no items)\n\n" :
			   "(no items)\n\n");
	if (legend && nused) {
		for (j = 0; j < nused; j++)
			buf_addf(out, "%s%zu = %s", j ? ", " : "  ", j + 1,
				 slot_name(dy, used[j]));
		buf_add(out, "\n\n", 2);
	}
	table_release(&t);
	buf_release(&title);
	free(rows);
	free(cols);
	free(used);
}

static void add_median(struct table *t, double m, int decimals)
{
	if (m < 0)
		table_add(t, "-");
	else if (decimals)
		table_add(t, "%.2f", m);
	else if (m == (double)(long long)m)
		table_add(t, "%lld", (long long)m);
	else
		table_add(t, "%.1f", m);
}

static void effort_section(struct buf *out, struct tallies *ts,
			   const struct summary_opts *o)
{
	struct buf s = BUF_INIT;
	struct table t;
	size_t i;

	heading(out, o->format, 2, "Effort");
	table_init(&t, 6, 0x3e, 0);
	table_add(&t, "repository");
	table_add(&t, "items");
	table_add(&t, "fixes <= 10 lines");
	table_add(&t, "share");
	table_add(&t, "median days open");
	table_add(&t, "median comments");
	for (i = 0; i < ts->nr; i++) {
		struct tally *x = &ts->v[i];

		buf_reset(&s);
		pct(&s, (long)x->small, x->sized);
		table_add(&t, "%s", x->repo ? x->repo : "all");
		table_add(&t, "%zu", x->items);
		table_add(&t, "%zu of %zu", x->small, x->sized);
		table_add(&t, "%s", s.ptr);
		add_median(&t, median(x->days, x->nr_days), 1);
		add_median(&t, median(x->comments, x->nr_comments), 0);
	}
	table_render(&t, o->format, out);
	table_release(&t);
	buf_release(&s);
}

static void repo_section(struct buf *out, const struct tallies *ts,
			 const struct summary_opts *o)
{
	struct buf s = BUF_INIT;
	size_t d, i, r;

	heading(out, o->format, 2, "By repository: items (share) per code");
	for (d = 0; d < ts->cb->nr_dims; d++) {
		const struct dimension *dim = &ts->cb->dims[d];
		struct table t;

		table_init(&t, ts->nr + 1, ~1u, 0);
		table_add(&t, "%s", dim->key);
		for (r = 0; r < ts->nr; r++)
			table_add(&t, "%s", ts->v[r].repo ? ts->v[r].repo :
				  "all");
		for (i = 0; i < dim->nr_codes + 2; i++) {
			if (!slot_shown(dim, ts->v[0].counts[d], i))
				continue;
			table_add(&t, "%s", slot_name(dim, i));
			for (r = 0; r < ts->nr; r++) {
				const struct tally *x = &ts->v[r];

				buf_reset(&s);
				buf_addf(&s, "%ld (", x->counts[d][i]);
				pct(&s, x->counts[d][i], x->items);
				buf_addch(&s, ')');
				table_add(&t, "%s", s.ptr);
			}
		}
		table_render(&t, o->format, out);
		table_release(&t);
	}
	buf_release(&s);
}

int summary_write(struct store *st, const struct actor *a,
		 const struct codebook *cb, const struct summary_opts *o,
		 struct buf *out, struct err *e)
{
	struct tallies ts;
	struct buf s = BUF_INIT;
	size_t d;
	int ret = -1;

	memset(&ts, 0, sizeof(ts));
	ts.cb = cb;
	if (collect(&ts, st, a, o, e) < 0)
		goto out;
	if (o->format == SUMMARY_MARKDOWN)
		buf_addstr(out, "# Agreed data\n\n");
	buf_addf(&s, "%zu agreed item%s", ts.v[0].items,
		 ts.v[0].items == 1 ? "" : "s");
	if (ts.pending)
		buf_addf(&s, " (%zu more not agreed yet, left out)",
			 ts.pending);
	buf_addf(&s, "; %zu repositor%s", ts.nr - 1, ts.nr == 2 ? "y" :
		 "ies");
	if (o->round)
		buf_addf(&s, "; round %s", o->round);
	buf_addstr(&s, "; codebook ");
	add_safe(&s, cb->name);
	buf_addch(&s, ' ');
	add_safe(&s, cb->version);
	buf_addch(&s, '.');
	buf_addstr(out, s.ptr);
	buf_add(out, "\n\n", 2);
	for (d = 0; d < cb->nr_dims; d++)
		dim_section(out, &ts, d, o);
	if (ts.cx >= 0)
		cross_section(out, &ts, o);
	effort_section(out, &ts, o);
	if (ts.nr > 2)
		repo_section(out, &ts, o);
	ret = 0;
out:
	tallies_release(&ts);
	buf_release(&s);
	return ret;
}
