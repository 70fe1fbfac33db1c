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
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/evidence.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/label_batch.h"
#include "core/base/label_line.h"
#include "core/study/labels_csv.h"
#include "core/study/gate.h"
#include "core/base/priv.h"
#include "core/study/round.h"
#include "core/study/study.h"
#include "core/base/text.h"

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
	if (r->screen)
		printf("  screening");
	printf("  annotators ");
	for (i = 0; i < r->nr_annotators; i++)
		printf("%s%s", i ? "," : "", r->annotators[i]);
	printf("  (%s", r->spec);
	if (r->has_seed)
		printf(", seed %llu", (unsigned long long)r->seed);
	if (r->stratify)
		printf(", stratified by %s", r->stratify);
	if (r->screen && r->reasons) {
		/* the reasons are keys ([A-Za-z0-9_.-]): safe to print */
		const char *p;

		printf("; reasons ");
		for (p = r->reasons; *p; p++)
			if (*p != '[' && *p != ']' && *p != '"')
				putchar(*p);
	}
	printf(")\n");
}

/* What a new round's `--items all` or sample left out, and why. */
static void print_left(const struct round_info *r)
{
	if (r->left_missing)
		printf("left out %zu item%s never fetched: `bugcoder fetch "
		       "--missing` fetches them\n", r->left_missing,
		       r->left_missing == 1 ? "" : "s");
	if (r->left_unscreened)
		printf("left out %zu item%s not screened yet: the study "
		       "screens items before coding them (round create NAME "
		       "--screen ...)\n", r->left_unscreened,
		       r->left_unscreened == 1 ? "" : "s");
	if (r->left_screening)
		printf("left out %zu item%s not decided in screening yet\n",
		       r->left_screening, r->left_screening == 1 ? "" : "s");
	if (r->left_excluded)
		printf("left out %zu item%s screened out\n",
		       r->left_excluded, r->left_excluded == 1 ? "" : "s");
}

struct round_opts {
	const char *items, *sample, *seed, *stratify, *annotators;
	const char *after, *min_kappa, *gate, *reasons;
	int force, screen;
};

static const char *const round_subs[] = {
	"create", "list", "close", "reopen", NULL
};

static const struct option round_opts[] = {
	OPT_ARG("NAME", "close", OPT_V_ROUND, NULL),
	OPT_ARG("NAME", "reopen", OPT_V_ROUND, NULL),
	OPT_STRING(0, "items", struct round_opts, items, "SPEC", OPT_V_TEXT,
		   "all (every item free for the round), repo:OWNER/REPO, a "
		   "list (microsoft/DeepSpeed#4187,ColossalAI#2387), @FILE "
		   "(one item name a line), or unfinished:ROUND (the items a "
		   "closed round left unfinished: they move)"),
	OPT_STRING(0, "sample", struct round_opts, sample, "N|P%",
		   OPT_V_TEXT,
		   "draw N items or P% of the free ones (needs --seed S); "
		   "free: fetched, in no coding round and, once the study "
		   "screens, screened in"),
	OPT_STRING(0, "seed", struct round_opts, seed, "S", OPT_V_TEXT,
		   "the sample's random seed (a whole number): the same seed "
		   "draws the same items"),
	OPT_FLAG(0, "screen", struct round_opts, screen,
		 "a screening round: each item is answered on inclusion, "
		 "include or a reason to leave it out"),
	OPT_STRING(0, "reasons", struct round_opts, reasons, "R1,R2",
		   OPT_V_TEXT,
		   "the reasons (default not_a_bug,no_merged_fix,duplicate,"
		   "out_of_scope)"),
	OPT_STRING(0, "stratify", struct round_opts, stratify, "repo",
		   OPT_V_WORDS, "draw from each repository in proportion"),
	OPT_STRING(0, "annotators", struct round_opts, annotators, "A,B",
		   OPT_V_MEMBERS, "who codes the round's items"),
	OPT_STRING(0, "after", struct round_opts, after, "ROUND", OPT_V_ROUND,
		   "with --min-kappa K, a calibration gate: the round is "
		   "created only once ROUND is closed with kappa >= K on every "
		   "required dimension; --force creates it anyway, audited"),
	OPT_STRING(0, "min-kappa", struct round_opts, min_kappa, "K",
		   OPT_V_TEXT, "the gate's kappa, from -1 to 1"),
	OPT_STRING(0, "gate", struct round_opts, gate, "value|lower",
		   OPT_V_WORDS,
		   "value (the default): kappa itself passes the gate; lower: "
		   "the 95% interval's lower bound"),
	OPT_FLAG(0, "force", struct round_opts, force,
		 "also: close a round with items not yet submitted by every "
		 "annotator; reopen a round with adjudicated items"),
	OPT_END()
};

