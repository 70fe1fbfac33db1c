/*
 * items and status: what the study holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/github.h"
#include "core/buf.h"
#include "core/text.h"

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

CMD(items)
{
	static const char usage[] =
		"bugcoder items [--status todo|partial|submitted] [--round R] "
		"[--repo OWNER/REPO] | --missing";
	const char *status = NULL, *round = NULL, *repo = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int missing = 0;
	const struct cli_opt opts[] = {
		{ "--missing", 0, NULL, &missing, NULL, NULL },
		{ "--status", 1, &status, NULL, NULL, NULL },
		{ "--round", 1, &round, NULL, NULL, NULL },
		{ "--repo", 1, &repo, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	sqlite3_stmt *s = NULL;
	int npos, rc, ret = 0, n = 0, own;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
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
	}
	if (missing && (status || round || repo))
		return cli_usage_error(usage, "--missing lists every item "
				       "still to fetch: no other option");
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (missing)
		return list_missing(c);
	if (round) {
		sqlite3_stmt *r = store_prepare(&c->st, "SELECT 1 FROM rounds "
						"WHERE name = ?", &c->err);

		if (!r)
			return cli_fail(c);
		sqlite3_bind_text(r, 1, round, -1, SQLITE_STATIC);
		rc = sqlite3_step(r);
		sqlite3_finalize(r);
		if (rc != SQLITE_ROW) {
			err_set(&c->err, ERR_NOTFOUND, "--round %s: no such "
				"round", round);
			return cli_fail(c);
		}
	}
	/* An annotator sees only their own submission; others see how many
	 * members submitted.  "todo/partial/submitted" then mean: nobody,
	 * some but fewer than two, two or more (for an annotator: not
	 * submitted / - / submitted by them). */
	own = c->actor.role == ROLE_ANNOTATOR;
	s = store_prepare(&c->st,
		"SELECT i.repo, i.number, i.title, "
		" (SELECT count(*) FROM fixes f WHERE f.item_id = i.id), "
		" i.lines_changed, i.changed_files, i.days_open, "
		" i.comment_count, i.diff_partial, "
		" (SELECT count(*) FROM submissions s WHERE s.item_id = i.id "
		"  AND (?1 = 0 OR s.member_id = ?2)) AS nsub, "
		" (SELECT r.name FROM assignments a JOIN rounds r ON "
		"  r.id = a.round_id WHERE a.item_id = i.id) AS round "
		"FROM items i "
		"WHERE (?3 IS NULL OR round = ?3) AND (?4 IS NULL OR "
		" i.repo = ?4) AND (?5 IS NULL "
		" OR (?5 = 'todo' AND nsub = 0) "
		" OR (?5 = 'partial' AND nsub = 1 AND ?1 = 0) "
		" OR (?5 = 'submitted' AND nsub >= (CASE WHEN ?1 THEN 1 "
		"  ELSE 2 END))) "
		"AND (?1 = 0 OR NOT EXISTS (SELECT 1 FROM rounds) OR EXISTS "
		" (SELECT 1 FROM assignments a JOIN round_annotators ra ON "
		"  ra.round_id = a.round_id WHERE a.item_id = i.id AND "
		"  ra.member_id = ?2)) "
		"ORDER BY i.id", &c->err);
	if (!s)
		return cli_fail(c);
	sqlite3_bind_int(s, 1, own);
	sqlite3_bind_int64(s, 2, c->actor.member_id);
	store_bind_text(s, 3, round);
	store_bind_text(s, 4, repo);
	store_bind_text(s, 5, status);
	printf("%-32s %-44s %5s %6s %5s %7s %4s %s\n", "ITEM", "TITLE",
	       "FIXES", "LINES", "FILES", "DAYS", "CMTS",
	       own ? "SUBMITTED" : "SUBMITTED");
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct buf name = BUF_INIT;
		int nfix = sqlite3_column_int(s, 3);

		buf_addf(&name, "%s#%lld", sqlite3_column_text(s, 0),
			 (long long)sqlite3_column_int64(s, 1));
		print_cell(name.ptr, 32);
		putchar(' ');
		print_cell((const char *)sqlite3_column_text(s, 2), 44);
		printf(" %5d", nfix);
		if (nfix) {
			/* a size neither given nor countable shows as "?" */
			if (sqlite3_column_type(s, 4) != SQLITE_NULL)
				printf(" %5d%s", sqlite3_column_int(s, 4),
				       sqlite3_column_int(s, 8) ? "+" : " ");
			else
				printf(" %6s", "?");
			if (sqlite3_column_type(s, 5) != SQLITE_NULL)
				printf(" %5d", sqlite3_column_int(s, 5));
			else
				printf(" %5s", "?");
		} else
			printf(" %6s %5s", "-", "-");
		if (sqlite3_column_type(s, 6) != SQLITE_NULL)
			printf(" %7.1f", sqlite3_column_double(s, 6));
		else
			printf(" %7s", "-");
		printf(" %4d", sqlite3_column_int(s, 7));
		if (own)
			printf(" %s\n", sqlite3_column_int(s, 9) ? "yes" :
			       "no");
		else
			printf(" %d\n", sqlite3_column_int(s, 9));
		buf_release(&name);
		n++;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_error(&c->st, &c->err, "listing items");
		return cli_fail(c);
	}
	printf("%d item%s\n", n, n == 1 ? "" : "s");
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of a column over a repository's items (NULLs left out). */
static double median(struct store *st, const char *col_sql,
		     const char *repo)
{
	sqlite3_stmt *s;
	double *v = NULL, m = NAN;
	size_t n = 0, alloc = 0;

	s = store_prepare(st, col_sql, NULL);
	if (!s)
		return NAN;
	store_bind_text(s, 1, repo);
	while (sqlite3_step(s) == SQLITE_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n++] = sqlite3_column_double(s, 0);
	}
	sqlite3_finalize(s);
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
	return m;
}

