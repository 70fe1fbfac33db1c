/* SPDX-License-Identifier: MIT */
/*
 * figure_flow: symptom -> root cause -> fix pattern as a Sankey diagram
 * (flow, and with --by one flow-BY-CODE per code), from the cross tables
 * `report --cross symptom,root_cause` and `--cross root_cause,fix_pattern`
 * print (with the same --by): a ribbon is the count of one pair, its
 * width that count times one scale for the whole figure.
 *
 * A node is a code of its column, as tall as its items (the cross table's
 * total); a middle node whose two tables differ (an item with several
 * fix patterns counts in each pair) is as tall as the larger side.
 * Small flows are gathered: the codes of a column holding less than
 * OTHER_SHARE of the column's items (and, past MAX_NODES codes, the
 * smallest ones) go into one "other" node, when two or more would; the
 * caption states the rule and figures.json lists the members.
 * Every node has at least one label's height, so labels cannot overlap.
 */
#include "exports/figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OTHER_SHARE 0.05
#define MAX_NODES 8
#define NODE_W 5.0
#define SLOT_MIN 8.5		/* a node's row: one label */
#define GAP 2.5
#define TARGET_H 150.0		/* the tallest column, before minimums */
#define MAX_SCALE 10.0		/* points per item at most */

struct node {
	const char *key;	/* borrowed; NULL for "other" */
	double in, out;		/* items through its left and right side */
	double y, h;		/* placed */
	double in_used, out_used;	/* ribbons stacked so far */
	size_t nr_members;	/* "other": codes gathered */
	char *label;		/* drawn, owned */
};

struct axis {
	const struct dimension *dim;
	struct node *v;
	size_t nr;
	size_t *map;		/* table slot -> node */
	size_t nr_slots;
	double total;
};

struct link {
	size_t a, from, to;	/* between axis a and a + 1 */
	double n;
};

struct flow {
	const struct fig_ctx *x;
	struct axis ax[3];
	size_t nax;
	struct link *l;
	size_t nr_links, alloc_links;
	double scale;
	struct figure *f;
};

static double node_count(const struct node *n)
{
	return n->in > n->out ? n->in : n->out;
}

/* Register the codes of one axis seen in a table's rows (side 0) or
 * columns (side 1); returns the slot index of each in *idx. */
static size_t slot_of(struct axis *ax, const char *key)
{
	size_t i;

	for (i = 0; i < ax->nr_slots; i++)
		if (!strcmp(ax->v[i].key, key))
			return i;
	ax->v = xrealloc(ax->v, (ax->nr_slots + 2) * sizeof(*ax->v));
	memset(&ax->v[ax->nr_slots], 0, sizeof(*ax->v));
	ax->v[ax->nr_slots].key = key;
	return ax->nr_slots++;
}

static void add_link(struct flow *fl, size_t a, size_t from, size_t to,
		     double n)
{
	size_t i;

	for (i = 0; i < fl->nr_links; i++)
		if (fl->l[i].a == a && fl->l[i].from == from &&
		    fl->l[i].to == to) {
			fl->l[i].n += n;
			return;
		}
	ALLOC_GROW(fl->l, fl->nr_links + 1, fl->alloc_links);
	fl->l[fl->nr_links].a = a;
	fl->l[fl->nr_links].from = from;
	fl->l[fl->nr_links].to = to;
	fl->l[fl->nr_links++].n = n;
}

/* Read table t of s as links from axis a to axis a + 1 (slots). */
static void read_table(struct flow *fl, const struct summary *s, size_t t,
		       size_t a)
{
	size_t rows = summary_table_rows(s, t) - 1;	/* less "total" */
	size_t cols = summary_table_cols(s, t) - 2;	/* less key, total */
	size_t r, c;

	for (r = 0; r < rows; r++) {
		size_t from = slot_of(&fl->ax[a], summary_text(s, t, r, 0));

		for (c = 0; c < cols; c++) {
			size_t to = slot_of(&fl->ax[a + 1],
					    summary_column(s, t, c + 1));
			double n = 0;

			summary_value(s, t, r, c + 1, &n);
			fl->ax[a].v[from].out += n;
			fl->ax[a + 1].v[to].in += n;
			if (n > 0)
				add_link(fl, a, from, to, n);
		}
	}
}

/* Gather the small codes of one axis into "other"; build ax->map from
 * slots to nodes (slots kept in place, sorted by count, other last). */
