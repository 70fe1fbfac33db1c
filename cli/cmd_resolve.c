/* SPDX-License-Identifier: MIT */
/*
 * resolve: settle a disagreement from a script.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/adjudicate.h"
#include "core/buf.h"
#include "core/item.h"

CMD(resolve)
{
	static const char usage[] =
		"bugcoder resolve ITEM DIM=CODE[,CODE] ... --rationale TEXT "
		"[--cause guideline_gap|slip|ambiguous|code_missing]\n"
		"\n"
		"Settle an item's disagreement without the screen (the owner "
		"and\n"
		"adjudicators), once all its annotators submitted it; all "
		"the\n"
		"dimensions given are saved together, or none.\n"
		"\n"
		"  ITEM              owner/repo#N or its URL; repo#N or N "
		"when only one\n"
		"                    item has that name\n"
		"  DIM=CODE[,CODE]   the final code(s) of dimension DIM; "
		"several, comma-\n"
		"                    separated, for a `select: many` "
		"dimension;\n"
		"                    inclusion=CODE decides a screened item: "
		"include, or\n"
		"                    a reason of its screening round to leave "
		"it out\n"
		"                    (e.g. inclusion=no_merged_fix)\n"
		"  --rationale TEXT  why (required; kept with the resolution "
		"and exported;\n"
		"                    at most 64 KiB)\n"
		"  --cause C         why the coders differed: guideline_gap "
		"(the codebook's\n"
		"                    definitions did not decide it), slip (a "
		"coder's\n"
		"                    mistake), ambiguous (the report allows "
		"both), or\n"
		"                    code_missing (no code fits)\n"
		"\n"
		"  e.g. bugcoder resolve DeepSpeed#4187 "
		"root_cause=concurrency \\\n"
		"           --rationale \"stream sync\"\n"
		"       bugcoder resolve microsoft/DeepSpeed#3468 "
		"symptom=crash stage=memory \\\n"
		"           --rationale \"the OOM is the symptom\" --cause "
		"slip";
	const char *rationale = NULL, *cause = NULL;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--rationale", 1, &rationale, NULL, NULL, NULL },
		{ "--cause", 1, &cause, NULL, NULL, NULL },
		{ NULL, 0, NULL, NULL, NULL, NULL },
	};
	struct codebook cb = CODEBOOK_INIT;
	struct dim_codes *dc = NULL;
	struct resolve_dim *rd = NULL;
	long long id;
	int npos, rc, ret = 0, i;

	rc = cli_parse(argc, argv, opts, pos, &npos, usage);
	if (rc) {
		free(pos);
		return rc > 0 ? 0 : 2;
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
