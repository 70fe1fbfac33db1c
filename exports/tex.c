/* SPDX-License-Identifier: MIT */
/*
 * tex: see tex.h.
 */
#include "exports/tex.h"

void tex_escape(struct buf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			buf_addstr(out, "\\textbackslash{}");
			break;
		case '~':
			buf_addstr(out, "\\textasciitilde{}");
			break;
		case '^':
			buf_addstr(out, "\\textasciicircum{}");
			break;
		case '<':
			buf_addstr(out, "\\textless{}");
			break;
		case '>':
			buf_addstr(out, "\\textgreater{}");
			break;
		case '&': case '%': case '$': case '#': case '_': case '{':
		case '}':
			buf_addch(out, '\\');
			buf_addch(out, *s);
			break;
		case '\n': case '\r':
			buf_addch(out, ' ');
			break;
		default:
			buf_addch(out, *s);
		}
	}
}
