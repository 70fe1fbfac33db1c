/* SPDX-License-Identifier: MIT */
/*
 * items and status: what the study holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/store/audit.h"
#include "core/github/github.h"
#include "core/base/buf.h"
#include "core/study/studyview.h"
#include "core/base/text.h"

/* Sanitized, cut to `cols` columns, padded. */
static void print_cell(const char *s, int cols)
{
	struct buf safe = BUF_INIT, cut = BUF_INIT;
	int w;

	text_sanitize(&safe, s ? s : "", s ? strlen(s) : 0, 1, 0);
	w = text_truncate(&cut, safe.ptr, safe.len, cols, "~");
	printf("%s%*s", cut.ptr, cols - w, "");
	buf_release(&safe);
	buf_release(&cut);
}

/* One line of `items`. */
static void print_items_header(void)
{
	printf("%-32s %-44s %5s %6s %5s %7s %4s %-9s %s\n", "ITEM", "TITLE",
	       "FIXES", "LINES", "FILES", "DAYS", "CMTS", "SUBMITTED",
	       "ROUND");
}

static int print_item(const struct item_row *r, void *data)
{
	struct buf name = BUF_INIT;

	/* the header with the first row: a refusal (an unknown round)
	 * prints none */
	if (!*(int *)data)
		print_items_header();
	buf_addf(&name, "%s#%lld", r->repo, r->number);
	print_cell(name.ptr, 32);
	putchar(' ');
	print_cell(r->title, 44);
	printf(" %5d", r->nr_fixes);
	if (r->nr_fixes) {
		/* a size neither given nor countable shows as "?" */
		if (r->lines_changed >= 0)
			printf(" %5lld%s", r->lines_changed,
			       r->diff_partial ? "+" : " ");
		else
			printf(" %6s", "?");
		if (r->changed_files >= 0)
			printf(" %5lld", r->changed_files);
		else
			printf(" %5s", "?");
	} else {
		printf(" %6s %5s", "-", "-");
	}
	if (r->days_open >= 0)
		printf(" %7.1f", r->days_open);
	else
		printf(" %7s", "-");
	printf(" %4lld", r->comments);
	if (r->own_only)
		printf(" %-9s", r->nr_submitted ? "yes" : "no");
	else
		printf(" %-9d", r->nr_submitted);
	/* where it stands in the design; round names and reasons are
	 * keys, safe to print */
	if (r->missing)
		printf(" not fetched");
	else if (r->round && r->decision)
		printf(" %s (screened in, %s)", r->round, r->screen_round);
	else if (r->round)
		printf(" %s", r->round);
	else if (r->decision && !strcmp(r->decision, "include"))
		printf(" screened in (%s)", r->screen_round);
	else if (r->decision)
		printf(" excluded: %s (%s)", r->decision, r->screen_round);
	else if (r->screen_round)
		printf(" screening %s", r->screen_round);
	else
		printf(" -");
	printf("\n");
	buf_release(&name);
	(*(int *)data)++;
	return 0;
}

static const char *const item_statuses[] = {
	"todo", "partial", "submitted", NULL
};

/* items --missing: the items named by an import whose content is still
 * to be fetched, one name a line. */
static int list_missing(struct cli *c)
{
	struct gh_ref *refs;
	size_t n, i;

	if (gh_refs_missing(&c->st, &refs, &n, &c->err) < 0)
		return cli_fail(c);
	for (i = 0; i < n; i++) {
		char *name = item_name(refs[i].repo, refs[i].number);

		cli_print_safe(stdout, name);
		fputs(refs[i].kind == ITEM_REF_PULL ? "\tpull request\n" :
		      "\n", stdout);
		free(name);
	}
	if (n)
		fprintf(stderr, "%zu item%s to fetch: bugcoder fetch "
			"--missing\n", n, n == 1 ? "" : "s");
	gh_refs_free(refs, n);
	return 0;
}

struct items_opts {
	const char *status, *round, *repo;
	int missing;
};

