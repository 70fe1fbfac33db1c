/* SPDX-License-Identifier: MIT */
/*
 * fetch: collect closed bug issues and the merged pull requests that
 * fixed them from GitHub (core/github/github.c does the work).
 *
 * The token comes from --token-file or $GITHUB_TOKEN, never from the
 * command line (which every user of the machine can read).  On a
 * terminal a progress line is kept up to date on stderr; otherwise the
 * command is quiet until its summary.  SIGINT and SIGTERM stop it at the
 * next safe point (exit 3); the same command then continues.
 *
 * For tests, BUGCODER_FETCH_TIMEOUT (seconds without a byte before an
 * exchange is abandoned) and BUGCODER_FETCH_BACKOFF_MS (first retry delay)
 * shorten the waits.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/github/github.h"
#include "core/study/item.h"
#include "core/base/text.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = 1;
}

struct line {
	int tty;
	int drawn;		/* a progress line is on the screen */
	double last;		/* when it was last drawn */
	int last_wait;
	const char *repo;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void draw(void *ctx, const struct gh_stats *s)
{
	struct line *l = ctx;
	struct buf b = BUF_INIT;
	double t = now_s();

	if (!l->tty)
		return;
	if (s->waiting == l->last_wait && t - l->last < 0.1)
		return;
	l->last = t;
	l->last_wait = s->waiting;
	buf_addf(&b, "\r%s: %ld seen, %ld kept, %ld fixes, %ld requests",
		 l->repo, s->seen, s->kept, s->fixes, s->requests);
	if (s->rate_remaining >= 0)
		buf_addf(&b, ", %ld left", s->rate_remaining);
	if (s->waiting > 0)
		buf_addf(&b, ", waiting %ds (%s)", s->waiting,
			 s->wait_reason ? s->wait_reason : "back-off");
	buf_addstr(&b, "\033[K");
	fputs(b.ptr, stderr);
	fflush(stderr);
	l->drawn = 1;
	buf_release(&b);
}

/* Read the token from `path` into a new string: the first line, without
 * surrounding white space.  The file should be private to its owner. */
static char *read_token(const char *path, struct err *e)
{
	struct buf b = BUF_INIT;
	char *tok;
	size_t start = 0, end;

	if (buf_read_file(&b, path) < 0) {
		err_set(e, ERR_IO, "--token-file %s: %s", path,
			strerror(errno));
		return NULL;
	}
	while (start < b.len && (b.ptr[start] == ' ' || b.ptr[start] == '\t' ||
				 b.ptr[start] == '\n' || b.ptr[start] == '\r'))
		start++;
	end = start;
	while (end < b.len && b.ptr[end] != '\n' && b.ptr[end] != '\r')
		end++;
	while (end > start && (b.ptr[end - 1] == ' ' ||
			       b.ptr[end - 1] == '\t'))
		end--;
	if (end == start) {
		memset(b.ptr, 0, b.len);
		buf_release(&b);
		err_set(e, ERR_INPUT, "--token-file %s: no token in it", path);
		return NULL;
	}
	tok = xstrndup(b.ptr + start, end - start);
	memset(b.ptr, 0, b.len);
	buf_release(&b);
	return tok;
}

static long env_long(const char *name)
{
	const char *v = priv_hook_env(name);	/* a test hook */
	char *end;
	long x;

	if (!v || !*v)
		return 0;
	x = strtol(v, &end, 10);
	return *end || x < 0 ? 0 : x;
}