static void gather(struct axis *ax)
{
	size_t n = ax->nr_slots, i, k, *order, nsmall = 0;
	char *small = xcalloc(n + 1, 1);
	struct node *nodes;
	double tot = 0;

	for (i = 0; i < n; i++)
		tot += node_count(&ax->v[i]);
	ax->total = tot;
	order = xcalloc(n + 1, sizeof(size_t));
	for (i = 0; i < n; i++)
		order[i] = i;
	/* by count, largest first; ties in table order */
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && node_count(&ax->v[order[k]]) >
		     node_count(&ax->v[order[k - 1]]); k--) {
			size_t tmp = order[k];

			order[k] = order[k - 1];
			order[k - 1] = tmp;
		}
	for (i = 0; i < n; i++)
		if (node_count(&ax->v[order[i]]) < OTHER_SHARE * tot ||
		    i >= MAX_NODES - 1)
			small[order[i]] = 1;
	for (i = 0; i < n; i++)
		nsmall += small[i];
	if (nsmall < 2) {
		memset(small, 0, n);
		nsmall = 0;
	}
	/* a code of the codebook named "other" goes into the gathered
	 * node: two nodes of one name would read as one */
	for (i = 0; nsmall && i < n; i++)
		if (!small[i] && ax->v[i].key &&
		    !strcmp(ax->v[i].key, "other")) {
			small[i] = 1;
			nsmall++;
		}
	/* nodes: kept slots in order, then other */
	nodes = xcalloc(n + 2, sizeof(*nodes));
	ax->map = xcalloc(n + 1, sizeof(size_t));
	ax->nr = 0;
	for (i = 0; i < n; i++) {
		size_t sl = order[i];

		if (small[sl])
			continue;
		nodes[ax->nr] = ax->v[sl];
		ax->map[sl] = ax->nr++;
	}
	if (nsmall >= 2) {
		struct node *o = &nodes[ax->nr];

		memset(o, 0, sizeof(*o));
		for (i = 0; i < n; i++)
			if (small[i]) {
				o->in += ax->v[i].in;
				o->out += ax->v[i].out;
				o->nr_members++;
				ax->map[i] = ax->nr;
			}
		ax->nr++;
	}
	free(order);
	free(small);
	/* the nodes replace the slots; map leads from one to the other */
	free(ax->v);
	ax->v = nodes;
}

static void node_label(struct flow *fl, struct canvas *cv, size_t a,
		       size_t i, double maxw)
{
	struct node *n = &fl->ax[a].v[i];
	struct buf b = BUF_INIT;
	char *full;
	int cut;

	if (n->key) {
		full = fig_code_label(cv, fl->ax[a].dim, n->key);
	} else {
		struct buf o = BUF_INIT;

		buf_addf(&o, "other (%zu codes)", n->nr_members);
		full = buf_detach(&o, NULL);
	}
	buf_addf(&b, " %.0f", node_count(n));
	free(n->label);
	{
		char *fit = fig_fit(cv, full, maxw - fig_text_width(cv, b.ptr),
				    &cut);
		struct buf l = BUF_INIT;

		buf_addf(&l, "%s%s", fit, b.ptr);
		n->label = buf_detach(&l, NULL);
		if (cut && fl->f)
			figure_shortened(fl->f, fit, full, n->key);
		free(fit);
	}
	free(full);
	buf_release(&b);
}

/* Place the nodes of every axis; returns the tallest column. */
static double place(struct flow *fl, double y0)
{
	double hmax = 0, h[3] = { 0, 0, 0 };
	size_t a, i;

	for (a = 0; a < fl->nax; a++) {
		for (i = 0; i < fl->ax[a].nr; i++) {
			struct node *n = &fl->ax[a].v[i];
			double hh = node_count(n) * fl->scale;

			h[a] += (hh > SLOT_MIN ? hh : SLOT_MIN) + GAP;
		}
		if (h[a] > hmax)
			hmax = h[a];
	}
	for (a = 0; a < fl->nax; a++) {
		double y = y0 + (hmax - h[a]) / 2;

		for (i = 0; i < fl->ax[a].nr; i++) {
			struct node *n = &fl->ax[a].v[i];
			double hh = node_count(n) * fl->scale;
			double slot = hh > SLOT_MIN ? hh : SLOT_MIN;

			n->h = hh;
			n->y = y + (slot - hh) / 2;
			n->in_used = n->out_used = 0;
			y += slot + GAP;
		}
	}
	return hmax;
}