const struct command round_command = {
	"round", cmd_round, "create, list or close coding rounds",
	"bugcoder round create NAME (--items SPEC | --sample N|P% "
	"--seed S [--stratify repo]) --annotators A,B\n"
	"                      [--after ROUND --min-kappa K "
	"[--gate value|lower] [--force]]\n"
	"                      [--screen [--reasons R1,R2,...]]\n"
	"       bugcoder round list | close NAME [--force] | reopen NAME "
	"[--force]",
	round_opts, round_subs, NULL,
	"bugcoder round create pilot --sample 40% --seed 7 "
	"--stratify repo \\\n"
	"           --annotators alice,bob\n"
	"       bugcoder round create r2 --items unfinished:pilot "
	"--annotators alice,bob\n"
	"       bugcoder round create screening --screen --items all "
	"--annotators alice,bob",
	NULL
};

/* round create's options checked and put into `spec` (its names borrow
 * the options); 0, or the exit code after a usage error. */
static int round_spec_from(const struct round_opts *o, int npos,
			   struct round_spec *spec)
{
	const char *usage = opt_usage(&round_command);
	char *end;

	if (!o->after != !o->min_kappa ||
	    ((o->gate || o->force) && !o->after))
		return cli_usage_error(usage, "a gate needs both --after "
				       "ROUND and --min-kappa K");
	if (o->gate && strcmp(o->gate, "lower") && strcmp(o->gate, "value"))
		return cli_usage_error(usage, "--gate %s: value or lower",
				       o->gate);
	if (o->min_kappa) {
		errno = 0;
		spec->gate_min_kappa = strtod(o->min_kappa, &end);
		if (!*o->min_kappa || *end || errno ||
		    !(spec->gate_min_kappa >= -1 &&
		      spec->gate_min_kappa <= 1))
			return cli_usage_error(usage, "--min-kappa %s: a "
					       "number from -1 to 1",
					       o->min_kappa);
		spec->gate_after = o->after;
		spec->gate_on_lower = o->gate && !strcmp(o->gate, "lower");
	}
	if (npos != 2)
		return cli_usage_error(usage, "round create needs NAME");
	if (!o->annotators)
		return cli_usage_error(usage, "round create needs "
				       "--annotators A,B");
	if (!o->items == !o->sample)
		return cli_usage_error(usage, "give either --items or "
				       "--sample");
	if (o->seed) {
		errno = 0;
		spec->seed = strtoull(o->seed, &end, 10);
		if (!*o->seed || *end || errno || *o->seed == '-')
			return cli_usage_error(usage, "--seed %s: expected a "
					       "whole number", o->seed);
		spec->has_seed = 1;
	}
	spec->items = o->items;
	spec->sample = o->sample;
	spec->stratify = o->stratify;
	spec->screen = o->screen;
	spec->reasons = o->reasons;
	return 0;
}

/* The calibration gate of round `name` (spec->gate_after): checked, and
 * described into `detail` (spec->gate_detail points there).  0, or -1
 * with c->err filled (a closed gate without --force too). */
static int round_gate(struct cli *c, const char *name, int force,
		      struct round_spec *spec, struct buf *detail)
{
	struct gate_check gc = GATE_CHECK_INIT;
	struct codebook cb = CODEBOOK_INIT;
	int rc = 0;

