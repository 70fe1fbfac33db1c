/* SPDX-License-Identifier: MIT */
/*
 * view_agree: the agreement view.
 *
 * At the top, a table of the codebook's dimensions: for the scope shown
 * (the whole study, or one round; Tab changes it) the kappa, its 95%
 * confidence interval, the Landis & Koch band and n; then a sparkline of
 * the kappa per round and, as far as the width allows, a column per
 * round, so the trend across rounds shows.  Under it, for the selected
 * dimension (j/k) and the scope, a detail that scrolls like a pane: the
 * copy-ready sentence, the other statistics, the confusion matrix as a
 * grid shaded by count (characters, not colour: ' ' and four shades,
 * with the count beside; the diagonal is agreement), and bars of how
 * often each annotator chose each code.
 *
 * Which kappa: Cohen's for two annotators on a `select: one` dimension
 * (with its CI); the mean of the per-code kappas (marked "m") for
 * `select: many`; Fleiss' (marked "F") for more than two annotators.
 *
 * Everything is computed once, when the view opens: agreement_compute()
 * for each round (round_list()) and for the whole study.  Keys only
 * redraw.  Who sees what is agreement_compute()'s rule - the owner and
 * adjudicators everything, an annotator the closed rounds only; a scope
 * the actor may not see says so instead of showing numbers.
 *
 * The view is an overlay of the annotator's and the adjudicator's
 * screens (covering the panes and the panel, not the status line), and a
 * screen of its own: tui_agree() for `bugcoder agree --screen`.
 *
 * The table, the keys and the screen are here; the detail is
 * view_agree_detail.c's (what they share: view_agree_int.h).
 *
 * Limitations: the confusion grid needs two annotators and a `select:
 * one` dimension (otherwise the detail lists the per-code or pairwise
 * kappas); names of annotators and codes are cut to fit.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/headline.h"
#include "core/study/headline_text.h"
#include "core/study/agreement.h"
#include "core/study/drift.h"
#include "core/study/gate.h"
#include "core/study/round.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/tui.h"
#include "tui/ui.h"
#include "tui/view_agree_int.h"


#define NAME_MAX_W 16		/* dimension names in the table */
#define ROUND_COL_W 8		/* a per-round column */
#define MIN_DETAIL_ROWS 3


/* ---- figures ---------------------------------------------------------- */

/* One dimension in one scope, as the table shows it. */
struct cell {
	int shown;		/* the scope was computed */
	struct agree_stat k;	/* the kappa of the dimension */
	char stat;		/* ' ' Cohen, 'm' mean of codes, 'F' Fleiss */
	int has_ci;
	double lo, hi;
	enum agree_band band;
	size_t n;
};

const struct agreement_dim *agree_scope_dim(const struct scope *sc,
					    size_t d)
{
	if (!sc->ok || d >= sc->ag.nr_dims)
		return NULL;
	return &sc->ag.dims[d];
}

/* The summary of dimension d in scope sc, at the level of codes. */
static const struct agree_level_summary *scope_level(const struct scope *sc,
						     size_t d)
{
	if (!sc->ok || d >= sc->sum.nr_dims)
		return NULL;
	return &sc->sum.dims[d].code;
}

static void cell_of(const struct scope *sc, size_t d, struct cell *c)
{
	const struct agreement_dim *ad = agree_scope_dim(sc, d);
	const struct agree_level_summary *lv = scope_level(sc, d);

	memset(c, 0, sizeof(*c));
	c->stat = ' ';
	if (!ad || !lv)
		return;
	c->shown = 1;
	c->n = lv->n_items;
	c->k = lv->kappa;
	c->band = lv->band;
	if (ad->dim->select_many)
		c->stat = 'm';
	else if (sc->ag.nr_annotators > 2)
		c->stat = 'F';
	if (lv->ci.low.defined && lv->ci.high.defined) {
		c->has_ci = 1;
		c->lo = lv->ci.low.value;
		c->hi = lv->ci.high.value;
	}
}

void agree_scope_label(const struct scope *sc, struct buf *out)
{
	if (!sc->round) {
		buf_addstr(out, "whole study");
		return;
	}
	buf_addstr(out, "round ");
	sanitize_line(out, sc->round);
}


/* ---- glyphs ----------------------------------------------------------- */

