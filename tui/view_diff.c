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

/* The marks of a changed line, kept for the lines last drawn. */
struct intra {
	size_t line1;		/* 1 + its diff line; 0: empty */
	struct span *spans;
	size_t nr, alloc;
};

#define INTRA_CACHE 128
#define PAIR_SCAN 64		/* longest run of -/+ lines paired */
#define INTRA_MAX 8192		/* longest line (bytes) marked */
#define NO_LINE ((size_t)-1)

struct diff_pane {
	size_t fix;		/* shown fix, index into item.fixes */
	struct diff d;		/* its parse */
	struct doc pre;		/* lines above the diff, per width */
	struct md_sections sec;	/* the <details> of its description */
	int width;		/* pre rendered for; 0 = not yet */
	struct pager pg;
	struct buf line;	/* the sanitized line last asked for */
	const struct item *it;
	struct store *st;
	struct diff_source src;	/* the shown fix's diff */
	struct intra intra[INTRA_CACHE];
	struct buf ia, ib;	/* scratch: a pair's sanitized lines */
	struct diff_ranges ra, rb;
	size_t seq;		/* 1 + the diff line dp_rows() read last */
	struct diff_line seq_line;	/* that line */
};

/* The raw bytes of diff line `l`, at most `max` of them; an empty line if
 * it cannot be read (the item was re-imported under us). */
static const char *line_text(struct diff_pane *dp, const struct diff_line *l,
			     size_t max, size_t *len)
{
	size_t n = l->len < max ? l->len : max;
	const char *t = diff_source_read(&dp->src, l->off, n);

	*len = t ? n : 0;
	return t ? t : "";
}

static const struct fix *cur_fix(const struct diff_pane *dp)
{
	if (!dp->it || dp->fix >= dp->it->nr_fixes)
		return NULL;
	return &dp->it->fixes[dp->fix];
}

static size_t dp_count(void *ctx)
{
	struct diff_pane *dp = ctx;

	return dp->pre.nr + dp->d.nr_lines;
}

static enum slot kind_slot(unsigned kind)
{
	switch (kind) {
	case DIFF_FILE:
		return SLOT_DIFF_FILE;
	case DIFF_META:
		return SLOT_DIFF_META;
	case DIFF_HUNK:
		return SLOT_DIFF_HUNK;
	case DIFF_ADD:
		return SLOT_DIFF_ADD;
	case DIFF_DEL:
		return SLOT_DIFF_DEL;
	case DIFF_NOEOL:
		return SLOT_DIM;
	default:
		return SLOT_NORMAL;
	}
}

/* Bytes of a diff line enough to fill the pane at its sideways scroll. */
static size_t drawn_bytes(const struct diff_pane *dp)
{
	return ((size_t)(dp->pg.hscroll > 0 ? dp->pg.hscroll : 0) +
		(size_t)(dp->pg.cols > 0 ? dp->pg.cols : 0)) * 4 + 64;
}

static int kind_at(const struct diff_pane *dp, size_t i)
{
	return i < dp->d.nr_lines ? diff_line_at(&dp->d, i).kind : DIFF_OTHER;
}

/* The line paired with removed or added line i, or NO_LINE. */
static size_t partner(const struct diff_pane *dp, size_t i, int kind)
{
	size_t s = i, e = i, k, j;

	if (kind != DIFF_DEL && kind != DIFF_ADD)
		return NO_LINE;
	while (s > 0 && i - s < PAIR_SCAN && kind_at(dp, s - 1) == kind)
		s--;
	if (s > 0 && kind_at(dp, s - 1) == kind)
		return NO_LINE;		/* too long a run */
	k = i - s;
	if (kind == DIFF_DEL) {
		while (e - i < PAIR_SCAN && kind_at(dp, e + 1) == DIFF_DEL)
			e++;
		for (j = e + 1; j <= e + 1 + k; j++)
			if (kind_at(dp, j) != DIFF_ADD)
				return NO_LINE;
		return e + 1 + k;
	}
	/* an added line: the run of removed lines just before its run */
	if (!s || kind_at(dp, s - 1) != DIFF_DEL)
		return NO_LINE;
	e = s - 1;
	j = e;
	while (j > 0 && e - j < PAIR_SCAN && kind_at(dp, j - 1) == DIFF_DEL)
		j--;
	if (j > 0 && kind_at(dp, j - 1) == DIFF_DEL)
		return NO_LINE;
	return j + k <= e ? j + k : NO_LINE;
}