static const struct option items_opts[] = {
	OPT_STRING(0, "status", struct items_opts, status,
		   "todo|partial|submitted", OPT_V_WORDS,
		   "todo: nobody submitted it; partial: one member did; "
		   "submitted: two or more did (an annotator: todo or "
		   "submitted, by them)"),
	OPT_STRING(0, "round", struct items_opts, round, "R", OPT_V_ROUND,
		   "only the items of round R"),
	OPT_STRING(0, "repo", struct items_opts, repo, "OWNER/REPO",
		   OPT_V_TEXT, "only the items of one repository"),
	OPT_FLAG(0, "missing", struct items_opts, missing,
		 "instead, the items an import named whose content is still "
		 "to fetch (`bugcoder fetch --missing`)"),
	OPT_END()
};

const struct command items_command = {
	"items", cmd_items, "list items",
	"bugcoder items [--status todo|partial|submitted] [--round R] "
	"[--repo OWNER/REPO] | --missing",
	items_opts, NULL, NULL,
	"bugcoder items --status todo --repo microsoft/DeepSpeed\n"
	"       bugcoder items --round pilot\n"
	"       bugcoder items --missing",
	"Every item you may see, with its fixes, lines and files changed, "
	"days\n"
	"open, comments and how many members submitted it (for an "
	"annotator:\n"
	"whether they did)."
};

