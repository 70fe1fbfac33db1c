/* SPDX-License-Identifier: MIT */
/*
 * round, label, labels: double coding in rounds, and labelling by
 * script.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/evidence.h"
#include "core/item.h"
#include "core/label.h"
#include "core/label_line.h"
#include "core/labels_csv.h"
#include "core/gate.h"
#include "core/priv.h"
#include "core/round.h"
#include "core/study.h"
#include "core/text.h"

/* One line per round.  "done" counts the items every annotator of the
 * round submitted; an annotator is told that of an open round no more
 * than the others' labels (blinding: it would show, item by item, when
 * the others submit), so they see their own count instead. */
static void print_round(struct cli *c, const struct round_info *r)
{
	size_t i;

	printf("%-16s %-7s %4zu %-6s ", r->name,
	       r->closed_at ? "closed" : "open", r->nr_items,
	       text_plural((long long)r->nr_items, "item,", "items,"));
	if (r->own_only)
		printf("%4zu done by you", r->nr_complete);
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
		"--seed S [--stratify repo]) --annotators A,B\n"
		"                      [--after ROUND --min-kappa K "
		"[--gate value|lower] [--force]]\n"
		"       bugcoder round list | close NAME [--force] | reopen NAME "
		"[--force]\n"
		"\n"
		"  --items SPEC      all (every item in no round yet), "
		"repo:OWNER/REPO,\n"
		"                    a list (microsoft/DeepSpeed#4187,"
		"ColossalAI#2387),\n"
		"                    @FILE (one item name a line), or "
		"unfinished:ROUND\n"
		"                    (the items a closed round left "
		"unfinished: they move)\n"
		"  --sample N|P%     draw N items or P% of the free ones "
		"(needs --seed S)\n"
		"  --stratify repo   draw from each repository in proportion\n"
		"  --annotators A,B  who codes the round's items\n"
		"  --after ROUND --min-kappa K\n"
		"                    a calibration gate: the round is created "
		"only once\n"
		"                    ROUND is closed with kappa >= K on every "
		"required\n"
		"                    dimension (--gate lower: the 95% "
		"interval's lower\n"
		"                    bound); --force creates it anyway, "
		"audited\n"
		"  --force           also: close a round with items not yet "
		"submitted by\n"
		"                    every annotator; reopen a round with "
		"adjudicated items\n"
		"\n"
		"  e.g. bugcoder round create pilot --sample 40% --seed 7 "
		"--stratify repo \\\n"
		"           --annotators alice,bob\n"
		"       bugcoder round create r2 --items unfinished:pilot "
		"--annotators alice,bob";
	const char *items = NULL, *sample = NULL, *seed = NULL;
	const char *stratify = NULL, *annotators = NULL;
	const char *after = NULL, *min_kappa = NULL, *gate = NULL;
	int force = 0;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--items", 1, &items, NULL, NULL, NULL },
		{ "--sample", 1, &sample, NULL, NULL, NULL },
		{ "--seed", 1, &seed, NULL, NULL, NULL },
		{ "--stratify", 1, &stratify, NULL, NULL, NULL },
		{ "--annotators", 1, &annotators, NULL, NULL, NULL },
		{ "--after", 1, &after, NULL, NULL, NULL },
		{ "--min-kappa", 1, &min_kappa, NULL, NULL, NULL },
		{ "--gate", 1, &gate, NULL, NULL, NULL },
		{ "--force", 0, NULL, &force, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (!npos) {
		ret = cli_usage_error(usage, "round: create, list, close or "
				      "reopen?");
		goto out;
	}
	if (force && strcmp(pos[0], "close") && strcmp(pos[0], "reopen") &&
	    !(!strcmp(pos[0], "create") && after)) {
		ret = cli_usage_error(usage, "--force goes with round close, "
				      "round reopen or a gate (--after)");
		goto out;
	}
	if (!strcmp(pos[0], "create")) {
		struct round_spec spec;
		struct round_info r;
		struct gate_check gc = GATE_CHECK_INIT;
		struct buf detail = BUF_INIT;
		struct codebook cb = CODEBOOK_INIT;
		char *copy = NULL;

		memset(&spec, 0, sizeof(spec));
		if (!after != !min_kappa || ((gate || force) && !after)) {
			ret = cli_usage_error(usage, "a gate needs both --after "
					      "ROUND and --min-kappa K");
			goto out;
		}
		if (gate && strcmp(gate, "lower") && strcmp(gate, "value")) {
			ret = cli_usage_error(usage, "--gate %s: value or "
					      "lower", gate);
			goto out;
		}
		if (min_kappa) {
			char *end;

			errno = 0;
			spec.gate_min_kappa = strtod(min_kappa, &end);
			if (!*min_kappa || *end || errno ||
			    !(spec.gate_min_kappa >= -1 &&
			      spec.gate_min_kappa <= 1)) {
				ret = cli_usage_error(usage, "--min-kappa %s: "
						      "a number from -1 to 1",
						      min_kappa);
				goto out;
			}
			spec.gate_after = after;
			spec.gate_on_lower = gate && !strcmp(gate, "lower");
		}
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
		rc = 0;
		if (spec.gate_after) {
			/* the owner only, as round create itself */
			if (actor_require(&c->actor, ROLES(ROLE_OWNER),
					  "round create", &c->err) < 0 ||
			    study_codebook(&c->st, &cb, NULL, &c->err) < 0 ||
			    gate_check(&c->st, &c->actor, &cb, after,
				       spec.gate_min_kappa,
				       spec.gate_on_lower, &gc, &c->err) < 0) {
				rc = -1;
			} else {
				gate_describe(&gc, &detail);
				spec.gate_detail = detail.ptr;
				if (!gc.pass && !force) {
					err_set(&c->err, ERR_INPUT, "round %s "
						"waits for its gate: %s "
						"(--force overrides)",
						spec.name ? spec.name : pos[1],
						detail.ptr);
					rc = -1;
				}
				spec.gate_forced = !gc.pass;
			}
		}
		spec.name = pos[1];
		if (!rc)
			rc = round_create(&c->st, &c->actor, &spec, &r,
					  &c->err);
		free((void *)spec.annotators);
		free(copy);
		gate_release(&gc);
		codebook_release(&cb);
		if (!rc && spec.gate_after)
			printf("gate %s: %s\n", spec.gate_forced ?
			       "forced" : "passed", detail.ptr);
		buf_release(&detail);
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
		if (round_list_for(&c->st, &c->actor, &v, &n, &c->err) < 0) {
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
		rc = round_close(&c->st, &c->actor, pos[1],
				 force ? ROUND_FORCE : 0, &c->err);
		if (rc < 0) {
			ret = cli_fail(c);
			goto out;
		}
		if (rc > 0)
			printf("round %s is closed already: nothing to do\n",
			       pos[1]);
		else
			printf("closed round %s: labels are frozen and visible "
			       "to its annotators\n", pos[1]);
	} else if (!strcmp(pos[0], "reopen")) {
		if (npos != 2) {
			ret = cli_usage_error(usage, "round reopen needs NAME");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		rc = round_reopen(&c->st, &c->actor, pos[1],
				  force ? ROUND_FORCE : 0, &c->err);
		if (rc < 0) {
			ret = cli_fail(c);
			goto out;
		}
		if (rc > 0)
			printf("round %s is open already: nothing to do\n",
			       pos[1]);
		else
			printf("reopened round %s: its annotators may label its "
			       "items again (they may have seen each other's "
			       "labels while it was closed)\n", pos[1]);
	} else {
		ret = cli_usage_error(usage, "round %s: unknown action",
				      pos[0]);
	}
out:
	free(pos);
	return ret;
}

/* Label one item with pos[1..npos) DIM=CODE words (and submit), in the
 * caller's transaction.  0, or -1 with c->err filled. */
static int label_item(struct cli *c, const struct codebook *cb,
		      const char **pos, int npos, int submit)
{
	long long id;
	int i;

	id = item_find(&c->st, pos[0], &c->err);
	if (id < 0)
		return -1;
	for (i = 1; i < npos; i++) {
		struct dim_codes dc;
		int rc;

		cli_dim_codes(pos[i], &dc);
		rc = label_set(&c->st, &c->actor, cb, id, dc.dim, dc.codes,
			       dc.nr, 0, &c->err);
		cli_dim_codes_release(&dc);
		if (rc < 0)
			return -1;
	}
	if (submit && label_submit(&c->st, &c->actor, cb, id, &c->err) < 0)
		return -1;
	return 0;
}

/* Save one line of `label --from` (core/label_line), in the caller's
 * transaction.  0, or -1 with c->err filled. */
static int label_line_save(struct cli *c, const struct codebook *cb,
			   const struct label_line *ll)
{
	long long id = item_find(&c->st, ll->item, &c->err);
	size_t i;

	if (id < 0)
		return -1;
	for (i = 0; i < ll->nr_dims; i++)
		if (label_set(&c->st, &c->actor, cb, id, ll->dims[i].dim,
			      (const char *const *)ll->dims[i].codes,
			      ll->dims[i].nr, 0, &c->err) < 0)
			return -1;
	if (ll->submit && label_submit(&c->st, &c->actor, cb, id,
				       &c->err) < 0)
		return -1;
	return 0;
}

/* `label --from FILE`: one `ITEM DIM=CODE ... [--submit]` per line, so
 * codes never stand on a command line that `ps` shows.  The whole input
 * is read first (a slow producer never holds the study's write lock),
 * then saved in one transaction: a bad line is named and nothing is
 * saved. */
static int label_from(struct cli *c, const char *from)
{
	int is_stdin = !strcmp(from, "-");
	const char *name = is_stdin ? "stdin" : from;
	struct codebook cb = CODEBOOK_INIT;
	struct buf in = BUF_INIT;
	long items = 0, submitted = 0;
	int pass, ret = 0, in_tx = 0, fd;

	fd = is_stdin ? STDIN_FILENO : open(from, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || (!is_stdin && priv_input_ok(fd) < 0) ||
	    buf_read_fd(&in, fd) < 0) {
		fprintf(stderr, "bugcoder: %s: %s\n", name, strerror(errno));
		if (fd > STDIN_FILENO)
			close(fd);
		buf_release(&in);
		return 1;
	}
	if (!is_stdin)
		close(fd);
	/* pass 0 checks the words, pass 1 saves them */
	for (pass = 0; pass < 2; pass++) {
		const char *p = in.ptr, *end = in.ptr + in.len;
		long lineno = 0;

		if (pass == 1) {
			/* the codebook is read inside the transaction, so
			 * no update comes between a code's check and its
			 * saving */
			if ((ret = cli_open(c, CLI_MEMBER)))
				goto out;
			if (store_begin(&c->st, &c->err) < 0)
				goto fail;
			in_tx = 1;
			if ((ret = cli_codebook(c, &cb))) {
				store_rollback(&c->st);
				goto out;
			}
		}
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			struct label_line ll = LABEL_LINE_INIT;
			int rc = label_line_parse(p, len, &ll, &c->err);

			p += len + (nl != NULL);
			lineno++;
			if (rc > 0 && pass == 1) {
				if (label_line_save(c, &cb, &ll) < 0) {
					rc = -1;
				} else {
					items++;
					submitted += ll.submit;
				}
			}
			label_line_release(&ll);
			if (rc < 0) {
				err_prefix(&c->err, "%s:%ld", name, lineno);
				goto fail;
			}
		}
	}
	if (store_commit(&c->st, &c->err) < 0)
		goto fail;
	printf("%s: %ld item%s labelled, %ld submitted\n", name, items,
	       items == 1 ? "" : "s", submitted);
	goto out;
fail:
	if (in_tx)
		store_rollback(&c->st);
	ret = cli_fail_also(c, "nothing saved");
out:
	codebook_release(&cb);
	buf_release(&in);
	return ret;
}

/* One --evidence [DIM=]SPEC of `label`: the dimension is the one given
 * before the '=' or, without it, the only DIM=CODE of the command. */
static int cite(struct cli *c, const struct codebook *cb, const char **pos,
		int npos, const char *arg)
{
	struct evidence_cite ev;
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	char *dim = NULL;
	long long id;
	int ret = -1;

	if (eq && (!colon || eq < colon)) {
		dim = xstrndup(arg, (size_t)(eq - arg));
		arg = eq + 1;
	} else if (npos == 2 && strchr(pos[1], '=')) {
		dim = xstrndup(pos[1], (size_t)(strchr(pos[1], '=') - pos[1]));
	} else {
		return err_set(&c->err, ERR_USAGE, "--evidence %s: which "
			       "dimension? give it as DIM=%s", arg, arg);
	}
	id = item_find(&c->st, pos[0], &c->err);
	if (id >= 0 && evidence_parse(arg, &ev, &c->err) == 0) {
		ret = evidence_add(&c->st, &c->actor, cb, id, dim, &ev, NULL,
				   &c->err);
		if (ret < 0)
			err_prefix(&c->err, "--evidence %s%s%s", eq ? dim : "",
				   eq ? "=" : "", arg);
		evidence_cite_release(&ev);
	}
	free(dim);
	return ret;
}

struct kept {
	const char *dim;
	size_t nr;
};

static int count_dim(const struct evidence_row *row, void *data)
{
	struct kept *k = data;

	k->nr += !strcmp(row->dimension, k->dim);
	return 0;
}

/* A dimension cleared (DIM=) keeps its citations, as the screen does when
 * told to: say so, and how to drop them. */
static void kept_citations(struct cli *c, const char **pos, int npos)
{
	struct err e = ERR_INIT;
	long long id = item_find(&c->st, pos[0], &e);
	int i;

	for (i = 1; id > 0 && i < npos; i++) {
		const char *eq = strchr(pos[i], '=');
		struct kept k;

		if (!eq || eq[1])
			continue;
		k.dim = xstrndup(pos[i], (size_t)(eq - pos[i]));
		k.nr = 0;
		if (evidence_list(&c->st, &c->actor, id, count_dim, &k,
				  &e) == 0 && k.nr)
			printf("%s: %s cleared; its %zu citation%s (`bugcoder "
			       "evidence list %s` lists them, `evidence remove` "
			       "drops one)\n", pos[0], k.dim, k.nr,
			       k.nr == 1 ? " stays" : "s stay", pos[0]);
		free((char *)k.dim);
	}
}

CMD(label)
{
	static const char usage[] =
		"bugcoder label ITEM DIM=CODE[,CODE] ... [--submit] "
		"[--evidence [DIM=]SPEC ...] [--as USER]\n"
		"       bugcoder label --from FILE|- [--as USER]\n"
		"\n"
		"  ITEM           owner/repo#N, repo#N or #N when that is "
		"unique\n"
		"  DIM=CODE[,..]  the codes of one dimension (several for a "
		"`select: many`\n"
		"                 one); DIM= clears it\n"
		"  --submit       mark the item done (every required dimension "
		"coded)\n"
		"  --evidence [DIM=]SPEC\n"
		"                 cite lines for the label of DIM (the only "
		"DIM=CODE when\n"
		"                 DIM= is left out): diff:PATH:L1-L2 (after "
		"the fix),\n"
		"                 diff:PATH:old:L1-L2, issue:body:L1-L2,\n"
		"                 issue:comment:N:L1-L2, pr:N:body:L1-L2 (pull "
		"request\n"
		"                 #N's description) or pr:N:comment:K:L1-L2; "
		"may be\n"
		"                 repeated; `bugcoder evidence` lists and "
		"removes them\n"
		"  --from FILE    the same words, one item per line (- reads "
		"standard\n"
		"                 input), saved in one transaction: codes stay "
		"off the\n"
		"                 command line, which `ps` shows every user\n"
		"  --as USER      the owner labels for member USER\n"
		"\n"
		"  e.g. bugcoder label microsoft/DeepSpeed#4187 symptom=hang "
		"root_cause=concurrency --submit";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const char *from = NULL;
	const char **cites = NULL;
	size_t nr_cites = 0, i;
	int submit = 0;
	const struct cli_opt opts[] = {
		{ "--submit", 0, NULL, &submit, NULL, NULL },
		{ "--from", 1, &from, NULL, NULL, NULL },
		{ "--evidence", 1, NULL, NULL, &cites, &nr_cites },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
	}
	if (from) {
		free(pos);
		if (nr_cites) {
			free(cites);
			return cli_usage_error(usage, "--evidence goes with "
					       "ITEM DIM=CODE, not --from");
		}
		if (npos || submit)
			return cli_usage_error(usage, "--from takes its items, "
					       "codes and --submit from the "
					       "file, one item per line");
		return label_from(c, from);
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
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	/* all dimensions in one transaction: all or nothing; the codebook
	 * is read inside it, so no update can come in between the check
	 * of a code and its saving */
	if (store_begin(&c->st, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = cli_codebook(c, &cb))) {
		store_rollback(&c->st);
		goto out;
	}
	if (label_item(c, &cb, pos, npos, submit) < 0)
		goto fail;
	for (i = 0; i < nr_cites; i++)
		if (cite(c, &cb, pos, npos, cites[i]) < 0)
			goto fail;
	if (store_commit(&c->st, &c->err) < 0)
		goto fail;
	printf("%s: %d dimension%s saved%s", pos[0], npos - 1,
	       npos == 2 ? "" : "s", submit ? ", submitted" : "");
	if (nr_cites)
		printf(", %zu citation%s", nr_cites, nr_cites == 1 ? "" : "s");
	printf("\n");
	kept_citations(c, pos, npos);
	goto out;
fail:
	store_rollback(&c->st);
	ret = cli_fail(c);
out:
	codebook_release(&cb);
	free(pos);
	free(cites);
	return ret;
}

CMD(labels)
{
	static const char usage[] =
		"bugcoder labels import FILE.csv [--submit] [--annotator NAME] "
		"[--as USER]\n"
		"\n"
		"  FILE.csv   item,annotator,dimension,code - one row per code "
		"(what\n"
		"             `export --raw` writes); or a wide coding sheet, one "
		"row per bug\n"
		"             and one column per dimension (any other column is "
		"refused);\n"
		"             all rows go in, or none\n"
		"  --submit   submit every item the file codes\n"
		"  --annotator NAME\n"
		"             whose labels a wide sheet without an annotator "
		"column holds\n"
		"  --as USER  an annotator imports only their own rows; the "
		"owner any\n"
		"\n"
		"  e.g. bugcoder labels import alice.csv --submit";
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
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	/* the codebook is read inside the import's write transaction */
	if (store_begin(&c->st, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = cli_codebook(c, &cb))) {
		store_rollback(&c->st);
		goto out;
	}
	if (labels_import_opts(&c->st, &c->actor, &cb, pos[1], submit,
			       annotator, &stats, &c->err) < 0 ||
	    store_commit(&c->st, &c->err) < 0) {
		store_rollback(&c->st);
		ret = cli_fail_also(c, "nothing imported");
		goto out;
	}
	printf("%s: %d %s, %d %s set", pos[1], stats.rows,
	       text_plural(stats.rows, "row", "rows"), stats.labels,
	       text_plural(stats.labels, "label", "labels"));
	if (submit)
		printf(", %d %s", stats.submitted,
		       text_plural(stats.submitted, "submission",
				   "submissions"));
	printf("\n");
out:
	codebook_release(&cb);
	free(pos);
	return ret;
}