/* A line of the file that ends in a CR of its own (a CRLF line of an LF
 * diff) shows it as U+240D at its end, when all of it (n bytes) was
 * read: a change from CRLF to LF is then seen, and marked, as the change
 * of that CR. */
static void file_cr(const struct diff_pane *dp, const struct diff_line *l,
		    size_t n, struct buf *out)
{
	if (n == l->len && diff_line_file_cr(&dp->d, l))
		buf_addstr(out, "\xe2\x90\x8d");
}

/* Sanitize diff line i whole (it is at most INTRA_MAX bytes) into out. */
static int whole_line(struct diff_pane *dp, size_t i, struct buf *out)
{
	struct diff_line l = diff_line_at(&dp->d, i);
	const char *raw;
	size_t n;

	buf_reset(out);
	if (l.len > INTRA_MAX)
		return -1;
	raw = line_text(dp, &l, l.len, &n);
	text_sanitize(out, raw, n, 8, 0);
	file_cr(dp, &l, n, out);
	return 0;
}

/* The change marks of diff line i (of kind `kind`): spans into its
 * sanitized text, none when it pairs with no line or is too long. */
static const struct intra *intra_of(struct diff_pane *dp, size_t i, int kind)
{
	struct intra *c = &dp->intra[i % INTRA_CACHE];
	const struct diff_ranges *mine;
	size_t o, k;
	enum slot slot;

	if (c->line1 == i + 1)
		return c;
	c->line1 = i + 1;
	c->nr = 0;
	o = partner(dp, i, kind);
	if (o == NO_LINE)
		return c;
	/* ia holds the removed line, ib the added one */
	if (whole_line(dp, kind == DIFF_DEL ? i : o, &dp->ia) < 0 ||
	    whole_line(dp, kind == DIFF_DEL ? o : i, &dp->ib) < 0 ||
	    !dp->ia.len || !dp->ib.len)
		return c;
	if (!diff_intraline(dp->ia.ptr + 1, dp->ia.len - 1, dp->ib.ptr + 1,
			    dp->ib.len - 1, &dp->ra, &dp->rb))
		return c;
	mine = kind == DIFF_DEL ? &dp->ra : &dp->rb;
	slot = kind == DIFF_DEL ? SLOT_DIFF_DEL_WORD : SLOT_DIFF_ADD_WORD;
	for (k = 0; k < mine->nr; k++) {
		ALLOC_GROW(c->spans, c->nr + 1, c->alloc);
		c->spans[c->nr].start = (unsigned)(mine->v[k].start + 1);
		c->spans[c->nr].end = (unsigned)(mine->v[k].end + 1);
		c->spans[c->nr].slot = (unsigned char)slot;
		c->nr++;
	}
	return c;
}

static void intra_forget(struct diff_pane *dp)
{
	size_t k;

	for (k = 0; k < INTRA_CACHE; k++)
		dp->intra[k].line1 = 0;
}

