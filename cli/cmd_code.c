/* SPDX-License-Identifier: MIT */
/*
 * code: the annotator's screen.  All the work is in tui/; this only
 * parses the arguments and opens the study.
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "tui/tui.h"

static const struct option code_opts[] = {
	OPT_ARG("ITEM", NULL, OPT_V_ITEM,
		"the item to open: owner/repo#N or its URL; repo#N or N when "
		"only one item has that name"),
	OPT_END()
};

const struct command code_command = {
	"code", cmd_code, "the annotator's screen",
	"bugcoder code [ITEM]",
	code_opts, NULL, NULL,
	"bugcoder code\n"
	"       bugcoder code microsoft/DeepSpeed#4187\n"
	"       bugcoder code ColossalAI#2387",
	"Open the annotator's screen at ITEM (owner/repo#N, repo#N or N), or\n"
	"at the first item of your queue not submitted yet.  The issue is on\n"
	"the left, its fix on the right; 1-9 code a dimension, s submits,\n"
	"? lists every key.  Every choice is saved the moment it is made."
};

CMD(code)
{
	const char *usage = opt_usage(&code_command);
	const char **posv = xcalloc((size_t)argc + 1, sizeof(*posv));
	int npos = 0, rc;

	rc = opt_parse(&code_command, argc, argv, NULL, posv, &npos);
	if (rc || npos > 1) {
		if (!rc)
			rc = cli_usage_error(usage, "code takes at most one "
					     "item");
		else
			rc = opt_parse_exit(rc);
		goto out;
	}
	if (!c->have_actor && (rc = cli_open(c, CLI_MEMBER)))
		goto out;
	/* a screen pays no daily full check at its first save */
	store_interactive(&c->st);
	if (tui_code(&c->st, &c->actor, npos ? posv[0] : NULL,
		     &c->err) < 0)
		rc = cli_fail(c);
	else
		rc = 0;
out:
	free(posv);
	return rc;
}
