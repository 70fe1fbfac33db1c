/*
 * agree: agreement statistics per dimension.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "core/round.h"
#include "exports/agree_report.h"

CMD(agree)
{
	static const char usage[] =
		"bugcoder agree [--round R] [--dimension D] "
		"[--format text|json|csv]";
	const char *round = NULL, *dim = NULL, *format = "text";
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	const struct cli_opt opts[] = {
		{ "--round", 1, &round, NULL, NULL, NULL },
		{ "--dimension", 1, &dim, NULL, NULL, NULL },
		{ "--format", 1, &format, NULL, NULL, NULL },
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
	fwrite(out.ptr, 1, out.len, stdout);
out:
	buf_release(&out);
	codebook_release(&cb);
	return ret;
}