static int dp_get(void *ctx, size_t i, struct draw_text *t,
		  enum pager_want want)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const struct intra *in = NULL;
	const char *raw;
	size_t n, max;

	if (i < dp->pre.nr) {
		doc_get(&dp->pre, i, t);
		return dp->pre.lines[i].verbatim;
	}
	i -= dp->pre.nr;
	l = diff_line_at(&dp->d, i);
	/* the marks take no room: counting rows needs none */
	if ((l.kind == DIFF_DEL || l.kind == DIFF_ADD) && want != WANT_ROWS)
		in = intra_of(dp, i, l.kind);
	buf_reset(&dp->line);
	/* only what can reach the screen is read and sanitized: every
	 * character but a zero-width mark takes at least a third of a
	 * column per byte, so a megabyte-long minified line costs what a
	 * short one does (search counts in the raw line, in dp_matches);
	 * one byte more tells where the last character ends */
	max = want == WANT_ALL ? l.len : want == WANT_WRAP ||
	      want == WANT_ROWS ? PAGER_WRAP_MAX : drawn_bytes(dp);
	raw = line_text(dp, &l, max + 1, &n);
	if (n > max) {
		n = max;
		while (n && ((unsigned char)raw[n] & 0xc0) == 0x80)
			n--;
	}
	text_sanitize(&dp->line, raw, n, 8, 0);
	file_cr(dp, &l, n, &dp->line);
	t->s = dp->line.ptr;
	t->len = dp->line.len;
	t->base = kind_slot((unsigned)l.kind);
	t->spans = in ? in->spans : NULL;
	t->nr_spans = in ? in->nr : 0;
	/* the sigil column stays when the rest scrolls; file and hunk
	 * headers stay whole, so the place is named while reading a long
	 * line's end */
	if (l.kind == DIFF_ADD || l.kind == DIFF_DEL || l.kind == DIFF_CONTEXT)
		t->fixed = t->len ? 1 : 0;
	else if (l.kind == DIFF_HUNK || l.kind == DIFF_FILE ||
		 l.kind == DIFF_META)
		t->fixed = t->len;
	return 1;
}

static size_t dp_matches(void *ctx, size_t i, const char *pat, size_t plen)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const char *raw;
	size_t n, from = 0, k = 0;
	long f;

	if (i < dp->pre.nr)
		return doc_match(&dp->pre, i, pat, plen);
	l = diff_line_at(&dp->d, i - dp->pre.nr);
	raw = line_text(dp, &l, l.len, &n);
	while (plen && from < n &&
	       (f = text_find(raw + from, n - from, pat, plen)) >= 0) {
		k++;
		from += (size_t)f + plen;
	}
	return k;
}

/* A diff line that cannot be wider than its bytes fits in one row when
 * it has no more bytes than the row has columns: every character takes
 * at most a column a byte once sanitized but a TAB (up to 8) and a bidi
 * control (shown as "<U+202E>"), whose first bytes are looked for.  That
 * saves sanitizing nearly every line when the rows of a long diff are
 * counted. */
static size_t dp_rows(void *ctx, size_t i, int cols)
{
	struct diff_pane *dp = ctx;
	struct diff_line l;
	const char *raw;
	size_t n, j;

	if (i < dp->pre.nr)
		return 0;
	j = i - dp->pre.nr;
	/* the rows are counted line after line: each from the last */
	if (dp->seq && dp->seq == j)
		l = diff_line_next(&dp->d, j - 1, &dp->seq_line);
	else
		l = diff_line_at(&dp->d, j);
	dp->seq = j + 1;
	dp->seq_line = l;
	if (cols < 1 || l.len + !!diff_line_file_cr(&dp->d, &l) > (size_t)cols)
		return 0;
	raw = line_text(dp, &l, l.len, &n);
	if (memchr(raw, '\t', n) || memchr(raw, 0xe2, n) ||
	    memchr(raw, 0xd8, n))
		return 0;
	return 1;
}

static const struct pager_src diff_src = {
	.count = dp_count,
	.get = dp_get,
	.matches = dp_matches,
	.rows = dp_rows,
};

static void fig(struct buf *b, int adds, int dels, int files)
{
	if (adds >= 0 || dels >= 0)
		buf_addf(b, "+%d -%d", adds < 0 ? 0 : adds,
			 dels < 0 ? 0 : dels);
	if (files >= 0)
		buf_addf(b, "%s%d file%s", b->len ? ", " : "", files,
			 files == 1 ? "" : "s");
}

