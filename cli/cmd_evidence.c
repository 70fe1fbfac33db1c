/* SPDX-License-Identifier: MIT */
/*
 * evidence: one's own citations, listed (with their ids) and removed
 * without the screen.  Listing reads only the actor's own work; removing
 * is core/study/evidence's, audited and frozen with the label (a closed round,
 * an adjudicated item).
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/evidence.h"
#include "core/study/item.h"
#include "core/base/text.h"
#include "exports/csv_out.h"
#include "exports/json_out.h"

enum ev_format { EV_TEXT, EV_CSV, EV_JSON };

struct ev_out {
	enum ev_format fmt;
	struct buf *out;
	struct csv_out csv;
	size_t nr;
};

static int put_row(const struct evidence_row *r, void *data)
{
	struct ev_out *o = data;
	struct buf spec = BUF_INIT, name = BUF_INIT;
	const char *q = r->quote ? r->quote : "";

	evidence_format(&r->cite, &spec);
	buf_addf(&name, "%s#%lld", r->repo ? r->repo : "?", r->number);
	switch (o->fmt) {
	case EV_TEXT: {
		const char *p = q;

		buf_addf(o->out, "%-6lld %s  %-12s %s\n", r->id, name.ptr,
			 r->dimension, spec.ptr);
		/* the quoted lines, indented under their citation */
		while (*p) {
			size_t n = strcspn(p, "\n");

			buf_addstr(o->out, "       | ");
			buf_add(o->out, p, n);
			buf_addch(o->out, '\n');
			p += n + (p[n] == '\n');
		}
		break;
	}
	case EV_CSV:
		csvw_int(&o->csv, r->id);
		csvw_key(&o->csv, name.ptr);
		csvw_key(&o->csv, r->dimension);
		csvw_text(&o->csv, spec.ptr);
		csvw_text(&o->csv, q);
		csvw_text(&o->csv, r->created_at);
		csvw_end(&o->csv);
		break;
	case EV_JSON: {
		struct json_out j;

		buf_addstr(o->out, o->nr ? ",\n  " : "\n  ");
		jsonw_begin(&j, o->out);
		jsonw_int(&j, "id", r->id);
		jsonw_str(&j, "item", name.ptr);
		jsonw_str(&j, "dimension", r->dimension);
		jsonw_str(&j, "evidence", spec.ptr);
		jsonw_str(&j, "quote", q);
		jsonw_str(&j, "created_at", r->created_at);
		jsonw_end(&j);
		/* the list is one document: its entries end no line */
		while (o->out->len && o->out->ptr[o->out->len - 1] == '\n')
			buf_setlen(o->out, o->out->len - 1);
		break;
	}
	}
	o->nr++;
	buf_release(&spec);
	buf_release(&name);
	return 0;
}