/* One sparkline character for a kappa (8 levels over 0..1). */
static const char *spark(const struct cell *c)
{
	static const char *const utf8[8] = {
		"\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
		"\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88"
	};
	static const char ascii[] = "_.-=+*#@";
	static char one[2];
	int lvl;

	if (!c->shown)
		return " ";
	if (!c->k.defined)
		return "?";
	lvl = c->k.value <= 0 ? 0 : (int)ceil(c->k.value * 8) - 1;
	if (lvl < 0)
		lvl = 0;
	if (lvl > 7)
		lvl = 7;
	if (draw_utf8())
		return utf8[lvl];
	one[0] = ascii[lvl];
	one[1] = '\0';
	return one;
}

/* ---- the view --------------------------------------------------------- */

static void scope_release(struct scope *sc)
{
	free(sc->round);
	free(sc->why);
	headline_release(&sc->sum);
	agreement_release(&sc->ag);
}

static int agree_open(struct view *v)
{
	struct screen *scr = v->scr;
	const char *want = v->arg;	/* the round to show first, or NULL */
	struct agree_view *av = v->priv;
	struct round_info *rounds = NULL;
	size_t nr = 0, i, best = 0;
	struct err e = ERR_INIT;
	int found = 0;

	buf_init(&av->doc.text, 0);
	pager_init(&av->pg, &doc_pager_src, &av->doc);
	if (round_list(scr->st, &rounds, &nr, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return -1;
	}
	av->nr_sc = nr + 1;
	av->sc = xcalloc(av->nr_sc, sizeof(*av->sc));
	for (i = 0; i < av->nr_sc; i++) {
		struct scope *sc = &av->sc[i];

		sc->round = i < nr ? xstrdup(rounds[i].name) : NULL;
		err_clear(&e);
		if (agreement_compute(scr->st, scr->actor, &scr->cb, sc->round,
				      NULL, &sc->ag, &e) < 0) {
			sc->denied = e.code == ERR_PERM;
			sc->why = xstrdup(sc->denied ? (sc->round ?
				"Agreement on a round is shown to annotators "
				"once the round is closed." :
				"Agreement over the whole study is for the "
				"owner and adjudicators; an annotator sees "
				"closed rounds.") : e.msg);
			continue;
		}
		if (headline_compute(&sc->ag, NULL, &sc->sum, &e) < 0) {
			sc->why = xstrdup(e.msg);
			continue;
		}
		sc->ok = 1;
		best = i;
		if (want && sc->round && !strcmp(want, sc->round)) {
			av->cur = i;
			found = 1;
		}
	}
	round_list_free(rounds, nr);
	if (round_gates(scr->st, &av->gates, &av->nr_gates, &e) < 0)
		screen_msg(scr, MSG_ERR, "%s", e.msg);
	/* drift is the owner's alone (core/study/drift decides) */
	if (scr->actor->role == ROLE_OWNER) {
		err_clear(&e);
		if (drift_compute(scr->st, scr->actor, &scr->cb, &av->drift,
				  &e) == 0)
			av->has_drift = 1;
		else
			screen_msg(scr, MSG_ERR, "%s", e.msg);
	}
	/* the whole study if it may be seen, else the last round that may */
	if (!found)
		av->cur = av->sc[nr].ok ? nr : best;
	av->doc_dim = av->doc_cur = (size_t)-1;
	return 0;
}

static void agree_layout(struct view *v)
{
	struct screen *scr = v->scr;
	struct agree_view *av = v->priv;
	int inner, dims = (int)scr->cb.nr_dims;

	/* the panes and the panel under them: all but the status line */
	v->y = scr->area_y;
	v->x = 0;
	v->rows = scr->rows - 1 - scr->area_y;
	v->cols = scr->cols;
	screen_place(v);
	inner = v->rows - 2;
	/* scope line, header, dimensions, rule, then the detail */
	av->table_rows = dims;
	if (av->table_rows > inner - 3 - MIN_DETAIL_ROWS)
		av->table_rows = inner - 3 - MIN_DETAIL_ROWS;
	if (av->table_rows < 1)
		av->table_rows = 1;
	av->det_y = 1 + 2 + av->table_rows + 1;
	av->det_rows = v->rows - 1 - av->det_y;
	if (av->det_rows < 1)
		av->det_rows = 1;
	pager_set_size(&av->pg, av->det_rows, v->cols - 4);
	if (av->width != v->cols - 4)
		av->doc_dim = (size_t)-1;
}

/* The per-round value, right-aligned in `w` columns. */
static void value_text(struct buf *b, const struct cell *c, int w)
{
	char t[32];

	if (!c->shown)
		snprintf(t, sizeof(t), "-");
	else if (!c->k.defined)
		snprintf(t, sizeof(t), "undef");
	else
		snprintf(t, sizeof(t), "%.2f%c", c->k.value, c->stat);
	buf_addf(b, "%*s", w, t);
}

/* The table's columns for the window's width. */
struct table_cols {
	int width;		/* inside the frame */
	int namew;		/* the dimension names' */
	int spark_w;		/* the trend's; 0: none */
	int nr_cols;		/* rounds with a column of their own (the
				   last ones) */
	size_t nr_rounds;
};

static void table_cols(struct view *v, const struct agree_view *av,
		       struct table_cols *tc)
{
	const struct codebook *cb = &v->scr->cb;
	size_t nr_rounds = av->nr_sc - 1, d;
	int namew = 9, width = v->cols - 2, spark_w, nr_cols = 0;
	int fixed;

	for (d = 0; d < cb->nr_dims; d++) {
		int w = text_width(cb->dims[d].key, strlen(cb->dims[d].key));

		if (w > namew)
			namew = w;
	}
	if (namew > NAME_MAX_W)
		namew = NAME_MAX_W;
	/* " name  kappa   95% CI        band            n" */
	fixed = 1 + namew + 2 + 6 + 2 + 11 + 2 + 14 + 2 + 5;
	spark_w = nr_rounds > 5 ? (int)nr_rounds : 5;
	if (nr_rounds && fixed + 2 + spark_w <= width)
		nr_cols = (width - fixed - 2 - spark_w) / ROUND_COL_W;
	if (nr_cols > (int)nr_rounds)
		nr_cols = (int)nr_rounds;
	if (!nr_rounds || fixed + 2 + spark_w > width)
		spark_w = 0;
	tc->width = width;
	tc->namew = namew;
	tc->spark_w = spark_w;
	tc->nr_cols = nr_cols;
	tc->nr_rounds = nr_rounds;
}

/* The scope line: the scope shown and its annotators. */
static void draw_scope_line(struct view *v, const struct agree_view *av,
			    int width)
{
	const struct scope *cur = &av->sc[av->cur];
	struct buf b = BUF_INIT;

	buf_addstr(&b, "Shown: ");
	agree_scope_label(cur, &b);
	if (cur->ok) {
		size_t i;

		buf_addf(&b, " %s annotators ", glyph(G_DOT));
		for (i = 0; i < cur->ag.nr_annotators; i++) {
			if (i)
				buf_addstr(&b, ", ");
			sanitize_line(&b, cur->ag.annotators[i]);
		}
		if (!cur->ag.nr_annotators)
			buf_addstr(&b, "none yet");
	}
	if (av->nr_sc > 1)
		buf_addstr(&b, "   (Tab: next round)");
	draw_str(v->win, 1, 1, width, b.ptr, b.len, SLOT_MD_STRONG);
	buf_release(&b);
}

/* The header row, with the rounds' names over their columns. */
static void draw_table_header(struct view *v, const struct agree_view *av,
			      const struct table_cols *tc)
{
	struct buf b = BUF_INIT, h = BUF_INIT;
	int x, width = tc->width;
	size_t r, nr_rounds = tc->nr_rounds;

	buf_addf(&b, " %-*s  %6s  %-11s  %-14s  %5s", tc->namew, "dimension",
		 "kappa", "95% CI", "band", "n");
	if (tc->spark_w)
		buf_addf(&b, "  %-*s", tc->spark_w, "trend");
	x = draw_str(v->win, 2, 1, width, b.ptr, b.len, SLOT_DIM);
	for (r = nr_rounds - (size_t)tc->nr_cols; r < nr_rounds; r++) {
		struct buf t = BUF_INIT;

		buf_reset(&h);
		sanitize_line(&t, av->sc[r].round);
		text_truncate(&h, t.ptr, t.len, ROUND_COL_W - 1,
			      glyph(G_ELLIPSIS));
		buf_reset(&t);
		buf_addf(&t, "%*s", ROUND_COL_W - text_width(h.ptr, h.len),
			 "");
		buf_add(&t, h.ptr, h.len);
		x += draw_str(v->win, 2, 1 + x, width - x, t.ptr, t.len,
			      r == av->cur ? SLOT_SEL : SLOT_DIM);
		buf_release(&t);
	}
	buf_release(&b);
	buf_release(&h);
}

/* Row y of the table: dimension d in the scope shown (kappa, interval,
 * band, n), its trend and its last rounds' kappas. */
static void draw_dim_row(struct view *v, const struct agree_view *av,
			 const struct table_cols *tc, int y, size_t d)
{
	const struct codebook *cb = &v->scr->cb;
	const struct scope *cur = &av->sc[av->cur];
	size_t r, nr_rounds = tc->nr_rounds;
	int x, width = tc->width, namew = tc->namew;
	struct buf b = BUF_INIT;
	struct cell c;
	struct buf name = BUF_INIT;
	int sel;
	enum slot base;

	sel = d == av->dim;
	base = sel ? SLOT_SEL : SLOT_NORMAL;
	cell_of(cur, d, &c);
	draw_fill(v->win, 3 + y, 1, width, base);
	sanitize_line(&name, cb->dims[d].key);
	buf_addch(&b, sel ? '>' : ' ');
	text_truncate(&b, name.ptr, name.len, namew,
		      glyph(G_ELLIPSIS));
	buf_release(&name);
	x = draw_str(v->win, 3 + y, 1, width, b.ptr, b.len, base);
	buf_reset(&b);
	buf_addf(&b, "%*s", 1 + namew - x + 2, "");
	value_text(&b, &c, 6);
	buf_addstr(&b, "  ");
	if (c.has_ci) {
		char ci[40];

		snprintf(ci, sizeof(ci), "%.2f%s%.2f", c.lo,
			 draw_utf8() ? "\xe2\x80\x93" : "..", c.hi);
		buf_addstr(&b, ci);
		buf_addf(&b, "%*s", 11 - text_width(ci, strlen(ci)),
			 "");
	} else {
		buf_addf(&b, "%-11s", c.shown ? "-" : "");
	}
	buf_addf(&b, "  %-14s  ", c.shown && c.k.defined ?
		 agree_band_name(c.band) : c.shown ? "undefined" :
		 cur->denied ? "closed rounds" : "not computed");
	if (c.shown)
		buf_addf(&b, "%5zu", c.n);
	else
		buf_addf(&b, "%5s", "-");
	x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr, b.len,
		      base);
	if (tc->spark_w) {
		buf_reset(&b);
		buf_addstr(&b, "  ");
		for (r = 0; r < nr_rounds; r++) {
			struct cell rc;

			cell_of(&av->sc[r], d, &rc);
			buf_addstr(&b, spark(&rc));
		}
		buf_addf(&b, "%*s", tc->spark_w - (int)nr_rounds, "");
		x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr,
			      b.len, sel ? SLOT_SEL : SLOT_BAR_SET);
	}
	for (r = nr_rounds - (size_t)tc->nr_cols; r < nr_rounds; r++) {
		struct cell rc;

		cell_of(&av->sc[r], d, &rc);
		buf_reset(&b);
		value_text(&b, &rc, ROUND_COL_W);
		x += draw_str(v->win, 3 + y, 1 + x, width - x, b.ptr,
			      b.len, base);
	}
	buf_release(&b);
}

