/* SPDX-License-Identifier: MIT */
/*
 * code: the annotator's screen.  All the work is in tui/; this only
 * parses the arguments and opens the study.
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "tui/tui.h"

static const char usage[] =
	"bugcoder code [ITEM]\n"
	"\n"
	"Open the annotator's screen at ITEM (owner/repo#N, repo#N or N), or\n"
	"at the first item of your queue not submitted yet.  The issue is on\n"
	"the left, its fix on the right; 1-9 code a dimension, s submits,\n"
	"? lists every key.  Every choice is saved the moment it is made.\n"
	"\n"
	"  ITEM  the item to open: owner/repo#N or its URL; repo#N or N when "
	"only\n"
	"        one item has that name\n"
	"\n"
	"  e.g. bugcoder code\n"
	"       bugcoder code microsoft/DeepSpeed#4187\n"
	"       bugcoder code ColossalAI#2387";

CMD(code)
{
	static const struct cli_opt opts[] = { { 0 } };
	const char **posv = xcalloc((size_t)argc + 1, sizeof(*posv));
	int npos = 0, rc;

	rc = cli_parse(argc, argv, opts, posv, &npos, usage);
	if (rc || npos > 1) {
		if (!rc)
			rc = cli_usage_error(usage, "code takes at most one "
					     "item");
		else
			rc = rc > 0 ? 0 : 2;
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
