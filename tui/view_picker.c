/* SPDX-License-Identifier: MIT */
/*
 * view_picker: the code picker overlay, and the form that proposes a new
 * code from it.
 *
 * The picker lists the codes of one dimension with the keys that pick
 * them (fixed: the codebook's order, so a key means the same code whatever
 * the filter), chosen marks and groups, and shows the highlighted code's
 * definition, include and exclude guidance and examples.  Every code is
 * one key: codes 1-9 are their digit, the tenth on are letters (a-z,
 * then A-Z: 61 codes; a longer list picks the rest through the filter).
 * `/` starts a filter (key, name or group, case-insensitive) that typing
 * extends; Enter picks the highlighted code, Esc ends the filter.
 *
 * One key per decision: on the annotator's screen a pick saves, then the
 * picker moves on to the next required dimension still to code, and
 * closes when none is left (Esc leaves it any time); a pick kept pending
 * because the study is busy closes it too.  In a `select: many`
 * dimension a key that adds a code moves on too; one that removes a code
 * stays, and Space toggles the highlighted code and stays, for a second
 * code.  Tab moves to the next dimension.  Another screen's picks
 * (the adjudicator's, without pick_ops.next_dim) close the picker of a
 * `select: one` dimension and keep a `select: many` one open.  What a
 * pick does is the screen's: the picker reaches it through
 * scr->pick_ops alone.
 *
 * Limitations: the definition pane shows what fits; the codebook view
 * (C) has every definition in full.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/draft.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/view_picker.h"

#define NR_KEYED (9 + 26 + 26)	/* codes with a key of their own */

/* The key that picks code index i, 0 when it has none. */
static int code_key(size_t i)
{
	if (i < 9)
		return (int)('1' + i);
	if (i < 9 + 26)
		return (int)('a' + i - 9);
	if (i < NR_KEYED)
		return (int)('A' + i - 9 - 26);
	return 0;
}

/* The code index key `k` picks, or -1. */
static long key_code(int k)
{
	if (k >= '1' && k <= '9')
		return k - '1';
	if (k >= 'a' && k <= 'z')
		return 9 + k - 'a';
	if (k >= 'A' && k <= 'Z')
		return 9 + 26 + k - 'A';
	return -1;
}

/* The keys that pick code index i, as the list shows them. */
static void code_keys(size_t n, size_t i, char out[24])
{
	int k = code_key(i);

	(void)n;
	if (k)
		snprintf(out, 24, " %c", k);
	else
		snprintf(out, 24, "  ");
}

static void keys_hint(size_t n, struct buf *b)
{
	if (n <= 9)
		buf_addf(b, "1-%zu", n);
	else if (n == 10)
		buf_addstr(b, "1-9, a");
	else if (n <= 9 + 26)
		buf_addf(b, "1-9, a-%c", code_key(n - 1));
	else
		buf_addf(b, "1-9, a-z, A-%c", code_key(n < NR_KEYED ? n - 1 :
						       NR_KEYED - 1));
}

static const struct dimension *pdim(struct view *v)
{
	struct picker *p = v->priv;

	return &v->scr->cb.dims[p->dim];
}

static int code_matches(const struct code *c, const char *f, size_t n)
{
	return text_find(c->key, strlen(c->key), f, n) >= 0 ||
	       (c->name && text_find(c->name, strlen(c->name), f, n) >= 0) ||
	       (c->group && text_find(c->group, strlen(c->group), f, n) >= 0);
}

static void refilter(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	size_t i;

	free(p->vis);
	p->vis = xcalloc(d->nr_codes + 1, sizeof(*p->vis));
	p->nr_vis = 0;
	for (i = 0; i < d->nr_codes; i++)
		if (!p->filter.len ||
		    code_matches(&d->codes[i], p->filter.ptr, p->filter.len))
			p->vis[p->nr_vis++] = i;
	p->sel = 0;
	p->top = 0;
	/* start on the chosen code, if shown */
	for (i = 0; i < p->nr_vis; i++)
		if (v->scr->pick_ops->has_code(v->scr, d->key,
					       d->codes[p->vis[i]].key)) {
			p->sel = i;
			break;
		}
}

static void set_dim(struct view *v, size_t dim)
{
	struct picker *p = v->priv;

	p->dim = dim;
	p->filtering = 0;
	buf_reset(&p->filter);
	refilter(v);
	v->scr->picking = (int)dim;
	v->scr->dirty |= DIRTY_BAR;
}

