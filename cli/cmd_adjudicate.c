/* SPDX-License-Identifier: MIT */
/*
 * adjudicate: the adjudicator's screen.  All the work is in tui/; this
 * only parses the arguments and opens the study.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/study/adjudicate.h"
#include "core/base/buf.h"
#include "core/study/study.h"
#include "tui/tui.h"

static const struct option adjudicate_opts[] = {
	OPT_ARG("ITEM", NULL, OPT_V_ITEM,
		"the item to open: owner/repo#N or its URL; repo#N or N when "
		"only one item has that name"),
	OPT_END()
};

const struct command adjudicate_command = {
	"adjudicate", cmd_adjudicate, "the adjudicator's screen",
	"bugcoder adjudicate [ITEM]",
	adjudicate_opts, NULL, NULL,
	"bugcoder adjudicate\n"
	"       bugcoder adjudicate microsoft/DeepSpeed#4187\n"
	"       bugcoder adjudicate ColossalAI#2387",
	"Open the adjudicator's screen (the owner and adjudicators) at ITEM\n"
	"(owner/repo#N, repo#N or N), or at the oldest item whose coders\n"
	"disagree or flagged it for discussion.  Each dimension shows every\n"
	"coder's codes as Coder 1, Coder 2 ... (blind by default); J/K select\n"
	"a dimension, 1 or 2 take that coder's code, c chooses another, then\n"
	"a rationale (Tab tags a cause) and Enter save it; S settles a\n"
	"discussion, A shows agreement, ? lists every key.  Every resolution\n"
	"is saved the moment it is made, and the queue moves on."
};

/* The adjudicator's queue's length, or -1 (c->err says why; an actor
 * who may not adjudicate is left to the screen's refusal: 1). */
static int queue_size(struct cli *c)
{
	struct codebook cb = CODEBOOK_INIT;
	long long *q = NULL;
	size_t n = 0;
	int ret;

	if (!(ROLES(c->actor.role) & (ROLES(ROLE_ADJUDICATOR) |
				      ROLES(ROLE_OWNER))))
		return 1;
	if (study_codebook(&c->st, &cb, NULL, &c->err) < 0)
		return -1;
	ret = adjudicate_queue(&c->st, &c->actor, &cb, &q, &n, &c->err) < 0 ?
	      -1 : (n > 0);
	free(q);
	codebook_release(&cb);
	return ret;
}

CMD(adjudicate)
{
	const char *usage = opt_usage(&adjudicate_command);
	const char **posv = xcalloc((size_t)argc + 1, sizeof(*posv));
	int npos = 0, rc;

	rc = opt_parse(&adjudicate_command, argc, argv, NULL, posv, &npos);
	if (rc || npos > 1) {
		if (!rc)
			rc = cli_usage_error(usage, "adjudicate takes at most "
					     "one item");
		else
			rc = opt_parse_exit(rc);
		goto out;
	}
	if (!c->have_actor && (rc = cli_open(c, CLI_MEMBER)))
		goto out;
	/* nothing left to adjudicate is no failure: say so, exit 0 (the
	 * screen itself refuses whoever may not adjudicate) */
	if (!npos) {
		int left = queue_size(c);

		if (left < 0) {
			rc = cli_fail(c);
			goto out;
		}
		if (!left) {
			printf("nothing to adjudicate: no item that all its "
			       "coders submitted has a disagreement or a "
			       "discussion flag left\n");
			rc = 0;
			goto out;
		}
	}
	/* a screen pays no daily full check at its first save */
	store_interactive(&c->st);
	if (tui_adjudicate(&c->st, &c->actor, npos ? posv[0] : NULL,
			   &c->err) < 0)
		rc = cli_fail(c);
	else
		rc = 0;
out:
	free(posv);
	return rc;
}