static void draw_table(struct view *v, struct agree_view *av)
{
	const struct codebook *cb = &v->scr->cb;
	struct table_cols tc;
	size_t d;
	int y;

	table_cols(v, av, &tc);
	draw_scope_line(v, av, tc.width);
	draw_table_header(v, av, &tc);
	/* keep the selected dimension shown */
	if (av->dim < av->top_dim)
		av->top_dim = av->dim;
	if (av->dim >= av->top_dim + (size_t)av->table_rows)
		av->top_dim = av->dim - (size_t)av->table_rows + 1;
	for (y = 0; y < av->table_rows; y++) {
		d = av->top_dim + (size_t)y;
		if (d >= cb->nr_dims)
			break;
		draw_dim_row(v, av, &tc, y, d);
	}
}

static void agree_draw(struct view *v)
{
	struct agree_view *av = v->priv;
	struct screen *scr = v->scr;
	struct buf b = BUF_INIT;
	int width = v->cols - 4;

	if (av->doc_dim != av->dim || av->doc_cur != av->cur ||
	    av->width != width) {
		agree_detail_render(av, &scr->cb, width);
		pager_goto(&av->pg, 0);
	}
	werase(v->win);
	draw_frame(v->win, "Agreement (j/k dimension, Tab round, Space "
		   "scroll, q close)", SLOT_DIALOG_TITLE);
	draw_table(v, av);
	wattrset(v->win, slot_attr(SLOT_DIALOG));
	mvwhline(v->win, av->det_y - 1, 1, ACS_HLINE, v->cols - 2);
	wattrset(v->win, A_NORMAL);
	pager_draw(&av->pg, v->win, av->det_y, 2, 1);
	pager_position(&av->pg, &b);
	if ((int)b.len + 4 < v->cols)
		draw_str(v->win, v->rows - 1, v->cols - (int)b.len - 3,
			 (int)b.len, b.ptr, b.len, SLOT_DIALOG);
	wnoutrefresh(v->win);
	buf_release(&b);
}