/* v->arg: the dimension's index (a size_t) */
static int picker_open(struct view *v)
{
	const size_t *dim = v->arg;
	struct picker *p = v->priv;

	buf_init(&p->filter, 0);
	buf_init(&p->detail.text, 0);
	p->dim = *dim;
	if (p->dim >= v->scr->cb.nr_dims)
		return -1;
	set_dim(v, p->dim);
	return 0;
}

static void picker_layout(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	int inner_rows, inner_cols;

	screen_overlay_box(v->scr, v, 0, 120);
	inner_rows = v->rows - 2 - 2;	/* frame, question, filter */
	inner_cols = v->cols - 2;
	if (inner_cols >= 118) {
		p->list_cols = inner_cols * 11 / 20;
		p->list_rows = inner_rows;
		p->det_cols = inner_cols - p->list_cols - 1;
		p->det_rows = inner_rows;
		p->list_y = p->det_y = 3;
		p->list_x = 1;
		p->det_x = 1 + p->list_cols + 1;
	} else {
		int want = (int)d->nr_codes;

		p->list_cols = p->det_cols = inner_cols;
		p->list_rows = inner_rows / 2;
		if (want < p->list_rows)
			p->list_rows = want < 3 ? 3 : want;
		p->det_rows = inner_rows - p->list_rows - 1;
		p->list_y = 3;
		p->det_y = 3 + p->list_rows + 1;
		p->list_x = p->det_x = 1;
	}
	if (p->list_rows < 1)
		p->list_rows = 1;
	if (p->det_rows < 0)
		p->det_rows = 0;
}

static void render_detail(struct view *v, const struct code *c, int width)
{
	struct picker *p = v->priv;
	struct doc *d = &p->detail;
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t i, k;
	struct {
		const char *label;
		const char *text;
	} parts[3] = {
		{ "Definition", c->definition },
		{ "Include", c->include },
		{ "Exclude", c->exclude },
	};

	doc_clear(d);
	doc_begin(d, SLOT_MD_HEADING, 0, 0);
	doc_put_untrusted(d, c->key, SLOT_MD_HEADING);
	if (c->name) {
		doc_puts(d, " ", SLOT_MD_HEADING);
		doc_puts(d, glyph(G_DOT), SLOT_MD_HEADING);
		doc_puts(d, " ", SLOT_MD_HEADING);
		doc_put_untrusted(d, c->name, SLOT_MD_HEADING);
	}
	doc_end(d);
	if (c->group || c->distributed) {
		doc_begin(d, SLOT_DIM, 0, 0);
		if (c->group) {
			doc_puts(d, "group: ", SLOT_DIM);
			doc_put_untrusted(d, c->group, SLOT_DIM);
		}
		if (c->distributed)
			doc_puts(d, c->group ? ", distributed only" :
				 "distributed only", SLOT_DIM);
		doc_end(d);
	}
	for (k = 0; k < 3; k++) {
		if (!parts[k].text || !*parts[k].text)
			continue;
		buf_reset(&b);
		buf_addf(&b, "%s: ", parts[k].label);
		text_sanitize(&b, parts[k].text, strlen(parts[k].text), 8, 0);
		text_wrap(&tl, b.ptr, b.len, width);
		for (i = 0; i < tl.nr; i++) {
			size_t lab = strlen(parts[k].label) + 1;

			doc_begin(d, SLOT_NORMAL, 0, 0);
			if (i == 0 && tl.v[i].len >= lab) {
				doc_put(d, b.ptr + tl.v[i].off, lab,
					SLOT_MD_STRONG);
				doc_put(d, b.ptr + tl.v[i].off + lab,
					tl.v[i].len - lab, SLOT_NORMAL);
			} else {
				doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len,
					SLOT_NORMAL);
			}
			doc_end(d);
		}
	}
	if (c->nr_examples)
		doc_line(d, "Examples:", SLOT_MD_STRONG, 0);
	for (k = 0; k < c->nr_examples; k++) {
		buf_reset(&b);
		text_sanitize(&b, c->examples[k], strlen(c->examples[k]), 8, 0);
		text_wrap(&tl, b.ptr, b.len, width > 4 ? width - 2 : width);
		for (i = 0; i < tl.nr; i++) {
			doc_begin(d, SLOT_NORMAL, 0, 0);
			doc_puts(d, i ? "  " : glyph(G_BULLET), i ?
				 SLOT_NORMAL : SLOT_MD_BULLET);
			if (!i)
				doc_puts(d, " ", SLOT_NORMAL);
			doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len,
				SLOT_NORMAL);
			doc_end(d);
		}
	}
	text_lines_release(&tl);
	buf_release(&b);
}

