/* SPDX-License-Identifier: MIT */
/*
 * view_issue: the issue pane - title, state, author, dates, labels, the
 * body rendered from Markdown, then the comment thread.
 *
 * The whole issue is rendered once per pane width into a doc (a line
 * array); scrolling and drawing only read it.  On a width change the
 * top line's anchor finds the same place in the new rendering.  Only
 * verbatim lines (code, tables, tracebacks) scroll sideways.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/study/evidence.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/markdown.h"
#include "tui/screen.h"

struct issue_pane {
	struct doc doc;
	int width;		/* rendered for; 0 = not yet */
	struct pager pg;
	struct md_sections sec;	/* the <details> of body and comments */
};

/* "opened by AUTHOR on DATE", saying plainly what was not recorded (an
 * import without the author or the date; a deleted account). */
static void opened(struct doc *d, const char *author, const char *at)
{
	int who = author && *author, when = at && *at;

	if (!who && !when) {
		doc_puts(d, "author and opening date not recorded", SLOT_META);
		return;
	}
	doc_puts(d, "opened ", SLOT_META);
	if (who) {
		doc_puts(d, "by ", SLOT_META);
		doc_put_untrusted(d, author, SLOT_STATUS_OK);
	} else {
		doc_puts(d, "(author not recorded)", SLOT_META);
	}
	if (when) {
		doc_puts(d, " on ", SLOT_META);
		doc_put_date(d, at, SLOT_META);
	} else {
		doc_puts(d, " (date not recorded)", SLOT_META);
	}
}

static void wrapped(struct doc *d, const char *s, int width, enum slot slot,
		    unsigned long long anchor)
{
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t i;

	text_sanitize(&b, s ? s : "", s ? strlen(s) : 0, 8, 0);
	text_wrap(&tl, b.ptr, b.len, width);
	for (i = 0; i < tl.nr; i++) {
		doc_begin(d, slot, 0, anchor + tl.v[i].off);
		doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len, slot);
		doc_end(d);
	}
	text_lines_release(&tl);
	buf_release(&b);
}

static void rule(struct doc *d, int width, const char *label,
		 unsigned long long anchor)
{
	int i, w = 0;

	doc_begin(d, SLOT_MD_RULE, 0, anchor);
	if (label) {
		doc_puts(d, glyph(G_RULE), SLOT_MD_RULE);
		doc_puts(d, glyph(G_RULE), SLOT_MD_RULE);
		doc_puts(d, " ", SLOT_MD_RULE);
		doc_put_untrusted(d, label, SLOT_META);
		doc_puts(d, " ", SLOT_MD_RULE);
		{
			/* the width of what is on the line so far */
			struct doc_line *l = &d->lines[d->nr];

			w = text_width(d->text.ptr + l->off, l->len);
		}
	}
	for (i = w; i < width; i++)
		doc_puts(d, glyph(G_RULE), SLOT_MD_RULE);
	doc_end(d);
}

/* The title and the facts: the item's name and state, who opened it
 * and when, when it closed, its labels and address. */
static void render_facts(struct doc *d, const struct item *it, int width)
{
	struct buf b = BUF_INIT;
	char *name;
	size_t i;

	wrapped(d, it->title, width, SLOT_MD_HEADING, 0);
	doc_begin(d, SLOT_META, 0, 1ULL << 30);
	name = item_name(it->repo, it->number);
	doc_put_untrusted(d, name, SLOT_META);
	free(name);
	doc_puts(d, " ", SLOT_META);
	doc_puts(d, glyph(G_DOT), SLOT_META);
	doc_puts(d, " ", SLOT_META);
	doc_put_untrusted(d, it->state ? it->state : "state unknown",
			  SLOT_META);
	if (it->state_reason && *it->state_reason) {
		doc_puts(d, " (", SLOT_META);
		doc_put_untrusted(d, it->state_reason, SLOT_META);
		doc_puts(d, ")", SLOT_META);
	}
	doc_end(d);
	doc_wrap_last(d, width);

	doc_begin(d, SLOT_META, 0, 1ULL << 31);
	opened(d, it->author, it->created_at);
	if (it->closed_at && *it->closed_at) {
		doc_puts(d, ", closed ", SLOT_META);
		doc_put_date(d, it->closed_at, SLOT_META);
		if (it->days_open >= 0) {
			buf_reset(&b);
			buf_addf(&b, " (%.0f day%s)", it->days_open,
				 it->days_open >= 0.5 && it->days_open < 1.5 ?
				 "" : "s");
			doc_puts(d, b.ptr, SLOT_META);
		}
	} else if (it->state && !strcmp(it->state, "closed")) {
		doc_puts(d, ", closed (date not recorded)", SLOT_META);
	}
	doc_end(d);
	doc_wrap_last(d, width);

	if (it->nr_labels) {
		doc_begin(d, SLOT_META, 0, (1ULL << 31) + 1);
		doc_puts(d, "labels:", SLOT_META);
		for (i = 0; i < it->nr_labels; i++) {
			doc_puts(d, " [", SLOT_LABEL);
			doc_put_untrusted(d, it->labels[i], SLOT_LABEL);
			doc_puts(d, "]", SLOT_LABEL);
		}
		doc_end(d);
		doc_wrap_last(d, width);
	}
	if (it->url && *it->url) {
		doc_begin(d, SLOT_MD_LINK, 1, (1ULL << 31) + 2);
		doc_put_untrusted(d, it->url, SLOT_MD_LINK);
		doc_end(d);
	}
	rule(d, width, NULL, (1ULL << 31) + 3);
	buf_release(&b);
}

