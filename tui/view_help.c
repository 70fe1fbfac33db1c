/* SPDX-License-Identifier: MIT */
/*
 * view_help: the text view - a read-only overlay that scrolls and
 * searches like a pane, its text rendered again at every width by the
 * function of a struct text_spec (screen.h) - and the two texts every
 * screen has: the keys (generated from the keymap tables in force, so
 * they cannot drift from what the keys do) and the codebook with every
 * definition.  The adjudicator's memos are a text view too.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"

struct textview {
	const struct text_spec *spec;
	struct doc doc;
	int width;
	struct pager pg;
};

/* `label` then sanitized `text`, wrapped at `width` with `indent`. */
static void para(struct doc *d, int indent, const char *label,
		 const char *text, int width, enum slot slot)
{
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t i, lab = label ? strlen(label) : 0;
	int k;

	if (!text || !*text)
		return;
	if (label)
		buf_addstr(&b, label);
	text_sanitize(&b, text, strlen(text), 8, 0);
	text_wrap(&tl, b.ptr, b.len, width - indent > 10 ? width - indent :
		  10);
	for (i = 0; i < tl.nr; i++) {
		doc_begin(d, slot, 0, d->nr);
		for (k = 0; k < indent; k++)
			doc_put(d, " ", 1, slot);
		if (i == 0 && lab && tl.v[i].len >= lab) {
			doc_put(d, b.ptr + tl.v[i].off, lab, SLOT_MD_STRONG);
			doc_put(d, b.ptr + tl.v[i].off + lab,
				tl.v[i].len - lab, slot);
		} else {
			doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len, slot);
		}
		doc_end(d);
	}
	text_lines_release(&tl);
	buf_release(&b);
}