static void draw_row(struct view *v, int y, size_t code, int selected,
		     int keyw)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	const struct code *c = &d->codes[code];
	int chosen = v->scr->pick_ops->has_code(v->scr, d->key, c->key);
	int x = p->list_x, end = p->list_x + p->list_cols;
	struct buf b = BUF_INIT;
	enum slot base = selected ? SLOT_SEL : SLOT_NORMAL;

	draw_fill(v->win, y, x, p->list_cols, base);
	if (d->select_many)
		buf_addstr(&b, chosen ? "[x]" : "[ ]");
	else
		buf_addstr(&b, chosen ? "(*)" : "( )");
	x += draw_str(v->win, y, x, end - x, b.ptr, b.len,
		      selected ? SLOT_SEL : chosen ? SLOT_MARK : SLOT_NORMAL);
	{
		char k[24];

		code_keys(d->nr_codes, code, k);
		buf_reset(&b);
		buf_addf(&b, " %s ", k);
	}
	x += draw_str(v->win, y, x, end - x, b.ptr, b.len,
		      selected ? SLOT_SEL : SLOT_NUMBER);
	buf_reset(&b);
	sanitize_line(&b, c->key);
	/* in its column: a key longer than the column is cut with a mark,
	 * not overdrawn by the name */
	draw_str(v->win, y, x, keyw < end - x ? keyw : end - x, b.ptr, b.len,
		 base);
	x += keyw + 1;
	if (x < end && c->name) {
		buf_reset(&b);
		sanitize_line(&b, c->name);
		x += draw_str(v->win, y, x, end - x, b.ptr, b.len, base);
	}
	if (c->group) {
		int gw;

		buf_reset(&b);
		sanitize_line(&b, c->group);
		gw = text_width(b.ptr, b.len);
		if (end - gw - 1 > x)
			draw_str(v->win, y, end - gw - 1, gw, b.ptr, b.len,
				 selected ? SLOT_SEL : SLOT_DIM);
	}
	buf_release(&b);
}

/* The hint under the title: the filter typed, or the keys in force. */
static void picker_hint(struct view *v, struct buf *out)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);

	if (p->filtering) {
		buf_addstr(out, "/");
		sanitize_line(out, p->filter.ptr);
		buf_addf(out, "_  (%zu of %zu; Enter picks, Esc ends the "
			 "filter)", p->nr_vis, d->nr_codes);
	} else {
		const struct pick_ops *po = v->scr->pick_ops;

		keys_hint(d->nr_codes, out);
		/* in a many-code dimension Enter closes: Space toggles; on
		 * the annotator's screen a code's key adds it and moves on
		 * (on a chosen code it removes it and stays), elsewhere it
		 * toggles - but where one pick is the whole decision (the
		 * map picker) it does that and closes, even there */
		if (po->one_pick)
			buf_addf(out, " or %s %s, / filter, Esc close",
				 d->select_many ? "Space" : "Enter",
				 po->pick_verb ? po->pick_verb : "pick");
		else if (d->select_many && po->next_dim)
			buf_addstr(out, " add and go on (a chosen one: remove), "
				   "Space toggle, Enter done");
		else if (d->select_many)
			buf_addstr(out, " or Space toggle, Enter done");
		else
			buf_addf(out, " or Enter %s", po->pick_verb ?
				 po->pick_verb : "pick");
		if (!po->one_pick)
			buf_addf(out, ", / filter, %sDel clear, Tab next, Esc "
				 "close", po->propose ? "+ propose, " :
				 "");
	}
}

