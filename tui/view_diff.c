/* SPDX-License-Identifier: MIT */
/*
 * view_diff: the fix pane - the pull request's title and figures, its
 * files, a notice when the diff is partial or missing, its description,
 * then the diff coloured by line kind with its sigils kept.
 *
 * The diff stays in the study: it is parsed once per fix, streaming,
 * into an index of line offsets (diff_parse_source), and a line is read
 * through a window (core/study/item.h's diff_source) and sanitized only when it
 * is drawn or searched, so a 200,000-line diff opens and scrolls as fast
 * as a short one and costs its index, not its text.  Diff lines scroll
 * sideways under a sigil column that stays, or wrap (`w`).  A removed
 * line and the added line it pairs with (the k-th of a run of removed
 * lines with the k-th of the run of added lines right after it, as
 * diff-highlight pairs them) have their changed words marked
 * (core/base/diff's diff_intraline); a change past the right edge shows a
 * mark there, and `]`/`[` scroll sideways to a hunk's first change.
 * Several fixes are shown one at a time (`F` cycles).
 *
 * What is above the diff, the layout, the drawing and the keys are
 * here; the diff's lines as the pager reads them are view_diff_lines.c's,
 * citing and finding cited lines view_diff_cite.c's (what they share:
 * view_diff_int.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdlib.h>
#include <string.h>

#include "core/base/diff.h"
#include "core/study/evidence.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/markdown.h"
#include "tui/screen.h"
#include "tui/view_diff_int.h"

static void fig(struct buf *b, int adds, int dels, int files)
{
	if (adds >= 0 || dels >= 0)
		buf_addf(b, "+%d -%d", adds < 0 ? 0 : adds,
			 dels < 0 ? 0 : dels);
	if (files >= 0)
		buf_addf(b, "%s%d file%s", b->len ? ", " : "", files,
			 files == 1 ? "" : "s");
}

/* The pull request's title, its figures, its address and what is
 * missing of its diff. */
static void pre_head(struct diff_pane *dp, const struct fix *f, int width)
{
	struct doc *d = &dp->pre;
	struct buf b = BUF_INIT;

	/* the title wraps with the pane: its end (" for dev", a backport's
	 * mark) is never cut */
	doc_begin(d, SLOT_MD_HEADING, 0, 0);
	if (f->number) {
		buf_addf(&b, "#%lld ", f->number);
		doc_puts(d, b.ptr, SLOT_MD_HEADING);
	}
	doc_put_untrusted(d, f->title && *f->title ? f->title : "(untitled)",
			  SLOT_MD_HEADING);
	doc_end(d);
	doc_wrap_last(d, width);

	buf_reset(&b);
	fig(&b, f->additions >= 0 ? f->additions : dp->d.additions,
	    f->deletions >= 0 ? f->deletions : dp->d.deletions,
	    f->changed_files >= 0 ? f->changed_files : (int)dp->d.nr_files);
	doc_begin(d, SLOT_META, 0, 1);
	doc_puts(d, b.ptr, SLOT_META);
	if (f->merged_at && *f->merged_at) {
		doc_puts(d, ", merged ", SLOT_META);
		buf_reset(&b);
		buf_add(&b, f->merged_at, strnlen(f->merged_at, 10));
		doc_put_untrusted(d, b.ptr, SLOT_META);
	}
	if (dp->it->nr_fixes > 1) {
		buf_reset(&b);
		buf_addf(&b, " (fix %zu of %zu; F shows the next)",
			 dp->fix + 1, dp->it->nr_fixes);
		doc_puts(d, b.ptr, SLOT_META);
	}
	doc_end(d);
	doc_wrap_last(d, width);
	if (f->url && *f->url) {
		doc_begin(d, SLOT_MD_LINK, 1, 2);
		doc_put_untrusted(d, f->url, SLOT_MD_LINK);
		doc_end(d);
	}
	if (f->diff_partial)
		doc_line(d, "Partial diff: GitHub listed only some files; "
			 "files and lines may be missing.", SLOT_NOTICE, 3);
	if (!dp->src.len)
		doc_line(d, "The diff of this fix was not imported.",
			 SLOT_NOTICE, 3);
	buf_release(&b);
}