static int cmp_link(const struct flow *fl, const struct link *x,
		    const struct link *y, int by_to)
{
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (by_to) {
		if (x->to != y->to)
			return x->to < y->to ? -1 : 1;
		return x->from < y->from ? -1 : x->from > y->from;
	}
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	(void)fl;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The columns' x and the labels' widths; every label made. */
static void columns(struct flow *fl, struct canvas *cv, double xs[3],
		    double *lw)
{
	double mid_w;
	size_t a, i;

	fig_font(cv, FIG_SMALL, 0);
	/* the middle column's labels lie over the ribbons on its right:
	 * it stands left of centre, to give them room */
	*lw = (fl->nax == 3 ? 0.22 : 0.3) * FIG_WIDTH;
	xs[0] = FIG_MARGIN + *lw + 2;
	xs[fl->nax - 1] = FIG_WIDTH - FIG_MARGIN - *lw - 2 - NODE_W;
	if (fl->nax == 3)
		xs[1] = xs[0] + 0.38 * (xs[2] - xs[0]);
	mid_w = fl->nax == 3 ? xs[2] - xs[1] - NODE_W - 8 : *lw;
	for (a = 0; a < fl->nax; a++)
		for (i = 0; i < fl->ax[a].nr; i++)
			node_label(fl, cv, a, i, a == 0 || a == fl->nax - 1 ?
				   *lw : mid_w);
}

/* The column headings: the dimensions' keys. */
static void headings(struct canvas *cv, const struct flow *fl,
		     const double xs[3], double lw)
{
	size_t a;

	fig_font(cv, FIG_SMALL, 1);
	fig_set(cv, fig_ink);
	for (a = 0; a < fl->nax; a++) {
		char *t = fig_fit(cv, fl->ax[a].dim->key, a == 0 ? xs[0] +
				  NODE_W - FIG_MARGIN : lw, NULL);

		fig_text(cv, a == 0 ? xs[0] + NODE_W : a == fl->nax - 1 ?
			 xs[a] : xs[a] + NODE_W / 2, FIG_MARGIN + FIG_SMALL,
			 a == 0 ? FIG_RIGHT : a == fl->nax - 1 ? FIG_LEFT :
			 FIG_CENTER, t);
		free(t);
	}
}

/* The ribbons between the columns' nodes (xs: their x). */
static void ribbons(struct canvas *cv, struct flow *fl, const double xs[3])
{
	size_t i, j;
	size_t *ord;
	double (*ys)[2];

	/* ribbons: stacked at the source by target order and at the target
	 * by source order */
	ord = xcalloc(fl->nr_links + 1, sizeof(size_t));
	ys = xcalloc(fl->nr_links + 1, sizeof(*ys));
	for (i = 0; i < fl->nr_links; i++)
		ord[i] = i;
	for (j = 0; j < 2; j++) {
		for (i = 1; i < fl->nr_links; i++) {
			size_t k;

			for (k = i; k > 0 && cmp_link(fl, &fl->l[ord[k]],
					&fl->l[ord[k - 1]], (int)j) < 0; k--) {
				size_t tmp = ord[k];

				ord[k] = ord[k - 1];
				ord[k - 1] = tmp;
			}
		}
		for (i = 0; i < fl->nr_links; i++) {
			const struct link *l = &fl->l[ord[i]];
			struct node *n = j == 0 ?
				&fl->ax[l->a].v[l->from] :
				&fl->ax[l->a + 1].v[l->to];
			double *used = j == 0 ? &n->out_used : &n->in_used;

			ys[ord[i]][j] = n->y + *used;
			*used += l->n * fl->scale;
		}
	}
	for (i = 0; i < fl->nr_links; i++) {
		const struct link *l = &fl->l[i];
		double xa = xs[l->a] + NODE_W, xb = xs[l->a + 1];
		double ya = ys[i][0], yb = ys[i][1], h = l->n * fl->scale;
		double xm = (xa + xb) / 2;
		struct rgb c = fig_category(l->from, fl->ax[l->a].nr);

		cairo_set_source_rgba(cv->cr, c.r, c.g, c.b, 0.55);
		cairo_move_to(cv->cr, xa, ya);
		cairo_curve_to(cv->cr, xm, ya, xm, yb, xb, yb);
		cairo_line_to(cv->cr, xb, yb + h);
		cairo_curve_to(cv->cr, xm, yb + h, xm, ya + h, xa, ya + h);
		cairo_close_path(cv->cr);
		cairo_fill(cv->cr);
	}
	free(ord);
	free(ys);
}

/* The nodes and their labels. */
static void nodes(struct canvas *cv, const struct flow *fl,
		  const double xs[3])
{
	size_t a, i;

	fig_font(cv, FIG_SMALL, 0);
	for (a = 0; a < fl->nax; a++)
		for (i = 0; i < fl->ax[a].nr; i++) {
			const struct node *n = &fl->ax[a].v[i];
			double cy = n->y + n->h / 2 + 2.2;

			fig_set(cv, fig_ink);
			fig_rect(cv, xs[a], n->y, NODE_W, n->h > 0.5 ? n->h :
				 0.5);
			if (a == 0) {
				fig_text(cv, xs[a] - 2, cy, FIG_RIGHT,
					 n->label);
			} else if (a == fl->nax - 1) {
				fig_text(cv, xs[a] + NODE_W + 2, cy, FIG_LEFT,
					 n->label);
			} else {
				double w = fig_text_width(cv, n->label);

				cairo_set_source_rgba(cv->cr, 1, 1, 1, 0.8);
				fig_rect(cv, xs[a] + NODE_W + 1, cy - 6, w + 2,
					 7.5);
				fig_set(cv, fig_ink);
				fig_text(cv, xs[a] + NODE_W + 2, cy, FIG_LEFT,
					 n->label);
			}
		}
}

static double draw(struct canvas *cv, void *data)
{
	struct flow *fl = data;
	double xs[3], lw, y0, hmax;

	columns(fl, cv, xs, &lw);
	headings(cv, fl, xs, lw);
	y0 = FIG_MARGIN + FIG_SMALL + 5;
	hmax = place(fl, y0);
	ribbons(cv, fl, xs);
	nodes(cv, fl, xs);
	return y0 + hmax;
}

static void release(struct flow *fl)
{
	size_t a, i;

	for (a = 0; a < 3; a++) {
		for (i = 0; i < fl->ax[a].nr; i++)
			free(fl->ax[a].v[i].label);
		free(fl->ax[a].v);
		free(fl->ax[a].map);
	}
	free(fl->l);
}

static const char *node_key(const struct node *n)
{
	return n->key ? n->key : "other";
}

/* The figure's entry: nodes (with members of other), links. */
static void entry(struct flow *fl, struct figure *f, struct link *raw,
		  size_t nraw, char **slot_keys[3], size_t nslots[3])
{
	cJSON *axes = cJSON_AddArrayToObject(f->entry, "axes");
	cJSON *links = cJSON_AddArrayToObject(f->entry, "links");
	size_t a, i, k;

	for (a = 0; a < fl->nax; a++) {
		cJSON *ax = cJSON_CreateObject(), *nodes;

		cJSON_AddStringToObject(ax, "dimension", fl->ax[a].dim->key);
		nodes = cJSON_AddArrayToObject(ax, "nodes");
		for (i = 0; i < fl->ax[a].nr; i++) {
			const struct node *n = &fl->ax[a].v[i];
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "code", node_key(n));
			cJSON_AddStringToObject(o, "label", n->label ?
						n->label : "");
			cJSON_AddNumberToObject(o, "items_in", n->in);
			cJSON_AddNumberToObject(o, "items_out", n->out);
			if (!n->key) {
				cJSON *m = cJSON_AddArrayToObject(o,
								  "members");

				for (k = 0; k < nslots[a]; k++)
					if (fl->ax[a].map[k] == i)
						cJSON_AddItemToArray(m,
						cJSON_CreateString(
							slot_keys[a][k]));
			}
			cJSON_AddItemToArray(nodes, o);
		}
		cJSON_AddItemToArray(axes, ax);
	}
	for (i = 0; i < fl->nr_links; i++) {
		const struct link *l = &fl->l[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "from_dimension",
					fl->ax[l->a].dim->key);
		cJSON_AddStringToObject(o, "from",
					node_key(&fl->ax[l->a].v[l->from]));
		cJSON_AddStringToObject(o, "to",
					node_key(&fl->ax[l->a + 1].v[l->to]));
		cJSON_AddNumberToObject(o, "items", l->n);
		cJSON_AddNumberToObject(o, "width_pt", l->n * fl->scale);
		cJSON_AddItemToArray(links, o);
	}
	for (i = 0; i < nraw; i++) {
		csvw_key(&f->csv, fl->ax[raw[i].a].dim->key);
		csvw_key(&f->csv, slot_keys[raw[i].a][raw[i].from]);
		csvw_key(&f->csv, fl->ax[raw[i].a + 1].dim->key);
		csvw_key(&f->csv, slot_keys[raw[i].a + 1][raw[i].to]);
		csvw_double(&f->csv, raw[i].n, 0);
		csvw_key(&f->csv, node_key(&fl->ax[raw[i].a].v[
			fl->ax[raw[i].a].map[raw[i].from]]));
		csvw_key(&f->csv, node_key(&fl->ax[raw[i].a + 1].v[
			fl->ax[raw[i].a + 1].map[raw[i].to]]));
		csvw_end(&f->csv);
	}
}