/* The comments, each a text of its own at anchor k * MD_ANCHOR_SPAN
 * (k = 2 the first), after a rule that counts them. */
static void render_thread(struct issue_pane *ip, const struct item *it,
			  int width)
{
	struct doc *d = &ip->doc;
	struct md_sections *ms = &ip->sec;
	unsigned long long sec = MD_ANCHOR_SPAN;
	struct buf b = BUF_INIT;
	size_t i;

	if (it->nr_comments || it->comment_count > 0) {
		buf_reset(&b);
		buf_addf(&b, "%zu comment%s", it->nr_comments,
			 it->nr_comments == 1 ? "" : "s");
		if ((size_t)it->comment_count > it->nr_comments)
			buf_addf(&b, " (of %d; the rest were not imported)",
				 it->comment_count);
		doc_line(d, "", SLOT_NORMAL, sec + MD_ANCHOR_SPAN - 1);
		rule(d, width, b.ptr, sec + MD_ANCHOR_SPAN - 1);
	}
	for (i = 0; i < it->nr_comments; i++) {
		const struct comment *c = &it->comments[i];

		sec += MD_ANCHOR_SPAN;
		doc_line(d, "", SLOT_NORMAL, sec);
		doc_begin(d, SLOT_META, 0, sec);
		doc_commented(d, c->author, c->created_at);
		doc_end(d);
		doc_wrap_last(d, width);
		if (c->body && *c->body)
			md_render_sections(d, c->body, strlen(c->body), width,
					   sec + 1, ms);
		else
			doc_line(d, "(empty)", SLOT_DIM, sec + 1);
	}
	buf_release(&b);
}

static void render(struct issue_pane *ip, const struct item *it, int width)
{
	struct doc *d = &ip->doc;
	struct md_sections *ms = &ip->sec;
	unsigned long long sec = MD_ANCHOR_SPAN;

	doc_clear(d);
	ip->width = width;
	ms->nr = 0;
	pager_changed(&ip->pg);
	render_facts(d, it, width);
	/* the body: the first text */
	if (it->body && *it->body) {
		md_render_sections(d, it->body, strlen(it->body), width, sec,
				   ms);
	} else {
		doc_line(d, "(no description)", SLOT_DIM, sec);
	}
	render_thread(ip, it, width);
}

static int issue_open(struct view *v)
{
	struct issue_pane *ip = v->priv;

	if (!v->opened) {
		buf_init(&ip->doc.text, 0);
		pager_init(&ip->pg, &doc_pager_src, &ip->doc);
	}
	/* a new item: render afresh at the next layout, every section
	 * open */
	doc_clear(&ip->doc);
	md_sections_release(&ip->sec);
	ip->width = 0;
	ip->pg.top = 0;
	ip->pg.sub = 0;
	pager_cursor(&ip->pg, 0);
	ip->pg.hscroll = 0;
	ip->pg.match = NO_MATCH;
	v->dirty = 1;
	return 0;
}

static void issue_layout(struct view *v)
{
	struct issue_pane *ip = v->priv;
	int width = v->cols;

	screen_place(v);
	pager_set_size(&ip->pg, v->rows - 1, v->cols);
	if (width != ip->width && v->scr->item.id) {
		unsigned long long a = ip->doc.nr && ip->pg.top < ip->doc.nr ?
			ip->doc.lines[ip->pg.top].anchor : 0;
		int had = ip->width != 0;

		/* a new item starts as the user's setting says (read with
		 * the keys, when the terminal was set up) */
		if (!had)
			pager_set_wrap(&ip->pg, screen_wrap_setting(PANE_ISSUE));
		render(ip, &v->scr->item, width);
		ip->pg.match = NO_MATCH;
		pager_goto(&ip->pg, had ? doc_find_anchor(&ip->doc, a) : 0);
	}
	pager_clamp(&ip->pg);
	v->dirty = 1;
}

