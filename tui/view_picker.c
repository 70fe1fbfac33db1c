/*
 * view_picker: the code picker overlay, and the form that proposes a new
 * code from it.
 *
 * The picker lists the codes of one dimension with the keys that pick
 * them (fixed: the codebook's order, so a key means the same code whatever
 * the filter), chosen marks and groups, and shows the highlighted code's
 * definition, include and exclude guidance and examples.  Typing letters
 * filters (key, name or group, case-insensitive); digits pick, in the
 * fewest keys: codes 1-9 are their digit and a tenth code is 0, like the
 * keyboard's row; with 11 to 19 codes, 0 is a tens prefix (00 is code 10,
 * 06 code 16); with 20 or more, codes are typed as decimal numbers, a
 * digit that could start a longer number waiting for the next.  A
 * `select: one` dimension is saved and the picker closes; a `select:
 * many` one toggles and stays open.  Tab moves to the next dimension.
 *
 * Limitations: the definition pane shows what fits; the codebook view
 * (C) has every definition in full.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draft.h"
#include "core/text.h"
#include "tui/doc.h"
#include "tui/screen.h"

struct picker {
	size_t dim;
	struct buf filter;
	size_t *vis;		/* indexes of the codes shown */
	size_t nr_vis;
	size_t sel;		/* index into vis */
	size_t top;		/* first row of the list shown */
	int pending;		/* a number being typed, 0 if none */
	int tens;		/* 0 typed: the next digit picks 10-19 */
	struct doc detail;	/* of the highlighted code */
	int list_y, list_x, list_rows, list_cols;
	int det_y, det_x, det_rows, det_cols;
};

enum numbering {
	NUM_SINGLE,	/* up to 10 codes: 1-9, then 0 */
	NUM_TENS,	/* 11-19: 1-9, then 00-09 */
	NUM_DECIMAL,	/* 20 or more: decimal numbers */
};

static enum numbering numbering(size_t n)
{
	return n <= 10 ? NUM_SINGLE : n <= 19 ? NUM_TENS : NUM_DECIMAL;
}

/* The keys that pick code index i of n, as the list shows them. */
static void code_keys(size_t n, size_t i, char out[24])
{
	switch (numbering(n)) {
	case NUM_SINGLE:
		snprintf(out, 24, "%2zu", (i + 1) % 10);
		break;
	case NUM_TENS:
		if (i < 9)
			snprintf(out, 24, "%2zu", i + 1);
		else
			snprintf(out, 24, "0%zu", i - 9);
		break;
	default:
		snprintf(out, 24, "%2zu", i + 1);
		break;
	}
}

static void keys_hint(size_t n, struct buf *b)
{
	switch (numbering(n)) {
	case NUM_SINGLE:
		if (n == 10)
			buf_addstr(b, "1-9, 0");
		else
			buf_addf(b, "1-%zu", n);
		break;
	case NUM_TENS:
		buf_addf(b, "1-9, 00-0%zu", n - 10);
		break;
	default:
		buf_addf(b, "1-%zu", n);
		break;
	}
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
		if (screen_has_code(v->scr, d->key, d->codes[p->vis[i]].key)) {
			p->sel = i;
			break;
		}
}

static void set_dim(struct view *v, size_t dim)
{
	struct picker *p = v->priv;

	p->dim = dim;
	p->pending = 0;
	p->tens = 0;
	buf_reset(&p->filter);
	refilter(v);
	v->scr->picking = (int)dim;
	v->scr->dirty |= DIRTY_BAR;
}