/* The list of codes shown, the highlighted one kept in view. */
static void picker_list(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	size_t i;
	int r, keyw = 0;

	for (i = 0; i < d->nr_codes; i++) {
		int w = text_width(d->codes[i].key, strlen(d->codes[i].key));

		if (w > keyw)
			keyw = w;
	}
	if (keyw > p->list_cols / 2)
		keyw = p->list_cols / 2;

	/* keep the highlighted row shown */
	if (p->sel < p->top)
		p->top = p->sel;
	if (p->sel >= p->top + (size_t)p->list_rows)
		p->top = p->sel - (size_t)p->list_rows + 1;
	for (r = 0; r < p->list_rows; r++) {
		i = p->top + (size_t)r;
		if (i >= p->nr_vis) {
			if (!p->nr_vis && r == 0)
				draw_str(v->win, p->list_y, p->list_x,
					 p->list_cols, "no code matches",
					 strlen("no code matches"), SLOT_DIM);
			continue;
		}
		draw_row(v, p->list_y + r, p->vis[i], i == p->sel, keyw);
	}

}

/* The separator, and the highlighted code's definition beside or under
 * the list. */
static void picker_detail(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	int r;

	/* the separator and the highlighted code's definition */
	if (p->det_x > p->list_x) {
		for (r = 0; r < p->list_rows; r++)
			mvwaddch(v->win, p->list_y + r, p->det_x - 1,
				 ACS_VLINE);
	} else if (p->det_rows > 0) {
		wattrset(v->win, slot_attr(SLOT_DIALOG));
		mvwhline(v->win, p->det_y - 1, 1, ACS_HLINE, v->cols - 2);
		wattrset(v->win, A_NORMAL);
	}
	if (p->nr_vis && p->det_rows > 0) {
		render_detail(v, &d->codes[p->vis[p->sel]], p->det_cols);
		for (r = 0; r < p->det_rows && (size_t)r < p->detail.nr; r++) {
			struct draw_text t;

			memset(&t, 0, sizeof(t));
			t.fill = SLOT_NORMAL;
			doc_get(&p->detail, (size_t)r, &t);
			draw_line(v->win, p->det_y + r, p->det_x, p->det_cols,
				  &t);
		}
		if (p->detail.nr > (size_t)p->det_rows && p->det_rows > 0) {
			static const char more[] = "... C: whole book";

			draw_str(v->win, p->det_y + p->det_rows - 1,
				 p->det_x + p->det_cols - 18, 18, more,
				 strlen(more), SLOT_DIM);
		}
	}
}

static void picker_draw(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	struct buf b = BUF_INIT;

	werase(v->win);
	buf_addf(&b, "%zu/%zu ", p->dim + 1, v->scr->cb.nr_dims);
	sanitize_line(&b, d->key);
	buf_addf(&b, " (%s%s)", d->select_many ? "any number of codes" :
		 "one code", d->required ? ", required" : "");
	draw_frame(v->win, b.ptr, SLOT_DIALOG_TITLE);

	buf_reset(&b);
	if (d->question)
		sanitize_line(&b, d->question);
	else if (d->name)
		sanitize_line(&b, d->name);
	draw_str(v->win, 1, 1, v->cols - 2, b.ptr, b.len, SLOT_MD_STRONG);

	buf_reset(&b);
	picker_hint(v, &b);
	draw_str(v->win, 2, 1, v->cols - 2, b.ptr, b.len,
		 p->filtering ? SLOT_NORMAL : SLOT_DIM);

	picker_list(v);
	picker_detail(v);
	wnoutrefresh(v->win);
	buf_release(&b);
}

/* After a decision: on to the dimension the screen's picks go on to
 * (the annotator's: the next required one still to code), or close when
 * there is none. */
static int move_on(struct view *v)
{
	struct picker *p = v->priv;
	const struct pick_ops *po = v->scr->pick_ops;
	long next = po->next_dim ? po->next_dim(v->scr, p->dim) : -1;

	if (next < 0)
		return H_CLOSE;
	set_dim(v, (size_t)next);
	picker_layout(v);
	return H_REDRAW;
}

/* Save a pick of code index `code`; `advance`: a decision made, on to
 * the next dimension (Space toggles without one). */
static int pick(struct view *v, size_t code, int advance)
{
	const struct dimension *d = pdim(v);
	const char *key = d->codes[code].key;
	const struct pick_ops *po = v->scr->pick_ops;

	if (d->select_many) {
		if (po->toggle(v->scr, d, key) < 0)
			return H_REDRAW;
		/* a code added is a decision; one removed waits for
		 * the next */
		if (po->next_dim && advance &&
		    po->has_code(v->scr, d->key, key))
			return move_on(v);
		return H_REDRAW;
	}
	if (po->set_codes(v->scr, d, &key, 1) < 0)
		return H_REDRAW;
	/* kept pending (the study is busy): the picker closes, so the keys
	 * typed next cannot pick in another dimension meanwhile */
	if (po->pending && po->pending(v->scr))
		return H_CLOSE;
	return move_on(v);
}

