/*
 * agree: agreement statistics per dimension.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/adjudicate.h"
#include "core/buf.h"
#include "core/study.h"
#include "core/round.h"
#include "exports/agree_report.h"
#include "exports/disagree_out.h"
#include "tui/tui.h"

CMD(agree)
{
	static const char usage[] =
		"bugcoder agree [--round R] [--dimension D] "
		"[--format text|json|csv] | --screen [--round R]\n"
		"\n"
		"--screen opens the agreement view: kappa, CI, band and n per\n"
		"dimension and round, the confusion grid and the codes chosen.";
	const char *round = NULL, *dim = NULL, *format = "text";
	int screen = 0;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--round", 1, &round, NULL, NULL, NULL },
		{ "--dimension", 1, &dim, NULL, NULL, NULL },
		{ "--format", 1, &format, NULL, NULL, NULL },
		{ "--screen", 0, NULL, &screen, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	struct buf out = BUF_INIT;
	int npos, rc, ret = 0, fmt;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	free(pos);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (npos)
		return cli_usage_error(usage, "unexpected argument");
	if (screen) {
		if (dim || strcmp(format, "text"))
			return cli_usage_error(usage, "--screen shows every "
					       "dimension: no --dimension or "
					       "--format");
		if ((ret = cli_open(c, CLI_MEMBER)))
			return ret;
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
	if ((ret = cli_open(c, CLI_MEMBER)) || (ret = cli_codebook(c, &cb)))
		goto out;
	if (report_agreement(&c->st, &c->actor, &cb, round, dim, fmt, &out,
			     &c->err) < 0) {
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
		"  --round R       only round R's items, e.g. --round pilot\n"
		"  --format F      text (default); csv, one record per coder:\n"
		"                  item,round,dimension,reason,coder,codes; or\n"
		"                  json, one document";
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