static int picker_open(struct view *v)
{
	size_t *dim = v->priv;
	struct picker *p = xcalloc(1, sizeof(*p));

	buf_init(&p->filter, 0);
	buf_init(&p->detail.text, 0);
	p->dim = *dim;
	free(dim);
	v->priv = p;
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
	int chosen = screen_has_code(v->scr, d->key, c->key);
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

static void picker_draw(struct view *v)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	struct buf b = BUF_INIT;
	size_t i;
	int r, keyw = 0;

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
	if (p->tens) {
		buf_addf(&b, "0_  (the next digit picks 00-0%zu, codes 10-%zu)",
			 d->nr_codes - 10, d->nr_codes);
	} else if (p->pending) {
		buf_addf(&b, "number: %d_  (Enter picks %d, or type the "
			 "next digit)", p->pending, p->pending);
	} else if (p->filter.len) {
		buf_addstr(&b, "filter: ");
		sanitize_line(&b, p->filter.ptr);
		buf_addf(&b, "  (%zu of %zu)", p->nr_vis, d->nr_codes);
	} else {
		const struct pick_ops *po = v->scr->pick_ops;

		keys_hint(d->nr_codes, &b);
		/* in a many-code dimension Enter closes: Space toggles */
		if (d->select_many)
			buf_addstr(&b, " or Space toggle, Enter done");
		else
			buf_addf(&b, " or Enter %s", po && po->pick_verb ?
				 po->pick_verb : "pick");
		buf_addf(&b, ", type to filter, %sDel clear, Tab next, Esc "
			 "close", po && po->no_propose ? "" : "+ propose, ");
	}
	draw_str(v->win, 2, 1, v->cols - 2, b.ptr, b.len,
		 p->pending || p->tens || p->filter.len ? SLOT_NORMAL :
		 SLOT_DIM);

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
	wnoutrefresh(v->win);
	buf_release(&b);
}

/* Pick code index `code`: save, and say whether the picker closes. */
static int pick(struct view *v, size_t code)
{
	const struct dimension *d = pdim(v);
	const char *key = d->codes[code].key;

	if (d->select_many) {
		screen_save_toggle(v->scr, d, key);
		return H_REDRAW;
	}
	if (screen_save_codes(v->scr, d, &key, 1) < 0)
		return H_REDRAW;
	return H_CLOSE;
}

static int no_such_code(struct view *v, const char *keys)
{
	const struct dimension *d = pdim(v);
	struct buf b = BUF_INIT;

	keys_hint(d->nr_codes, &b);
	screen_msg(v->scr, MSG_ERR, "no code %s in %s: %s pick", keys, d->key,
		   b.ptr);
	buf_release(&b);
	return H_REDRAW;
}

static int pick_number(struct view *v, int digit)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	long n = (long)p->pending * 10 + digit;
	char k[24];

	switch (numbering(d->nr_codes)) {
	case NUM_SINGLE:
		n = digit ? digit : 10;
		if (n > (long)d->nr_codes) {
			snprintf(k, sizeof(k), "%d", digit);
			return no_such_code(v, k);
		}
		return pick(v, (size_t)n - 1);
	case NUM_TENS:
		if (p->tens) {
			p->tens = 0;
			if (10 + digit > (long)d->nr_codes) {
				snprintf(k, sizeof(k), "0%d", digit);
				return no_such_code(v, k);
			}
			return pick(v, (size_t)(9 + digit));
		}
		if (!digit) {
			p->tens = 1;
			return H_REDRAW;
		}
		return pick(v, (size_t)digit - 1);
	default:
		break;
	}

	if (n == 0) {
		screen_msg(v->scr, MSG_ERR, "codes are numbered from 1");
		return H_REDRAW;
	}
	if (n > (long)d->nr_codes) {
		p->pending = 0;
		screen_msg(v->scr, MSG_ERR, "no code %ld: %s has %zu", n,
			   d->key, d->nr_codes);
		return H_REDRAW;
	}
	if (n * 10 <= (long)d->nr_codes) {
		/* 1 of 16: could be 1 or 10..16 */
		p->pending = (int)n;
		return H_REDRAW;
	}
	p->pending = 0;
	return pick(v, (size_t)n - 1);
}

static void filter_changed(struct view *v)
{
	refilter(v);
}