static void render_pre(struct diff_pane *dp, int width)
{
	struct doc *d = &dp->pre;
	const struct fix *f = cur_fix(dp);
	struct buf b = BUF_INIT;
	unsigned long long sec;
	size_t i;

	doc_clear(d);
	dp->width = width;
	pager_changed(&dp->pg);
	if (!f) {
		doc_line(d, "No fix: this item has no linked pull request.",
			 SLOT_NOTICE, 0);
		doc_line(d, "Code it from the issue alone.", SLOT_DIM, 1);
		return;
	}
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
	doc_line(d, "", SLOT_NORMAL, sec + MD_ANCHOR_SPAN);
	buf_release(&b);
}

/* Show fix number `fix` from its top. */
static void show_fix(struct diff_pane *dp, size_t fix)
{
	const struct fix *f;

	diff_release(&dp->d);
	diff_source_close(&dp->src);
	md_sections_release(&dp->sec);	/* every section open again */
	dp->fix = fix;
	f = cur_fix(dp);
	if (f) {
		struct err e = ERR_INIT;

		/* an unreadable diff shows as "not imported" */
		if (diff_source_open(dp->st, f, &dp->src, &e) == 0 &&
		    dp->src.len)
			diff_parse_source(&dp->d, &dp->src);
	}
	intra_forget(dp);
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
		pager_init(&dp->pg, &diff_src, dp);
	}
	dp->it = &v->scr->item;
	dp->st = v->scr->st;
	doc_clear(&dp->pre);
	show_fix(dp, 0);
	v->dirty = 1;
	return 0;
}

static void diff_layout(struct view *v)
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
	const struct fix *f = cur_fix(dp);
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
	const struct intra *in = intra_of(dp, i, kind);
	unsigned s0, s1;

	if (!in->nr)
		return -1;
	/* copied: whole_line() reuses the buffers intra_of() fills */
	s0 = in->spans[0].start;
	s1 = in->spans[0].end;
	if (whole_line(dp, i, &dp->ia) < 0 || s1 > dp->ia.len || s0 < 1)
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
		kind = kind_at(dp, i);
		if (kind == DIFF_HUNK && i > from + 1 &&
		    kind_at(dp, from) == DIFF_HUNK)
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
	j = kind == DIFF_DEL ? partner(dp, i, kind) : NO_LINE;
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
		show_fix(dp, (dp->fix + 1) % dp->it->nr_fixes);
		diff_layout(v);
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

/* "@@ -a[,b] +c[,d] @@": a and c; 0 when the line is not one. */
static int hunk_start(const char *s, size_t len, long *old, long *new)
{
	char h[64];
	char *p, *end;

	if (len >= sizeof(h))
		len = sizeof(h) - 1;
	memcpy(h, s, len);
	h[len] = '\0';
	if (strncmp(h, "@@ -", 4))
		return 0;
	*old = strtol(h + 4, &end, 10);
	p = strchr(end, '+');
	if (!p)
		return 0;
	*new = strtol(p + 1, &end, 10);
	return end != p + 1;
}

/* Strip git's "a/" / "b/" from a diff path. */
static const char *plain_path(const char *path)
{
	if (path && (!strncmp(path, "a/", 2) || !strncmp(path, "b/", 2)))
		return path + 2;
	return path;
}

/* Pager lines from..to above the diff as a citation of the pull
 * request's description or of one of its comments (as the issue's are
 * cited: tui/markdown.h's md_source_lines()). */
static int pr_cite(struct diff_pane *dp, size_t from, size_t to,
		   struct evidence_cite *c, struct err *e)
{
	const struct fix *f = cur_fix(dp);
	unsigned long long part;
	long lo, hi;
	int rc = md_source_lines(&dp->pre, from, to, &part, &lo, &hi);

	if (rc == -1)
		return err_set(e, ERR_INPUT, "a citation is lines of the pull "
			       "request's description or of one comment: the "
			       "range goes past it");
	if (rc < 0 || !f)
		return err_set(e, ERR_INPUT, "no text of the pull request "
			       "there: move the cursor onto its description, "
			       "a comment, or lines of a hunk");
	if (f->number <= 0)
		return err_set(e, ERR_INPUT, "this pull request's number is "
			       "not known: its text cannot be cited");
	memset(c, 0, sizeof(*c));
	c->pane = EVIDENCE_PR;
	c->pr = f->number;
	c->comment = (int)(part - 1);
	c->from = lo;
	c->to = hi;
	return 0;
}

