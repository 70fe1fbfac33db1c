/* SPDX-License-Identifier: MIT */
/*
 * cli: shared plumbing of the subcommands - opening the study, errors,
 * option parsing, printing untrusted text.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/study/study.h"
#include "core/base/suggest.h"
#include "core/base/text.h"
#include "exports/atomic.h"

int cli_fail_err(const struct err *e)
{
	struct buf b = BUF_INIT;

	/* messages may quote untrusted input: keep them one safe line */
	text_sanitize(&b, e->msg, strlen(e->msg), 8, 0);
	fprintf(stderr, "bugcoder: %s\n", b.ptr);
	buf_release(&b);
	return err_exit_code(e->code ? e->code : ERR_INPUT);
}

int cli_fail(struct cli *c)
{
	return cli_fail_err(&c->err);
}

int cli_fail_also(struct cli *c, const char *fmt, ...)
{
	struct buf msg = BUF_INIT, b = BUF_INIT;
	va_list ap;

	buf_addf(&msg, "%s; ", c->err.msg);
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	text_sanitize(&b, msg.ptr, msg.len, 8, 0);
	fprintf(stderr, "bugcoder: %s\n", b.ptr);
	buf_release(&b);
	buf_release(&msg);
	return err_exit_code(c->err.code ? c->err.code : ERR_INPUT);
}

int cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fputs("bugcoder: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n", usage);
	return 2;
}

int cli_help(const char *usage)
{
	printf("usage: %s\n", usage);
	return 0;
}

void cli_preopen(struct cli *c)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	struct buf p = BUF_INIT;
	int i, raised = priv_raise() == 0;

	for (i = 0; i < 3; i++) {
		buf_reset(&p);
		buf_addf(&p, "%s%s", c->study_path, suffix[i]);
		c->pre_errno[i] = lstat(p.ptr, &c->pre_sb[i]) < 0 ? errno : 0;
	}
	if (raised)
		priv_lower();
	buf_release(&p);
	if (study_open(&c->st, c->study_path, STORE_PRIVILEGED,
		       &c->preopen_err) < 0) {
		c->preopen_failed = 1;
		return;
	}
	c->st_open = 1;
}

int cli_drop_privilege(struct cli *c)
{
	if (priv_drop_for_good() < 0) {
		err_set(&c->err, ERR_IO, "cannot give up the group privilege "
			"(%s); stopped", strerror(errno));
		return cli_fail(c);
	}
	return 0;
}

int cli_create_privileged(struct cli *c)
{
	const struct server_conf *conf = priv_server_conf();
	char *me = member_os_user();
	struct buf p[3] = { BUF_INIT, BUF_INIT, BUF_INIT };
	const char *paths[3];
	int i, ret = 0;

	if (!priv_may_create(me)) {
		err_set(&c->err, ERR_PERM, "%s: only root%s%s may create "
			"studies in %s (server.conf's `creators` line); ask "
			"the administrator, or make a study of your own by "
			"path (--study ./%s)", c->study_path,
			conf && conf->creators && *conf->creators ? " and " :
			"", conf && conf->creators ? conf->creators : "",
			conf ? conf->studydir : "the study directory",
			strrchr(c->study_path, '/') ?
			strrchr(c->study_path, '/') + 1 : c->study_path);
		free(me);
		ret = cli_fail(c);
		cli_drop_privilege(c);
		return ret;
	}
	free(me);
	if (study_create_open(&c->st, c->study_path, STORE_PRIVILEGED,
			      &c->err) < 0) {
		ret = cli_fail(c);
		cli_drop_privilege(c);
		return ret;
	}
	c->st_open = 1;
	for (i = 0; i < 3; i++) {
		buf_addf(&p[i], "%s%s", c->study_path,
			 i == 0 ? "" : i == 1 ? "-wal" : "-shm");
		paths[i] = p[i].ptr;
	}
	if (priv_keeper_start(paths, 3, &c->err) < 0) {
		ret = cli_fail(c);
		store_close(&c->st);
		c->st_open = 0;
		study_remove_files(c->study_path, STORE_PRIVILEGED);
	}
	for (i = 0; i < 3; i++)
		buf_release(&p[i]);
	if (cli_drop_privilege(c) && !ret)
		ret = 1;
	return ret;
}

int cli_open(struct cli *c, unsigned flags)
{
	if (c->preopen_failed) {
		c->err = c->preopen_err;
		return cli_fail(c);
	}
	if (!c->st_open) {
		if (study_open(&c->st, c->study_path, ((flags & CLI_READONLY) ?
			       STORE_READONLY : 0) | (c->study_privileged ?
			       STORE_PRIVILEGED : 0), &c->err) < 0)
			return cli_fail(c);
		c->st_open = 1;
	}
	if (c->have_actor == 2 || (c->have_actor && !(flags & CLI_MEMBER)))
		return 0;
	if (c->have_actor)
		actor_release(&c->actor);
	c->have_actor = 0;
	if (((flags & CLI_MEMBER) ?
	     member_resolve(&c->st, c->as, &c->actor, &c->err) :
	     member_resolve_any(&c->st, c->as, &c->actor, &c->err)) < 0)
		return cli_fail(c);
	c->have_actor = (flags & CLI_MEMBER) ? 2 : 1;
	return 0;
}