static int picker_handle(struct view *v, enum action a, int key)
{
	struct picker *p = v->priv;
	const struct dimension *d = pdim(v);
	size_t page = p->list_rows > 1 ? (size_t)p->list_rows - 1 : 1;

	if (a != ACT_PICK_NUMBER && a != ACT_PICK &&
	    a != ACT_ED_BACKSPACE && (p->pending || p->tens))
		p->pending = p->tens = 0;
	switch (a) {
	case ACT_PICK_NUMBER:
		return pick_number(v, key - '0');
	case ACT_PICK:
		if (p->tens)
			return H_REDRAW;
		if (p->pending) {
			int n = p->pending;

			p->pending = 0;
			return pick(v, (size_t)n - 1);
		}
		if (d->select_many && !p->filter.len)
			return H_CLOSE;
		if (!p->nr_vis)
			return H_REDRAW;
		if (d->select_many) {
			int r = pick(v, p->vis[p->sel]);

			buf_reset(&p->filter);
			filter_changed(v);
			return r;
		}
		return pick(v, p->vis[p->sel]);
	case ACT_TOGGLE:
		if (!p->nr_vis)
			return H_REDRAW;
		return pick(v, p->vis[p->sel]);
	case ACT_LINE_DOWN:
		if (p->sel + 1 < p->nr_vis)
			p->sel++;
		return H_REDRAW;
	case ACT_LINE_UP:
		if (p->sel)
			p->sel--;
		return H_REDRAW;
	case ACT_PAGE_DOWN:
		p->sel = p->sel + page < p->nr_vis ? p->sel + page :
			 (p->nr_vis ? p->nr_vis - 1 : 0);
		return H_REDRAW;
	case ACT_PAGE_UP:
		p->sel = p->sel > page ? p->sel - page : 0;
		return H_REDRAW;
	case ACT_ED_BACKSPACE:
		if (p->tens) {
			p->tens = 0;
			return H_REDRAW;
		}
		if (p->pending) {
			p->pending /= 10;
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
	case ACT_ED_KILL_BACK:
		buf_reset(&p->filter);
		filter_changed(v);
		return H_REDRAW;
	case ACT_CLEAR_DIM:
		screen_save_codes(v->scr, d, NULL, 0);
		return H_REDRAW;
	case ACT_PROPOSE:
		if (v->scr->pick_ops && v->scr->pick_ops->no_propose) {
			screen_msg(v->scr, MSG_ERR, "codes are proposed while "
				   "coding; here pick one of the codebook");
			return H_REDRAW;
		}
		if (!dimension_code(d, "other")) {
			screen_msg(v->scr, MSG_ERR, "%s has no code \"other\" "
				   "to hold a proposal", d->key);
			return H_REDRAW;
		}
		{
			size_t *dim = xmalloc(sizeof(*dim));

			*dim = p->dim;
			screen_push(v->scr, &form_view_ops, dim);
		}
		return H_HANDLED;
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
		return H_CLOSE;
	case ACT_NONE:
		if (key_is_text(key)) {
			char u[4];

			buf_add(&p->filter, u, text_encode((uint32_t)key, u));
			filter_changed(v);
			return H_REDRAW;
		}
		return H_HANDLED;
	default:
		return H_UNHANDLED;
	}
}

static void picker_close(struct view *v)
{
	struct picker *p = v->priv;

	if (p) {
		buf_release(&p->filter);
		free(p->vis);
		doc_release(&p->detail);
		free(p);
	}
	v->priv = NULL;
	v->scr->picking = -1;
	v->scr->dirty |= DIRTY_BAR;
	if (v->win)
		delwin(v->win);
	v->win = NULL;
}

const struct view_ops picker_view_ops = {
	.name = "picker",
	.keymap = KEYMAP_PICKER,
	.text_input = 1,
	.open = picker_open,
	.layout = picker_layout,
	.draw = picker_draw,
	.handle = picker_handle,
	.close = picker_close,
};

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

static int form_open(struct view *v)
{
	size_t *dim = v->priv;
	struct form *f = xcalloc(1, sizeof(*f));
	int i;

	f->dim = *dim;
	free(dim);
	for (i = 0; i < NR_FIELDS; i++)
		edit_init(&f->f[i], 0);
	v->priv = f;
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
		if (screen_save_proposal(scr, d, f->f[F_KEY].text.ptr,
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

	if (f) {
		for (i = 0; i < NR_FIELDS; i++)
			edit_release(&f->f[i]);
		free(f);
	}
	v->priv = NULL;
	if (v->win)
		delwin(v->win);
	v->win = NULL;
}

const struct view_ops form_view_ops = {
	.name = "propose",
	.keymap = KEYMAP_FORM,
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
