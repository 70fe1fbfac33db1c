/* SPDX-License-Identifier: MIT */
/*
 * bugcoder: a terminal workbench for empirical bug studies.
 *
 * main() takes the global options (--study, --as, wherever they stand),
 * finds the subcommand and runs it.  Plain `bugcoder` opens the screen
 * that fits the member: the annotator's queue, or the adjudicator's.
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/docgen.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/base/suggest.h"
#include "core/base/priv.h"
#include "core/base/version.h"

#ifdef BUGCODER_SAN
#include <unistd.h>
/* A sanitizer build run setgid (the server tests): LeakSanitizer cannot
 * trace a process the kernel made non-dumpable, and the environment's
 * ASAN_OPTIONS are not read there, so leak checking is off for it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return getegid() != getgid() ? "detect_leaks=0" : "";
}
#endif


static int has_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

/* Will the command line run a command that reads the study? */
static int wants_study(int argc, char **argv)
{
	size_t i;

	if (argc == 0)
		return 1;	/* plain `bugcoder`: the member's screen */
	if (has_help(argc, argv))
		return 0;
	for (i = 0; i < nr_commands; i++)
		if (!strcmp(argv[0], commands[i]->name))
			return strcmp(argv[0], "init") != 0;
	return 0;
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: bugcoder [--study FILE] [--as USER] COMMAND "
		"[ARGS]\n\n");
	for (i = 0; i < nr_commands; i++)
		fprintf(out, "  %-14s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(out, "\nThe study is --study FILE, else $BUGCODER_STUDY, else "
		"./bugcoder.db.\n");
	if (priv_server_conf())
		fprintf(out, "On this server a plain NAME is the study NAME in "
			"%s.\n", priv_server_conf()->studydir);
	fprintf(out, "`bugcoder COMMAND --help` describes each command.\n");
}

/* Take --study/--as out of argv wherever they stand (before a "--"). */
static int take_globals(struct cli *c, int *argc, char **argv)
{
	int i, j = 0;

	for (i = 0; i < *argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;
		const char *val = NULL;

		if (!strcmp(a, "--")) {
			while (i < *argc)
				argv[j++] = argv[i++];
			break;
		}
		if (!strcmp(a, "--study") || !strcmp(a, "--as")) {
			slot = a[2] == 's' ? &c->study_path : &c->as;
			if (i + 1 >= *argc) {
				fprintf(stderr, "bugcoder: %s needs a value\n",
					a);
				return -1;
			}
			val = argv[++i];
		} else if (!strncmp(a, "--study=", 8)) {
			slot = &c->study_path;
			val = a + 8;
		} else if (!strncmp(a, "--as=", 5)) {
			slot = &c->as;
			val = a + 5;
		}
		if (slot) {
			if (!*val) {
				fprintf(stderr, "bugcoder: %.7s needs a "
					"value\n", a);
				return -1;
			}
			*slot = val;
			continue;
		}
		argv[j++] = argv[i];
	}
	argv[j] = NULL;
	*argc = j;
	return 0;
}

/*
 * Did everything we printed reach its destination?  A full disk or a
 * closed pipe shows only when the buffer is flushed, so check stdout and
 * stderr as git does after every command: a command whose output was
 * lost fails, even when its work succeeded.
 */
static int finish_output(int ret)
{
	int bad_out = fflush(stdout) != 0 || ferror(stdout);

	if (fclose(stdout) != 0)
		bad_out = 1;
	/* a command that failed has said why already */
	if (bad_out && !ret) {
		fprintf(stderr, "bugcoder: writing standard output: %s\n",
			strerror(errno ? errno : EIO));
		ret = 1;
	}
	if (fflush(stderr) != 0 || ferror(stderr)) {
		if (!ret)
			ret = 1;
	}
	return ret;
}

/* Which study: --study, else $BUGCODER_STUDY, else bugcoder.db here; a
 * study named (not a path) is found in the server's STUDYDIR.  Returns
 * 0, or -1 with c->err filled. */
static int choose_study(struct cli *c)
{
	const char *env;

	if (!c->study_path) {
		env = getenv("BUGCODER_STUDY");
		if (env && *env)
			c->study_path = env;
	}
	if (!c->study_path) {
		c->study_path = "bugcoder.db";
		return 0;
	}
	if (priv_study_path(c->study_path, &c->study_owned,
			    &c->study_privileged, &c->err) < 0)
		return -1;
	c->study_path = c->study_owned;
	return 0;
}

/*
 * The group's one narrow step: a study in the server's STUDYDIR is
 * opened now, with its -wal and -shm, and then the group is given up for
 * good, before any configuration, terminfo, input file or item text is
 * read.  `init` there creates its study first and gives the group up
 * once it has (see cmd_init); a study opened by path never needed the
 * group.  Returns 0 or the exit code.
 */