static void file_part(struct buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == ' ')
			buf_addch(b, '-');
		else if (*s != '(' && *s != ')')
			buf_addch(b, *s);
}

/* The links by slot kept (returned, owned, *nraw of them) and each
 * column's slots' keys into keys[] (borrowed from fl), for the CSV; then
 * the small codes gathered and the links made between nodes. */
static struct link *regroup(struct flow *fl, size_t *nraw, char **keys[3],
			    size_t nslots[3])
{
	struct link *raw;
	size_t a, i;

	/* the links by slot, for the CSV, before gathering */
	*nraw = fl->nr_links;
	raw = xcalloc(*nraw + 1, sizeof(*raw));
	memcpy(raw, fl->l, *nraw * sizeof(*raw));
	for (a = 0; a < fl->nax; a++) {
		nslots[a] = fl->ax[a].nr_slots;
		keys[a] = xcalloc(nslots[a] + 1, sizeof(char *));
		for (i = 0; i < nslots[a]; i++)
			keys[a][i] = (char *)fl->ax[a].v[i].key;
		gather(&fl->ax[a]);
	}
	/* links between nodes */
	fl->nr_links = 0;
	for (i = 0; i < *nraw; i++)
		add_link(fl, raw[i].a, fl->ax[raw[i].a].map[raw[i].from],
			 fl->ax[raw[i].a + 1].map[raw[i].to], raw[i].n);
	return raw;
}