/*
 * Pager lines from..to as a citation: lines of one file, numbered as the
 * hunk headers count them - added and context lines on the new side,
 * removed lines on the old side.  A range with any added or context line
 * cites the new side (its removed lines are not part of it); one of
 * removed lines only, the old side.
 */
static int diff_cite(struct view *v, size_t from, size_t to,
		     struct evidence_cite *c, struct err *e)
{
	struct diff_pane *dp = v->priv;
	const struct diff_file *df = NULL;
	long old = 0, new = 0, nlo = 0, nhi = 0, olo = 0, ohi = 0;
	size_t j0, j1, j, k;
	int numbered = 0;
	const char *path;

	if (to < dp->pre.nr)
		return pr_cite(dp, from, to, c, e);
	if (!dp->d.nr_lines)
		return err_set(e, ERR_INPUT, "those lines are not the diff: "
			       "put the cursor on lines of a hunk");
	j0 = from < dp->pre.nr ? 0 : from - dp->pre.nr;
	j1 = to - dp->pre.nr;
	for (k = 0; k < dp->d.nr_files; k++) {
		const struct diff_file *f = &dp->d.files[k];

		if (j0 >= f->first_line && j0 < f->first_line + f->nr_lines) {
			df = f;
			break;
		}
	}
	if (!df || j1 >= df->first_line + df->nr_lines)
		return err_set(e, ERR_INPUT, "a citation is lines of one "
			       "file: the range goes past its file");
	j = j0;
	while (j > df->first_line && kind_at(dp, j) != DIFF_HUNK)
		j--;
	for (; j <= j1; j++) {
		struct diff_line l = diff_line_at(&dp->d, j);
		const char *t;
		size_t n;

		switch (l.kind) {
		case DIFF_HUNK:
			t = line_text(dp, &l, 63, &n);
			numbered = hunk_start(t, n, &old, &new);
			continue;
		case DIFF_CONTEXT:
		case DIFF_ADD:
			if (numbered && j >= j0) {
				if (!nlo)
					nlo = new;
				nhi = new;
			}
			new++;
			if (l.kind == DIFF_CONTEXT)
				old++;
			continue;
		case DIFF_DEL:
			if (numbered && j >= j0) {
				if (!olo)
					olo = old;
				ohi = old;
			}
			old++;
			continue;
		default:
			continue;
		}
	}
	if (!nlo && !olo)
		return err_set(e, ERR_INPUT, "no lines of a hunk there (a "
			       "file or hunk header): move the cursor onto "
			       "changed or context lines");
	memset(c, 0, sizeof(*c));
	c->pane = EVIDENCE_DIFF;
	c->old_side = !nlo;
	c->from = nlo ? nlo : olo;
	c->to = nlo ? nhi : ohi;
	path = plain_path(c->old_side ? df->old_path : df->new_path);
	if (!path || !strcmp(path, "/dev/null"))
		return err_set(e, ERR_INPUT, "the diff does not name that "
			       "file's %s side", c->old_side ? "old" : "new");
	c->path = xstrdup(path);
	return 0;
}

/* The pager lines of the shown fix that show citation c: all of its
 * lines when `whole`, else any. */