	/* the owner only, as round create itself */
	if (actor_require(&c->actor, ROLES(ROLE_OWNER), "round create",
			  &c->err) < 0 ||
	    study_codebook(&c->st, &cb, NULL, &c->err) < 0 ||
	    gate_check(&c->st, &c->actor, &cb, spec->gate_after,
		       spec->gate_min_kappa, spec->gate_on_lower, &gc,
		       &c->err) < 0) {
		rc = -1;
	} else {
		gate_describe(&gc, detail);
		spec->gate_detail = detail->ptr;
		if (!gc.pass && !force) {
			err_set(&c->err, ERR_INPUT, "round %s waits for its "
				"gate: %s (--force overrides)", name,
				detail->ptr);
			rc = -1;
		}
		spec->gate_forced = !gc.pass;
	}
	gate_release(&gc);
	codebook_release(&cb);
	return rc;
}

static int round_create_cmd(struct cli *c, const struct round_opts *o,
			    const char **pos, int npos)
{
	struct round_spec spec;
	struct round_info r;
	struct buf detail = BUF_INIT;
	char *copy = NULL;
	int rc = 0, ret;

	memset(&spec, 0, sizeof(spec));
	if ((ret = round_spec_from(o, npos, &spec)))
		return ret;
	spec.annotators = cli_split_commas(o->annotators,
					   &spec.nr_annotators, &copy);
	if ((ret = cli_open(c, CLI_MEMBER)))
		goto out;
	if (spec.gate_after)
		rc = round_gate(c, pos[1], o->force, &spec, &detail);
	spec.name = pos[1];
	if (!rc)
		rc = round_create(&c->st, &c->actor, &spec, &r, &c->err);
	if (rc < 0) {
		ret = c->err.code == ERR_USAGE ?
		      cli_usage_error(opt_usage(&round_command), "%s",
				      c->err.msg) :
		      cli_fail(c);
		goto out;
	}
	if (spec.gate_after)
		printf("gate %s: %s\n", spec.gate_forced ? "forced" :
		       "passed", detail.ptr);
	printf("created %sround ", r.screen ? "screening " : "");
	print_round(c, &r);
	print_left(&r);
	round_info_release(&r);
out:
	free((void *)spec.annotators);
	free(copy);
	buf_release(&detail);
	return ret;
}

static int round_list_cmd(struct cli *c)
{
	struct round_info *v;
	size_t n, i;
	int ret;

	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (round_list_for(&c->st, &c->actor, &v, &n, &c->err) < 0) {
		ret = cli_fail(c);
		return ret;
	}
	if (!n)
		printf("no rounds: open coding, every item goes to "
		       "every annotator\n");
	for (i = 0; i < n; i++)
		print_round(c, &v[i]);
	round_list_free(v, n);
	return 0;
}

static int round_close_cmd(struct cli *c, const char **pos, int npos,
			   int force)
{
	const char *usage = opt_usage(&round_command);
	struct round_info r;
	size_t decided = 0;
	int rc, ret;

	if (npos != 2) {
		ret = cli_usage_error(usage, "round close needs NAME");
		return ret;
	}
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	rc = round_close_decided(&c->st, &c->actor, pos[1],
				 force ? ROUND_FORCE : 0, &decided,
				 &c->err);
	if (rc < 0) {
		ret = cli_fail(c);
		return ret;
	}
	if (rc > 0) {
		printf("round %s is closed already: nothing to do\n",
		       pos[1]);
		return ret;
	}
	if (round_get(&c->st, pos[1], &r, &c->err) < 0) {
		ret = cli_fail(c);
		return ret;
	}
	if (r.screen)
		printf("closed screening round %s: answers are frozen "
		       "and visible to its screeners; %zu item%s "
		       "decided where the screeners agree (the others "
		       "go to the adjudicator: bugcoder disagreements "
		       "--round %s)\n", pos[1], decided,
		       decided == 1 ? "" : "s", pos[1]);
	else
		printf("closed round %s: labels are frozen and visible "
		       "to its annotators\n", pos[1]);
	round_info_release(&r);
	return 0;
}

