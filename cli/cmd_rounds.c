/*
 * round, label, labels: double coding in rounds, and labelling by
 * script.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/item.h"
#include "core/label.h"
#include "core/labels_csv.h"
#include "core/round.h"

/* How many items of round `id` member `member` submitted. */
static long long own_done(struct cli *c, long long id, long long member)
{
	sqlite3_stmt *s = store_prepare(&c->st, "SELECT count(*) FROM "
					"submissions s JOIN assignments a ON "
					"a.item_id = s.item_id WHERE a.round_id "
					"= ? AND s.member_id = ?", NULL);
	long long n = 0;

	if (!s)
		return 0;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, member);
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* One line per round.  "done" counts the items every annotator of the
 * round submitted; an annotator is told that of an open round no more
 * than the others' labels (blinding: it would show, item by item, when
 * the others submit), so they see their own count instead. */
static void print_round(struct cli *c, const struct round_info *r)
{
	size_t i;

	printf("%-16s %-7s %4zu items, ", r->name,
	       r->closed_at ? "closed" : "open", r->nr_items);
	if (c->actor.role == ROLE_ANNOTATOR && !r->closed_at)
		printf("%4lld done by you", own_done(c, r->id,
						     c->actor.member_id));
	else
		printf("%4zu done", r->nr_complete);
	printf("  annotators ");
	for (i = 0; i < r->nr_annotators; i++)
		printf("%s%s", i ? "," : "", r->annotators[i]);
	printf("  (%s", r->spec);
	if (r->has_seed)
		printf(", seed %llu", (unsigned long long)r->seed);
	if (r->stratify)
		printf(", stratified by %s", r->stratify);
	printf(")\n");
}

CMD(round)
{
	static const char usage[] =
		"bugcoder round create NAME (--items SPEC | --sample N|P% "
		"--seed S [--stratify repo]) --annotators A,B | list | "
		"close NAME";
	const char *items = NULL, *sample = NULL, *seed = NULL;
	const char *stratify = NULL, *annotators = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--items", 1, &items, NULL, NULL, NULL },
		{ "--sample", 1, &sample, NULL, NULL, NULL },
		{ "--seed", 1, &seed, NULL, NULL, NULL },
		{ "--stratify", 1, &stratify, NULL, NULL, NULL },
		{ "--annotators", 1, &annotators, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (!npos) {
		ret = cli_usage_error(usage, "round: create, list or close?");
		goto out;
	}
	if (!strcmp(pos[0], "create")) {
		struct round_spec spec;
		struct round_info r;
		char *copy = NULL;

		memset(&spec, 0, sizeof(spec));
		if (npos != 2) {
			ret = cli_usage_error(usage, "round create needs NAME");
			goto out;
		}
		if (!annotators) {
			ret = cli_usage_error(usage, "round create needs "
					      "--annotators A,B");
			goto out;
		}
		if (!items == !sample) {
			ret = cli_usage_error(usage, "give either --items or "
					      "--sample");
			goto out;
		}
		if (seed) {
			char *end;

			errno = 0;
			spec.seed = strtoull(seed, &end, 10);
			if (!*seed || *end || errno || *seed == '-') {
				ret = cli_usage_error(usage, "--seed %s: "
						      "expected a whole number",
						      seed);
				goto out;
			}
			spec.has_seed = 1;
		}
		spec.name = pos[1];
		spec.items = items;
		spec.sample = sample;
		spec.stratify = stratify;
		spec.annotators = cli_split_commas(annotators,
					       &spec.nr_annotators, &copy);
		if ((ret = cli_open(c, CLI_MEMBER))) {
			free((void *)spec.annotators);
			free(copy);
			goto out;
		}
		rc = round_create(&c->st, &c->actor, &spec, &r, &c->err);
		free((void *)spec.annotators);
		free(copy);
		if (rc < 0) {
			ret = c->err.code == ERR_USAGE ?
			      cli_usage_error(usage, "%s", c->err.msg) :
			      cli_fail(c);
			goto out;
		}
		printf("created round ");
		print_round(c, &r);
		round_info_release(&r);
	} else if (!strcmp(pos[0], "list")) {
		struct round_info *v;
		size_t n, i;

		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		if (round_list(&c->st, &v, &n, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		if (!n)
			printf("no rounds: every item goes to every "
			       "annotator\n");
		for (i = 0; i < n; i++)
			print_round(c, &v[i]);
		round_list_free(v, n);
	} else if (!strcmp(pos[0], "close")) {
		if (npos != 2) {
			ret = cli_usage_error(usage, "round close needs NAME");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		if (round_close(&c->st, &c->actor, pos[1], &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		printf("closed round %s: labels are frozen and visible to "
		       "its annotators\n", pos[1]);
	} else {
		ret = cli_usage_error(usage, "round %s: unknown action",
				      pos[0]);
	}
out:
	free(pos);
	return ret;
}

CMD(label)
{
	static const char usage[] =
		"bugcoder label ITEM DIM=CODE[,CODE] ... [--submit] [--as USER]";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int submit = 0;
	const struct cli_opt opts[] = {
		{ "--submit", 0, NULL, &submit, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	long long id;
	int npos, rc, ret = 0, i;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (npos < 1 || (npos < 2 && !submit)) {
		free(pos);
		return cli_usage_error(usage, "label needs ITEM and DIM=CODE "
				       "(or --submit)");
	}
	if ((rc = cli_check_dim_args(pos, 1, npos, usage))) {
		free(pos);
		return rc;
	}
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	id = item_find(&c->st, pos[0], &c->err);
	if (id < 0) {
		ret = cli_fail(c);
		goto out;
	}
	/* all dimensions in one transaction: all or nothing */
	if (store_begin(&c->st, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	for (i = 1; i < npos; i++) {
		struct dim_codes dc;

		cli_dim_codes(pos[i], &dc);
		rc = label_set(&c->st, &c->actor, &cb, id, dc.dim, dc.codes,
			       dc.nr, 0, &c->err);
		cli_dim_codes_release(&dc);
		if (rc < 0)
			goto fail;
	}
	if (submit && label_submit(&c->st, &c->actor, &cb, id, &c->err) < 0)
		goto fail;
	if (store_commit(&c->st, &c->err) < 0)
		goto fail;
	printf("%s: %d dimension%s saved%s\n", pos[0], npos - 1,
	       npos == 2 ? "" : "s", submit ? ", submitted" : "");
	goto out;
fail:
	store_rollback(&c->st);
	ret = cli_fail(c);
out:
	codebook_release(&cb);
	free(pos);
	return ret;
}

CMD(labels)
{
	static const char usage[] =
		"bugcoder labels import FILE.csv [--submit] [--annotator NAME] "
		"[--as USER]";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char *annotator = NULL;
	int submit = 0;
	const struct cli_opt opts[] = {
		{ "--submit", 0, NULL, &submit, NULL, NULL },
		{ "--annotator", 1, &annotator, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	struct labels_import_stats stats;
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (npos != 2 || strcmp(pos[0], "import")) {
		free(pos);
		return cli_usage_error(usage, "expected: labels import "
				       "FILE.csv");
	}
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (labels_import_opts(&c->st, &c->actor, &cb, pos[1], submit,
			       annotator, &stats, &c->err) < 0) {
		ret = cli_fail(c);
		fprintf(stderr, "bugcoder: %s: nothing imported\n", pos[1]);
		goto out;
	}
	printf("%s: %d rows, %d labels set", pos[1], stats.rows,
	       stats.labels);
	if (submit)
		printf(", %d submissions", stats.submitted);
	printf("\n");
out:
	codebook_release(&cb);
	free(pos);
	return ret;
}