static int agree_handle(struct view *v, enum action a, int key)
{
	struct agree_view *av = v->priv;
	size_t n = v->scr->cb.nr_dims;

	(void)key;
	switch (a) {
	case ACT_NEXT_DIM:
		if (av->dim + 1 < n)
			av->dim++;
		return H_REDRAW;
	case ACT_PREV_DIM:
		if (av->dim)
			av->dim--;
		return H_REDRAW;
	case ACT_NEXT_ROUND:
		av->cur = (av->cur + 1) % av->nr_sc;
		return H_REDRAW;
	case ACT_PREV_ROUND:
		av->cur = (av->cur + av->nr_sc - 1) % av->nr_sc;
		return H_REDRAW;
	case ACT_CLOSE:
	case ACT_QUIT:
	case ACT_AGREEMENT:
		return H_CLOSE;
	case ACT_HELP:
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_REDRAW:
		return H_UNHANDLED;
	default:
		return pager_action(&av->pg, a) ? H_REDRAW : H_HANDLED;
	}
}

static void agree_close(struct view *v)
{
	struct agree_view *av = v->priv;
	size_t i;

	for (i = 0; i < av->nr_sc; i++)
		scope_release(&av->sc[i]);
	free(av->sc);
	round_gates_free(av->gates, av->nr_gates);
	drift_release(&av->drift);
	doc_release(&av->doc);
	pager_release(&av->pg);
}