static int round_reopen_cmd(struct cli *c, const char **pos, int npos,
			    int force)
{
	const char *usage = opt_usage(&round_command);
	int rc, ret;

	if (npos != 2) {
		ret = cli_usage_error(usage, "round reopen needs NAME");
		return ret;
	}
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	rc = round_reopen(&c->st, &c->actor, pos[1],
			  force ? ROUND_FORCE : 0, &c->err);
	if (rc < 0) {
		ret = cli_fail(c);
		return ret;
	}
	if (rc > 0)
		printf("round %s is open already: nothing to do\n",
		       pos[1]);
	else
		printf("reopened round %s: its annotators may label its "
		       "items again (they may have seen each other's "
		       "labels while it was closed)\n", pos[1]);
	return 0;
}

CMD(round)
{
	const char *usage = opt_usage(&round_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct round_opts o;
	int npos, rc, ret = 0;

	memset(&o, 0, sizeof(o));
	rc = opt_parse(&round_command, argc, argv, &o, pos, &npos);
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (!npos) {
		ret = cli_usage_error(usage, "round: create, list, close or "
				      "reopen?");
		goto out;
	}
	if ((o.screen || o.reasons) && strcmp(pos[0], "create")) {
		ret = cli_usage_error(usage, "--screen and --reasons go with "
				      "round create");
		goto out;
	}
	if (o.reasons && !o.screen) {
		ret = cli_usage_error(usage, "--reasons goes with --screen");
		goto out;
	}
	if (o.force && strcmp(pos[0], "close") && strcmp(pos[0], "reopen") &&
	    !(!strcmp(pos[0], "create") && o.after)) {
		ret = cli_usage_error(usage, "--force goes with round close, "
				      "round reopen or a gate (--after)");
		goto out;
	}
	if (!strcmp(pos[0], "create"))
		ret = round_create_cmd(c, &o, pos, npos);
	else if (!strcmp(pos[0], "list"))
		ret = round_list_cmd(c);
	else if (!strcmp(pos[0], "close"))
		ret = round_close_cmd(c, pos, npos, o.force);
	else if (!strcmp(pos[0], "reopen"))
		ret = round_reopen_cmd(c, pos, npos, o.force);
	else
		ret = cli_usage_error(usage, "round %s: unknown action",
				      pos[0]);
out:
	free(pos);
	return ret;
}

/*
 * The label commands' words made into operations of core/study/label_batch:
 * ITEM DIM=CODE[,CODE] ... [--submit].  The operations borrow the words,
 * which must outlive them; `dcs` keeps the split DIM=CODE words.
 */
struct label_words {
	struct label_op *ops;
	size_t nr, alloc;
	struct dim_codes *dcs;
	size_t nr_dcs, alloc_dcs;
	char **wheres;		/* owned "FILE:LINE" strings */
	size_t nr_wheres, alloc_wheres;
};

/* "NAME:LINE", owned. */
static char *where_of(const char *name, long lineno)
{
	struct buf b = BUF_INIT;

	buf_addf(&b, "%s:%ld", name, lineno);
	return buf_detach(&b, NULL);
}

static void add_op(struct label_words *w, enum label_op_kind kind,
		   const char *item, const char *where, long dc)
{
	struct label_op *op;

	ALLOC_GROW(w->ops, w->nr + 1, w->alloc);
	op = &w->ops[w->nr++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->item = item;
	op->where = where;
	/* the dimension and codes, once every word is split (dcs moves) */
	op->nr_codes = dc < 0 ? 0 : (size_t)dc;
	op->dim = dc < 0 ? NULL : "";
}

/* One item's words: pos[0] the item, pos[1..npos) DIM=CODE. */
static void add_item(struct label_words *w, const char **pos, int npos,
		     int submit, const char *where)
{
	int i;

	for (i = 1; i < npos; i++) {
		ALLOC_GROW(w->dcs, w->nr_dcs + 1, w->alloc_dcs);
		cli_dim_codes(pos[i], &w->dcs[w->nr_dcs]);
		add_op(w, LABEL_OP_SET, pos[0], where, (long)w->nr_dcs++);
	}
	if (submit)
		add_op(w, LABEL_OP_SUBMIT, pos[0], where, -1);
}

/* Point the operations at their split words. */
static void resolve_words(struct label_words *w)
{
	size_t i;

	for (i = 0; i < w->nr; i++) {
		struct label_op *op = &w->ops[i];
		const struct dim_codes *dc;

		/* an operation of add_line() has its words already */
		if (op->kind != LABEL_OP_SET || *op->dim)
			continue;
		dc = &w->dcs[op->nr_codes];
		op->dim = dc->dim;
		op->codes = dc->codes;
		op->nr_codes = dc->nr;
	}
}

static void label_words_release(struct label_words *w)
{
	size_t i;

	for (i = 0; i < w->nr_dcs; i++)
		cli_dim_codes_release(&w->dcs[i]);
	for (i = 0; i < w->nr_wheres; i++)
		free(w->wheres[i]);
	free(w->dcs);
	free(w->wheres);
	free(w->ops);
	memset(w, 0, sizeof(*w));
}

/* The operations of one parsed line of `label --from` (core/base/label_line),
 * which must outlive them. */
static void add_line(struct label_words *w, const struct label_line *ll,
		     const char *where)
{
	size_t i;

	for (i = 0; i < ll->nr_dims; i++) {
		struct label_op *op;

		add_op(w, LABEL_OP_SET, ll->item, where, -1);
		op = &w->ops[w->nr - 1];
		op->dim = ll->dims[i].dim;
		op->codes = (const char *const *)ll->dims[i].codes;
		op->nr_codes = ll->dims[i].nr;
	}
	if (ll->submit)
		add_op(w, LABEL_OP_SUBMIT, ll->item, where, -1);
}

/* `label --from FILE`: one `ITEM DIM=CODE ... [--submit]` per line, so
 * codes never stand on a command line that `ps` shows.  The whole input
 * is read and its words checked first (a slow producer never holds the
 * study's write lock), then core/study/label_batch checks and saves it all in
 * one short transaction: a bad line is named and nothing is saved. */
static int label_from(struct cli *c, const char *from)
{
	int is_stdin = !strcmp(from, "-");
	const char *name = is_stdin ? "stdin" : from;
	struct codebook cb = CODEBOOK_INIT;
	struct label_words w;
	struct buf in = BUF_INIT;
	struct label_line *lines = NULL;
	size_t nr_lines = 0, alloc_lines = 0, i;
	long items = 0, submitted = 0, lineno = 0;
	const char *p, *end;
	int ret = 0, fd;

	memset(&w, 0, sizeof(w));
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
	/* the words, line by line, in place */
	for (p = in.ptr, end = in.ptr + in.len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct label_line *ll;
		int rc;

		ALLOC_GROW(lines, nr_lines + 1, alloc_lines);
		ll = &lines[nr_lines];
		memset(ll, 0, sizeof(*ll));
		rc = label_line_parse(p, len, ll, &c->err);
		p += len + (nl != NULL);
		lineno++;
		if (rc < 0) {
			label_line_release(ll);
			err_prefix(&c->err, "%s:%ld", name, lineno);
			goto fail;
		}
		if (!rc) {
			label_line_release(ll);
			continue;
		}
		nr_lines++;
		ALLOC_GROW(w.wheres, w.nr_wheres + 1, w.alloc_wheres);
		w.wheres[w.nr_wheres] = where_of(name, lineno);
		add_line(&w, ll, w.wheres[w.nr_wheres++]);
		items++;
		submitted += ll->submit;
	}
	resolve_words(&w);
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (label_batch(&c->st, &c->actor, &cb, w.ops, w.nr, &c->err) < 0)
		goto fail;
	printf("%s: %ld item%s labelled, %ld submitted\n", name, items,
	       items == 1 ? "" : "s", submitted);
	goto out;
fail:
	ret = cli_fail_also(c, "nothing saved");
out:
	codebook_release(&cb);
	label_words_release(&w);
	for (i = 0; i < nr_lines; i++)
		label_line_release(&lines[i]);
	free(lines);
	buf_release(&in);
	return ret;
}

/* One --evidence [DIM=]SPEC of `label` as an operation: the dimension is
 * the one given before the '=' or, without it, the only DIM=CODE of the
 * command.  The parsed citation goes to `ev`. */
static int cite_op(struct cli *c, struct label_words *w, const char **pos,
		   int npos, const char *arg, struct evidence_cite *ev)
{
	const char *eq = strchr(arg, '='), *colon = strchr(arg, ':');
	char *dim;

	if (eq && (!colon || eq < colon)) {
		dim = xstrndup(arg, (size_t)(eq - arg));
		arg = eq + 1;
	} else if (npos == 2 && strchr(pos[1], '=')) {
		dim = xstrndup(pos[1], (size_t)(strchr(pos[1], '=') - pos[1]));
	} else {
		return err_set(&c->err, ERR_USAGE, "--evidence %s: which "
			       "dimension? give it as DIM=%s", arg, arg);
	}
	if (evidence_parse(arg, ev, &c->err) < 0) {
		free(dim);
		return -1;
	}
	add_op(w, LABEL_OP_CITE, pos[0], NULL, -1);
	w->ops[w->nr - 1].cite = ev;
	/* the dimension's name lives with the words */
	ALLOC_GROW(w->wheres, w->nr_wheres + 1, w->alloc_wheres);
	w->wheres[w->nr_wheres++] = dim;
	w->ops[w->nr - 1].dim = dim;
	return 0;
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

struct label_opts {
	int submit;
	const char *from;
	struct opt_list evidence;
};

static const struct option label_opts[] = {
	OPT_ARG("ITEM", NULL, OPT_V_ITEM,
		"owner/repo#N, repo#N or #N when that is unique"),
	OPT_ARG("DIM=CODE[,..]", NULL, OPT_V_DIM_CODE,
		"the codes of one dimension (several for a `select: many` "
		"one); DIM= clears it"),
	OPT_FLAG(0, "submit", struct label_opts, submit,
		 "mark the item done (every required dimension coded)"),
	OPT_LIST(0, "evidence", struct label_opts, evidence, "[DIM=]SPEC",
		 OPT_V_TEXT,
		 "cite lines for the label of DIM (the only DIM=CODE when "
		 "DIM= is left out): diff:PATH:L1-L2 (after the fix), "
		 "diff:PATH:old:L1-L2, issue:body:L1-L2, "
		 "issue:comment:N:L1-L2, pr:N:body:L1-L2 (pull request #N's "
		 "description) or pr:N:comment:K:L1-L2; may be repeated; "
		 "`bugcoder evidence` lists and removes them"),
	OPT_STRING(0, "from", struct label_opts, from, "FILE", OPT_V_FILE,
		   "the same words, one item per line (- reads standard "
		   "input), saved in one transaction: codes stay off the "
		   "command line, which `ps` shows every user"),
	OPT_GLOBAL("as", "USER", "the owner labels for member USER"),
	OPT_END()
};

const struct command label_command = {
	"label", cmd_label, "label an item without the screen",
	"bugcoder label ITEM DIM=CODE[,CODE] ... [--submit] "
	"[--evidence [DIM=]SPEC ...] [--as USER]\n"
	"       bugcoder label --from FILE|- [--as USER]",
	label_opts, NULL, NULL,
	"bugcoder label microsoft/DeepSpeed#4187 symptom=hang "
	"root_cause=concurrency --submit",
	NULL
};

CMD(label)
{
	const char *usage = opt_usage(&label_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct label_opts o = { 0 };
	const char *from;
	const char **cites;
	struct evidence_cite *evs = NULL;
	size_t nr_cites, nr_evs = 0, i;
	int submit;
	struct codebook cb = CODEBOOK_INIT;
	struct label_words w;
	int npos, rc, ret = 0;

	memset(&w, 0, sizeof(w));
	rc = opt_parse(&label_command, argc, argv, &o, pos, &npos);
	from = o.from;
	cites = o.evidence.v;
	nr_cites = o.evidence.nr;
	submit = o.submit;
	if (rc) {
		free(pos);
		free(cites);
		return opt_parse_exit(rc);
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
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	/* every dimension, the submission and the citations: one batch,
	 * all or nothing, one access check and one codebook check */
	add_item(&w, pos, npos, submit, NULL);
	resolve_words(&w);
	evs = xcalloc(nr_cites + 1, sizeof(*evs));
	for (i = 0; i < nr_cites; i++, nr_evs++)
		if (cite_op(c, &w, pos, npos, cites[i], &evs[i]) < 0)
			goto fail;
	if (label_batch(&c->st, &c->actor, &cb, w.ops, w.nr, &c->err) < 0)
		goto fail;
	printf("%s: %d dimension%s saved%s", pos[0], npos - 1,
	       npos == 2 ? "" : "s", submit ? ", submitted" : "");
	if (nr_cites)
		printf(", %zu citation%s", nr_cites, nr_cites == 1 ? "" : "s");
	printf("\n");
	kept_citations(c, pos, npos);
	goto out;
fail:
	ret = cli_fail(c);
out:
	for (i = 0; i < nr_evs; i++)
		evidence_cite_release(&evs[i]);
	free(evs);
	label_words_release(&w);
	codebook_release(&cb);
	free(pos);
	free(cites);
	return ret;
}

struct labels_opts {
	int submit;
	const char *annotator, *round;
};

static const char *const labels_subs[] = { "import", NULL };

static const struct option labels_opts[] = {
	OPT_ARG("FILE.csv", "import", OPT_V_FILE,
		"item,annotator,dimension,code - one row per code (what "
		"`export --raw` writes); or a wide coding sheet, one row per "
		"bug and one column per dimension (any other column is "
		"refused); all rows go in, or none"),
	OPT_FLAG(0, "submit", struct labels_opts, submit,
		 "submit every item the file codes"),
	OPT_STRING(0, "annotator", struct labels_opts, annotator, "NAME",
		   OPT_V_MEMBER,
		   "whose labels a wide sheet without an annotator column "
		   "holds"),
	OPT_STRING(0, "round", struct labels_opts, round, "R", OPT_V_ROUND,
		   "put the file's items that are in no round into open round "
		   "R on the way in (the owner; without it they are refused, "
		   "named)"),
	OPT_GLOBAL("as", "USER",
		   "an annotator imports only their own rows; the owner any"),
	OPT_END()
};

const struct command labels_command = {
	"labels", cmd_labels, "import labels from CSV",
	"bugcoder labels import FILE.csv [--submit] [--annotator NAME] "
	"[--round R] [--as USER]",
	labels_opts, labels_subs, NULL,
	"bugcoder labels import alice.csv --submit",
	NULL
};

CMD(labels)
{
	const char *usage = opt_usage(&labels_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct labels_opts o = { 0 };
	const char *annotator, *round;
	int submit;
	struct codebook cb = CODEBOOK_INIT;
	struct labels_import_stats stats;
	int npos, rc, ret = 0;

	rc = opt_parse(&labels_command, argc, argv, &o, pos, &npos);
	annotator = o.annotator;
	round = o.round;
	submit = o.submit;
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (npos != 2 || strcmp(pos[0], "import")) {
		free(pos);
		return cli_usage_error(usage, "expected: labels import "
				       "FILE.csv");
	}
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	/* read and checked, then written in one short transaction */
	if (labels_import_round(&c->st, &c->actor, &cb, pos[1], submit,
				annotator, round, &stats, &c->err) < 0) {
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
	if (stats.assigned)
		printf("; %d item%s put into round %s", stats.assigned,
		       stats.assigned == 1 ? "" : "s", round);
	printf("\n");
out:
	codebook_release(&cb);
	free(pos);
	return ret;
}