static int no_such_code(struct view *v, int k)
{
	const struct dimension *d = pdim(v);
	struct buf b = BUF_INIT;
	char kn[32];

	keys_hint(d->nr_codes, &b);
	screen_msg(v->scr, MSG_ERR, "no code %s in %s: %s pick, / filters",
		   keyname_of(k, kn), d->key, b.ptr);
	buf_release(&b);
	return H_REDRAW;
}

/* A code's own key (a digit or a letter). */
static int pick_key(struct view *v, int k)
{
	const struct dimension *d = pdim(v);
	long i = key_code(k);

	if (i < 0 || (size_t)i >= d->nr_codes)
		return no_such_code(v, k);
	return pick(v, (size_t)i, 1);
}

static void filter_add(struct view *v, int key)
{
	struct picker *p = v->priv;
	char u[4];

	buf_add(&p->filter, u, text_encode((uint32_t)key, u));
	refilter(v);
}

static void filter_changed(struct view *v)
{
	refilter(v);
}

/* Up, down, a page up or down the list. */
static int move_sel(struct view *v, enum action a)
{
	struct picker *p = v->priv;
	size_t page = p->list_rows > 1 ? (size_t)p->list_rows - 1 : 1;

	switch (a) {
	case ACT_LINE_DOWN:
		if (p->sel + 1 < p->nr_vis)
			p->sel++;
		break;
	case ACT_LINE_UP:
		if (p->sel)
			p->sel--;
		break;
	case ACT_PAGE_DOWN:
		p->sel = p->sel + page < p->nr_vis ? p->sel + page :
			 (p->nr_vis ? p->nr_vis - 1 : 0);
		break;
	default:
		p->sel = p->sel > page ? p->sel - page : 0;
		break;
	}
	return H_REDRAW;
}

/* Backspace in the filter (on an empty one: the filter ends). */
static int filter_backspace(struct view *v)
{
	struct picker *p = v->priv;

	if (p->filtering && !p->filter.len) {
		p->filtering = 0;
		return H_REDRAW;
	}
	if (p->filter.len) {
		size_t n = p->filter.len - 1;

		while (n > 0 && ((unsigned char)p->filter.ptr[n] &
				 0xc0) == 0x80)
			n--;
		buf_setlen(&p->filter, n);
		filter_changed(v);
	}
	return H_REDRAW;
}

/* Del: the dimension cleared, as the screen's picks clear it. */
static int clear_dim(struct view *v)
{
	/* the screen's set_codes gets a list, empty */
	static const char *const none[1] = { NULL };

	v->scr->pick_ops->set_codes(v->scr, pdim(v), none, 0);
	return H_REDRAW;
}

/* `+`: the form that proposes a new code, where the screen takes
 * proposals and the dimension has "other" to hold one. */
static int propose(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);

	if (!v->scr->pick_ops->propose) {
		screen_msg(v->scr, MSG_ERR, "codes are proposed while "
			   "coding; here pick one of the codebook");
		return H_REDRAW;
	}
	if (!dimension_code(d, "other")) {
		screen_msg(v->scr, MSG_ERR, "%s has no code \"other\" "
			   "to hold a proposal", d->key);
		return H_REDRAW;
	}
	screen_push_with(v->scr, &form_view_ops, &p->dim);
	return H_HANDLED;
}

/* A printable key bound to nothing: the filter's, else a code's. */
static int text_key(struct view *v, int key)
{
	struct picker *p = v->priv;

	if (!key_is_text(key))
		return H_HANDLED;
	if (p->filtering) {
		filter_add(v, key);
		return H_REDRAW;
	}
	if (key_code(key) >= 0)
		return pick_key(v, key);
	screen_msg(v->scr, MSG_INFO, "%s picks nothing here: / filters "
		   "the codes", keyname_of(key, (char[32]){ 0 }));
	return H_REDRAW;
}