static void render_keys(struct doc *d, struct screen *scr, int width)
{
	struct buf help = BUF_INIT;
	char *p, *line;
	int keyw = 0;

	keymap_help_for(&help, scr->ops->keymap);
	doc_line(d, "Keys (q, Esc or ? closes; / searches)", SLOT_MD_HEADING,
		 0);
	para(d, 0, NULL, scr->ops->help_intro ? scr->ops->help_intro :
	     "Every pick, memo and flag is saved the moment it "
	     "is made. Digits 1-9 open the picker of that dimension of the "
	     "coding bar (c the first not coded); in the picker the key "
	     "shown beside a code picks it (1-9, then letters from the tenth "
	     "code), and the picker moves on to the next required dimension "
	     "still to code; / filters, Enter picks the highlighted code, Esc "
	     "leaves. In a dimension that takes several codes, Space toggles "
	     "a code and stays. These are the keys in force, with those of "
	     "your keys file (~/.config/bugcoder/keys, see the manual).",
	     width, SLOT_NORMAL);
	/* the widest key list, capped */
	for (p = help.ptr; (line = p) && *p; p++) {
		char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
		int w;

		if (!nl)
			break;
		if (*line != '#' && tab && tab < nl) {
			w = text_width(line, (size_t)(tab - line));
			if (w > keyw)
				keyw = w;
		}
		p = nl;
	}
	if (keyw > 26)
		keyw = 26;
	for (p = help.ptr; *p;) {
		char *nl = strchr(p, '\n'), *t1, *t2;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (*p == '#') {
			doc_line(d, "", SLOT_NORMAL, d->nr);
			doc_begin(d, SLOT_MD_STRONG, 0, d->nr);
			doc_put(d, p + 1, len - 1, SLOT_MD_STRONG);
			doc_end(d);
		} else if ((t1 = memchr(p, '\t', len)) &&
			   (t2 = memchr(t1 + 1, '\t', len - (size_t)(t1 -
								   p) - 1))) {
			struct buf h = BUF_INIT;
			struct text_lines tl = TEXT_LINES_INIT;
			int w = text_width(p, (size_t)(t1 - p)), k;
			size_t i;

			/* "keys   help (action)", the help wrapped */
			buf_add(&h, t2 + 1, len - (size_t)(t2 + 1 - p));
			buf_addstr(&h, " (");
			buf_add(&h, t1 + 1, (size_t)(t2 - t1 - 1));
			buf_addstr(&h, ")");
			text_wrap(&tl, h.ptr, h.len, width - keyw - 4 > 20 ?
				  width - keyw - 4 : 20);
			doc_begin(d, SLOT_NORMAL, 0, d->nr);
			doc_puts(d, "  ", SLOT_NORMAL);
			doc_put(d, p, (size_t)(t1 - p), SLOT_BAR_KEY);
			if (w > keyw) {
				doc_end(d);
				doc_begin(d, SLOT_NORMAL, 0, d->nr);
				w = -2;
			}
			for (i = 0; i < tl.nr; i++) {
				if (i) {
					doc_end(d);
					doc_begin(d, SLOT_NORMAL, 0, d->nr);
					w = -2;
				}
				for (k = w; k < keyw + 2; k++)
					doc_put(d, " ", 1, SLOT_NORMAL);
				doc_put(d, h.ptr + tl.v[i].off, tl.v[i].len,
					SLOT_NORMAL);
			}
			doc_end(d);
			text_lines_release(&tl);
			buf_release(&h);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	buf_release(&help);
}

static void render_codebook(struct doc *d, struct screen *scr, int width)
{
	const struct codebook *cb = &scr->cb;
	struct buf b = BUF_INIT;
	size_t i, j, k;

	doc_begin(d, SLOT_MD_HEADING, 0, 0);
	doc_put_untrusted(d, cb->title ? cb->title : cb->name,
			  SLOT_MD_HEADING);
	doc_end(d);
	doc_begin(d, SLOT_META, 0, 0);
	doc_puts(d, "codebook ", SLOT_META);
	doc_put_untrusted(d, cb->name, SLOT_META);
	doc_puts(d, " version ", SLOT_META);
	doc_put_untrusted(d, cb->version, SLOT_META);
	doc_puts(d, " (q or Esc closes; / searches)", SLOT_DIM);
	doc_end(d);
	para(d, 0, NULL, cb->description, width, SLOT_NORMAL);
	for (i = 0; i < cb->nr_dims; i++) {
		const struct dimension *dim = &cb->dims[i];

		doc_line(d, "", SLOT_NORMAL, d->nr);
		doc_begin(d, SLOT_MD_HEADING, 0, d->nr);
		buf_reset(&b);
		buf_addf(&b, "%zu. ", i + 1);
		doc_puts(d, b.ptr, SLOT_MD_HEADING);
		doc_put_untrusted(d, dim->key, SLOT_MD_HEADING);
		if (dim->name) {
			doc_puts(d, " - ", SLOT_MD_HEADING);
			doc_put_untrusted(d, dim->name, SLOT_MD_HEADING);
		}
		doc_puts(d, dim->select_many ? "  (any number of codes" :
			 "  (one code", SLOT_DIM);
		doc_puts(d, dim->required ? ", required)" : ", optional)",
			 SLOT_DIM);
		doc_end(d);
		para(d, 3, NULL, dim->question, width, SLOT_MD_EMPH);
		for (j = 0; j < dim->nr_codes; j++) {
			const struct code *c = &dim->codes[j];

			doc_line(d, "", SLOT_NORMAL, d->nr);
			doc_begin(d, SLOT_NORMAL, 0, d->nr);
			buf_reset(&b);
			buf_addf(&b, "   %2zu ", j + 1);
			doc_puts(d, b.ptr, SLOT_NUMBER);
			doc_put_untrusted(d, c->key, SLOT_MD_STRONG);
			if (c->name) {
				doc_puts(d, " - ", SLOT_NORMAL);
				doc_put_untrusted(d, c->name, SLOT_NORMAL);
			}
			if (c->group) {
				doc_puts(d, "  [", SLOT_DIM);
				doc_put_untrusted(d, c->group, SLOT_DIM);
				doc_puts(d, "]", SLOT_DIM);
			}
			if (c->distributed)
				doc_puts(d, "  distributed only", SLOT_DIM);
			doc_end(d);
			para(d, 6, "Definition: ", c->definition, width,
			     SLOT_NORMAL);
			para(d, 6, "Include: ", c->include, width,
			     SLOT_NORMAL);
			para(d, 6, "Exclude: ", c->exclude, width,
			     SLOT_NORMAL);
			for (k = 0; k < c->nr_examples; k++)
				para(d, 6, "Example: ",
				     c->examples[k], width, SLOT_NORMAL);
		}
	}
	buf_release(&b);
}

static int tv_open(struct view *v)
{
	struct textview *t = v->priv;

	/* the framework gave a cleared textview (text_view_ops.priv_size)
	 * and the spec screen_open_text() was given */
	t->spec = v->arg;
	buf_init(&t->doc.text, 0);
	pager_init(&t->pg, &doc_pager_src, &t->doc);
	return 0;
}

static void tv_layout(struct view *v)
{
	struct textview *t = v->priv;
	int width;

	screen_overlay_box(v->scr, v, 0, t->spec->max_cols);
	width = v->cols - 4;
	pager_set_size(&t->pg, v->rows - 2, v->cols - 4);
	if (width != t->width) {
		unsigned long long a = t->doc.nr && t->pg.top < t->doc.nr ?
			t->doc.lines[t->pg.top].anchor : 0;

		doc_clear(&t->doc);
		t->width = width;
		t->spec->render(&t->doc, v->scr, width);
		pager_goto(&t->pg, doc_find_anchor(&t->doc, a));
	}
	pager_clamp(&t->pg);
}

static void tv_draw(struct view *v)
{
	struct textview *t = v->priv;
	struct buf pos = BUF_INIT;

	werase(v->win);
	draw_frame(v->win, t->spec->title, SLOT_DIALOG_TITLE);
	pager_draw(&t->pg, v->win, 1, 2, 1);
	pager_position(&t->pg, &pos);
	if ((int)pos.len + 4 < v->cols)
		draw_str(v->win, v->rows - 1, v->cols - (int)pos.len - 3,
			 (int)pos.len, pos.ptr, pos.len, SLOT_DIALOG);
	wnoutrefresh(v->win);
	buf_release(&pos);
}

static int tv_handle(struct view *v, enum action a, int key)
{
	struct textview *t = v->priv;

	(void)key;
	if (a == ACT_CLOSE || a == ACT_QUIT ||
	    (t->spec->close_action != ACT_NONE &&
	     a == t->spec->close_action))
		return H_CLOSE;
	if (pager_action(&t->pg, a))
		return H_REDRAW;
	switch (a) {
	case ACT_SEARCH:
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
	case ACT_REDRAW:
		return H_UNHANDLED;
	default:
		return H_HANDLED;
	}
}

static void tv_close(struct view *v)
{
	struct textview *t = v->priv;

	if (t) {
		doc_release(&t->doc);
		pager_release(&t->pg);
	}
}

static struct pager *tv_pager(struct view *v)
{
	struct textview *t = v->priv;

	return &t->pg;
}

static const struct view_ops text_view_ops = {
	.name = "text",
	.keymap = KEYMAP_PAGER,
	.priv_size = sizeof(struct textview),
	.open = tv_open,
	.layout = tv_layout,
	.draw = tv_draw,
	.handle = tv_handle,
	.close = tv_close,
	.pager = tv_pager,
};

struct view *screen_open_text(struct screen *scr,
			      const struct text_spec *spec)
{
	return screen_push_with(scr, &text_view_ops, spec);
}

static const struct text_spec help_text = {
	.title = "Help", .render = render_keys, .close_action = ACT_NONE,
};

static const struct text_spec codebook_text = {
	.title = "Codebook", .render = render_codebook,
	.close_action = ACT_CODEBOOK,
};

void screen_open_help(struct screen *scr)
{
	screen_open_text(scr, &help_text);
}

void screen_open_codebook(struct screen *scr)
{
	screen_open_text(scr, &codebook_text);
}

int screen_is_codebook(const struct view *v)
{
	return v->ops == &text_view_ops && v->arg == &codebook_text;
}
