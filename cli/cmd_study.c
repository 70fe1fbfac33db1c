/* SPDX-License-Identifier: MIT */
/*
 * study: the study's own settings - `study show` and `study set`.  The
 * rules (who may change what) live in core/study/access.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/study/access.h"
#include "core/base/buf.h"

static int study_show(struct cli *c)
{
	char *title = NULL;
	int blind;

	if (store_meta_read(&c->st, "title", &title, &c->err) < 0 ||
	    (blind = access_blind(&c->st, &c->err)) < 0) {
		free(title);
		return cli_fail(c);
	}
	printf("title: ");
	cli_print_safe(stdout, title ? title : "");
	printf("\nblind-adjudication: %s\n", blind ? "on" : "off");
	free(title);
	return 0;
}

static const char *const study_subs[] = { "show", "set", NULL };

static const struct option study_opts[] = {
	OPT_ARG("show", "show", OPT_V_TEXT,
		"the title and whether adjudication is blind"),
	OPT_ARG_WORDS("set blind-adjudication", "set", "blind-adjudication",
		      "on (the default): an adjudicator who is not the owner "
		      "sees an undecided item's coders as Coder 1, Coder 2; "
		      "off: by name.  The owner only; audited"),
	OPT_ARG_WORDS("on|off", "set", "on|off", NULL),
	OPT_END()
};

const struct command study_command = {
	"study", cmd_study,
	"show or set the study's settings (blind adjudication)",
	"bugcoder study show | set blind-adjudication on|off",
	study_opts, study_subs, NULL,
	"bugcoder study show\n"
	"       bugcoder study set blind-adjudication on",
	"The study's settings."
};

CMD(study)
{
	const char *usage = opt_usage(&study_command);
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int npos = 0, rc, on;

	rc = opt_parse(&study_command, argc, argv, NULL, pos, &npos);
	if (rc) {
		rc = opt_parse_exit(rc);
		goto out;
	}
	if (npos == 1 && !strcmp(pos[0], "show")) {
		if (!(rc = cli_open(c, CLI_MEMBER)))
			rc = study_show(c);
		goto out;
	}
	if (npos != 3 || strcmp(pos[0], "set")) {
		rc = cli_usage_error(usage, "study: show, or set "
				     "blind-adjudication on|off");
		goto out;
	}
	if (strcmp(pos[1], "blind-adjudication")) {
		rc = cli_usage_error(usage, "study set %s: the setting is "
				     "blind-adjudication", pos[1]);
		goto out;
	}
	if (!strcmp(pos[2], "on"))
		on = 1;
	else if (!strcmp(pos[2], "off"))
		on = 0;
	else {
		rc = cli_usage_error(usage, "study set blind-adjudication %s: "
				     "on or off", pos[2]);
		goto out;
	}
	if ((rc = cli_open(c, CLI_MEMBER)))
		goto out;
	rc = access_set_blind(&c->st, &c->actor, on, &c->err);
	if (rc < 0) {
		rc = cli_fail(c);
		goto out;
	}
	printf("blind adjudication %s%s\n", on ? "on" : "off",
	       rc ? "" : " (it was already)");
	rc = 0;
out:
	free(pos);
	return rc;
}