static void print_num(double v, const char *fmt)
{
	if (isnan(v))
		printf(" %8s", "-");
	else
		printf(fmt, v);
}

CMD(status)
{
	static const char usage[] = "bugcoder status";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = { { NULL, 0, NULL, NULL, NULL, NULL } };
	sqlite3_stmt *s;
	int npos, rc, ret;
	char *title;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (npos)
		return cli_usage_error(usage, "status takes no arguments");
	if ((ret = cli_open(c, 0)))
		return ret;

	title = store_meta_get(&c->st, "title");
	printf("study %s", c->study_path);
	if (title && *title) {
		printf(": ");
		cli_print_safe(stdout, title);
	}
	printf("\n");
	free(title);
	s = store_prepare(&c->st, "SELECT name, version FROM codebooks WHERE "
			  "current", &c->err);
	if (!s)
		return cli_fail(c);
	if (sqlite3_step(s) == SQLITE_ROW) {
		printf("codebook ");
		cli_print_safe(stdout, (const char *)sqlite3_column_text(s, 0));
		printf(" ");
		cli_print_safe(stdout, (const char *)sqlite3_column_text(s, 1));
		printf("\n");
	} else
		printf("codebook: none yet\n");
	sqlite3_finalize(s);
	printf("you are %s (%s)\n\n", c->actor.name,
	       c->actor.role == ROLE_NONE ? "not a member" :
	       role_name(c->actor.role));

	printf("%-28s %6s %6s %6s %8s %8s %8s %8s\n", "REPOSITORY", "ITEMS",
	       "FIXED", "FIXES", "<=10 LOC", "DAYS~", "COMMTS~", "LINES~");
	s = store_prepare(&c->st,
		"SELECT repo, count(*), sum(has_fix), "
		" (SELECT count(*) FROM fixes f JOIN items j ON j.id = "
		"  f.item_id WHERE j.repo = i.repo), "
		" sum(small_fix), sum(small_fix IS NOT NULL) "
		"FROM items i GROUP BY repo "
		"UNION ALL SELECT NULL, count(*), sum(has_fix), "
		" (SELECT count(*) FROM fixes), sum(small_fix), "
		" sum(small_fix IS NOT NULL) FROM items", &c->err);
	if (!s)
		return cli_fail(c);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *repo = (const char *)sqlite3_column_text(s, 0);
		int fixed = sqlite3_column_int(s, 4);
		int with = sqlite3_column_int(s, 5);

		if (!repo && sqlite3_column_int(s, 1) == 0)
			break;
		print_cell(repo ? repo : "all", 28);
		printf(" %6d %6d %6d", sqlite3_column_int(s, 1),
		       sqlite3_column_int(s, 2), sqlite3_column_int(s, 3));
		if (with)
			printf(" %7.0f%%", 100.0 * fixed / with);
		else
			printf(" %8s", "-");
		print_num(median(&c->st, "SELECT days_open FROM items WHERE "
				 "days_open IS NOT NULL AND (?1 IS NULL OR "
				 "repo = ?1)", repo), " %8.1f");
		print_num(median(&c->st, "SELECT comment_count FROM items "
				 "WHERE ?1 IS NULL OR repo = ?1", repo),
			  " %8.1f");
		print_num(median(&c->st, "SELECT lines_changed FROM items "
				 "WHERE lines_changed IS NOT NULL AND (?1 IS "
				 "NULL OR repo = ?1)", repo), " %8.1f");
		printf("\n");
	}
	sqlite3_finalize(s);

	s = store_prepare(&c->st,
		"SELECT (SELECT count(*) FROM members WHERE active), "
		" (SELECT count(*) FROM rounds), "
		" (SELECT count(*) FROM labels), "
		" (SELECT count(*) FROM submissions), "
		" (SELECT count(*) FROM proposals WHERE status = 'open'), "
		" (SELECT count(*) FROM resolutions), "
		" (SELECT count(*) FROM items WHERE NOT has_fix), "
		" (SELECT count(*) FROM items WHERE diff_partial)", &c->err);
	if (!s)
		return cli_fail(c);
	if (sqlite3_step(s) == SQLITE_ROW) {
		printf("\n%d members, %d rounds\n", sqlite3_column_int(s, 0),
		       sqlite3_column_int(s, 1));
		if (c->actor.role == ROLE_ANNOTATOR)
			printf("labels and submissions: yours only (blind "
			       "coding)\n");
		else
			printf("%d labels, %d submissions, %d open "
			       "proposals, %d resolutions\n",
			       sqlite3_column_int(s, 2),
			       sqlite3_column_int(s, 3),
			       sqlite3_column_int(s, 4),
			       sqlite3_column_int(s, 5));
		printf("%d items without a fix, %d with a partial diff\n",
		       sqlite3_column_int(s, 6), sqlite3_column_int(s, 7));
	}
	sqlite3_finalize(s);
	{
		extern void cli_status_agreement(struct cli *c)
			__attribute__((weak));

		if (cli_status_agreement)
			cli_status_agreement(c);
	}
	return 0;
}