static void summary(const char *repo, const struct gh_stats *s)
{
	if (s->renamed_to)
		printf("%s is now called %s: fetched and stored under that "
		       "name, the old one kept as an alias\n", repo,
		       s->renamed_to);
	printf("%s: %ld %s seen, %ld stored (%ld with a fix, %ld "
	       "without), %ld %s", s->renamed_to ? s->renamed_to : repo,
	       s->seen, text_plural(s->seen, "issue", "issues"), s->kept,
	       s->kept_fixed, s->kept - s->kept_fixed, s->fixes,
	       text_plural(s->fixes, "fix", "fixes"));
	if (s->partial_diffs)
		printf(", %ld partial %s", s->partial_diffs,
		       text_plural(s->partial_diffs, "diff", "diffs"));
	if (s->unchanged)
		printf(", %ld unchanged since the last fetch", s->unchanged);
	if (s->vanished)
		printf(", %ld gone since listed", s->vanished);
	if (s->pulls_alone)
		printf(", %ld pull request%s given alone (each its own fix; "
		       "days open from its opening to its close)",
		       s->pulls_alone, s->pulls_alone == 1 ? "" : "s");
	if (s->nr_failed)
		printf(", %zu failed", s->nr_failed);
	if (s->nul_replaced)
		printf(", %ld NUL %s in GitHub's text stored as U+FFFD",
		       s->nul_replaced, text_plural(s->nul_replaced,
						    "character",
						    "characters"));
	printf("\nrequests: %ld (%ld counted, %ld not modified, %ld "
	       "retried)", s->requests, s->counted, s->not_modified,
	       s->retries);
	if (s->kept)
		printf(", %.2f counted per stored issue",
		       (double)s->counted / (double)s->kept);
	if (s->rate_remaining >= 0)
		printf("; rate limit left %ld", s->rate_remaining);
	if (s->waited)
		printf("; waited %lds", s->waited);
	printf("; linked by %s", s->graphql ? "GraphQL" : "REST timelines");
	if (s->graphql_cost)
		printf(" (%ld GraphQL points)", s->graphql_cost);
	if (s->graphql_halved)
		printf("; %ld GraphQL batch%s halved after a failure",
		       s->graphql_halved, s->graphql_halved == 1 ? "" : "es");
	if (s->graphql_lost)
		printf("; %ld issue%s GraphQL could not answer linked by REST",
		       s->graphql_lost, s->graphql_lost == 1 ? "" : "s");
	putchar('\n');
	fflush(stdout);
}

/* "owner/name" of a repository's URL (https://github.com/owner/name,
 * with or without a trailing slash or .git), owned by the caller; the
 * text as given when it is no such URL, for the usage error. */
static char *repo_of_url(const char *url)
{
	const char *p = strstr(url, "://");
	struct buf b = BUF_INIT;

	p = p ? strchr(p + 3, '/') : NULL;
	if (!p)
		return xstrdup(url);
	buf_addstr(&b, p + 1);
	while (b.len && b.ptr[b.len - 1] == '/')
		b.ptr[--b.len] = '\0';
	if (b.len > 4 && !strcmp(b.ptr + b.len - 4, ".git"))
		b.ptr[b.len -= 4] = '\0';
	if (!item_valid_repo(b.ptr)) {
		buf_release(&b);
		return xstrdup(url);
	}
	return buf_detach(&b, NULL);
}

/* --issues: "-" reads standard input, an existing file is read, anything
 * else is the list itself (commas between entries). */
static int read_list(const char *arg, struct gh_ref **refs, size_t *nr,
		     struct err *e)
{
	struct buf b = BUF_INIT;
	const char *origin = arg;
	int ret;

	if (!strcmp(arg, "-")) {
		origin = "(standard input)";
		if (buf_read_fd(&b, STDIN_FILENO) < 0) {
			buf_release(&b);
			return err_set(e, ERR_IO, "--issues -: %s",
				       strerror(errno));
		}
	} else if (access(arg, F_OK) == 0) {
		if (buf_read_file(&b, arg) < 0) {
			buf_release(&b);
			return err_set(e, ERR_IO, "--issues %s: %s", arg,
				       strerror(errno));
		}
	} else {
		origin = "--issues";
		buf_addstr(&b, arg);
		if (!strchr(arg, '#') && !strstr(arg, "://")) {
			buf_release(&b);
			return err_set(e, ERR_IO, "--issues %s: no such file "
				       "(nor a list of owner/repo#N or URLs)",
				       arg);
		}
	}
	ret = gh_parse_refs(b.ptr, b.len, origin, refs, nr, e);
	buf_release(&b);
	if (!ret && !*nr)
		return err_set(e, ERR_INPUT, "%s: no issue or pull request "
			       "in it", origin);
	return ret;
}

