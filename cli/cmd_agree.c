/* SPDX-License-Identifier: MIT */
/*
 * agree: agreement statistics per dimension.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/study.h"
#include "core/study/round.h"
#include "exports/agree_report.h"
#include "exports/disagree_out.h"
#include "exports/drift_out.h"
#include "core/study/drift.h"
#include "tui/tui.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* A whole number in lo..hi from option `name`; -1 after a usage error. */
static int parse_count(const char *name, const char *v, unsigned long long lo,
		       unsigned long long hi, unsigned long long *out,
		       const char *usage)
{
	char *end;

	errno = 0;
	if (!*v || *v == '-' || *v == '+')
		goto bad;
	*out = strtoull(v, &end, 10);
	if (errno || *end || *out < lo || *out > hi)
		goto bad;
	return 0;
bad:
	cli_usage_error(usage, "%s %s: a whole number from %llu to %llu",
			name, v, lo, hi);
	return -1;
}

struct agree_cmd_opts {
	const char *round, *dim, *format, *ci, *boot, *seed, *level;
	int screen, by_round, drift;
};

static const struct option agree_cmd_opts[] = {
	OPT_STRING(0, "round", struct agree_cmd_opts, round, "R", OPT_V_ROUND,
		   "only round R's items (default: every round's)"),
	OPT_STRING(0, "dimension", struct agree_cmd_opts, dim, "D", OPT_V_DIM,
		   "only dimension D (a key of the codebook, e.g. root_cause)"),
	OPT_STRING(0, "format", struct agree_cmd_opts, format,
		   "text|json|csv", OPT_V_WORDS,
		   "text (default), json (one document) or csv"),
	OPT_STRING(0, "ci", struct agree_cmd_opts, ci, "bootstrap|bca|wald",
		   OPT_V_WORDS,
		   "the 95% interval: a percentile bootstrap over items (the "
		   "default, at every size), the bias-corrected and "
		   "accelerated bootstrap (BCa), or Wald, clipped to [-1, 1]; "
		   "degenerate resamples are drawn again and counted; a kappa "
		   "of 1 gets the exact one-sided 95% lower bound instead"),
	OPT_STRING(0, "boot", struct agree_cmd_opts, boot, "N", OPT_V_TEXT,
		   "bootstrap samples, 100 to 1000000 (default "
		   STR(AGREE_BOOT_DEFAULT) ")"),
	OPT_STRING(0, "seed", struct agree_cmd_opts, seed, "S", OPT_V_TEXT,
		   "the bootstrap's seed, 0 to 2^53-1 (a fixed default; "
		   "printed with the intervals)"),
	OPT_STRING(0, "level", struct agree_cmd_opts, level,
		   "code|group|both", OPT_V_WORDS,
		   "agreement on codes, on their groups, or both (the default "
		   "when codes have a \"group\")"),
	OPT_FLAG(0, "by-round", struct agree_cmd_opts, by_round,
		 "a row per round and dimension and one for the whole study, "
		 "with the trend of kappa over the rounds and its SE"),
	OPT_FLAG(0, "screen", struct agree_cmd_opts, screen,
		 "the agreement view: kappa, CI, band and n per dimension and "
		 "round, the confusion grid and the codes chosen"),
	OPT_FLAG(0, "drift", struct agree_cmd_opts, drift,
		 "(owner only) per annotator and round the median time an "
		 "item took on the screen, and per dimension how the codes "
		 "each annotator chose moved between rounds (the round a label "
		 "was made in), with a chi-square test of homogeneity (a Monte "
		 "Carlo p-value when expected counts are small)"),
	OPT_END()
};