/* Points per item: the tallest column TARGET_H high, at most
 * MAX_SCALE. */
static void set_scale(struct flow *fl)
{
	double hmax = 0;
	size_t a, i;

	for (a = 0; a < fl->nax; a++) {
		double h = 0;

		for (i = 0; i < fl->ax[a].nr; i++)
			h += node_count(&fl->ax[a].v[i]);
		if (h > hmax)
			hmax = h;
	}
	fl->scale = hmax > 0 ? TARGET_H / hmax : 1;
	if (fl->scale > MAX_SCALE)
		fl->scale = MAX_SCALE;
}

/* The caption of the figure titled `title`, made from report table tid
 * (--cross c1, and c2 with three columns). */
static void caption(struct buf *cap, const struct flow *fl,
		    const struct fig_ctx *x, const char *title,
		    const char *c1, const char *c2, const char *by,
		    const char *tid)
{
	buf_addf(cap, "%s", title);
	buf_addf(cap, ": ribbons as wide as their items (%.2f pt an item); "
		 "codes with under %.0f%% of a column's items (past %d codes, "
		 "the smallest) gathered into other", fl->scale,
		 OTHER_SHARE * 100, MAX_NODES - 1);
	if (fl->nax == 3)
		buf_addstr(cap, "; an item with several codes counts in "
			   "every pair");
	buf_addstr(cap, ". ");
	fig_counting(cap, x, x->main);
	buf_addf(cap, ". Report: --cross %s", c1);
	if (fl->nax == 3)
		buf_addf(cap, " and --cross %s", c2);
	if (by)
		buf_addf(cap, " --by %s", by);
	buf_addf(cap, ", table %s.", tid);
}

/* The figure's source and options in figures.json. */
static void source_json(struct figure *f, const struct flow *fl,
			const struct fig_ctx *x, const char *const tids[2],
			const char *c1, const char *c2, const char *by,
			const char *code)
{
	fig_source(f->entry, x, tids, 1, c1);
	if (fl->nax == 3) {
		cJSON *src = cJSON_GetObjectItemCaseSensitive(f->entry,
							      "source");
		char *cmd = fig_report_command(x->o, c2, NULL);

		cJSON_AddStringToObject(src, "report2", cmd);
		free(cmd);
	}
	if (code) {
		cJSON_AddStringToObject(f->entry, "by", by);
		cJSON_AddStringToObject(f->entry, "by_code", code);
	}
	cJSON_AddNumberToObject(f->entry, "scale_pt_per_item", fl->scale);
	cJSON_AddNumberToObject(f->entry, "other_share", OTHER_SHARE);
	cJSON_AddNumberToObject(f->entry, "max_nodes", MAX_NODES);
}