/* The command that fetches again what failed: this one, as given. */
static void retry_command(struct buf *b, struct cli *c, int argc,
			  char **argv)
{
	const char *env = getenv("BUGCODER_STUDY");
	const char *glob[4];
	int i, n = 0;

	buf_addstr(b, "bugcoder");
	if (c->study_path && (!env || strcmp(env, c->study_path))) {
		glob[n++] = "--study";
		glob[n++] = c->study_path;
	}
	if (c->as) {
		glob[n++] = "--as";
		glob[n++] = c->as;
	}
	for (i = 0; i < n + argc; i++) {
		const char *a = i < n ? glob[i] : argv[i - n];

		if (*a && !strpbrk(a, " \t\n'\"\\$`;&|<>(){}*?[]#~"))
			buf_addf(b, " %s", a);
		else {
			buf_addstr(b, " '");
			for (; *a; a++) {
				if (*a == '\'')
					buf_addstr(b, "'\\''");
				else
					buf_addch(b, *a);
			}
			buf_addch(b, '\'');
		}
	}
}

/* Name every failed issue on stderr and say how to retry them.  Returns
 * the exit code: 3. */
static int report_failed(struct cli *c, const struct gh_stats *s, int argc,
			 char **argv)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < s->nr_failed; i++) {
		buf_reset(&b);
		buf_addf(&b, "%s#%lld failed: %s", s->failed[i].repo,
			 s->failed[i].number, s->failed[i].what);
		fputs("bugcoder: ", stderr);
		cli_print_safe(stderr, b.ptr);
		fputc('\n', stderr);
	}
	buf_reset(&b);
	retry_command(&b, c, argc, argv);
	fprintf(stderr, "bugcoder: %zu issue%s failed and %s not stored; the "
		"rest is; to fetch %s again (and anything new): ",
		s->nr_failed, s->nr_failed == 1 ? "" : "s",
		s->nr_failed == 1 ? "was" : "were",
		s->nr_failed == 1 ? "it" : "them");
	cli_print_safe(stderr, b.ptr);
	fputc('\n', stderr);
	buf_release(&b);
	return 3;
}

struct fetch_opts {
	const char *label, *state, *since, *until, *limit, *api_url;
	const char *token_file, *issues;
	int require_fix, no_graphql, missing;
};

static const struct option fetch_opts[] = {
	OPT_ARG("OWNER/REPO", NULL, OPT_V_TEXT,
		"the repository whose issues to fetch, with their merged fixes "
		"(or its URL, https://github.com/OWNER/REPO)"),
	OPT_STRING(0, "label", struct fetch_opts, label, "L", OPT_V_TEXT,
		   "only issues with label L (default bug; --label \"\" any)"),
	OPT_STRING(0, "state", struct fetch_opts, state, "closed|open|all",
		   OPT_V_WORDS, "closed (default), open or all"),
	OPT_STRING(0, "since", struct fetch_opts, since, "DATE", OPT_V_TEXT,
		   "only issues created on or after DATE: YYYY-MM-DD or an ISO "
		   "8601 time (2024-01-31T12:00:00Z)"),
	OPT_STRING(0, "until", struct fetch_opts, until, "DATE", OPT_V_TEXT,
		   "only issues created on or before DATE (a YYYY-MM-DD date "
		   "counts to the end of that day, UTC)"),
	OPT_STRING(0, "limit", struct fetch_opts, limit, "N", OPT_V_TEXT,
		   "stop after storing N issues"),
	OPT_FLAG(0, "require-fix", struct fetch_opts, require_fix,
		 "keep only issues with a merged fix"),
	OPT_STRING(0, "issues", struct fetch_opts, issues, "FILE|LIST|-",
		   OPT_V_FILE,
		   "the issues and pull requests a list names, in any "
		   "repositories: a FILE of issue URLs or owner/repo#N, one a "
		   "line; the same as a comma-separated LIST; or - to read "
		   "standard input"),
	OPT_FLAG(0, "missing", struct fetch_opts, missing,
		 "the items an import named but did not hold yet (`bugcoder "
		 "items --missing` lists them)"),
	OPT_STRING(0, "api-url", struct fetch_opts, api_url, "URL", OPT_V_TEXT,
		   "another GitHub API (Enterprise, a mock); default "
		   "$GITHUB_API_URL, else https://api.github.com"),
	OPT_STRING(0, "token-file", struct fetch_opts, token_file, "F",
		   OPT_V_FILE,
		   "read the API token from the first line of F (default "
		   "$GITHUB_TOKEN; without one the hourly limit is 60)"),
	OPT_FLAG(0, "no-graphql", struct fetch_opts, no_graphql,
		 "link issues to their fixes through REST timelines only"),
	OPT_END()
};

