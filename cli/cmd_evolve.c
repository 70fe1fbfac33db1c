/* SPDX-License-Identifier: MIT */
/*
 * codebook update and proposals: the codebook grows with the study.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/item.h"
#include "core/study/label.h"
#include "core/study/recode.h"
#include "core/study/study.h"

/* What a codebook update did, said on stdout: the new version, the
 * labels its maps moved and its splits sent back to recode.  Returns 0,
 * or the exit code when the new codebook cannot be read. */
static int update_said(struct cli *c, const char *path, size_t nr_maps,
		       size_t nr_splits, const struct update_stats *stats)
{
	struct codebook nc = CODEBOOK_INIT;

	if (stats->unchanged && !nr_maps) {
		printf("%s: the same as the current codebook; nothing to "
		       "load\n", path);
		return 0;
	}
	if (stats->unchanged) {
		printf("%s: the same as the current codebook: %d label%s and "
		       "%d resolution%s moved by %zu map%s\n", path,
		       stats->moved, stats->moved == 1 ? "" : "s",
		       stats->resolutions, stats->resolutions == 1 ? "" : "s",
		       nr_maps, nr_maps == 1 ? "" : "s");
		return 0;
	}
	if (study_codebook(&c->st, &nc, NULL, &c->err) < 0) {
		codebook_release(&nc);
		return cli_fail(c);
	}
	printf("codebook %s ", nc.name);
	cli_print_safe(stdout, nc.version);
	printf(" is now current");
	if (nr_maps)
		printf(": %d label%s and %d resolution%s moved by %zu map%s",
		       stats->moved, stats->moved == 1 ? "" : "s",
		       stats->resolutions, stats->resolutions == 1 ? "" : "s",
		       nr_maps, nr_maps == 1 ? "" : "s");
	if (nr_splits)
		printf("%s %d label%s back in their coders' queues to recode "
		       "(%zu split%s), %d resolution%s taken back",
		       nr_maps ? ";" : ":", stats->recodes,
		       stats->recodes == 1 ? "" : "s", nr_splits,
		       nr_splits == 1 ? "" : "s", stats->reopened,
		       stats->reopened == 1 ? "" : "s");
	printf("\n");
	codebook_release(&nc);
	return 0;
}

/* Labels left on codes the current codebook lacks: they would drop out
 * of agreement as if nobody coded them.  Says how to move them; returns
 * 1 when there are any, else 0. */
static int update_orphans(const char *path, const struct update_stats *st)
{
	if (!st->orphans)
		return 0;
	fprintf(stderr, "bugcoder: labels use codes the current codebook "
		"lacks: ");
	cli_print_safe(stderr, st->orphans);
	fprintf(stderr, "; move them with `bugcoder codebook update ");
	cli_print_safe(stderr, path);
	fprintf(stderr, " --map ");
	cli_print_safe(stderr, st->first_orphan);
	fprintf(stderr, "=NEW`%s\n", st->nr_orphans > 1 ?
		" (one --map for each)" : "");
	return 1;
}

