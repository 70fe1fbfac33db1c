/* SPDX-License-Identifier: MIT */
/*
 * edit: text fields and the memo editor's buffer (see edit.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/edit.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/text.h"
#include "tui/ui.h"

void edit_init(struct edit *ed, int multiline)
{
	memset(ed, 0, sizeof(*ed));
	buf_init(&ed->text, 0);
	ed->multiline = multiline;
}

void edit_release(struct edit *ed)
{
	if (!ed)
		return;
	buf_release(&ed->text);
}

void edit_set(struct edit *ed, const char *s)
{
	buf_set(&ed->text, s ? s : "");
	ed->cur = ed->text.len;
	ed->top = 0;
	ed->changed = 0;
}

/* Columns of the character at s[i] and its length. */
static size_t char_at(const char *s, size_t len, size_t i, int *w)
{
	uint32_t cp;
	size_t n = text_decode(s + i, len - i, &cp);
	int cw;

	if (!n)
		n = 1;
	if (cp == '\n') {
		*w = 0;
		return n;
	}
	cw = text_char_width(cp);
	*w = cw < 0 ? 1 : cw;
	return n;
}

static size_t prev_char(const char *s, size_t i)
{
	if (!i)
		return 0;
	i--;
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

static size_t next_char(const char *s, size_t len, size_t i)
{
	int w;

	if (i >= len)
		return len;
	return i + char_at(s, len, i, &w);
}

/* Insert n bytes of UTF-8 at the cursor and move past them. */
static void insert(struct edit *ed, const char *u, size_t n)
{
	if (!n)
		return;
	buf_grow(&ed->text, n);
	memmove(ed->text.ptr + ed->cur + n, ed->text.ptr + ed->cur,
		ed->text.len - ed->cur);
	memcpy(ed->text.ptr + ed->cur, u, n);
	buf_setlen(&ed->text, ed->text.len + n);
	ed->cur += n;
	ed->changed = 1;
}

void edit_insert_text(struct edit *ed, const char *s, size_t len)
{
	struct buf t = BUF_INIT;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = text_decode(s + i, len - i, &cp);

		if (cp == '\n' && ed->multiline)
			buf_addch(&t, '\n');
		else if (cp == '\n' || cp == '\t')
			buf_addstr(&t, cp == '\t' && ed->multiline ? "    " :
				   " ");
		else if (key_is_text((int)cp)) {
			char u[4];

			buf_add(&t, u, text_encode(cp, u));
		}
		i += n;
	}
	insert(ed, t.ptr, t.len);
	buf_release(&t);
}

void edit_insert_key(struct edit *ed, int key)
{
	char u[4];
	size_t n;
	uint32_t cp = (uint32_t)key;

	if (key == TK_PASTE) {
		const char *s = ui_paste(&n);

		edit_insert_text(ed, s, n);
		return;
	}
	if (key == '\n' || key == TK_ENTER) {
		if (!ed->multiline)
			return;
		u[0] = '\n';
		n = 1;
	} else if (!key_is_text(key)) {
		return;
	} else {
		n = text_encode((uint32_t)cp, u);
	}
	insert(ed, u, n);
}

static void cut(struct edit *ed, size_t from, size_t to)
{
	if (to <= from)
		return;
	memmove(ed->text.ptr + from, ed->text.ptr + to, ed->text.len - to);
	buf_setlen(&ed->text, ed->text.len - (to - from));
	ed->cur = from;
	ed->changed = 1;
}

static size_t line_start(const struct edit *ed, size_t i)
{
	while (i > 0 && ed->text.ptr[i - 1] != '\n')
		i--;
	return i;
}

static size_t line_end(const struct edit *ed, size_t i)
{
	while (i < ed->text.len && ed->text.ptr[i] != '\n')
		i++;
	return i;
}

/*
 * Visual lines: each logical line cut into pieces of at most `cols`
 * columns.  vis_find() gives the visual line and column of byte `at`;
 * vis_offset() the byte at (row, col).
 */
static void vis_find(const struct edit *ed, int cols, size_t at, int *row,
		     int *col)
{
	const char *s = ed->text.ptr;
	size_t len = ed->text.len, i = 0;
	int r = 0, c = 0;

	while (i < len && i < at) {
		int w;
		size_t n;

		if (s[i] == '\n') {
			r++;
			c = 0;
			i++;
			continue;
		}
		n = char_at(s, len, i, &w);
		if (c + w > cols && c > 0) {
			r++;
			c = 0;
		}
		c += w;
		i += n;
	}
	/* on a character that wraps, or after a full last line, the cursor
	 * sits at the start of the next visual line */
	if (at < len && s[at] != '\n') {
		int w;

		char_at(s, len, at, &w);
		if (c + w > cols && c > 0) {
			r++;
			c = 0;
		}
	} else if (at >= len && c >= cols) {
		r++;
		c = 0;
	}
	*row = r;
	*col = c;
}