static void issue_draw(struct view *v)
{
	struct issue_pane *ip = v->priv;
	struct screen *scr = v->scr;
	int focused = scr->focus == PANE_ISSUE;
	enum slot ts = focused ? SLOT_PANE_FOCUS : SLOT_PANE_TITLE;
	struct buf b = BUF_INIT, pos = BUF_INIT;
	int used;

	werase(v->win);
	draw_fill(v->win, 0, 0, v->cols, ts);
	buf_addf(&b, " issue");
	if (!scr->split)
		buf_addf(&b, " [Tab: fix]");
	else if (focused)
		buf_addstr(&b, " *");
	used = draw_str(v->win, 0, 0, v->cols, b.ptr, b.len, ts);
	pager_position(&ip->pg, &pos);
	buf_addch(&pos, ' ');
	if (v->cols - used > (int)pos.len + 1)
		draw_str(v->win, 0, v->cols - (int)pos.len, (int)pos.len,
			 pos.ptr, pos.len, ts);
	pager_draw(&ip->pg, v->win, 1, 0, focused);
	wnoutrefresh(v->win);
	buf_release(&b);
	buf_release(&pos);
}

/* Close or open the first section whose title is in view, else the one
 * the top line is in; render again, keeping the place. */
static int toggle_section(struct view *v)
{
	struct issue_pane *ip = v->priv;
	struct md_sections *ms = &ip->sec;
	size_t pick, top = ip->pg.top;
	size_t end = top + (size_t)(ip->pg.rows > 0 ? ip->pg.rows : 1);
	unsigned long long a;

	pick = md_sections_at(ms, top, end);
	if (pick == (size_t)-1) {
		screen_msg(v->scr, MSG_INFO, "no <details> section here");
		return H_HANDLED;
	}
	md_sections_toggle(ms, pick);
	a = ip->doc.nr && top < ip->doc.nr ? ip->doc.lines[top].anchor : 0;
	render(ip, &v->scr->item, ip->width);
	ip->pg.match = NO_MATCH;
	pager_goto(&ip->pg, doc_find_anchor(&ip->doc, a));
	if (pick < ms->nr && ms->title[pick] < ip->pg.top)
		pager_goto(&ip->pg, ms->title[pick]);
	screen_msg(v->scr, MSG_INFO, "section %s (o %s it)",
		   ms->closed[pick] ? "closed" : "opened",
		   ms->closed[pick] ? "opens" : "closes");
	return H_REDRAW;
}

static int issue_handle(struct view *v, enum action a, int key)
{
	struct issue_pane *ip = v->priv;

	(void)key;
	if (a == ACT_TOGGLE_SECTION)
		return toggle_section(v);
	if (a == ACT_WRAP) {
		screen_toggle_wrap(v->scr, PANE_ISSUE, &ip->pg);
		return H_REDRAW;
	}
	return pager_action(&ip->pg, a) ? H_REDRAW : H_UNHANDLED;
}

static void issue_close(struct view *v)
{
	struct issue_pane *ip = v->priv;

	doc_release(&ip->doc);
	pager_release(&ip->pg);
	md_sections_release(&ip->sec);
}

/*
 * Pager lines from..to as a citation: lines of the body's or of one
 * comment's raw text, as the Markdown renderer links its lines to their
 * source (tui/markdown.h: a code or traceback line is its own line; a
 * line of a paragraph, list item, heading or table stands for its whole
 * block).  Lines with no source (title, facts, comment headers, blank
 * lines) at the ends of the range are left out.
 */
static int issue_cite(struct view *v, size_t from, size_t to,
		      struct evidence_cite *c, struct err *e)
{
	struct issue_pane *ip = v->priv;
	unsigned long long part;
	long lo, hi;
	int rc = md_source_lines(&ip->doc, from, to, &part, &lo, &hi);

	if (rc == -1)
		return err_set(e, ERR_INPUT, "a citation is lines of the "
			       "issue's text or of one comment: the range "
			       "goes past it");
	if (rc < 0)
		return err_set(e, ERR_INPUT, "no text of the issue there: "
			       "move the cursor onto the body or a comment");
	memset(c, 0, sizeof(*c));
	c->pane = EVIDENCE_ISSUE;
	c->comment = (int)(part - 1);
	c->from = lo;
	c->to = hi;
	return 0;
}

static int issue_find(struct view *v, const struct evidence_cite *c,
		      size_t *from, size_t *to)
{
	struct issue_pane *ip = v->priv;

	if (c->pane != EVIDENCE_ISSUE)
		return 0;
	return md_doc_lines(&ip->doc, (unsigned long long)c->comment + 1,
			    c->from, c->to, from, to);
}

static struct pager *issue_pager(struct view *v)
{
	struct issue_pane *ip = v->priv;

	return &ip->pg;
}

const struct view_ops issue_view_ops = {
	.name = "issue",
	.keymap = KEYMAP_MAIN,
	.priv_size = sizeof(struct issue_pane),
	.open = issue_open,
	.layout = issue_layout,
	.draw = issue_draw,
	.handle = issue_handle,
	.close = issue_close,
	.pager = issue_pager,
	.cite = issue_cite,
	.find = issue_find,
};