static int list(struct cli *c, const char *item, enum ev_format fmt)
{
	struct buf out = BUF_INIT;
	struct ev_out o;
	long long id = 0;
	int ret = 0;

	memset(&o, 0, sizeof(o));
	o.fmt = fmt;
	o.out = &out;
	if (item && (id = item_find(&c->st, item, &c->err)) < 0)
		return cli_fail(c);
	if (fmt == EV_CSV) {
		static const char *const head[] = {
			"id", "item", "dimension", "evidence", "quote",
			"created_at", NULL
		};

		/* the records gather in `out`, printed below */
		csvw_init(&o.csv, NULL, CSV_GUARD);
		csvw_header(&o.csv, head);
		csvw_end(&o.csv);
	} else if (fmt == EV_JSON) {
		buf_addstr(&out, "{\"annotator\": ");
		json_quote(&out, c->actor.name, strlen(c->actor.name));
		buf_addstr(&out, ", \"evidence\": [");
	} else {
		buf_addstr(&out, "id     item  dimension    citation\n");
	}
	if (evidence_list(&c->st, &c->actor, id, put_row, &o,
			  &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if (fmt == EV_CSV) {
		buf_add(&out, o.csv.row.ptr, o.csv.row.len);
	} else if (fmt == EV_JSON) {
		buf_addstr(&out, o.nr ? "\n]}\n" : "]}\n");
	} else if (!o.nr) {
		buf_reset(&out);
		buf_addf(&out, "%s has cited nothing%s%s\n", c->actor.name,
			 item ? " on " : "", item ? item : "");
	}
	/* quotes are study text: safe on a terminal */
	cli_print_safe(stdout, out.ptr);
out:
	if (fmt == EV_CSV)
		csvw_release(&o.csv);
	buf_release(&out);
	return ret;
}

static int remove_one(struct cli *c, const char *item, const char *idarg)
{
	char *end;
	long long id, item_id;

	id = strtoll(idarg, &end, 10);
	if (end == idarg || *end || id < 1) {
		fprintf(stderr, "bugcoder: evidence remove: \"%s\" is no "
			"evidence id (`bugcoder evidence list %s` gives "
			"them)\n", idarg, item);
		return 2;
	}
	item_id = item_find(&c->st, item, &c->err);
	if (item_id < 0 || evidence_remove(&c->st, &c->actor, item_id, id,
					   &c->err) < 0)
		return cli_fail(c);
	printf("%s: evidence %lld removed\n", item, id);
	return 0;
}

struct evidence_opts {
	const char *format;
};

static const char *const evidence_subs[] = { "list", "remove", NULL };

static const struct option evidence_opts[] = {
	OPT_ARG("ITEM", NULL, OPT_V_ITEM,
		"owner/repo#N, repo#N or #N; list: all items when left out"),
	OPT_STRING(0, "format", struct evidence_opts, format, "text|csv|json",
		   OPT_V_WORDS,
		   "text (default); csv: id,item,dimension,evidence,quote,"
		   "created_at; or json, one document"),
	OPT_GLOBAL("as", "USER", "the owner acts for member USER"),
	OPT_END()
};

const struct command evidence_command = {
	"evidence", cmd_evidence, "list or remove your citations",
	"bugcoder evidence list [ITEM] [--format text|csv|json] [--as USER]\n"
	"       bugcoder evidence remove ITEM ID [--as USER]",
	evidence_opts, evidence_subs, NULL,
	"bugcoder evidence list microsoft/DeepSpeed#4187\n"
	"       bugcoder evidence remove microsoft/DeepSpeed#4187 12",
	"Your own citations (label --evidence, or e on the screen):\n"
	"list gives each with its id, item, dimension, the citation\n"
	"and the lines it quotes; remove takes one back (audited; not\n"
	"once the item's round is closed or the item adjudicated)."
};

CMD(evidence)
{
	const char *usage = opt_usage(&evidence_command);
	struct evidence_opts o = { "text" };
	const char *format;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	enum ev_format fmt;
	int npos, rc, ret;

	rc = opt_parse(&evidence_command, argc, argv, &o, pos, &npos);
	format = o.format;
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (!npos || (strcmp(pos[0], "list") && strcmp(pos[0], "remove"))) {
		free(pos);
		return cli_usage_error(usage, "expected: evidence list [ITEM] "
				       "or evidence remove ITEM ID");
	}
	if (!strcmp(format, "text")) {
		fmt = EV_TEXT;
	} else if (!strcmp(format, "csv")) {
		fmt = EV_CSV;
	} else if (!strcmp(format, "json")) {
		fmt = EV_JSON;
	} else {
		free(pos);
		return cli_usage_error(usage, "--format %s: text, csv or json",
				       format);
	}
	if (!strcmp(pos[0], "list") ? npos > 2 : npos != 3) {
		ret = cli_usage_error(usage, "%s", !strcmp(pos[0], "list") ?
				      "evidence list takes at most one ITEM" :
				      "evidence remove takes ITEM and ID");
		free(pos);
		return ret;
	}
	if (!strcmp(pos[0], "remove") && strcmp(format, "text")) {
		free(pos);
		return cli_usage_error(usage, "--format goes with list");
	}
	if ((ret = cli_open(c, CLI_MEMBER))) {
		free(pos);
		return ret;
	}
	if (!strcmp(pos[0], "list"))
		ret = list(c, npos == 2 ? pos[1] : NULL, fmt);
	else
		ret = remove_one(c, pos[1], pos[2]);
	free(pos);
	return ret;
}