static size_t vis_offset(const struct edit *ed, int cols, int row, int col)
{
	const char *s = ed->text.ptr;
	size_t len = ed->text.len, i = 0;
	int r = 0, c = 0;

	while (i < len) {
		int w;
		size_t n;

		if (r == row && (c >= col || s[i] == '\n'))
			return i;
		if (s[i] == '\n') {
			if (r == row)
				return i;
			r++;
			c = 0;
			i++;
			continue;
		}
		n = char_at(s, len, i, &w);
		if (c + w > cols && c > 0) {
			if (r == row)
				return i;
			r++;
			c = 0;
		}
		if (r == row && c + w > col)
			return i;
		c += w;
		i += n;
	}
	return len;
}

int edit_action(struct edit *ed, enum action a)
{
	const char *s = ed->text.ptr;
	int row, col, cols = ed->width > 0 ? ed->width : 80;

	switch (a) {
	case ACT_ED_LEFT:
		ed->cur = prev_char(s, ed->cur);
		return 1;
	case ACT_ED_RIGHT:
		ed->cur = next_char(s, ed->text.len, ed->cur);
		return 1;
	case ACT_ED_HOME:
		ed->cur = line_start(ed, ed->cur);
		return 1;
	case ACT_ED_END:
		ed->cur = line_end(ed, ed->cur);
		return 1;
	case ACT_ED_UP:
	case ACT_ED_DOWN:
		vis_find(ed, cols, ed->cur, &row, &col);
		if (a == ACT_ED_UP && row == 0) {
			ed->cur = 0;
			return 1;
		}
		ed->cur = vis_offset(ed, cols, a == ACT_ED_UP ? row - 1 :
				     row + 1, col);
		return 1;
	case ACT_ED_BACKSPACE:
		cut(ed, prev_char(s, ed->cur), ed->cur);
		return 1;
	case ACT_ED_DELETE:
		cut(ed, ed->cur, next_char(s, ed->text.len, ed->cur));
		return 1;
	case ACT_ED_KILL:
		if (ed->cur < ed->text.len && s[ed->cur] == '\n')
			cut(ed, ed->cur, ed->cur + 1);
		else
			cut(ed, ed->cur, line_end(ed, ed->cur));
		return 1;
	case ACT_ED_KILL_BACK:
		cut(ed, line_start(ed, ed->cur), ed->cur);
		return 1;
	case ACT_ED_NEWLINE:
		edit_insert_key(ed, '\n');
		return 1;
	default:
		return 0;
	}
}

void edit_draw(struct edit *ed, WINDOW *w, int y, int x, int rows, int cols,
	       int focused)
{
	const char *s = ed->text.ptr;
	size_t len = ed->text.len, i = 0, start = 0;
	int crow, ccol, r = 0, c = 0, drawn;
	struct buf line = BUF_INIT;

	if (rows <= 0 || cols <= 1)
		return;
	ed->width = cols - 1;	/* one column kept for the cursor */
	vis_find(ed, ed->width, ed->cur, &crow, &ccol);
	if (crow < ed->top)
		ed->top = crow;
	if (crow >= ed->top + rows)
		ed->top = crow - rows + 1;
	for (drawn = 0; drawn < rows; drawn++)
		draw_fill(w, y + drawn, x, cols, SLOT_NORMAL);

	/* walk the visual lines, drawing the visible ones */
	while (1) {
		int at_end = i >= len, brk = 0;
		int wch = 0;
		size_t n = 0;

		if (!at_end) {
			if (s[i] == '\n') {
				brk = 1;
			} else {
				n = char_at(s, len, i, &wch);
				if (c + wch > ed->width && c > 0)
					brk = 1;
			}
		}
		if (at_end || brk) {
			int vr = r - ed->top;

			if (vr >= 0 && vr < rows) {
				buf_reset(&line);
				text_sanitize(&line, s + start, i - start, 1,
					      0);
				draw_str(w, y + vr, x, cols, line.ptr,
					 line.len, SLOT_NORMAL);
			}
			if (at_end)
				break;
			r++;
			c = 0;
			if (s[i] == '\n')
				i++;
			start = i;
			continue;
		}
		c += wch;
		i += n;
	}
	if (focused && crow - ed->top >= 0 && crow - ed->top < rows) {
		/* the cursor: the character under it in reverse video */
		size_t at = ed->cur, n = 0;
		int wc = 1;

		buf_reset(&line);
		if (at < len && s[at] != '\n') {
			n = char_at(s, len, at, &wc);
			text_sanitize(&line, s + at, n, 1, 0);
		}
		if (!line.len || wc < 1)
			buf_set(&line, " ");
		draw_str(w, y + crow - ed->top, x + ccol, cols - ccol,
			 line.ptr, line.len, SLOT_CURSOR);
	}
	buf_release(&line);
}