/* The files the fix changes, one line each with its figures. */
static void pre_files(struct diff_pane *dp)
{
	struct doc *d = &dp->pre;
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < dp->d.nr_files; i++) {
		const struct diff_file *df = &dp->d.files[i];
		const char *path = df->new_path && strcmp(df->new_path,
			"/dev/null") ? df->new_path : df->old_path;
		const char *mark = "M";

		if (df->old_path && !strcmp(df->old_path, "/dev/null"))
			mark = "A";
		else if (df->new_path && !strcmp(df->new_path, "/dev/null"))
			mark = "D";
		else if (df->old_path && df->new_path &&
			 strcmp(df->old_path, df->new_path))
			mark = "R";
		/* a long path scrolls sideways (or wraps with w), marked
		 * where it is cut, as a diff line does */
		doc_begin(d, SLOT_NORMAL, 1, 4 + i);
		doc_puts(d, "  ", SLOT_NORMAL);
		doc_puts(d, mark, SLOT_DIFF_FILE);
		doc_puts(d, " ", SLOT_NORMAL);
		doc_put_untrusted(d, path ? path : "?", SLOT_NORMAL);
		buf_reset(&b);
		if (df->binary)
			buf_addstr(&b, "  (binary)");
		else
			buf_addf(&b, "  +%d -%d", df->additions,
				 df->deletions);
		doc_puts(d, b.ptr, SLOT_DIM);
		doc_end(d);
	}
	buf_release(&b);
}

/* The description, then the conversation; returns the anchor base of
 * the last text. */
static unsigned long long pre_texts(struct diff_pane *dp,
				    const struct fix *f, int width)
{
	struct doc *d = &dp->pre;
	struct buf b = BUF_INIT;
	unsigned long long sec;
	size_t i;

	dp->sec.nr = 0;
	if (f->body && *f->body) {
		unsigned long long a = 4 + dp->d.nr_files;

		doc_line(d, "", SLOT_NORMAL, a);
		md_render_sections(d, f->body, strlen(f->body), width,
				   MD_ANCHOR_SPAN, &dp->sec);
	}
	/* its conversation, each comment a text of its own (citable as
	 * pr:N:comment:K, as the issue's are) */
	sec = MD_ANCHOR_SPAN;
	if (f->nr_comments) {
		buf_reset(&b);
		buf_addf(&b, "%s%s %zu comment%s on the pull request",
			 glyph(G_RULE), glyph(G_RULE), f->nr_comments,
			 f->nr_comments == 1 ? "" : "s");
		doc_line(d, "", SLOT_NORMAL, sec + MD_ANCHOR_SPAN - 1);
		doc_line(d, b.ptr, SLOT_MD_RULE, sec + MD_ANCHOR_SPAN - 1);
	}
	for (i = 0; i < f->nr_comments; i++) {
		const struct comment *c = &f->comments[i];

		sec += MD_ANCHOR_SPAN;
		doc_line(d, "", SLOT_NORMAL, sec);
		doc_begin(d, SLOT_META, 0, sec);
		doc_commented(d, c->author, c->created_at);
		doc_end(d);
		doc_wrap_last(d, width);
		if (c->body && *c->body)
			md_render_sections(d, c->body, strlen(c->body), width,
					   sec + 1, &dp->sec);
		else
			doc_line(d, "(empty)", SLOT_DIM, sec + 1);
	}
	buf_release(&b);
	return sec;
}

/* What is above the diff, for `width` columns. */
static void render_pre(struct diff_pane *dp, int width)
{
	struct doc *d = &dp->pre;
	const struct fix *f = dp_cur_fix(dp);

	doc_clear(d);
	dp->width = width;
	pager_changed(&dp->pg);
	if (!f) {
		doc_line(d, "No fix: this item has no linked pull request.",
			 SLOT_NOTICE, 0);
		doc_line(d, "Code it from the issue alone.", SLOT_DIM, 1);
		return;
	}
	pre_head(dp, f, width);
	pre_files(dp);
	doc_line(d, "", SLOT_NORMAL, pre_texts(dp, f, width) + MD_ANCHOR_SPAN);
}

