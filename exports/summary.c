/* SPDX-License-Identifier: MIT */
/*
 * summary: see summary.h.
 *
 * One agreed pass fills a tally for all items, one per repository and
 * one per code of --effort-by, plus the cross tables; the report is then
 * laid out as a list of tables of typed cells (text, count, percentage,
 * number, undefined) that each form renders: the numbers are decided
 * once, so every form shows the same ones.  The parts: summary_tally.c
 * (the pass), summary_tables.c (the tables), summary_table.c (a table
 * and its forms), sharing summary_int.h.
 */
#include "exports/summary.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "core/study/design.h"
#include "exports/json_out.h"
#include "exports/summary_int.h"
#include "exports/tex.h"

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
	sum_report_release(&s->r);
	sum_tallies_release(&s->ts);
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
	if (sum_collect(ts, st, a, e) < 0)
		goto fail;
	if (sum_flow_table(&s->r, st, a, cb, e) < 0 ||
	    design_scope(st, o->round, &s->scope, e) < 0)
		goto fail;
	for (d = 0; d < cb->nr_dims; d++)
		sum_shares_table(&s->r, ts, d);
	if (ts->nr > 2)
		for (d = 0; d < cb->nr_dims; d++)
			sum_repo_table(&s->r, ts, d);
	sum_distributed_tables(&s->r, ts);
	if (ts->cx >= 0) {
		if (ts->cb3 >= 0)
			for (i = 0; i < nslots(&cb->dims[ts->cb3]); i++)
				sum_cross_tables(&s->r, ts, i);
		else
			sum_cross_tables(&s->r, ts, 0);
	}
	sum_effort_tables(&s->r, ts);
	if (!o->no_agreement && sum_agreement_table(&s->r, st, a, cb, o, e) < 0)
		goto fail;
	/* the quartiles sorted some of these in place; sort them all */
	for (g = 0; g < ts->nr; g++) {
		struct tally *x = &ts->v[g];

		if (x->days.nr)
			qsort(x->days.v, x->days.nr, sizeof(double),
			      sum_cmp_double);
		if (x->comments.nr)
			qsort(x->comments.v, x->comments.nr, sizeof(double),
			      sum_cmp_double);
		if (x->lines.nr)
			qsort(x->lines.v, x->lines.nr, sizeof(double),
			      sum_cmp_double);
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
	sum_add_safe(&s->head, cb->name);
	buf_addch(&s->head, ' ');
	sum_add_safe(&s->head, cb->version);
	buf_addch(&s->head, '.');
	statement(&s->statement, ts);
	*out = s;
	return 0;
fail:
	summary_free(s);
	return -1;
}

/* The report as one JSON object: its counting, scope and options, then
 * the tables. */
static void render_json(const struct summary *sum, struct buf *out)
{
	const struct summary_opts *o = &sum->o;
	const struct tallies *ts = &sum->ts;
	const struct codebook *cb = ts->cb;
	const struct report *r = &sum->r;
	const struct buf *st_line = &sum->statement;
	size_t i;

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
	sum_json_num(out, o->hard_days);
	buf_addf(out, ", \"hard_comments\": %ld,\n \"tables\": [",
		 o->hard_comments);
	for (i = 0; i < r->nr; i++)
		sum_render_json(&r->t[i], out, !i);
	buf_addstr(out, "\n]}\n");
}

/* The report as a LaTeX fragment for \input. */
static void render_latex(const struct summary *sum, struct buf *out)
{
	const struct report *r = &sum->r;
	const struct buf *s = &sum->head, *st_line = &sum->statement;
	size_t i;

	buf_addstr(out, "% bugcoder report: a fragment for \\input\n"
		   "\\section*{Agreed data}\n");
	tex_escape(out, s->ptr);
	buf_addstr(out, "\n\n");
	tex_escape(out, st_line->ptr);
	buf_addstr(out, "\n\n");
	tex_escape(out, sum->scope.ptr);
	buf_addstr(out, "\n\n");
	for (i = 0; i < r->nr; i++)
		sum_render_latex(&r->t[i], out);
}

/* The report as Markdown. */
static void render_markdown(const struct summary *sum, struct buf *out)
{
	const struct report *r = &sum->r;
	const struct buf *s = &sum->head, *st_line = &sum->statement;
	size_t i;

	buf_addstr(out, "# Agreed data\n\n");
	sum_md_cell(out, s->ptr);
	buf_add(out, "\n\n", 2);
	sum_md_cell(out, st_line->ptr);
	buf_add(out, "\n\n", 2);
	{
		const char *p = sum->scope.ptr, *nl;

		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			struct buf l = BUF_INIT;

			buf_add(&l, p, (size_t)(nl - p));
			sum_md_cell(out, l.ptr);
			buf_add(out, "\n\n", 2);
			buf_release(&l);
		}
	}
	for (i = 0; i < r->nr; i++)
		sum_render_markdown(&r->t[i], out);
}

/* The report as text. */
static void render_text(const struct summary *sum, struct buf *out)
{
	const struct report *r = &sum->r;
	const struct buf *s = &sum->head, *st_line = &sum->statement;
	size_t i;

	buf_addstr(out, s->ptr);
	buf_addch(out, '\n');
	buf_addstr(out, st_line->ptr);
	buf_addch(out, '\n');
	{
		const char *p = sum->scope.ptr, *nl;

		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			struct buf l = BUF_INIT;

			buf_add(&l, p, (size_t)(nl - p));
			sum_add_safe(out, l.ptr);
			buf_addch(out, '\n');
			buf_release(&l);
		}
	}
	buf_addch(out, '\n');
	for (i = 0; i < r->nr; i++)
		sum_render_text(&r->t[i], out);
}

static void summary_render(const struct summary *sum, struct buf *out)
{
	switch (sum->o.format) {
	case SUMMARY_JSON:
		render_json(sum, out);
		break;
	case SUMMARY_LATEX:
		render_latex(sum, out);
		break;
	case SUMMARY_MARKDOWN:
		render_markdown(sum, out);
		break;
	default:
		render_text(sum, out);
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
	return sum_shown_cols(&s->r.t[t]);
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