static int narrow_step(struct cli *c, int argc, char **argv)
{
	if (c->study_privileged && argc > 0 && !strcmp(argv[0], "init") &&
	    !has_help(argc, argv))
		return 0;
	if (c->study_privileged && wants_study(argc, argv))
		cli_preopen(c);
	return cli_drop_privilege(c);
}

/* Plain `bugcoder`: the screen that fits the member. */
static int run_default(struct cli *c)
{
	static char *code_argv[] = { "code", NULL };
	static char *adj_argv[] = { "adjudicate", NULL };
	int ret;

	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (c->actor.role == ROLE_ADJUDICATOR)
		return cmd_adjudicate(c, 1, adj_argv);
	if (c->actor.role == ROLE_ANNOTATOR)
		return cmd_code(c, 1, code_argv);
	usage(stdout);
	return 0;
}

/* A global option misspelt (--stdy), or a command's option before its
 * command.  Returns 2. */
static int unknown_option(const char *arg)
{
	static const char *const globals[] = { "--version" };
	size_t len = strcspn(arg, "=");
	const char *near = cli_near_option(arg, len, globals, 1);

	fprintf(stderr, "bugcoder: %.*s: unknown option", (int)len, arg);
	if (near)
		fprintf(stderr, "; did you mean %s?", near);
	fprintf(stderr, "\nusage: bugcoder [--study FILE] [--as USER] "
		"COMMAND [ARGS] (bugcoder --help lists the commands)\n");
	return 2;
}

/* The command called `name`, or NULL when there is none (then said,
 * with the nearest name and the usage). */
static const struct command *find_command(const char *name)
{
	const char **names;
	const char *near;
	size_t i;

	for (i = 0; i < nr_commands; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	names = xcalloc(nr_commands, sizeof(*names));
	for (i = 0; i < nr_commands; i++)
		names[i] = commands[i]->name;
	near = suggest_closest(name, names, nr_commands);
	free(names);
	fprintf(stderr, "bugcoder: %s: unknown command", name);
	if (near)
		fprintf(stderr, "; did you mean `bugcoder %s`?", near);
	fprintf(stderr, "\n");
	usage(stderr);
	return NULL;
}

/* What argv[0] asks for, once the study is chosen and the privilege
 * given up.  Returns the exit code. */
static int dispatch(struct cli *c, int argc, char **argv)
{
	const struct command *cmd;

	if (argc == 0)
		return run_default(c);
	if (!strcmp(argv[0], "--version") || !strcmp(argv[0], "version")) {
		printf("%s\n", bugcoder_version_line());
		return 0;
	}
	if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h") ||
	    !strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	if (argv[0][0] == '-' && argv[0][1])
		return unknown_option(argv[0]);
	if (!(cmd = find_command(argv[0])))
		return 2;
	return cmd->fn(c, argc, argv);
}

static int run(int argc, char **argv)
{
	struct cli c = { 0 };
	int ret;

	/* first of all: lower the group privilege of a server install */
	if (priv_init(&c.err) < 0)
		return cli_fail(&c);
	setlocale(LC_ALL, "");
	/* numbers are data: CSV, JSON and the reports write "0.85" in every
	 * locale (a decimal comma splits a CSV cell and breaks JSON) */
	setlocale(LC_NUMERIC, "C");
	argc--;
	argv++;
	if (argc > 0 && !strcmp(argv[0], "__complete")) {
		/* the shell's completion: it reads the study as the user,
		 * never with the group */
		if ((ret = cli_drop_privilege(&c)) == 0)
			ret = cli_complete(argc - 1, argv + 1);
		return ret;
	}
	/* the man page's and the README's command documentation, made
	 * from the option tables at build time (docgen.h) */
	if (argc > 0 && (!strcmp(argv[0], "__man") ||
			 !strcmp(argv[0], "__readme"))) {
		if ((ret = cli_drop_privilege(&c)) == 0)
			ret = argv[0][2] == 'm' ? cli_man(argc - 1, argv + 1) :
			      cli_readme(argc - 1, argv + 1);
		return ret;
	}
	if (take_globals(&c, &argc, argv) < 0)
		return 2;
	/* issue URLs name github.com, or the GitHub $GITHUB_API_URL is */
	item_set_api_host(getenv("GITHUB_API_URL"));
	if (choose_study(&c) < 0)
		return cli_fail(&c);
	if (!(ret = narrow_step(&c, argc, argv)))
		ret = dispatch(&c, argc, argv);
	actor_release(&c.actor);
	if (c.st_open)
		store_close(&c.st);
	priv_keeper_end(ret != 0);
	free(c.study_owned);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	errno = 0;
	return finish_output(ret);
}