const struct command agree_command = {
	"agree", cmd_agree, "agreement statistics",
	"bugcoder agree [--round R] [--dimension D] [--format text|json|csv]\n"
	"               [--ci bootstrap|bca|wald] [--boot N] [--seed S] "
	"[--level code|group|both]\n"
	"       bugcoder agree --by-round [--dimension D] [--format F] "
	"[--ci ...]\n"
	"       bugcoder agree --screen [--round R]\n"
	"       bugcoder agree --drift [--format F]",
	agree_cmd_opts, NULL, NULL,
	"bugcoder agree --round pilot --dimension root_cause --format json\n"
	"       bugcoder agree --ci bootstrap --boot 5000 --seed 7 "
	"--level both\n"
	"       bugcoder agree --round pilot --ci bca\n"
	"       bugcoder agree --by-round --format csv\n"
	"       bugcoder agree --screen --round pilot\n"
	"       bugcoder agree --drift --format csv",
	NULL
};

/* agree --drift: coder drift, for the owner */
static int agree_drift(struct cli *c, const struct agree_cmd_opts *o)
{
	const char *usage = opt_usage(&agree_command);
	struct drift d = DRIFT_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	enum drift_format df;
	int ret;

	if (o->round || o->dim || o->level || o->screen || o->by_round ||
	    o->ci || o->boot || o->seed)
		return cli_usage_error(usage, "--drift covers every round and "
				       "dimension: only --format goes with "
				       "it");
	if (!strcmp(o->format, "text"))
		df = DRIFT_TEXT;
	else if (!strcmp(o->format, "json"))
		df = DRIFT_JSON;
	else if (!strcmp(o->format, "csv"))
		df = DRIFT_CSV;
	else
		return cli_usage_error(usage, "--format %s: text, json or csv",
				       o->format);
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (drift_compute(&c->st, &c->actor, &cb, &d, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	drift_write(&d, df, &out);
	drift_release(&d);
	cli_print_safe(stdout, out.ptr);
out:
	buf_release(&out);
	codebook_release(&cb);
	return ret;
}

/* agree --screen: the agreement view */
static int agree_screen(struct cli *c, const struct agree_cmd_opts *o)
{
	int ret;

	if (o->dim || strcmp(o->format, "text") || o->ci || o->boot ||
	    o->seed || o->level)
		return cli_usage_error(opt_usage(&agree_command), "--screen "
				       "shows every dimension: no "
				       "--dimension, --format, --ci, --boot, "
				       "--seed or --level");
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	store_interactive(&c->st);
	if (tui_agree(&c->st, &c->actor, o->round, &c->err) < 0)
		return cli_fail(c);
	return 0;
}

/* The report's format and the statistics' options (--ci, --boot, --seed,
 * --level) into *fmt and *ao; 0, or 2 after a usage error. */
static int agree_stats_opts(const struct agree_cmd_opts *o, int *fmt,
			    struct agree_opts *ao)
{
	const char *usage = opt_usage(&agree_command);
	unsigned long long n;

	if (!strcmp(o->format, "text"))
		*fmt = REPORT_TEXT;
	else if (!strcmp(o->format, "json"))
		*fmt = REPORT_JSON;
	else if (!strcmp(o->format, "csv"))
		*fmt = REPORT_CSV;
	else
		return cli_usage_error(usage, "--format %s: text, json or csv",
				       o->format);
	if (o->ci && !strcmp(o->ci, "wald"))
		ao->ci = AGREE_CI_WALD;
	else if (o->ci && !strcmp(o->ci, "bca"))
		ao->ci = AGREE_CI_BCA;
	else if (o->ci && strcmp(o->ci, "bootstrap"))
		return cli_usage_error(usage, "--ci %s: bootstrap, bca or wald",
				       o->ci);
	if ((o->boot || o->seed) && ao->ci == AGREE_CI_WALD)
		return cli_usage_error(usage, "--boot and --seed are for "
				       "--ci bootstrap or bca");
	if (o->boot) {
		if (parse_count("--boot", o->boot, 100, 1000000, &n,
				usage) < 0)
			return 2;
		ao->boot = (int)n;
	}
	if (o->seed) {
		/* up to 2^53 - 1: the seed is a JSON number, exact */
		if (parse_count("--seed", o->seed, 0, (1ULL << 53) - 1, &n,
				usage) < 0)
			return 2;
		ao->seed = n;
	}
	if (o->level && !strcmp(o->level, "code"))
		ao->level = AGREE_LEVEL_CODE;
	else if (o->level && !strcmp(o->level, "group"))
		ao->level = AGREE_LEVEL_GROUP;
	else if (o->level && strcmp(o->level, "both"))
		return cli_usage_error(usage, "--level %s: code, group or both",
				       o->level);
	return 0;
}

CMD(agree)
{
	const char *usage = opt_usage(&agree_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct agree_cmd_opts o;
	struct agree_opts ao = AGREE_OPTS_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	int npos, rc, ret = 0, fmt = REPORT_TEXT;

	memset(&o, 0, sizeof(o));
	o.format = "text";
	rc = opt_parse(&agree_command, argc, argv, &o, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (o.drift)
		return agree_drift(c, &o);
	if (o.by_round && (o.round || o.level || o.screen))
		return cli_usage_error(usage, "--by-round shows every round at "
				       "the level of codes: no --round, "
				       "--level or --screen");
	if (o.screen)
		return agree_screen(c, &o);
	if ((ret = agree_stats_opts(&o, &fmt, &ao)))
		return ret;
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (o.by_round)
		rc = report_agreement_by_round(&c->st, &c->actor, &cb, o.dim,
					       fmt, &ao, &out, &c->err);
	else
		rc = report_agreement(&c->st, &c->actor, &cb, o.round, o.dim,
				      fmt, &ao, &out, &c->err);
	if (rc < 0) {
		ret = cli_fail(c);
		goto out;
	}
	/* dimension names are codebook text: safe on a terminal, as
	 * stored into a file or pipe */
	cli_print_safe(stdout, out.ptr);
out:
	buf_release(&out);
	codebook_release(&cb);
	return ret;
}

struct disagreements_opts {
	const char *round, *format;
};

static const struct option disagreements_opts[] = {
	OPT_STRING(0, "round", struct disagreements_opts, round, "R",
		   OPT_V_ROUND, "only round R's items"),
	OPT_STRING(0, "format", struct disagreements_opts, format,
		   "text|csv|json", OPT_V_WORDS,
		   "text (default); csv, one record per coder: "
		   "item,round,dimension,reason,coder,codes; or json, one "
		   "document"),
	OPT_END()
};

const struct command disagreements_command = {
	"disagreements", cmd_disagreements, "list the open disagreements",
	"bugcoder disagreements [--round R] [--format text|csv|json]",
	disagreements_opts, NULL, NULL,
	"bugcoder disagreements\n"
	"       bugcoder disagreements --round pilot --format csv",
	"The adjudication queue without the screen (owner and\n"
	"adjudicators): every item and dimension whose coders differ,\n"
	"and every item flagged for discussion whose labels agree, with\n"
	"each coder's codes.  With blind adjudication (the default) an\n"
	"adjudicator sees the coders as Coder 1, Coder 2 in the order\n"
	"the screen shows them."
};

CMD(disagreements)
{
	const char *usage = opt_usage(&disagreements_command);
	struct disagreements_opts o = { NULL, "text" };
	const char *round, *format;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	enum disagree_format fmt;
	int npos, rc, ret = 0;

	rc = opt_parse(&disagreements_command, argc, argv, &o, pos, &npos);
	free(pos);
	if (rc)
		return opt_parse_exit(rc);
	round = o.round;
	format = o.format;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (!strcmp(format, "text"))
		fmt = DISAGREE_TEXT;
	else if (!strcmp(format, "csv"))
		fmt = DISAGREE_CSV;
	else if (!strcmp(format, "json"))
		fmt = DISAGREE_JSON;
	else
		return cli_usage_error(usage, "--format %s: text, csv or json",
				       format);
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (disagreements_write(&c->st, &c->actor, &cb, round, fmt, &out,
				&c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	/* item names and codes are study text: safe on a terminal */
	cli_print_safe(stdout, out.ptr);
out:
	buf_release(&out);
	codebook_release(&cb);
	return ret;
}
