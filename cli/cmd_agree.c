/* SPDX-License-Identifier: MIT */
/*
 * agree: agreement statistics per dimension.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/adjudicate.h"
#include "core/buf.h"
#include "core/study.h"
#include "core/round.h"
#include "exports/agree_report.h"
#include "exports/disagree_out.h"
#include "exports/drift_out.h"
#include "core/drift.h"
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

CMD(agree)
{
	static const char usage[] =
		"bugcoder agree [--round R] [--dimension D] "
		"[--format text|json|csv]\n"
		"               [--ci bootstrap|bca|wald] [--boot N] [--seed S] "
		"[--level code|group|both]\n"
		"       bugcoder agree --by-round [--dimension D] [--format F] "
		"[--ci ...]\n"
		"       bugcoder agree --screen [--round R]\n"
		"       bugcoder agree --drift [--format F]\n"
		"\n"
		"  --round R        only round R's items (default: every "
		"round's)\n"
		"  --dimension D    only dimension D (a key of the codebook, "
		"e.g.\n"
		"                   root_cause)\n"
		"  --format F       text (default), json (one document) or "
		"csv\n"
		"  --ci bootstrap|bca|wald\n"
		"                   the 95% interval: a percentile bootstrap "
		"over items\n"
		"                   (the default, at every size), the "
		"bias-corrected and\n"
		"                   accelerated bootstrap (BCa), or Wald, "
		"clipped to\n"
		"                   [-1, 1]; degenerate resamples are drawn "
		"again and\n"
		"                   counted; a kappa of 1 gets the exact "
		"one-sided 95%\n"
		"                   lower bound instead\n"
		"  --boot N         bootstrap samples, 100 to 1000000 "
		"(default " STR(AGREE_BOOT_DEFAULT) ")\n"
		"  --seed S         the bootstrap's seed, 0 to 2^53-1 (a "
		"fixed default;\n"
		"                   printed with the intervals)\n"
		"  --level code|group|both\n"
		"                   agreement on codes, on their groups, or "
		"both (the\n"
		"                   default when codes have a \"group\")\n"
		"  --by-round       a row per round and dimension and one for "
		"the whole\n"
		"                   study, with the trend of kappa over the "
		"rounds and its SE\n"
		"  --screen         the agreement view: kappa, CI, band and n "
		"per\n"
		"                   dimension and round, the confusion grid "
		"and the\n"
		"                   codes chosen\n"
		"  --drift          (owner only) per annotator and round the "
		"median time\n"
		"                   an item took on the screen, and per "
		"dimension how the\n"
		"                   codes each annotator chose moved between "
		"rounds (the\n"
		"                   round a label was made in), with a "
		"chi-square test of\n"
		"                   homogeneity (a Monte Carlo p-value when "
		"expected counts\n"
		"                   are small)\n"
		"\n"
		"  e.g. bugcoder agree --round pilot --dimension root_cause "
		"--format json\n"
		"       bugcoder agree --ci bootstrap --boot 5000 --seed 7 "
		"--level both\n"
		"       bugcoder agree --round pilot --ci bca\n"
		"       bugcoder agree --by-round --format csv\n"
		"       bugcoder agree --screen --round pilot\n"
		"       bugcoder agree --drift --format csv";
	const char *round = NULL, *dim = NULL, *format = "text";
	const char *ci = NULL, *boot = NULL, *seed = NULL, *level = NULL;
	int screen = 0, by_round = 0, drift = 0;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--round", 1, &round, NULL, NULL, NULL },
		{ "--dimension", 1, &dim, NULL, NULL, NULL },
		{ "--format", 1, &format, NULL, NULL, NULL },
		{ "--ci", 1, &ci, NULL, NULL, NULL },
		{ "--boot", 1, &boot, NULL, NULL, NULL },
		{ "--seed", 1, &seed, NULL, NULL, NULL },
		{ "--level", 1, &level, NULL, NULL, NULL },
		{ "--screen", 0, NULL, &screen, NULL, NULL },
		{ "--by-round", 0, NULL, &by_round, NULL, NULL },
		{ "--drift", 0, NULL, &drift, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct agree_opts ao = AGREE_OPTS_INIT;
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	unsigned long long n;
	int npos, rc, ret = 0, fmt;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (drift) {
		struct drift d = DRIFT_INIT;
		enum drift_format df;

		if (round || dim || level || screen || by_round || ci ||
		    boot || seed)
			return cli_usage_error(usage, "--drift covers every "
					       "round and dimension: only "
					       "--format goes with it");
		if (!strcmp(format, "text"))
			df = DRIFT_TEXT;
		else if (!strcmp(format, "json"))
			df = DRIFT_JSON;
		else if (!strcmp(format, "csv"))
			df = DRIFT_CSV;
		else
			return cli_usage_error(usage, "--format %s: text, json "
					       "or csv", format);
		if ((ret = cli_open(c, CLI_MEMBER)) ||
		    (ret = cli_codebook(c, &cb)))
			goto out;
		if (drift_compute(&c->st, &c->actor, &cb, &d, &c->err) < 0) {
			ret = cli_fail(c);
			goto out;
		}
		drift_write(&d, df, &out);
		drift_release(&d);
		cli_print_safe(stdout, out.ptr);
		goto out;
	}
	if (by_round && (round || level || screen))
		return cli_usage_error(usage, "--by-round shows every round at "
				       "the level of codes: no --round, "
				       "--level or --screen");
	if (screen) {
		if (dim || strcmp(format, "text") || ci || boot || seed ||
		    level)
			return cli_usage_error(usage, "--screen shows every "
					       "dimension: no --dimension, "
					       "--format, --ci, --boot, --seed "
					       "or --level");
		if ((ret = cli_open(c, CLI_MEMBER)))
			return ret;
		store_interactive(&c->st);
		if (tui_agree(&c->st, &c->actor, round, &c->err) < 0)
			return cli_fail(c);
		return 0;
	}
	if (!strcmp(format, "text"))
		fmt = REPORT_TEXT;
	else if (!strcmp(format, "json"))
		fmt = REPORT_JSON;
	else if (!strcmp(format, "csv"))
		fmt = REPORT_CSV;
	else
		return cli_usage_error(usage, "--format %s: text, json or csv",
				       format);
	if (ci && !strcmp(ci, "wald"))
		ao.ci = AGREE_CI_WALD;
	else if (ci && !strcmp(ci, "bca"))
		ao.ci = AGREE_CI_BCA;
	else if (ci && strcmp(ci, "bootstrap"))
		return cli_usage_error(usage, "--ci %s: bootstrap, bca or wald",
				       ci);
	if ((boot || seed) && ao.ci == AGREE_CI_WALD)
		return cli_usage_error(usage, "--boot and --seed are for "
				       "--ci bootstrap or bca");
	if (boot) {
		if (parse_count("--boot", boot, 100, 1000000, &n, usage) < 0)
			return 2;
		ao.boot = (int)n;
	}
	if (seed) {
		/* up to 2^53 - 1: the seed is a JSON number, exact */
		if (parse_count("--seed", seed, 0, (1ULL << 53) - 1, &n,
				usage) < 0)
			return 2;
		ao.seed = n;
	}
	if (level && !strcmp(level, "code"))
		ao.level = AGREE_LEVEL_CODE;
	else if (level && !strcmp(level, "group"))
		ao.level = AGREE_LEVEL_GROUP;
	else if (level && strcmp(level, "both"))
		return cli_usage_error(usage, "--level %s: code, group or both",
				       level);
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (by_round)
		rc = report_agreement_by_round(&c->st, &c->actor, &cb, dim,
					       fmt, &ao, &out, &c->err);
	else
		rc = report_agreement(&c->st, &c->actor, &cb, round, dim, fmt,
				      &ao, &out, &c->err);
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

CMD(disagreements)
{
	static const char usage[] =
		"bugcoder disagreements [--round R] [--format text|csv|json]\n"
		"\n"
		"The adjudication queue without the screen (owner and\n"
		"adjudicators): every item and dimension whose coders differ,\n"
		"and every item flagged for discussion whose labels agree, with\n"
		"each coder's codes.  With blind adjudication (the default) an\n"
		"adjudicator sees the coders as Coder 1, Coder 2 in the order\n"
		"the screen shows them.\n"
		"\n"
		"  --round R       only round R's items\n"
		"  --format F      text (default); csv, one record per coder:\n"
		"                  item,round,dimension,reason,coder,codes; or\n"
		"                  json, one document\n"
		"\n"
		"  e.g. bugcoder disagreements\n"
		"       bugcoder disagreements --round pilot --format csv";
	const char *round = NULL, *format = "text";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--round", 1, &round, NULL, NULL, NULL },
		{ "--format", 1, &format, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	enum disagree_format fmt;
	int npos, rc, ret = 0;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
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
