/* SPDX-License-Identifier: MIT */
/*
 * settings: see settings.h.
 */
#include "tui/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/text.h"

static const struct {
	const char *name;
	int def;
} known[NR_SETTINGS] = {
	[SET_WRAP_ISSUE] = { "wrap-issue", 0 },
	[SET_WRAP_FIX] = { "wrap-fix", 0 },
};

static int value[NR_SETTINGS];
static struct buf file_path = BUF_INIT;	/* the settings file read */

int settings_get(enum setting s)
{
	return (unsigned)s < NR_SETTINGS ? value[s] : 0;
}

void settings_reset(void)
{
	int i;

	for (i = 0; i < NR_SETTINGS; i++)
		value[i] = known[i].def;
}

const char *settings_set_words(const char *name, const char *v,
			       char why[160])
{
	int i, on;

	for (i = 0; i < NR_SETTINGS; i++)
		if (!strcmp(known[i].name, name))
			break;
	if (i == NR_SETTINGS) {
		snprintf(why, 160, "no setting \"%.40s\" (wrap-issue, "
			 "wrap-fix)", name);
		return why;
	}
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true"))
		on = 1;
	else if (!strcmp(v, "off") || !strcmp(v, "no") ||
		 !strcmp(v, "false"))
		on = 0;
	else {
		snprintf(why, 160, "%s takes on or off, not \"%.40s\"", name,
			 v);
		return why;
	}
	value[i] = on;
	return NULL;
}

/* The settings file's default path into out: beside the keys file. */
static int default_path(struct buf *out)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

	if (x && *x)
		buf_addf(out, "%s/bugcoder/settings", x);
	else if (h && *h)
		buf_addf(out, "%s/.config/bugcoder/settings", h);
	else
		return -1;
	return 0;
}

/* One line of the settings file: NULL when good, else what is wrong. */
static const char *set_line(char *line, char why[160])
{
	char *w[4], *p = line;
	int n = 0;

	while (n < 4) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		w[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	if (!n || w[0][0] == '#')
		return NULL;
	if (strcmp(w[0], "set"))
		return snprintf(why, 160, "unknown command \"%.40s\" (only "
				"set)", w[0]), why;
	if (n != 3)
		return snprintf(why, 160, "set takes two words: NAME on|off"),
		       why;
	return settings_set_words(w[1], w[2], why);
}

int settings_load(const char *path, struct buf *warn)
{
	struct buf text = BUF_INIT;
	const char *p;
	int bad = 0, nr = 0;

	buf_reset(&file_path);
	if (path)
		buf_addstr(&file_path, path);
	else if (default_path(&file_path) < 0)
		return 0;
	if (buf_read_file(&text, file_path.ptr) < 0) {
		if (errno != ENOENT) {
			buf_addf(warn, "%s: %s (settings not read)\n",
				 file_path.ptr, strerror(errno));
			bad = -1;
		}
		goto out;
	}
	for (p = text.ptr; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len), why[160];
		const char *err;

		nr++;
		if (len && line[len - 1] == '\r')
			line[len - 1] = '\0';
		err = set_line(line, why);
		if (err) {
			struct buf safe = BUF_INIT;

			/* the file's words go to a terminal: sanitized */
			text_sanitize(&safe, err, strlen(err), 8, 0);
			buf_addf(warn, "%s:%d: %s (line ignored)\n",
				 file_path.ptr, nr, safe.ptr);
			buf_release(&safe);
			bad++;
		}
		free(line);
		p += len + (nl ? 1 : 0);
	}
out:
	buf_release(&text);
	return bad;
}

/* mkdir -p of the directory that holds `path`. */
static int make_dirs(const char *path)
{
	char *d = xstrdup(path), *s;
	int ret = 0;

	for (s = d + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(d, 0777) < 0 && errno != EEXIST) {
			ret = -1;
			break;
		}
		*s = '/';
	}
	free(d);
	return ret;
}

int settings_remember(enum setting s, int v, struct buf *err)
{
	struct buf text = BUF_INIT, tmp = BUF_INIT;
	int i, fd, ret = -1, werr;
	ssize_t n = 0;
	size_t off = 0;

	if ((unsigned)s < NR_SETTINGS)
		value[s] = !!v;
	if (!file_path.len && default_path(&file_path) < 0) {
		buf_addstr(err, "no HOME or XDG_CONFIG_HOME to keep settings "
			   "in");
		return -1;
	}
	buf_addstr(&text, "# bugcoder's screens keep what you chose here; "
		   "`set` lines in the keys\n# file beside it give defaults, "
		   "and these win over them\n");
	for (i = 0; i < NR_SETTINGS; i++)
		buf_addf(&text, "set %s %s\n", known[i].name,
			 value[i] ? "on" : "off");
	buf_addf(&tmp, "%s.XXXXXX", file_path.ptr);
	if (make_dirs(file_path.ptr) < 0 || (fd = mkstemp(tmp.ptr)) < 0) {
		buf_addf(err, "%s: %s", file_path.ptr, strerror(errno));
		goto out;
	}
	/* readable like the keys file (mkstemp makes it 0600) */
	if (fchmod(fd, 0644) < 0)
		errno = 0;
	while (off < text.len && (n = write(fd, text.ptr + off,
					    text.len - off)) > 0)
		off += (size_t)n;
	werr = off < text.len ? (n < 0 ? errno : ENOSPC) : 0;
	if (close(fd) < 0 && !werr)
		werr = errno;
	if (werr) {
		buf_addf(err, "%s: %s", tmp.ptr, strerror(werr));
		unlink(tmp.ptr);
		goto out;
	}
	if (rename(tmp.ptr, file_path.ptr) < 0) {
		buf_addf(err, "%s: %s", file_path.ptr, strerror(errno));
		unlink(tmp.ptr);
		goto out;
	}
	ret = 0;
out:
	buf_release(&text);
	buf_release(&tmp);
	return ret;
}