const struct command fetch_command = {
	"fetch", cmd_fetch,
	"fetch closed bug issues and their fixes from GitHub",
	"bugcoder fetch OWNER/REPO [--label L] [--state S] [--since DATE] "
	"[--until DATE] [--limit N] [--require-fix] [--api-url URL] "
	"[--token-file F] [--no-graphql]\n"
	"       bugcoder fetch --issues FILE|LIST|- [--api-url URL] "
	"[--token-file F] [--no-graphql]\n"
	"       bugcoder fetch --missing [--api-url URL] [--token-file F] "
	"[--no-graphql]",
	fetch_opts, NULL, NULL,
	"bugcoder fetch microsoft/DeepSpeed --since 2023-01-01 \\\n"
	"           --until 2024-12-31 --limit 50 --require-fix "
	"--token-file ~/.gh-token\n"
	"       bugcoder fetch --issues "
	"microsoft/DeepSpeed#4187,NVIDIA/Megatron-LM#412\n"
	"       bugcoder fetch --missing",
	NULL
};

/* What the command line asks to fetch, into `o` (the repository, given
 * or read from a URL, into *repo_arg when owned; an issue's URL becomes
 * fo->issues): 0, or the exit status of a refusal already said. */
static int fetch_target(const char *usage, struct fetch_opts *fo,
			const char **pos, int npos, struct gh_fetch_opts *o,
			char **repo_arg)
{
	const char *env = getenv("GITHUB_API_URL");

	/* URLs name GitHub, or the API given; an issue or pull request URL
	 * names a list of one */
	item_set_api_host(fo->api_url ? fo->api_url : env);
	if (npos == 1 && !fo->issues && !fo->missing &&
	    strstr(pos[0], "://")) {
		char *r;
		long long n;
		size_t hl;
		const char *h = item_url_foreign_host(pos[0], &hl);

		if (h) {
			fprintf(stderr, "bugcoder: %s: %.*s is not GitHub "
				"(github.com, or the host of --api-url or "
				"$GITHUB_API_URL)\n", pos[0], (int)hl, h);
			return 1;
		}
		if (!item_parse_ref(pos[0], &r, &n, NULL)) {
			free(r);
			fo->issues = pos[0];
			npos = 0;
		} else {
			*repo_arg = repo_of_url(pos[0]);
		}
	}
	if ((fo->issues || fo->missing) && npos)
		return cli_usage_error(usage, "--issues and --missing take no "
				       "repository: the list names them");
	if (fo->issues && fo->missing)
		return cli_usage_error(usage, "--issues or --missing, not "
				       "both");
	if (!fo->issues && !fo->missing && npos != 1)
		return cli_usage_error(usage, npos ? "one repository at a "
				       "time" : "which repository?");
	o->repo = *repo_arg ? *repo_arg : npos ? pos[0] : NULL;
	if (o->repo && !item_valid_repo(o->repo))
		return cli_usage_error(usage, "%s: expected OWNER/REPO or its "
				       "URL", o->repo);
	if ((fo->issues || fo->missing) &&
	    (fo->limit || fo->require_fix || fo->since || fo->until))
		return cli_usage_error(usage, "--issues and --missing fetch "
				       "what they name: no --limit, "
				       "--require-fix, --since or --until");
	if (fo->limit) {
		char *end;

		o->limit = strtol(fo->limit, &end, 10);
		if (*end || o->limit <= 0)
			return cli_usage_error(usage, "--limit %s: expected a "
					       "positive number", fo->limit);
	}
	if (strcmp(fo->state, "closed") && strcmp(fo->state, "open") &&
	    strcmp(fo->state, "all"))
		return cli_usage_error(usage, "--state %s: expected closed, "
				       "open or all", fo->state);
	o->label = fo->label;
	o->state = fo->state;
	o->since = fo->since;
	o->until = fo->until;
	o->require_fix = fo->require_fix;
	o->no_graphql = fo->no_graphql;
	o->api_url = fo->api_url ? fo->api_url : (env && *env ? env : NULL);
	o->timeout_s = env_long("BUGCODER_FETCH_TIMEOUT");
	o->backoff_ms = env_long("BUGCODER_FETCH_BACKOFF_MS");
	o->stop = &stop_requested;
	return 0;
}