/* Show fix number `fix` from its top. */
void dp_show_fix(struct diff_pane *dp, size_t fix)
{
	const struct fix *f;

	diff_release(&dp->d);
	diff_source_close(&dp->src);
	md_sections_release(&dp->sec);	/* every section open again */
	dp->fix = fix;
	f = dp_cur_fix(dp);
	if (f) {
		struct err e = ERR_INIT;

		/* an unreadable diff shows as "not imported" */
		if (diff_source_open(dp->st, f, &dp->src, &e) == 0 &&
		    dp->src.len)
			diff_parse_source(&dp->d, &dp->src);
	}
	dp_intra_forget(dp);
	dp->seq = 0;
	pager_changed(&dp->pg);
	dp->width = 0;
	dp->pg.top = 0;
	dp->pg.sub = 0;
	dp->pg.hscroll = 0;
	dp->pg.match = NO_MATCH;
	pager_cursor(&dp->pg, 0);
}

static int diff_open(struct view *v)
{
	struct diff_pane *dp = v->priv;

	if (!v->opened) {
		buf_init(&dp->pre.text, 0);
		buf_init(&dp->line, 0);
		buf_init(&dp->ia, 0);
		buf_init(&dp->ib, 0);
		pager_init(&dp->pg, &dp_src, dp);
	}
	dp->it = &v->scr->item;
	dp->st = v->scr->st;
	doc_clear(&dp->pre);
	dp_show_fix(dp, 0);
	v->dirty = 1;
	return 0;
}

void dp_layout(struct view *v)
{
	struct diff_pane *dp = v->priv;

	screen_place(v);
	pager_set_size(&dp->pg, v->rows - 1, v->cols);
	if (v->cols != dp->width) {
		/* keep the place: a diff line stays the same line */
		size_t old_pre = dp->pre.nr, top = dp->pg.top;
		unsigned long long a = top < old_pre ?
			dp->pre.lines[top].anchor : 0;
		int had = dp->width != 0;

		/* a new item or fix starts as the user's setting says (read
		 * with the keys, when the terminal was set up) */
		if (!had)
			pager_set_wrap(&dp->pg, screen_wrap_setting(PANE_DIFF));
		render_pre(dp, v->cols);
		if (!had)
			top = 0;
		else if (top >= old_pre)
			top = top - old_pre + dp->pre.nr;
		else
			top = doc_find_anchor(&dp->pre, a);
		dp->pg.match = NO_MATCH;
		pager_goto(&dp->pg, top);
	}
	pager_clamp(&dp->pg);
	v->dirty = 1;
}

static void diff_draw(struct view *v)
{
	struct diff_pane *dp = v->priv;
	struct screen *scr = v->scr;
	const struct fix *f = dp_cur_fix(dp);
	int focused = scr->focus == PANE_DIFF;
	enum slot ts = focused ? SLOT_PANE_FOCUS : SLOT_PANE_TITLE;
	struct buf b = BUF_INIT, pos = BUF_INIT;
	int used;

	werase(v->win);
	draw_fill(v->win, 0, 0, v->cols, ts);
	if (!f) {
		buf_addstr(&b, " fix: none");
	} else {
		buf_addstr(&b, " fix");
		if (dp->it->nr_fixes > 1)
			buf_addf(&b, " %zu/%zu", dp->fix + 1,
				 dp->it->nr_fixes);
		if (f->number)
			buf_addf(&b, " #%lld", f->number);
		buf_addstr(&b, " (");
		fig(&b, f->additions >= 0 ? f->additions : dp->d.additions,
		    f->deletions >= 0 ? f->deletions : dp->d.deletions,
		    f->changed_files >= 0 ? f->changed_files :
		    (int)dp->d.nr_files);
		buf_addstr(&b, ")");
	}
	if (!scr->split)
		buf_addstr(&b, " [Tab: issue]");
	else if (focused)
		buf_addstr(&b, " *");
	used = draw_str(v->win, 0, 0, v->cols, b.ptr, b.len, ts);
	pager_position(&dp->pg, &pos);
	buf_addch(&pos, ' ');
	if (v->cols - used > (int)pos.len + 1)
		draw_str(v->win, 0, v->cols - (int)pos.len, (int)pos.len,
			 pos.ptr, pos.len, ts);
	pager_draw(&dp->pg, v->win, 1, 0, focused);
	wnoutrefresh(v->win);
	buf_release(&b);
	buf_release(&pos);
}

#define FIRST_CHANGE_SCAN 200	/* lines of a hunk searched for it */
#define CHANGE_MARGIN 4		/* columns kept right of a change shown */

/* The columns [*c0, *c1) of the first marked words of changed line i
 * (of kind `kind`), in its text after the sigil; -1 when it has none. */