int cli_codebook_update(struct cli *c, const char *path, const char **maps,
			size_t nr_maps, const char **splits, size_t nr_splits)
{
	struct codebook old = CODEBOOK_INIT;
	struct code_map *m = xcalloc(nr_maps + 1, sizeof(*m));
	char **copies = xcalloc(nr_maps + 1, sizeof(*copies));
	struct code_split *sp = xcalloc(nr_splits + 1, sizeof(*sp));
	char **scopies = xcalloc(nr_splits + 1, sizeof(*scopies));
	struct update_stats stats = { 0 };
	struct err ignore = ERR_INIT;
	size_t i;
	int ret = 0;

	if (study_codebook(&c->st, &old, NULL, &ignore) < 0 &&
	    (nr_maps || nr_splits)) {
		err_set(&c->err, ERR_INPUT, "%s: the study has no codebook "
			"yet to change", nr_maps ? "--map" : "--split");
		ret = cli_fail(c);
		goto out;
	}
	for (i = 0; i < nr_maps; i++)
		if (code_map_parse(maps[i], &old, &m[i], &copies[i],
				   &c->err) < 0)
			goto usage;
	for (i = 0; i < nr_splits; i++)
		if (code_split_parse(splits[i], &old, &sp[i], &scopies[i],
				     &c->err) < 0)
			goto usage;
	if (codebook_update_split(&c->st, &c->actor, path, m, nr_maps, sp,
				  nr_splits, &stats, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	if ((ret = update_said(c, path, nr_maps, nr_splits, &stats)))
		goto out;
	ret = update_orphans(path, &stats);
	goto out;
usage:
	ret = c->err.code == ERR_USAGE ? 2 : 1;
	cli_fail(c);
out:
	free(stats.orphans);
	free(stats.first_orphan);
	for (i = 0; i < nr_maps; i++)
		free(copies[i]);
	free(copies);
	free(m);
	for (i = 0; i < nr_splits; i++) {
		free(scopies[i]);
		free(sp[i].to);
	}
	free(scopies);
	free(sp);
	codebook_release(&old);
	return ret;
}

int cli_codebook_revert(struct cli *c, const char *version,
			const char **maps, size_t nr_maps)
{
	struct codebook old = CODEBOOK_INIT;
	struct code_map *m = xcalloc(nr_maps + 1, sizeof(*m));
	char **copies = xcalloc(nr_maps + 1, sizeof(*copies));
	struct revert_stats stats;
	size_t i;
	int ret = 0;

	if (study_codebook(&c->st, &old, NULL, &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	for (i = 0; i < nr_maps; i++)
		if (code_map_parse(maps[i], &old, &m[i], &copies[i],
				   &c->err) < 0) {
			ret = c->err.code == ERR_USAGE ? 2 : 1;
			cli_fail(c);
			goto out;
		}
	if (codebook_revert(&c->st, &c->actor, version, m, nr_maps, &stats,
			    &c->err) < 0) {
		ret = cli_fail(c);
		goto out;
	}
	printf("codebook %s ", old.name);
	cli_print_safe(stdout, version);
	printf(" is current again (it was ");
	cli_print_safe(stdout, old.version);
	printf(")");
	if (nr_maps)
		printf("; %d label%s and %d resolution%s moved by %zu map%s",
		       stats.moved, stats.moved == 1 ? "" : "s",
		       stats.resolutions, stats.resolutions == 1 ? "" : "s",
		       nr_maps, nr_maps == 1 ? "" : "s");
	if (stats.reopened)
		printf("; %d accepted proposal%s open again, %d label%s back "
		       "on other", stats.reopened, stats.reopened == 1 ? " is" :
		       "s are", stats.back_to_other,
		       stats.back_to_other == 1 ? "" : "s");
	printf("\n");
out:
	for (i = 0; i < nr_maps; i++)
		free(copies[i]);
	free(copies);
	free(m);
	codebook_release(&old);
	return ret;
}

static long long parse_id(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	return *s && !*end && v > 0 ? v : -1;
}

struct proposals_opts {
	const char *version, *name, *definition;
	int all;
};

static const char *const proposals_subs[] = {
	"list", "accept", "map", "add", NULL
};

static const struct option proposals_opts[] = {
	OPT_DOC("list [--all]",
		"the open proposals with their ID, dimension:key, name, who "
		"proposed them on which item and how many labels carry them"),
	OPT_FLAG(0, "all", struct proposals_opts, all,
		 "list: also the decided ones"),
	OPT_DOC("accept ID",
		"a new codebook version gains the code (before the "
		"dimension's `other`); labels that carried it take it"),
	OPT_STRING(0, "version", struct proposals_opts, version, "V",
		   OPT_V_TEXT,
		   "the new version's name (default: the current one with its "
		   "last number bumped, 1.0 -> 1.1)"),
	OPT_DOC("map ID CODE",
		"decide it is the existing code CODE of its dimension; its "
		"labels take CODE"),
	OPT_DOC("add ITEM DIM KEY",
		"propose code KEY for dimension DIM while coding ITEM (which "
		"is labelled DIM=other until it is decided)"),
	OPT_STRING(0, "name", struct proposals_opts, name, "NAME", OPT_V_TEXT,
		   "the proposed code's name"),
	OPT_STRING(0, "definition", struct proposals_opts, definition, "TEXT",
		   OPT_V_TEXT,
		   "what the proposed code means (each at most 64 KiB)"),
	OPT_ARG("ITEM", "add", OPT_V_ITEM, NULL),
	OPT_ARG("DIM", "add", OPT_V_DIM, NULL),
	OPT_ARG("KEY", "add", OPT_V_TEXT, NULL),
	OPT_END()
};

const struct command proposals_command = {
	"proposals", cmd_proposals, "list, accept or map proposed codes",
	"bugcoder proposals [list [--all]] | accept ID [--version V] "
	"| map ID CODE | add ITEM DIM KEY --name NAME --definition TEXT",
	proposals_opts, proposals_subs, NULL,
	"bugcoder proposals list --all\n"
	"       bugcoder proposals add DeepSpeed#4187 root_cause ckpt_format "
	"\\\n"
	"           --name \"Checkpoint format\" --definition \"a "
	"checkpoint's layout\"\n"
	"       bugcoder proposals accept 1 --version 1.1\n"
	"       bugcoder proposals map 1 configuration_error",
	"Codes proposed while coding: an annotator proposes one (add, or on\n"
	"the screen); the owner and adjudicators list and decide them."
};

/* proposals [list [--all]] */
static int proposals_list_cmd(struct cli *c, int npos, int all)
{
	const char *usage = opt_usage(&proposals_command);
	struct proposal *v;
	size_t n, i;
	int ret;

	if (npos > 1) {
		ret = cli_usage_error(usage, "proposals list takes no "
				      "arguments");
		return ret;
	}
	if ((ret = cli_open(c, CLI_MEMBER)))
		return ret;
	if (proposal_list(&c->st, &c->actor, all, &v, &n,
			  &c->err) < 0) {
		ret = cli_fail(c);
		return ret;
	}
	if (!n)
		printf("no %sproposals\n", all ? "" : "open ");
	for (i = 0; i < n; i++) {
		printf("%lld  %s:%s  \"", v[i].id, v[i].dimension,
		       v[i].key);
		cli_print_safe(stdout, v[i].name);
		printf("\"  by %s on %s, %d label%s  [%s%s%s]\n    ",
		       v[i].member, v[i].item ? v[i].item : "-",
		       v[i].nr_labels, v[i].nr_labels == 1 ? "" : "s",
		       v[i].status, v[i].decided_code ? " as " : "",
		       v[i].decided_code ? v[i].decided_code : "");
		cli_print_safe(stdout, v[i].definition);
		printf("\n");
	}
	proposal_list_free(v, n);
	return 0;
}

/* proposals add ITEM DIM KEY --name NAME --definition TEXT */
static int proposals_add_cmd(struct cli *c, const char **pos, int npos,
			     const char *name, const char *definition)
{
	const char *usage = opt_usage(&proposals_command);
	struct codebook cb = CODEBOOK_INIT;
	long long item, pid;
	int ret;

	if (npos != 4 || !name || !definition) {
		ret = cli_usage_error(usage, "proposals add needs ITEM "
				      "DIM KEY --name NAME --definition "
				      "TEXT");
		return ret;
	}
	if ((ret = cli_open(c, CLI_MEMBER)) ||
	    (ret = cli_codebook(c, &cb)))
		return ret;
	item = item_find(&c->st, pos[1], &c->err);
	if (item < 0 || label_propose(&c->st, &c->actor, &cb, item,
				      pos[2], pos[3], name, definition,
				      &pid, &c->err) < 0) {
		codebook_release(&cb);
		ret = cli_fail(c);
		return ret;
	}
	codebook_release(&cb);
	printf("proposal %lld: %s:%s; %s is labelled %s=other until it "
	       "is decided\n", pid, pos[2], pos[3], pos[1], pos[2]);
	return 0;
}

CMD(proposals)
{
	const char *usage = opt_usage(&proposals_command);
	struct proposals_opts o = { NULL, NULL, NULL, 0 };
	const char *version, *name, *definition;
	int all;
	const char **pos = xcalloc((size_t)argc + 1, sizeof(*pos));
	int npos, rc, ret = 0;

	rc = opt_parse(&proposals_command, argc, argv, &o, pos, &npos);
	version = o.version;
	name = o.name;
	definition = o.definition;
	all = o.all;
	if (rc) {
		free(pos);
		return opt_parse_exit(rc);
	}
	if (!npos || !strcmp(pos[0], "list")) {
		ret = proposals_list_cmd(c, npos, all);
	} else if (!strcmp(pos[0], "accept") || !strcmp(pos[0], "map")) {
		int accept = pos[0][0] == 'a';
		long long id = npos > 1 ? parse_id(pos[1]) : -1;

		if (npos != (accept ? 2 : 3) || id < 0) {
			ret = cli_usage_error(usage, "proposals %s needs %s",
					      pos[0], accept ? "ID" :
					      "ID CODE");
			goto out;
		}
		if ((ret = cli_open(c, CLI_MEMBER)))
			goto out;
		rc = accept ? proposal_accept(&c->st, &c->actor, id, version,
					      &c->err) :
			      proposal_map(&c->st, &c->actor, id, pos[2],
					   &c->err);
		if (rc < 0) {
			ret = cli_fail(c);
			goto out;
		}
		if (accept) {
			struct codebook cb = CODEBOOK_INIT;

			if (study_codebook(&c->st, &cb, NULL, &c->err) == 0) {
				printf("proposal %lld accepted: codebook %s ",
				       id, cb.name);
				cli_print_safe(stdout, cb.version);
				printf(" is now current\n");
			}
			codebook_release(&cb);
		} else {
			printf("proposal %lld mapped onto %s\n", id, pos[2]);
		}
	} else if (!strcmp(pos[0], "add")) {
		ret = proposals_add_cmd(c, pos, npos, name, definition);
	} else {
		ret = cli_usage_error(usage, "proposals %s: unknown action",
				      pos[0]);
	}
out:
	free(pos);
	return ret;
}
