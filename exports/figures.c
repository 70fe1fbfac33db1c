/* SPDX-License-Identifier: MIT */
/*
 * figures: see figures.h.  This file builds the reports the figures are
 * drawn from (all in one read transaction, so they agree), hands them to
 * the writers of each kind (figure_*.c) and writes the index.
 */
#include "exports/figures.h"

#include <stdlib.h>
#include <string.h>

#include "exports/figure.h"

#ifndef BUGCODER_VERSION
#define BUGCODER_VERSION "unknown"
#endif

void figure_files_release(struct figure_files *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->nr; i++) {
		free(f->v[i].name);
		buf_release(&f->v[i].data);
	}
	free(f->v);
	f->v = NULL;
	f->nr = f->alloc = 0;
}

/* The dimensions of the flow: symptom -> root cause -> fix pattern as
 * far as the codebook has them (two at least), else its first three. */
static size_t flow_dims(const struct codebook *cb, const char *dims[3])
{
	static const char *const want[] = {
		"symptom", "root_cause", "fix_pattern",
	};
	size_t i, n = 0;

	for (i = 0; i < 3; i++)
		if (codebook_dim(cb, want[i]))
			dims[n++] = want[i];
	if (n >= 2)
		return n;
	for (n = 0; n < 3 && n < cb->nr_dims; n++)
		dims[n] = cb->dims[n].key;
	return n;
}

/* The flow figures: one over every item, and with --by one per code;
 * each from the cross tables of its two pairs of dimensions. */
static int flows(const struct fig_ctx *x, struct store *st,
		 const struct actor *a, struct err *e)
{
	const char *dims[3] = { NULL, NULL, NULL };
	size_t n = flow_dims(x->cb, dims), pass;
	int ret = 0;

	if (n < 2)
		return 0;
	for (pass = 0; pass < 2 && !ret; pass++) {
		struct summary *s1 = NULL, *s2 = NULL;
		struct summary_opts ro = x->o->report;

		if (pass == 1 && !ro.by)
			break;
		if (pass == 0)
			ro.by = NULL;
		ro.format = SUMMARY_JSON;
		ro.unicode = 0;
		ro.no_agreement = 1;
		ro.cross[0] = dims[0];
		ro.cross[1] = dims[1];
		if (summary_build(st, a, x->cb, &ro, &s1, e) < 0)
			return -1;
		if (n == 3) {
			ro.cross[0] = dims[1];
			ro.cross[1] = dims[2];
			if (summary_build(st, a, x->cb, &ro, &s2, e) < 0) {
				summary_free(s1);
				return -1;
			}
		}
		ret = figure_flow(x, s1, s2, dims, ro.by, e);
		summary_free(s1);
		summary_free(s2);
	}
	return ret;
}

static void index_head(cJSON *root, const struct fig_ctx *x)
{
	const struct summary_opts *r = &x->o->report;
	const struct summary *s = x->main;
	char *cmd = fig_report_command(x->o, NULL, NULL);

	cJSON_AddStringToObject(root, "generator", "bugcoder "
				BUGCODER_VERSION);
	cJSON_AddStringToObject(root, "format", figure_ext(x->o->format));
	cJSON_AddStringToObject(root, "counting", r->include_pending ? "all" :
				"agreed");
	cJSON_AddStringToObject(root, "statement", summary_statement(s));
	cJSON_AddNumberToObject(root, "items", (double)summary_items(s));
	cJSON_AddNumberToObject(root, "pending", (double)summary_pending(s));
	cJSON_AddNumberToObject(root, "repositories",
				(double)summary_repositories(s));
	if (r->round)
		cJSON_AddStringToObject(root, "round", r->round);
	else
		cJSON_AddNullToObject(root, "round");
	cJSON_AddStringToObject(root, "codebook", x->cb->name);
	cJSON_AddStringToObject(root, "codebook_version", x->cb->version);
	cJSON_AddStringToObject(root, "report", cmd);
	cJSON_AddNumberToObject(root, "width_cm", 8.5);
	free(cmd);
}

int figures_build(struct store *st, const struct actor *a,
		  const struct codebook *cb, const struct figures_opts *o,
		  struct figure_files *out, struct err *e)
{
	struct summary_opts ro = o->report;
	struct summary *main = NULL;
	struct fig_ctx x;
	struct canvas probe;
	cairo_surface_t *ps;
	cJSON *root = NULL;
	char *json;
	struct buf b = BUF_INIT;
	int ret = -1, in_savepoint = 0;

	if (cairo_lazy_load(e) < 0)
		return -1;
	memset(&x, 0, sizeof(x));
	memset(&probe, 0, sizeof(probe));
	ps = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	probe.cr = cairo_create(ps);
	fig_canvas_init(probe.cr);
	probe.measuring = 1;
	probe.w = FIG_WIDTH;
	/* every report from one snapshot */
	if (store_read_begin(st, e) < 0)
		goto out;
	in_savepoint = 1;
	ro.format = SUMMARY_JSON;
	ro.unicode = 0;
	ro.no_agreement = 0;
	if (summary_build(st, a, cb, &ro, &main, e) < 0)
		goto out;
	root = cJSON_CreateObject();
	x.cb = cb;
	x.o = o;
	x.main = main;
	x.files = out;
	x.probe = &probe;
	index_head(root, &x);
	x.list = cJSON_AddArrayToObject(root, "figures");
	if (figure_shares(&x, e) < 0 ||
	    flows(&x, st, a, e) < 0 ||
	    figure_cross(&x, e) < 0 ||
	    figure_effort(&x, e) < 0 ||
	    figure_agreement(&x, st, e) < 0)
		goto out;
	json = cJSON_Print(root);
	buf_addstr(&b, json);
	buf_addch(&b, '\n');
	cJSON_free(json);
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].name = xstrdup("figures.json");
	out->v[out->nr++].data = b;
	buf_init(&b, 0);
	ret = 0;
out:
	if (in_savepoint)
		store_read_end(st);
	cJSON_Delete(root);
	summary_free(main);
	cairo_destroy(probe.cr);
	cairo_surface_destroy(ps);
#ifdef BUGCODER_SAN
	cairo_lazy_drop_caches();
#endif
	buf_release(&b);
	return ret;
}
