/* SPDX-License-Identifier: MIT */
/*
 * script: key scripts (see script.h).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/script.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "tui/keymap.h"

void script_release(struct script *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static struct event *script_add(struct script *s, enum ev_type type)
{
	struct event *ev;

	ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	ev = &s->v[s->nr++];
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	return ev;
}

static int valid_dump_name(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return 0;
	return 1;
}

static int script_command(struct script *s, const char *path, int lineno,
			  char *line, struct err *e)
{
	char *cmd = line + 1, *arg;

	arg = strchr(cmd, ' ');
	if (arg) {
		*arg++ = '\0';
		while (*arg == ' ')
			arg++;
	} else {
		arg = cmd + strlen(cmd);
	}
	if (!strcmp(cmd, "dump-screen")) {
		if (!valid_dump_name(arg))
			return err_set(e, ERR_INPUT, "%s:%d: dump name must "
				       "be letters, digits, '.', '-', '_'",
				       path, lineno);
		script_add(s, EV_DUMP)->name = xstrdup(arg);
		return 0;
	}
	if (!strcmp(cmd, "resize")) {
		int r, c;
		char extra;

		if (sscanf(arg, "%d %d %c", &r, &c, &extra) != 2 || r < 1 ||
		    c < 1 || r > 1000 || c > 1000)
			return err_set(e, ERR_INPUT, "%s:%d: usage: :resize "
				       "ROWS COLS", path, lineno);
		{
			struct event *ev = script_add(s, EV_RESIZE);

			ev->rows = r;
			ev->cols = c;
		}
		return 0;
	}
	if (!strcmp(cmd, "paste")) {
		/* :paste TEXT, with \n, \t, \r, \e and \\ as escapes:
		 * what a terminal sends between its bracketed-paste marks */
		struct buf t = BUF_INIT;
		const char *q;

		for (q = arg; *q; q++) {
			if (*q != '\\') {
				buf_addch(&t, *q);
				continue;
			}
			switch (*++q) {
			case 'n': buf_addch(&t, '\n'); break;
			case 't': buf_addch(&t, '\t'); break;
			case 'r': buf_addch(&t, '\r'); break;
			case 'e': buf_addch(&t, 27); break;
			case '\\': buf_addch(&t, '\\'); break;
			default:
				buf_release(&t);
				return err_set(e, ERR_INPUT, "%s:%d: :paste "
					       "knows the escapes \\n \\t "
					       "\\r \\e \\\\", path, lineno);
			}
		}
		script_add(s, EV_PASTE)->name = buf_detach(&t, NULL);
		return 0;
	}
	if (!strcmp(cmd, "run") || !strcmp(cmd, "exec")) {
		struct event *ev;

		if (!*arg)
			return err_set(e, ERR_INPUT, "%s:%d: usage: :%s "
				       "COMMAND", path, lineno, cmd);
		ev = script_add(s, EV_RUN);
		ev->name = xstrdup(arg);
		ev->key = cmd[0] == 'e';	/* no pause after it */
		return 0;
	}
	if (!strcmp(cmd, "signal")) {
		static const struct {
			const char *name;
			int sig;
		} sigs[] = {
			{ "HUP", SIGHUP }, { "TERM", SIGTERM },
			{ "INT", SIGINT },
		};
		size_t i;

		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (!strcmp(arg, sigs[i].name)) {
				script_add(s, EV_SIGNAL)->key = sigs[i].sig;
				return 0;
			}
		return err_set(e, ERR_INPUT, "%s:%d: usage: :signal "
			       "HUP|TERM|INT", path, lineno);
	}
	return err_set(e, ERR_INPUT, "%s:%d: unknown command :%s", path,
		       lineno, cmd);
}

int script_load(struct script *s, const char *path, struct err *e)
{
	struct buf raw = BUF_INIT;
	char *p, *end;
	int lineno = 0, ret = -1;

	if (buf_read_file(&raw, path) < 0) {
		err_set(e, ERR_IO, "%s: %s", path, strerror(errno));
		goto out;
	}
	p = raw.ptr;
	end = raw.ptr + raw.len;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t i = 0;

		lineno++;
		if (len && p[len - 1] == '\r')
			len--;
		p[len] = '\0';
		if (!len || p[0] == '#') {
			/* nothing */
		} else if (p[0] == ':') {
			if (script_command(s, path, lineno, p, e) < 0)
				goto out;
		} else {
			while (i < len) {
				int key;
				size_t n = key_parse(p + i, len - i, &key);

				if (!n) {
					err_set(e, ERR_INPUT, "%s:%d: bad key "
						"name at \"%.20s\"", path,
						lineno, p + i);
					goto out;
				}
				script_add(s, EV_KEY)->key = key;
				i += n;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	ret = 0;
out:
	buf_release(&raw);
	if (ret < 0)
		script_release(s);
	return ret;
}