CMD(items)
{
	const char *usage = opt_usage(&items_command);
	struct items_opts o = { NULL, NULL, NULL, 0 };
	const char *status, *round, *repo;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int missing;
	struct item_filter filter = { PROGRESS_ANY, NULL, NULL };
	int npos, rc, ret = 0, n = 0;

	rc = opt_parse(&items_command, argc, argv, &o, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	status = o.status;
	round = o.round;
	repo = o.repo;
	missing = o.missing;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (status) {
		int i;

		for (i = 0; item_statuses[i]; i++)
			if (!strcmp(status, item_statuses[i]))
				break;
		if (!item_statuses[i])
			return cli_usage_error(usage, "--status %s: one of "
					       "todo, partial, submitted",
					       status);
		filter.status = (enum item_progress)(i + 1);
	}
	if (missing && (status || round || repo))
		return cli_usage_error(usage, "--missing lists every item "
				       "still to fetch: no other option");
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (missing)
		return list_missing(c);
	filter.round = round;
	filter.repo = repo;
	if (studyview_items(&c->st, &c->actor, &filter, print_item, &n,
			    &c->err) < 0)
		return cli_fail(c);
	if (!n)
		print_items_header();
	printf("%d item%s\n", n, n == 1 ? "" : "s");
	return 0;
}

static void print_num(double v, const char *fmt)
{
	if (isnan(v))
		printf(" %8s", "-");
	else
		printf(fmt, v);
}

static const struct option status_opts[] = { OPT_END() };

const struct command status_command = {
	"status", cmd_status,
	"counts: items, labels, submissions, disagreements",
	"bugcoder status",
	status_opts, NULL, NULL,
	"bugcoder status",
	"The study's title, codebook version and your role; per repository "
	"the\n"
	"items, those fixed, their fixes, the share of fixes of at most 10\n"
	"lines and the median days open, comments and lines changed; then\n"
	"members, rounds, labels, submissions, proposals, resolutions and "
	"how\n"
	"many coded items agree (an annotator in a blind round sees only "
	"their\n"
	"own work).  No options."
};

/* status: the per repository table */
static void print_status_repos(const struct study_status *ss)
{
	size_t i;

	printf("%-28s %6s %6s %6s %8s %8s %8s %8s\n", "REPOSITORY", "ITEMS",
	       "FIXED", "FIXES", "<=10 LOC", "DAYS~", "COMMTS~", "LINES~");
	for (i = 0; i < ss->nr_repos; i++) {
		const struct repo_status *r = &ss->repos[i];

		if (!r->repo && !r->items)
			break;
		print_cell(r->repo ? r->repo : "all", 28);
		printf(" %6ld %6ld %6ld", r->items, r->fixed, r->fixes);
		if (r->with_size)
			printf(" %7.0f%%", 100.0 * r->small / r->with_size);
		else
			printf(" %8s", "-");
		print_num(r->median_days, " %8.1f");
		print_num(r->median_comments, " %8.1f");
		print_num(r->median_lines, " %8.1f");
		printf("\n");
	}
}

/* status: members, rounds, the write lock, labels, screening, agreement */
static void print_status_work(struct cli *c, const struct study_status *ss)
{
	printf("\n%ld %s, %ld %s\n", ss->members,
	       text_plural(ss->members, "member", "members"), ss->rounds,
	       text_plural(ss->rounds, "round", "rounds"));
	{
		struct store_holder h;
		struct buf b = BUF_INIT;

		if (store_lock_holder(&c->st, &h) > 0) {
			store_holder_describe(&h, &b);
			printf("write lock: held by ");
			cli_print_safe(stdout, b.ptr);
			printf("\n");
		}
		buf_release(&b);
	}
	if (!ss->work_visible)
		printf("labels and submissions: yours only (blind "
		       "coding)\n");
	else
		printf("%ld %s, %ld %s, %ld open %s, %ld %s\n", ss->labels,
		       text_plural(ss->labels, "label", "labels"),
		       ss->submissions,
		       text_plural(ss->submissions, "submission",
				   "submissions"), ss->open_proposals,
		       text_plural(ss->open_proposals, "proposal",
				   "proposals"), ss->resolutions,
		       text_plural(ss->resolutions, "resolution",
				   "resolutions"));
	printf("%ld %s without a fix, %ld with a partial diff\n",
	       ss->no_fix, text_plural(ss->no_fix, "item", "items"),
	       ss->partial_diff);
	if (ss->screen_rounds)
		printf("screening: %ld item%s in %ld screening round%s, %ld "
		       "decided (%ld included, %ld excluded), %ld not yet\n",
		       ss->screened, ss->screened == 1 ? "" : "s",
		       ss->screen_rounds, ss->screen_rounds == 1 ? "" : "s",
		       ss->included + ss->excluded, ss->included, ss->excluded,
		       ss->undecided);
	if (ss->scope)
		cli_print_safe(stdout, ss->scope);
	if (ss->agreement_visible) {
		printf("%ld %s coded by all their annotators: %ld agreed, "
		       "%ld resolved, %ld with disagreements left", ss->ready,
		       text_plural(ss->ready, "item", "items"), ss->agreed,
		       ss->resolved, ss->disagreeing);
		if (ss->recoding)
			printf(", %ld waiting for recoding", ss->recoding);
		printf("; %ld flagged for discussion\n", ss->discuss);
	}
}

CMD(status)
{
	const char *usage = opt_usage(&status_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct study_status ss = STUDY_STATUS_INIT;
	struct audit_check chk;
	int npos, rc, ret;

	rc = opt_parse(&status_command, argc, argv, NULL, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	if (npos)
		return cli_usage_error(usage, "status takes no arguments");
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (audit_verify(&c->st, &chk, &c->err) == 0 && chk.bad_id)
		fprintf(stderr, "bugcoder: warning: the audit log has been "
			"tampered with: row %lld does not fit the chain "
			"(`bugcoder audit verify`)\n", chk.bad_id);

	if (studyview_status(&c->st, &c->actor, &ss, &c->err) < 0)
		return cli_fail(c);
	printf("study %s", c->study_path);
	if (ss.title && *ss.title) {
		printf(": ");
		cli_print_safe(stdout, ss.title);
	}
	printf("\n");
	if (ss.codebook) {
		printf("codebook ");
		cli_print_safe(stdout, ss.codebook);
		printf(" ");
		cli_print_safe(stdout, ss.codebook_version);
		printf("\n");
	} else {
		printf("codebook: none yet\n");
	}
	printf("you are %s (%s)\n\n", c->actor.name,
	       c->actor.role == ROLE_NONE ? "not a member" :
	       role_name(c->actor.role));

	print_status_repos(&ss);
	print_status_work(c, &ss);
	study_status_release(&ss);
	return 0;
}