int cli_codebook(struct cli *c, struct codebook *cb)
{
	if (study_codebook(&c->st, cb, NULL, &c->err) < 0)
		return cli_fail(c);
	return 0;
}

char *cli_find_codebook(struct cli *c, const char *name)
{
	struct buf exe = BUF_INIT, installed = BUF_INIT, tree = BUF_INIT;
	struct buf mk = BUF_INIT;
	const char *dirs[2] = { NULL, NULL };
	char *path, *slash;
	ssize_t n;

	buf_grow(&exe, 4096);
	n = readlink("/proc/self/exe", exe.ptr, exe.alloc - 1);
	if (n > 0) {
		buf_setlen(&exe, (size_t)n);
		slash = strrchr(exe.ptr, '/');
		if (slash)
			buf_setlen(&exe, (size_t)(slash - exe.ptr));
		buf_addf(&installed, "%s/../share/bugcoder/codebooks",
			 exe.ptr);
		dirs[0] = installed.ptr;
		/* the build tree: the program next to the Makefile */
		buf_addf(&mk, "%s/Makefile", exe.ptr);
		buf_addf(&tree, "%s/codebooks", exe.ptr);
		if (access(mk.ptr, F_OK) == 0)
			dirs[1] = tree.ptr;
	}
	path = codebook_find(name, dirs, 2, &c->err);
	if (!path)
		cli_fail(c);
	buf_release(&exe);
	buf_release(&installed);
	buf_release(&tree);
	buf_release(&mk);
	return path;
}

const char *cli_near_option(const char *arg, size_t len,
			    const char *const *names, size_t n)
{
	static const char *const globals[] = { "--study", "--as", "--help" };
	struct suggest sg;
	char *typed;
	const char *best = NULL, *got;
	size_t i;

	if (len < 3 || strncmp(arg, "--", 2))
		return NULL;
	typed = xstrndup(arg + 2, len - 2);
	suggest_init(&sg, typed);
	/* offered without their dashes: the dashes would count as letters
	 * in common */
	for (i = 0; i < n + 3; i++) {
		const char *name = i < n ? names[i] : globals[i - n];

		if (!strncmp(name, "--", 2))
			suggest_add(&sg, name + 2);
	}
	got = suggest_result(&sg);
	for (i = 0; got && i < n + 3; i++) {
		const char *name = i < n ? names[i] : globals[i - n];

		if (!strncmp(name, "--", 2) && !strcmp(name + 2, got)) {
			best = name;
			break;
		}
	}
	suggest_release(&sg);
	free(typed);
	return best;
}

void cli_print_safe(FILE *out, const char *s)
{
	struct buf b = BUF_INIT;

	if (!s)
		return;
	if (!isatty(fileno(out))) {
		fputs(s, out);
		return;
	}
	text_sanitize(&b, s, strlen(s), 8, TEXT_KEEP_NL);
	fputs(b.ptr, out);
	buf_release(&b);
}

const char **cli_split_commas(const char *s, size_t *nr, char **copy)
{
	const char **v = NULL;
	char *tok, *save = NULL;
	size_t alloc = 0;

	*nr = 0;
	*copy = xstrdup(s);
	for (tok = strtok_r(*copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		ALLOC_GROW(v, *nr + 1, alloc);
		v[(*nr)++] = tok;
	}
	return v;
}

int cli_check_dim_args(const char **pos, int from, int npos,
		       const char *usage)
{
	int i;

	for (i = from; i < npos; i++)
		if (!strchr(pos[i], '=') || pos[i][0] == '=')
			return cli_usage_error(usage, "%s: expected DIM=CODE",
					       pos[i]);
	return 0;
}

void cli_dim_codes(const char *arg, struct dim_codes *dc)
{
	const char *eq = strchr(arg, '=');

	dc->dim = xstrndup(arg, (size_t)(eq - arg));
	dc->codes = cli_split_commas(eq + 1, &dc->nr, &dc->copy);
}

void cli_dim_codes_release(struct dim_codes *dc)
{
	free(dc->dim);
	free((void *)dc->codes);
	free(dc->copy);
	memset(dc, 0, sizeof(*dc));
}

int cli_mode(const char *arg, mode_t *mode, const char *usage)
{
	char *end;
	unsigned long v;

	*mode = OUTPUT_MODE;
	if (!arg)
		return 0;
	errno = 0;
	v = strtoul(arg, &end, 8);
	if (errno || end == arg || *end || strlen(arg) > 4 || (v & ~0666UL) ||
	    (v & 0600) != 0600)
		return cli_usage_error(usage, "--mode %s: an octal file mode "
				       "of read and write bits, from 600 (you "
				       "only, the default) to 666; for "
				       "example 640 for your group too", arg);
	*mode = (mode_t)v;
	return 0;
}