static int first_span_cols(struct diff_pane *dp, size_t i, int kind, int *c0,
			   int *c1)
{
	const struct intra *in = dp_intra_of(dp, i, kind);
	unsigned s0, s1;

	if (!in->nr)
		return -1;
	/* copied: dp_whole_line() reuses the buffers dp_intra_of() fills */
	s0 = in->spans[0].start;
	s1 = in->spans[0].end;
	if (dp_whole_line(dp, i, &dp->ia) < 0 || s1 > dp->ia.len || s0 < 1)
		return -1;
	*c0 = text_width(dp->ia.ptr + 1, s0 - 1);
	*c1 = text_width(dp->ia.ptr + 1, s1 - 1);
	return 0;
}

/*
 * After a jump to the hunk or file starting at diff line `from`: the
 * view starts at the left edge, unless wrap is off and the whole first
 * change cannot be seen there - the first marked words of the first
 * changed line (and of the added line a removed one pairs with), when
 * they lie past the right edge.  Then it scrolls just
 * far enough to show them whole (the lines scrolled show G_LEFT, the
 * title the offset).  A first changed line without marks is its own
 * change: its start is in view, so the view does not move.
 */
static void show_first_change(struct diff_pane *dp, size_t from)
{
	size_t i, j;
	int kind = DIFF_OTHER, c0, c1, p0, p1, room, h;

	dp->pg.hscroll = 0;
	if (dp->pg.wrap)
		return;
	for (i = from + 1; i < dp->d.nr_lines && i <= from +
	     FIRST_CHANGE_SCAN; i++) {
		kind = dp_kind_at(dp, i);
		if (kind == DIFF_HUNK && i > from + 1 &&
		    dp_kind_at(dp, from) == DIFF_HUNK)
			return;
		if (kind == DIFF_DEL || kind == DIFF_ADD)
			break;
	}
	if (i >= dp->d.nr_lines || i > from + FIRST_CHANGE_SCAN)
		return;
	if (first_span_cols(dp, i, kind, &c0, &c1) < 0)
		return;
	/* a removed line's change goes with the added line's it pairs
	 * with: both are shown */
	j = kind == DIFF_DEL ? dp_partner(dp, i, kind) : NO_LINE;
	if (j != NO_LINE && first_span_cols(dp, j, DIFF_ADD, &p0, &p1) == 0) {
		if (p0 < c0)
			c0 = p0;
		if (p1 > c1)
			c1 = p1;
	}
	/* unscrolled, the sigil and the edge's mark take a column each */
	if (c1 <= pager_width(&dp->pg) - 2)
		return;
	/* scrolled, G_LEFT takes one more */
	room = pager_width(&dp->pg) - 3;
	if (room < 1)
		room = 1;
	h = c1 - room + CHANGE_MARGIN;
	if (h > c0)
		h = c0;
	if (h < 1)
		h = 1;
	dp->pg.hscroll = h;
}

/* Jump to a hunk or file line `target` of the diff (a diff line index)
 * unless it is where we are. */
static int jump(struct diff_pane *dp, size_t target, size_t cur, int found)
{
	if (!found || target == cur)
		return 0;
	pager_goto(&dp->pg, dp->pre.nr + target);
	show_first_change(dp, target);
	return 1;
}

/* `o`: close or open the <details> section of the description in view
 * (or the one being read), rendering the lines above the diff again and
 * keeping the place. */
static int toggle_section(struct view *v)
{
	struct diff_pane *dp = v->priv;
	struct md_sections *ms = &dp->sec;
	size_t pick, top = dp->pg.top, old_pre = dp->pre.nr;
	size_t end = top + (size_t)(dp->pg.rows > 0 ? dp->pg.rows : 1);
	unsigned long long a;

	/* the sections are the description's, above the diff */
	pick = top < old_pre ? md_sections_at(ms, top, end) : (size_t)-1;
	if (pick == (size_t)-1) {
		screen_msg(v->scr, MSG_INFO, "no <details> section here");
		return H_HANDLED;
	}
	md_sections_toggle(ms, pick);
	a = dp->pre.lines[top].anchor;
	render_pre(dp, dp->width);
	dp->pg.match = NO_MATCH;
	pager_goto(&dp->pg, doc_find_anchor(&dp->pre, a));
	if (pick < ms->nr && ms->title[pick] < dp->pg.top)
		pager_goto(&dp->pg, ms->title[pick]);
	screen_msg(v->scr, MSG_INFO, "section %s (o %s it)",
		   ms->closed[pick] ? "closed" : "opened",
		   ms->closed[pick] ? "opens" : "closes");
	return H_REDRAW;
}