static int picker_handle(struct view *v, enum action a, int key)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);

	switch (a) {
	case ACT_PICK_NUMBER:
		if (p->filtering) {
			filter_add(v, key);
			return H_REDRAW;
		}
		return pick_key(v, key);
	case ACT_FILTER:
		if (p->filtering) {
			filter_add(v, key);
			return H_REDRAW;
		}
		p->filtering = 1;
		return H_REDRAW;
	case ACT_PICK:
		if (d->select_many && !p->filter.len)
			return move_on(v);
		if (!p->nr_vis)
			return H_REDRAW;
		{
			size_t code = p->vis[p->sel];

			p->filtering = 0;
			buf_reset(&p->filter);
			refilter(v);
			return pick(v, code, 1);
		}
	case ACT_TOGGLE:
		if (!p->nr_vis)
			return H_REDRAW;
		return pick(v, p->vis[p->sel], !d->select_many);
	case ACT_LINE_DOWN:
	case ACT_LINE_UP:
	case ACT_PAGE_DOWN:
	case ACT_PAGE_UP:
		return move_sel(v, a);
	case ACT_ED_BACKSPACE:
		return filter_backspace(v);
	case ACT_ED_KILL_BACK:
		buf_reset(&p->filter);
		filter_changed(v);
		return H_REDRAW;
	case ACT_CLEAR_DIM:
		return clear_dim(v);
	case ACT_PROPOSE:
		return propose(v);
	case ACT_NEXT_DIM:
		set_dim(v, (p->dim + 1) % v->scr->cb.nr_dims);
		picker_layout(v);
		return H_REDRAW;
	case ACT_PREV_DIM:
		set_dim(v, (p->dim + v->scr->cb.nr_dims - 1) %
			v->scr->cb.nr_dims);
		picker_layout(v);
		return H_REDRAW;
	case ACT_CLOSE:
		if (p->filtering) {
			/* Esc ends the filter first */
			p->filtering = 0;
			buf_reset(&p->filter);
			refilter(v);
			return H_REDRAW;
		}
		return H_CLOSE;
	case ACT_NONE:
		return text_key(v, key);
	default:
		return H_UNHANDLED;
	}
}

static void picker_close(struct view *v)
{
	struct picker *p = v->priv;

	buf_release(&p->filter);
	free(p->vis);
	doc_release(&p->detail);
	v->scr->picking = -1;
	v->scr->dirty |= DIRTY_BAR;
}

const struct view_ops picker_view_ops = {
	.name = "picker",
	.keymap = KEYMAP_PICKER,
	.priv_size = sizeof(struct picker),
	.text_input = 1,
	.open = picker_open,
	.layout = picker_layout,
	.draw = picker_draw,
	.handle = picker_handle,
	.close = picker_close,
};

void screen_open_picker(struct screen *scr, size_t dim)
{
	if (!scr->pick_ops)
		return;
	screen_push_with(scr, &picker_view_ops, &dim);
}

/* ---- proposing a code ----------------------------------------------- */

enum { F_KEY, F_NAME, F_DEF, NR_FIELDS };

static const char *const field_label[NR_FIELDS] = {
	"Key", "Name", "Definition"
};

/* the fields' names in a draft */
static const char *const field_draft[NR_FIELDS] = {
	"key", "name", "definition"
};

struct form {
	size_t dim;
	struct edit f[NR_FIELDS];
	int at;			/* field with the cursor */
};

static void restore_draft(struct view *v);

/* v->arg: the dimension's index (a size_t) */
static int form_open(struct view *v)
{
	const size_t *dim = v->arg;
	struct form *f = v->priv;
	int i;

	f->dim = *dim;
	for (i = 0; i < NR_FIELDS; i++)
		edit_init(&f->f[i], 0);
	restore_draft(v);
	return 0;
}

/* A proposal being typed when the screen was stopped comes back. */
static void restore_draft(struct view *v)
{
	struct form *f = v->priv;
	struct screen *scr = v->scr;
	const char *dim = scr->cb.dims[f->dim].key;
	struct err e = ERR_INIT;
	int i, found, any = 0;

	for (i = 0; i < NR_FIELDS; i++) {
		char *t = draft_get(scr->st, scr->actor, scr->item.id,
				    DRAFT_PROPOSAL, dim, field_draft[i],
				    &found, &e);

		if (found) {
			edit_set(&f->f[i], t);
			any = 1;
		}
		free(t);
	}
	if (any)
		screen_msg(scr, MSG_INFO, "the proposal you were typing when "
			   "the screen stopped is back");
}

