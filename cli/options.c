/* SPDX-License-Identifier: MIT */
/*
 * options: the option tables' parser and --help; see options.h.
 */
#include "cli/options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/base/buf.h"

#define HELP_WIDTH 79
#define LABEL_MAX 24	/* a longer label puts its help on the next line */

const struct option global_opts[] = {
	{ OPT_KIND_STRING, 0, "study", 0, "FILE", OPT_V_FILE,
	  "the study: a file, else $BUGCODER_STUDY, else ./bugcoder.db", NULL },
	{ OPT_KIND_STRING, 0, "as", 0, "USER", OPT_V_MEMBER,
	  "act for member USER (the owner only)", NULL },
	{ OPT_KIND_FLAG, 'h', "help", 0, NULL, OPT_V_TEXT, "this help", NULL },
	{ OPT_KIND_FLAG, 0, "version", 0, NULL, OPT_V_TEXT,
	  "the version", NULL },
	OPT_END()
};

const struct command *command_find(const char *name)
{
	size_t i;

	for (i = 0; i < nr_commands; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

const struct option *opt_find(const struct option *o, const char *name,
			      size_t len)
{
	for (; o && o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_ARG || o->kind == OPT_KIND_GLOBAL ||
		    o->kind == OPT_KIND_DOC)
			continue;
		if (len == 2 && name[0] == '-' && name[1] == o->short_name &&
		    o->short_name)
			return o;
		if (len > 2 && !strncmp(name, "--", 2) && o->long_name &&
		    strlen(o->long_name) == len - 2 &&
		    !strncmp(o->long_name, name + 2, len - 2))
			return o;
	}
	return NULL;
}

void opt_list_release(struct opt_list *l)
{
	free((void *)l->v);
	l->v = NULL;
	l->nr = 0;
}

/* "unknown option --fromat; did you mean --format?" */
static int unknown_option(const struct command *cmd, const char *arg,
			  size_t len)
{
	const struct option *o;
	const char **names;
	const char *near;
	size_t n = 0;

	for (o = cmd->opts; o->kind != OPT_KIND_END; o++)
		n++;
	names = xcalloc(n + 1, sizeof(*names));
	n = 0;
	for (o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		struct buf b = BUF_INIT;

		if (o->kind == OPT_KIND_ARG || o->kind == OPT_KIND_GLOBAL ||
		    o->kind == OPT_KIND_DOC || !o->long_name)
			continue;
		buf_addf(&b, "--%s", o->long_name);
		names[n++] = buf_detach(&b, NULL);
	}
	near = cli_near_option(arg, len, names, n);
	if (near)
		cli_usage_error(opt_usage(cmd), "unknown option %.*s; did you "
				"mean %s?", (int)len, arg, near);
	else
		cli_usage_error(opt_usage(cmd), "unknown option %.*s",
				(int)len, arg);
	while (n)
		free((void *)names[--n]);
	free(names);
	return -1;
}

/* "--items" or "-o": how the option is named in messages */
static void opt_name(const struct option *o, struct buf *out)
{
	if (o->long_name)
		buf_addf(out, "--%s", o->long_name);
	else
		buf_addf(out, "-%c", o->short_name);
}

static int set_value(const struct command *cmd, const struct option *o,
		     void *opts, const char *val)
{
	char *at = (char *)opts + o->off;
	struct buf name = BUF_INIT;
	char *end;
	long v;

	switch (o->kind) {
	case OPT_KIND_LIST: {
		struct opt_list *l = (struct opt_list *)(void *)at;

		l->v = xrealloc((void *)l->v, (l->nr + 1) * sizeof(*l->v));
		l->v[l->nr++] = val;
		return 0;
	}
	case OPT_KIND_INT:
		errno = 0;
		v = strtol(val, &end, 10);
		if (errno || end == val || *end) {
			opt_name(o, &name);
			cli_usage_error(opt_usage(cmd), "%s %s: expected a "
					"whole number", name.ptr, val);
			buf_release(&name);
			return -1;
		}
		*(long *)(void *)at = v;
		return 0;
	default:
		*(const char **)(void *)at = val;
		return 0;
	}
}

/* One option argv[*i] (its value may be the next word); 0 or -1. */
static int take_option(const struct command *cmd, int argc, char **argv,
		       int *i, void *opts)
{
	const char *arg = argv[*i];
	const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct option *o = opt_find(cmd->opts, arg, len);

	if (!o)
		return unknown_option(cmd, arg, len);
	if (o->kind == OPT_KIND_FLAG) {
		if (eq)
			return cli_usage_error(opt_usage(cmd), "%.*s takes no "
					       "value", (int)len, arg), -1;
		(*(int *)(void *)((char *)opts + o->off))++;
		return 0;
	}
	if (eq)
		return set_value(cmd, o, opts, eq + 1);
	if (*i + 1 >= argc)
		return cli_usage_error(opt_usage(cmd), "%s needs a value",
				       arg), -1;
	(*i)++;
	return set_value(cmd, o, opts, argv[*i]);
}

int opt_parse(const struct command *cmd, int argc, char **argv, void *opts,
	      const char **pos, int *npos)
{
	int i, dashdash = 0;

	*npos = 0;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (dashdash || arg[0] != '-' || !arg[1]) {
			pos[(*npos)++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			dashdash = 1;
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			cli_help(opt_usage(cmd));
			return 1;
		}
		if (take_option(cmd, argc, argv, &i, opts) < 0)
			return -1;
	}
	return 0;
}

/* ---- help ------------------------------------------------------------ */

/* Append `text` wrapped to HELP_WIDTH, starting at column `col` of the
 * line `out` ends with, every further line indented to `indent`. */
static void wrap(struct buf *out, const char *text, int col, int indent)
{
	const char *p = text;
	int start = 1;

	while (*p) {
		size_t n;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		if (!start && col + 1 + (int)n > HELP_WIDTH) {
			buf_addf(out, "\n%*s", indent, "");
			col = indent;
			start = 1;
		}
		if (!start) {
			buf_addch(out, ' ');
			col++;
		}
		buf_add(out, p, n);
		col += (int)n;
		start = 0;
		p += n;
	}
}

/* "--items SPEC", "-o FILE", "ITEM": what an entry's line starts with */
static void entry_label(const struct option *o, struct buf *out)
{
	if (o->kind == OPT_KIND_ARG || o->kind == OPT_KIND_DOC) {
		buf_addstr(out, o->long_name);
		return;
	}
	if (o->short_name && o->long_name)
		buf_addf(out, "-%c, ", o->short_name);
	opt_name(o, out);
	if (o->kind != OPT_KIND_FLAG && o->argh)
		buf_addf(out, " %s", o->argh);
}

static int label_width(const struct option *opts)
{
	const struct option *o;
	struct buf label = BUF_INIT;
	int w = 0;

	for (o = opts; o->kind != OPT_KIND_END; o++) {
		if (!o->help)
			continue;
		buf_reset(&label);
		entry_label(o, &label);
		if ((int)label.len <= LABEL_MAX && (int)label.len > w)
			w = (int)label.len;
	}
	buf_release(&label);
	return w;
}

static void entries(const struct command *cmd, struct buf *out)
{
	const struct option *o;
	struct buf label = BUF_INIT;
	int w = label_width(cmd->opts), col = 2 + w + 2;

	for (o = cmd->opts; o->kind != OPT_KIND_END; o++) {
		if (!o->help)
			continue;
		buf_reset(&label);
		entry_label(o, &label);
		buf_addf(out, "  %s", label.ptr);
		if ((int)label.len > w)
			buf_addf(out, "\n%*s", col, "");
		else
			buf_addf(out, "%*s", col - 2 - (int)label.len, "");
		wrap(out, o->help, col, col);
		buf_addch(out, '\n');
	}
	buf_release(&label);
}

const char *opt_usage(const struct command *cmd)
{
	static const struct command *built;
	static struct buf b = BUF_INIT;

	if (built == cmd)
		return b.ptr;
	buf_reset(&b);
	buf_addstr(&b, cmd->usage);
	buf_addstr(&b, "\n\n");
	if (cmd->intro)
		buf_addf(&b, "%s\n\n", cmd->intro);
	if (cmd->opts)
		entries(cmd, &b);
	if (cmd->notes)
		buf_addf(&b, "\n%s", cmd->notes);
	while (b.len > 1 && b.ptr[b.len - 1] == '\n' &&
	       b.ptr[b.len - 2] == '\n')
		buf_setlen(&b, b.len - 1);
	if (cmd->examples)
		buf_addf(&b, "\n  e.g. %s", cmd->examples);
	while (b.len && b.ptr[b.len - 1] == '\n')
		buf_setlen(&b, b.len - 1);
	built = cmd;
	return b.ptr;
}