static int one(const struct fig_ctx *x, const struct summary *s1,
	       const struct summary *s2, const char *const dims[3],
	       const char *by, const char *code, struct err *e)
{
	static const char *const head[] = {
		"from_dimension", "from", "to_dimension", "to", "items",
		"from_node", "to_node", NULL,
	};
	struct flow fl;
	struct figure f;
	struct buf id = BUF_INIT, name = BUF_INIT, title = BUF_INIT;
	struct buf cap = BUF_INIT, c1 = BUF_INIT, c2 = BUF_INIT;
	const char *tids[2];
	char **keys[3] = { NULL, NULL, NULL };
	size_t nslots[3] = { 0, 0, 0 }, a;
	struct link *raw = NULL;
	size_t nraw = 0;
	int t1, t2 = -1, ret = 0;

	memset(&fl, 0, sizeof(fl));
	fl.x = x;
	fl.nax = dims[2] && s2 ? 3 : 2;
	buf_addstr(&id, "cross");
	if (code)
		buf_addf(&id, ".%s", code);
	buf_addstr(&id, ".counts");
	if ((t1 = summary_table(s1, id.ptr)) < 0 ||
	    (fl.nax == 3 && (t2 = summary_table(s2, id.ptr)) < 0) ||
	    summary_table_rows(s1, (size_t)t1) < 2)
		goto out;
	for (a = 0; a < fl.nax; a++)
		fl.ax[a].dim = codebook_dim(x->cb, dims[a]);
	read_table(&fl, s1, (size_t)t1, 0);
	if (fl.nax == 3)
		read_table(&fl, s2, (size_t)t2, 1);
	raw = regroup(&fl, &nraw, keys, nslots);
	set_scale(&fl);
	buf_addstr(&name, "flow");
	buf_addf(&title, "%s to %s", dims[0], dims[1]);
	if (fl.nax == 3)
		buf_addf(&title, " to %s", dims[2]);
	if (code) {
		buf_addf(&name, "-");
		file_part(&name, by);
		buf_addch(&name, '-');
		file_part(&name, code);
		buf_addf(&title, " where %s = %s", by, code);
	}
	figure_start(&f, x, name.ptr, "flow", title.ptr);
	fl.f = &f;
	{
		/* labels cut once here, to record what was shortened */
		double xs[3], lw;

		columns(&fl, x->probe, xs, &lw);
	}
	fl.f = NULL;
	tids[0] = summary_table_id(s1, (size_t)t1);
	tids[1] = tids[0];
	buf_addf(&c1, "%s,%s", dims[0], dims[1]);
	if (fl.nax == 3)
		buf_addf(&c2, "%s,%s", dims[1], dims[2]);
	caption(&cap, &fl, x, title.ptr, c1.ptr, c2.ptr, by, tids[0]);
	source_json(&f, &fl, x, tids, c1.ptr, c2.ptr, by, code);
	csvw_header(&f.csv, head);
	csvw_end(&f.csv);
	entry(&fl, &f, raw, nraw, keys, nslots);
	ret = figure_finish(&f, x, draw, &fl, cap.ptr, e);
	figure_release(&f);
out:
	release(&fl);
	for (a = 0; a < 3; a++)
		free(keys[a]);
	free(raw);
	buf_release(&id);
	buf_release(&name);
	buf_release(&title);
	buf_release(&cap);
	buf_release(&c1);
	buf_release(&c2);
	return ret;
}

int figure_flow(const struct fig_ctx *x, const struct summary *a,
		const struct summary *b, const char *const dims[3],
		const char *by, struct err *e)
{
	size_t t, n = summary_nr_tables(a);
	int ret = 0;

	if (!by)
		return one(x, a, b, dims, NULL, NULL, e);
	for (t = 0; t < n && !ret; t++) {
		const char *id = summary_table_id(a, t);
		size_t len = strlen(id);
		char *code;

		if (strncmp(id, "cross.", 6) || len <= 13 ||
		    strcmp(id + len - 7, ".counts"))
			continue;
		code = xstrndup(id + 6, len - 13);
		ret = one(x, a, b, dims, by, code, e);
		free(code);
	}
	return ret;
}