/* The screen is stopped with the form open: keep what was typed. */
static int form_hangup(struct view *v)
{
	struct form *f = v->priv;
	struct draft_field d[NR_FIELDS];
	struct err e = ERR_INIT;
	int i, changed = 0;

	if (!f)
		return 0;
	for (i = 0; i < NR_FIELDS; i++) {
		d[i].name = field_draft[i];
		d[i].text = f->f[i].text.ptr;
		changed |= f->f[i].changed && f->f[i].text.len;
	}
	if (!changed)
		return 0;
	return draft_save(v->scr->st, v->scr->actor, v->scr->item.id,
			  DRAFT_PROPOSAL, v->scr->cb.dims[f->dim].key, d,
			  NR_FIELDS, &e) == 0;
}

static void form_layout(struct view *v)
{
	screen_overlay_box(v->scr, v, 13, 90);
}

static void form_draw(struct view *v)
{
	struct form *f = v->priv;
	const struct dimension *d = &v->scr->cb.dims[f->dim];
	struct buf b = BUF_INIT;
	int i, y = 1, lw = 12;

	werase(v->win);
	buf_addstr(&b, "Propose a new code for ");
	sanitize_line(&b, d->key);
	draw_frame(v->win, b.ptr, SLOT_DIALOG_TITLE);
	{
		static const char note[] = "The owner and adjudicators "
			"decide on it; meanwhile the item is coded \"other\".";

		draw_str(v->win, y++, 1, v->cols - 2, note, strlen(note),
			 SLOT_DIM);
	}
	y++;
	for (i = 0; i < NR_FIELDS; i++) {
		int rows = i == F_DEF ? 4 : 1;

		buf_reset(&b);
		buf_addf(&b, "%s:", field_label[i]);
		draw_str(v->win, y, 1, lw, b.ptr, b.len, i == f->at ?
			 SLOT_MD_STRONG : SLOT_NORMAL);
		edit_draw(&f->f[i], v->win, y, 1 + lw, rows,
			  v->cols - 2 - lw, i == f->at);
		y += rows + 1;
	}
	{
		static const char keys[] = "Tab/Enter next field (Enter on "
			"the last saves), Esc cancels; key: letters, digits, "
			"_ - .";

		draw_str(v->win, v->rows - 2, 1, v->cols - 2, keys,
			 strlen(keys), SLOT_DIM);
	}
	wnoutrefresh(v->win);
	buf_release(&b);
}

static int form_handle(struct view *v, enum action a, int key)
{
	struct form *f = v->priv;
	const struct dimension *d = &v->scr->cb.dims[f->dim];
	struct screen *scr = v->scr;

	switch (a) {
	case ACT_NEXT_FIELD:
		if (f->at + 1 < NR_FIELDS) {
			f->at++;
			return H_REDRAW;
		}
		if (key != TK_ENTER) {
			f->at = 0;
			return H_REDRAW;
		}
		if (scr->pick_ops->propose(scr, d, f->f[F_KEY].text.ptr,
					   f->f[F_NAME].text.ptr,
					   f->f[F_DEF].text.ptr) < 0)
			return H_REDRAW;
		/* a `select: one` dimension is decided: close the picker
		 * under the form too */
		if (!d->select_many) {
			screen_pop(scr);
			screen_pop(scr);
			return H_HANDLED;
		}
		return H_CLOSE;
	case ACT_PREV_FIELD:
		f->at = f->at ? f->at - 1 : NR_FIELDS - 1;
		return H_REDRAW;
	case ACT_CANCEL:
		return H_CLOSE;
	case ACT_NONE:
		edit_insert_key(&f->f[f->at], key);
		return H_REDRAW;
	default:
		if (edit_action(&f->f[f->at], a))
			return H_REDRAW;
		return H_HANDLED;
	}
}

static void form_close(struct view *v)
{
	struct form *f = v->priv;
	int i;

	for (i = 0; i < NR_FIELDS; i++)
		edit_release(&f->f[i]);
}

const struct view_ops form_view_ops = {
	.name = "propose",
	.keymap = KEYMAP_FORM,
	.priv_size = sizeof(struct form),
	.text_input = 1,
	.paste = 1,
	.open = form_open,
	.layout = form_layout,
	.draw = form_draw,
	.handle = form_handle,
	.close = form_close,
	.hangup = form_hangup,
	.kept = "the proposal being typed is kept as a draft, offered next "
		"time",
};