static int diff_handle(struct view *v, enum action a, int key)
{
	struct diff_pane *dp = v->priv;
	struct screen *scr = v->scr;
	size_t pre = dp->pre.nr, cur, t;
	int in_diff = dp->pg.top >= pre;

	(void)key;
	cur = in_diff ? dp->pg.top - pre : 0;
	switch (a) {
	case ACT_NEXT_HUNK:
		if (!dp->d.nr_hunks)
			break;
		if (!in_diff || dp->d.hunks[0] > cur)
			t = dp->d.hunks[0];
		else
			t = diff_next_hunk(&dp->d, cur);
		if (jump(dp, t, in_diff ? cur : (size_t)-1, 1))
			return H_REDRAW;
		screen_msg(scr, MSG_INFO, "last hunk%s", dp->it->nr_fixes > 1 ?
			   "; F shows the next fix" : "");
		return H_HANDLED;
	case ACT_PREV_HUNK:
		if (!dp->d.nr_hunks || !in_diff)
			break;
		t = diff_prev_hunk(&dp->d, cur);
		if (t < cur && jump(dp, t, cur, 1))
			return H_REDRAW;
		/* before the first hunk: back to the top */
		pager_goto(&dp->pg, 0);
		return H_REDRAW;
	case ACT_NEXT_FILE:
		if (!dp->d.nr_files)
			break;
		if (!in_diff || dp->d.files[0].first_line > cur)
			t = dp->d.files[0].first_line;
		else
			t = diff_next_file(&dp->d, cur);
		if (jump(dp, t, in_diff ? cur : (size_t)-1, 1))
			return H_REDRAW;
		screen_msg(scr, MSG_INFO, "last file");
		return H_HANDLED;
	case ACT_PREV_FILE:
		if (!dp->d.nr_files || !in_diff)
			break;
		t = diff_prev_file(&dp->d, cur);
		if (t < cur && jump(dp, t, cur, 1))
			return H_REDRAW;
		pager_goto(&dp->pg, 0);
		return H_REDRAW;
	case ACT_NEXT_FIX:
		if (dp->it->nr_fixes < 2) {
			screen_msg(scr, MSG_INFO, "this item has %s fix",
				   dp->it->nr_fixes ? "one" : "no");
			return H_HANDLED;
		}
		dp_show_fix(dp, (dp->fix + 1) % dp->it->nr_fixes);
		dp_layout(v);
		screen_msg(scr, MSG_INFO, "fix %zu of %zu", dp->fix + 1,
			   dp->it->nr_fixes);
		return H_REDRAW;
	case ACT_WRAP:
		screen_toggle_wrap(scr, PANE_DIFF, &dp->pg);
		return H_REDRAW;
	case ACT_TOGGLE_SECTION:
		return toggle_section(v);
	default:
		return pager_action(&dp->pg, a) ? H_REDRAW : H_UNHANDLED;
	}
	screen_msg(scr, MSG_INFO, "no %s in this fix",
		   a == ACT_NEXT_HUNK || a == ACT_PREV_HUNK ? "hunks" :
		   "files");
	return H_HANDLED;
}

static void diff_close(struct view *v)
{
	struct diff_pane *dp = v->priv;
	size_t i;

	diff_release(&dp->d);
	diff_source_close(&dp->src);
	doc_release(&dp->pre);
	md_sections_release(&dp->sec);
	pager_release(&dp->pg);
	buf_release(&dp->line);
	buf_release(&dp->ia);
	buf_release(&dp->ib);
	diff_ranges_release(&dp->ra);
	diff_ranges_release(&dp->rb);
	for (i = 0; i < INTRA_CACHE; i++)
		free(dp->intra[i].spans);
}


static struct pager *diff_pager(struct view *v)
{
	struct diff_pane *dp = v->priv;

	return &dp->pg;
}

const struct view_ops diff_view_ops = {
	.name = "diff",
	.keymap = KEYMAP_MAIN,
	.priv_size = sizeof(struct diff_pane),
	.open = diff_open,
	.layout = dp_layout,
	.draw = diff_draw,
	.handle = diff_handle,
	.close = diff_close,
	.pager = diff_pager,
	.cite = dp_cite,
	.find = dp_find,
	.target = dp_target,
};
