/* SPDX-License-Identifier: MIT */
/*
 * dump: the screen as text and attributes, for tests (see dump.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/dump.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "core/base/buf.h"
#include "core/base/text.h"
#include "tui/draw.h"

static void put_utf8(struct buf *b, wchar_t wc)
{
	unsigned long cp = (unsigned long)wc;

	if (cp < 0x80) {
		buf_addch(b, (int)cp);
	} else if (cp < 0x800) {
		buf_addch(b, (int)(0xc0 | (cp >> 6)));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		buf_addch(b, (int)(0xe0 | (cp >> 12)));
		buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	} else {
		buf_addch(b, (int)(0xf0 | (cp >> 18)));
		buf_addch(b, (int)(0x80 | ((cp >> 12) & 0x3f)));
		buf_addch(b, (int)(0x80 | ((cp >> 6) & 0x3f)));
		buf_addch(b, (int)(0x80 | (cp & 0x3f)));
	}
}

static void rstrip(struct buf *b, size_t from, char c)
{
	while (b->len > from && b->ptr[b->len - 1] == c)
		buf_setlen(b, b->len - 1);
}

static wchar_t acs_unicode(wchar_t c)
{
	static const struct {
		char vt;
		wchar_t uc;
	} map[] = {
		{ 'x', 0x2502 }, { 'q', 0x2500 }, { 'l', 0x250c },
		{ 'k', 0x2510 }, { 'm', 0x2514 }, { 'j', 0x2518 },
		{ 't', 0x251c }, { 'u', 0x2524 }, { 'v', 0x2534 },
		{ 'w', 0x252c }, { 'n', 0x253c }, { 'a', 0x2592 },
		{ '~', 0x00b7 },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].vt == c)
			return map[i].uc;
	return c;
}

/* One letter for a cell's attributes: the strongest of reverse, bold,
 * underline, dim; upper case when combined with another. */
static char attr_letter(attr_t a)
{
	int n = !!(a & A_REVERSE) + !!(a & A_BOLD) + !!(a & A_UNDERLINE) +
		!!(a & A_DIM);
	char c = (a & A_REVERSE) ? 'r' : (a & A_BOLD) ? 'b' :
		 (a & A_UNDERLINE) ? 'u' : (a & A_DIM) ? 'd' : '.';

	return n > 1 ? (char)(c - 'a' + 'A') : c;
}

int dump_screen(const char *path)
{
	struct buf text = BUF_INIT, attr = BUF_INIT, pairs = BUF_INIT;
	struct buf apath = BUF_INIT;
	wchar_t *row;
	long colored = 0;
	int y, x, ret = -1;
	FILE *f;

	row = xcalloc((size_t)COLS + 1, sizeof(*row));
	for (y = 0; y < LINES; y++) {
		size_t at = text.len, aat = attr.len, pat = pairs.len;
		int i, n = mvwinnwstr(newscr, y, 0, row, COLS);

		for (i = 0, x = 0; i < n && row[i]; i++) {
			cchar_t cc;
			attr_t a = 0;
			short pair = 0;
			wchar_t wch[CCHARW_MAX + 1];

			/* line drawing is stored as VT100 letters with
			 * A_ALTCHARSET: write what a terminal shows */
			if (row[i] < 0x80 &&
			    mvwin_wch(newscr, y, x, &cc) != ERR &&
			    getcchar(&cc, wch, &a, &pair, NULL) != ERR &&
			    (a & A_ALTCHARSET))
				put_utf8(&text, acs_unicode(row[i]));
			else
				put_utf8(&text, row[i]);
			x += row[i] < 0x80 ? 1 :
			     text_char_width((uint32_t)row[i]) > 1 ? 2 : 1;
		}
		rstrip(&text, at, ' ');
		buf_addch(&text, '\n');
		for (x = 0; x < COLS; x++) {
			cchar_t cc;
			wchar_t wch[CCHARW_MAX + 1];
			attr_t a = 0;
			short pair = 0;

			if (mvwin_wch(newscr, y, x, &cc) == ERR)
				break;
			getcchar(&cc, wch, &a, &pair, NULL);
			buf_addch(&attr, attr_letter(a));
			if (pair)
				colored++;
			/* pair i + 1 belongs to theme slot i */
			buf_addch(&pairs, pair ? slot_char((enum slot)
							   (pair - 1)) : '.');
		}
		rstrip(&attr, aat, '.');
		buf_addch(&attr, '\n');
		rstrip(&pairs, pat, '.');
		buf_addch(&pairs, '\n');
	}
	buf_addf(&attr, "colour cells: %ld\n", colored);
	if (colored)
		buf_add(&attr, pairs.ptr, pairs.len);
	buf_addf(&apath, "%s.attr", path);

	f = fopen(path, "w");
	if (!f)
		goto out;
	fwrite(text.ptr, 1, text.len, f);
	if (fclose(f))
		goto out;
	f = fopen(apath.ptr, "w");
	if (!f)
		goto out;
	fwrite(attr.ptr, 1, attr.len, f);
	if (fclose(f))
		goto out;
	ret = 0;
out:
	free(row);
	buf_release(&text);
	buf_release(&attr);
	buf_release(&pairs);
	buf_release(&apath);
	return ret;
}