/* The fetch itself, with its progress line and Ctrl-C: gh_fetch()'s or
 * gh_fetch_list()'s result. */
static int fetch_run(struct cli *c, struct gh_fetch_opts *o,
		     struct gh_ref *refs, size_t nr_refs,
		     struct gh_stats *stats)
{
	struct sigaction sa, old_int, old_term;
	struct line line;
	int rc;

	memset(&line, 0, sizeof(line));
	line.tty = isatty(STDERR_FILENO);
	line.repo = o->repo ? o->repo : "list";
	line.last_wait = -1;
	o->progress.update = draw;
	o->progress.ctx = &line;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (o->repo)
		rc = gh_fetch(&c->st, o, stats, &c->err);
	else
		rc = gh_fetch_list(&c->st, o, refs, nr_refs, stats, &c->err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (line.drawn)
		fputs("\r\033[K", stderr);
	return rc;
}

CMD(fetch)
{
	const char *usage = opt_usage(&fetch_command);
	struct fetch_opts fo;
	struct gh_ref *refs = NULL;
	size_t nr_refs = 0;
	char *repo_arg = NULL, *token = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct gh_fetch_opts o;
	struct gh_stats stats;
	const char *env;
	int npos, rc, ret;

	memset(&fo, 0, sizeof(fo));
	memset(&o, 0, sizeof(o));
	memset(&stats, 0, sizeof(stats));
	fo.label = "bug";
	fo.state = "closed";
	rc = opt_parse(&fetch_command, argc, argv, &fo, pos, &npos);
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	ret = fetch_target(usage, &fo, pos, npos, &o, &repo_arg);
	free(pos);
	if (ret)
		goto out;
	if (fo.issues && read_list(fo.issues, &refs, &nr_refs, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	if (actor_require(&c->actor, ROLES(ROLE_OWNER), "fetch issues",
			  &c->err) < 0 ||
	    (fo.missing && gh_refs_missing(&c->st, &refs, &nr_refs,
					   &c->err) < 0)) {
		ret = cli_fail(c);
		goto out;
	}
	if (fo.token_file) {
		token = read_token(fo.token_file, &c->err);
		if (!token) {
			ret = cli_fail(c);
			goto out;
		}
	} else if ((env = getenv("GITHUB_TOKEN")) && *env) {
		token = xstrdup(env);
	}
	o.token = token;
	rc = fetch_run(c, &o, refs, nr_refs, &stats);
	if (rc < 0 && c->err.code == ERR_USAGE) {
		ret = cli_fail(c);
		goto out;
	}
	summary(o.repo ? o.repo : fo.missing ? "missing items" : "the list",
		&stats);
	if (rc < 0) {
		if (c->err.code == ERR_INTERRUPTED)
			err_set(&c->err, ERR_INTERRUPTED, "fetch of %s "
				"interrupted; run the same command again to "
				"continue", o.repo ? o.repo : "the list");
		ret = cli_fail(c);
		goto out;
	}
	ret = stats.nr_failed ? report_failed(c, &stats, argc, argv) : 0;
out:
	gh_refs_free(refs, nr_refs);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	gh_stats_release(&stats);
	free(repo_arg);
	return ret;
}