static struct pager *agree_pager(struct view *v)
{
	struct agree_view *av = v->priv;

	return &av->pg;
}

const struct view_ops agree_view_ops = {
	.name = "agreement",
	.keymap = KEYMAP_AGREE,
	.priv_size = sizeof(struct agree_view),
	.open = agree_open,
	.layout = agree_layout,
	.draw = agree_draw,
	.handle = agree_handle,
	.close = agree_close,
	.pager = agree_pager,
};

/* ---- the view as a screen of its own ---------------------------------- */

static void solo_status(struct screen *scr)
{
	screen_draw_status(scr, "j/k dimension  Tab round  Space/b scroll  / "
			   "search  ? help  q quit", NULL);
}

/* closing the view leaves the screen */
static void solo_after_key(struct screen *scr)
{
	if (!scr->nr_overlays)
		scr->quit = 1;
}

static const struct screen_ops solo_screen_ops = {
	.name = "agreement",
	.keymap = KEYMAP_AGREE,
	.help_intro = "The agreement of the study's annotators, computed "
		"once when the screen opened: per dimension the kappa, its "
		"95% confidence interval, the Landis & Koch band and the "
		"number of bugs, per round and for the whole study; below, "
		"the selected dimension's confusion matrix and how often "
		"each annotator chose each code. An \"m\" marks the mean of "
		"per-code kappas (a dimension of several codes per bug), an "
		"\"F\" Fleiss' kappa (more than two annotators).",
	.no_panes = 1,
	.draw_status = solo_status,
	.after_key = solo_after_key,
};

int tui_agree(struct store *st, const struct actor *a, const char *round,
	      struct err *e)
{
	struct screen scr;
	struct round_info r;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	screen_init(&scr, &solo_screen_ops, st, a);
	if (study_codebook(st, &scr.cb, NULL, e) < 0)
		goto out;
	if (round) {
		if (round_get(st, round, &r, e) < 0)
			goto out;
		round_info_release(&r);
	}
	if (!screen_push_with(&scr, &agree_view_ops, round)) {
		err_set(e, ERR_INPUT, "%s", scr.msg.len ? scr.msg.ptr :
			"cannot compute the agreement");
		goto out;
	}
	ret = screen_run(&scr, e);
out:
	screen_fini(&scr);
	return ret;
}
