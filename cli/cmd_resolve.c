/* SPDX-License-Identifier: MIT */
/*
 * resolve: settle a disagreement from a script.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/item.h"

struct resolve_opts {
	const char *rationale, *cause;
};

static const struct option resolve_opts[] = {
	OPT_ARG("ITEM", NULL, OPT_V_ITEM,
		"owner/repo#N or its URL; repo#N or N when only one item has "
		"that name"),
	OPT_ARG("DIM=CODE[,CODE]", NULL, OPT_V_DIM_CODE,
		"the final code(s) of dimension DIM; several, comma-separated, "
		"for a `select: many` dimension; inclusion=CODE decides a "
		"screened item: include, or a reason of its screening round "
		"to leave it out (e.g. inclusion=no_merged_fix)"),
	OPT_STRING(0, "rationale", struct resolve_opts, rationale, "TEXT",
		   OPT_V_TEXT,
		   "why (required; kept with the resolution and exported; at "
		   "most 64 KiB)"),
	OPT_STRING(0, "cause", struct resolve_opts, cause,
		   "guideline_gap|slip|ambiguous|code_missing", OPT_V_WORDS,
		   "why the coders differed: guideline_gap (the codebook's "
		   "definitions did not decide it), slip (a coder's mistake), "
		   "ambiguous (the report allows both), or code_missing (no "
		   "code fits)"),
	OPT_END()
};

const struct command resolve_command = {
	"resolve", cmd_resolve, "resolve a disagreement without the screen",
	"bugcoder resolve ITEM DIM=CODE[,CODE] ... --rationale TEXT "
	"[--cause guideline_gap|slip|ambiguous|code_missing]",
	resolve_opts, NULL, NULL,
	"bugcoder resolve DeepSpeed#4187 root_cause=concurrency \\\n"
	"           --rationale \"stream sync\"\n"
	"       bugcoder resolve microsoft/DeepSpeed#3468 symptom=crash "
	"stage=memory \\\n"
	"           --rationale \"the OOM is the symptom\" --cause slip",
	"Settle an item's disagreement without the screen (the owner and\n"
	"adjudicators), once all its annotators submitted it; all the\n"
	"dimensions given are saved together, or none."
};

CMD(resolve)
{
	const char *usage = opt_usage(&resolve_command);
	struct resolve_opts o = { NULL, NULL };
	const char *rationale, *cause;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	struct codebook cb = CODEBOOK_INIT;
	struct dim_codes *dc = NULL;
	struct resolve_dim *rd = NULL;
	long long id;
	int npos, rc, ret = 0, i;

	rc = opt_parse(&resolve_command, argc, argv, &o, pos, &npos);
	rationale = o.rationale;
	cause = o.cause;
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (npos < 2 || !rationale) {
		free(pos);
		return cli_usage_error(usage, "resolve needs ITEM, DIM=CODE "
				       "and --rationale TEXT");
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
	dc = xcalloc((size_t)npos, sizeof(*dc));
	rd = xcalloc((size_t)npos, sizeof(*rd));
	for (i = 1; i < npos; i++) {
		cli_dim_codes(pos[i], &dc[i]);
		rd[i - 1].dim = dc[i].dim;
		rd[i - 1].codes = dc[i].codes;
		rd[i - 1].nr = dc[i].nr;
	}
	if (adjudicate_resolve_all(&c->st, &c->actor, &cb, id, rd,
				   (size_t)npos - 1, rationale, cause,
				   &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	printf("%s: %d dimension%s resolved\n", pos[0], npos - 1,
	       npos == 2 ? "" : "s");
out:
	if (dc)
		for (i = 1; i < npos; i++)
			cli_dim_codes_release(&dc[i]);
	free(dc);
	free(rd);
	codebook_release(&cb);
	free(pos);
	return ret;
}