static int find_in_fix(struct diff_pane *dp, const struct evidence_cite *c,
		       size_t *from, size_t *to, int whole)
{
	const struct diff_file *df = NULL;
	long old = 0, new = 0, n, count = 0;
	size_t j, k;
	int numbered = 0, found = 0;

	if (c->pane != EVIDENCE_DIFF || !c->path)
		return 0;
	for (k = 0; k < dp->d.nr_files && !df; k++) {
		const char *p = plain_path(c->old_side ?
					   dp->d.files[k].old_path :
					   dp->d.files[k].new_path);

		if (p && !strcmp(p, c->path))
			df = &dp->d.files[k];
	}
	if (!df)
		return 0;
	for (j = df->first_line; j < df->first_line + df->nr_lines; j++) {
		struct diff_line l = diff_line_at(&dp->d, j);
		const char *t;
		size_t len;
		int mine;

		if (l.kind == DIFF_HUNK) {
			t = line_text(dp, &l, 63, &len);
			numbered = hunk_start(t, len, &old, &new);
			continue;
		}
		if (l.kind != DIFF_CONTEXT && l.kind != DIFF_ADD &&
		    l.kind != DIFF_DEL)
			continue;
		mine = c->old_side ? l.kind != DIFF_ADD : l.kind != DIFF_DEL;
		n = c->old_side ? old : new;
		if (l.kind != DIFF_DEL)
			new++;
		if (l.kind != DIFF_ADD)
			old++;
		if (!numbered || !mine || n < c->from || n > c->to)
			continue;
		if (!found)
			*from = dp->pre.nr + j;
		*to = dp->pre.nr + j;
		found = 1;
		count++;
	}
	return found && (!whole || count == c->to - c->from + 1);
}

/* A citation of a pull request's text: the fix that is that pull request
 * is shown, and its lines found above the diff. */
static int find_pr(struct view *v, const struct evidence_cite *c,
		   size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t k;

	for (k = 0; dp->it && k < dp->it->nr_fixes; k++)
		if (dp->it->fixes[k].number == c->pr)
			break;
	if (!dp->it || k == dp->it->nr_fixes)
		return 0;
	if (k != dp->fix) {
		show_fix(dp, k);
		diff_layout(v);
	}
	return md_doc_lines(&dp->pre, (unsigned long long)c->comment + 1,
			    c->from, c->to, from, to);
}

/* The shown fix when it shows every line cited; else the first other
 * fix of the item that does is shown instead (a backport, a follow-up
 * fix); else, as a last resort, the lines the shown fix has of them. */
static int diff_find(struct view *v, const struct evidence_cite *c,
		     size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t orig = dp->fix, k;

	if (c->pane == EVIDENCE_PR)
		return find_pr(v, c, from, to);
	if (find_in_fix(dp, c, from, to, 1))
		return 1;
	if (c->pane != EVIDENCE_DIFF || !dp->it)
		return 0;
	for (k = 0; k < dp->it->nr_fixes; k++) {
		if (k == orig)
			continue;
		show_fix(dp, k);
		diff_layout(v);
		if (find_in_fix(dp, c, from, to, 1))
			return 1;
	}
	if (dp->fix != orig) {
		show_fix(dp, orig);
		diff_layout(v);
	}
	return find_in_fix(dp, c, from, to, 0);
}

/* `e` without a cursor: the first changed line in view (after ], the
 * hunk's first change); with `whole`, the changed lines after it that
 * run on without a context line between. */
static int diff_target(struct view *v, int whole, size_t *from, size_t *to)
{
	struct diff_pane *dp = v->priv;
	size_t pre = dp->pre.nr, last = pager_last_in_view(&dp->pg), i;
	int kind;

	for (i = dp->pg.top > pre ? dp->pg.top : pre; i <= last; i++) {
		kind = kind_at(dp, i - pre);
		if (kind == DIFF_ADD || kind == DIFF_DEL)
			break;
	}
	if (i > last || i >= pre + dp->d.nr_lines)
		return 0;
	*from = *to = i;
	while (whole && *to + 1 < pre + dp->d.nr_lines &&
	       (kind_at(dp, *to + 1 - pre) == DIFF_ADD ||
		kind_at(dp, *to + 1 - pre) == DIFF_DEL))
		(*to)++;
	return 1;
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
	.layout = diff_layout,
	.draw = diff_draw,
	.handle = diff_handle,
	.close = diff_close,
	.pager = diff_pager,
	.cite = diff_cite,
	.find = diff_find,
	.target = diff_target,
};
