/* SPDX-License-Identifier: MIT */
/*
 * complete: `bugcoder __complete WORD... CUR`, what the bash and zsh
 * completions (completion/) call.  WORD... are the words of the command
 * line after `bugcoder`, CUR the word being completed (maybe empty); it
 * prints the candidates that begin with CUR, one a line: commands,
 * subcommands, the options of the command (from its table, options.h),
 * and the study's items, dimensions, codes, members and rounds where an
 * option or an argument takes one.  Nothing is printed for a file (the
 * shell offers files then), and a study that cannot be opened gives no
 * values.  Always exits 0: completion must never get in the way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "core/base/buf.h"
#include "core/study/codebook.h"
#include "core/study/member.h"
#include "core/base/priv.h"
#include "core/study/round.h"
#include "core/store/store.h"
#include "core/study/study.h"
#include "core/study/studyview.h"

struct complete {
	const char *study, *as;	/* --study, --as as given */
	const struct command *cmd;
	const char *sub;	/* the subcommand given, or NULL */
	int npos;		/* positional arguments after the command */
	const struct option *pending;	/* the current word is its value */
	struct store st;
	int st_state;		/* 0 not tried, 1 open, -1 failed */
	struct actor actor;
	const char *cur;
};

/* Print `cand` (with `prefix` before it) if it begins with the word being
 * completed. */
static void offer(struct complete *k, const char *prefix, const char *cand)
{
	size_t plen = strlen(prefix), clen = strlen(k->cur);
	const unsigned char *p;

	/* study values are untrusted: one shell word of printable text,
	 * or nothing */
	for (p = (const unsigned char *)cand; *p; p++)
		if (*p <= ' ' || *p == 0x7f)
			return;
	if (!strncmp(prefix, k->cur, plen < clen ? plen : clen) &&
	    (clen <= plen || !strncmp(cand, k->cur + plen, clen - plen)))
		printf("%s%s\n", prefix, cand);
}

static int open_study(struct complete *k)
{
	struct err e = { 0 };
	const char *name = k->study;
	char *path = NULL;
	int privileged = 0;

	if (k->st_state)
		return k->st_state > 0 ? 0 : -1;
	k->st_state = -1;
	if (!name || !*name)
		name = getenv("BUGCODER_STUDY");
	if (!name || !*name)
		name = "bugcoder.db";
	/* a server study needs the group, given up before completing */
	if (priv_study_path(name, &path, &privileged, &e) < 0 || privileged) {
		free(path);
		return -1;
	}
	if (study_open(&k->st, path, STORE_READONLY, &e) < 0) {
		free(path);
		return -1;
	}
	free(path);
	if (member_resolve_any(&k->st, k->as, &k->actor, &e) < 0) {
		store_close(&k->st);
		return -1;
	}
	k->st_state = 1;
	return 0;
}

struct item_offer {
	struct complete *k;
	const char *prefix;
	struct buf name;
};

static int offer_item(const char *repo, long long number, void *data)
{
	struct item_offer *io = data;

	buf_reset(&io->name);
	buf_addf(&io->name, "%s#%lld", repo, number);
	offer(io->k, io->prefix, io->name.ptr);
	return 0;
}

static void offer_items(struct complete *k, const char *prefix)
{
	struct item_offer io = { k, prefix, BUF_INIT };
	struct buf repo = BUF_INIT;
	struct err e = { 0 };
	const char *hash = strchr(prefix, '#');

	if (open_study(k) < 0)
		return;
	/* the repository part narrows the read; offer() matches the rest */
	buf_add(&repo, prefix, hash ? (size_t)(hash - prefix) :
		strlen(prefix));
	studyview_item_names(&k->st, &k->actor, repo.ptr, offer_item, &io,
			     &e);
	buf_release(&repo);
	buf_release(&io.name);
}

static int offer_member(const char *name, const char *role,
			const char *added_at, void *data)
{
	struct item_offer *io = data;

	(void)role;
	(void)added_at;
	offer(io->k, io->prefix, name);
	return 0;
}

static void offer_members(struct complete *k, const char *prefix)
{
	struct item_offer io = { k, prefix, BUF_INIT };
	struct err e = { 0 };

	if (open_study(k) < 0 || k->actor.role == ROLE_NONE)
		return;
	member_each(&k->st, offer_member, &io, &e);
}

static void offer_rounds(struct complete *k, const char *prefix)
{
	struct round_info *v = NULL;
	struct err e = { 0 };
	size_t nr = 0, i;

	if (open_study(k) < 0 || round_list(&k->st, &v, &nr, &e) < 0)
		return;
	for (i = 0; i < nr; i++)
		offer(k, prefix, v[i].name);
	round_list_free(v, nr);
}

/* dimensions, or with DIM= given the codes of DIM ("DIM=a,b" goes on
 * after its last comma) */
static void offer_codebook(struct complete *k, const char *prefix,
			   int codes)
{
	struct codebook cb = CODEBOOK_INIT;
	struct err e = { 0 };
	const char *eq = codes ? strchr(k->cur + strlen(prefix), '=') : NULL;
	struct buf pre = BUF_INIT;
	size_t i, j;

	if (open_study(k) < 0 || study_codebook(&k->st, &cb, NULL, &e) < 0)
		return;
	for (i = 0; i < cb.nr_dims; i++) {
		const struct dimension *d = &cb.dims[i];
		size_t dlen = strlen(d->key);

		if (!eq) {
			buf_reset(&pre);
			buf_addf(&pre, "%s%s", d->key, codes ? "=" : "");
			offer(k, prefix, pre.ptr);
			continue;
		}
		if ((size_t)(eq - k->cur) != strlen(prefix) + dlen ||
		    strncmp(k->cur + strlen(prefix), d->key, dlen))
			continue;
		buf_reset(&pre);
		buf_add(&pre, k->cur, (size_t)(strrchr(k->cur, ',') > eq ?
			strrchr(k->cur, ',') + 1 - k->cur : eq + 1 - k->cur));
		for (j = 0; j < d->nr_codes; j++)
			offer(k, pre.ptr, d->codes[j].key);
	}
	buf_release(&pre);
	codebook_release(&cb);
}

/* the words of "text|json|csv" */
static void offer_words(struct complete *k, const char *prefix,
			const char *argh)
{
	struct buf w = BUF_INIT;

	while (argh && *argh) {
		size_t n = strcspn(argh, "|");

		buf_reset(&w);
		buf_add(&w, argh, n);
		offer(k, prefix, w.ptr);
		argh += n + (argh[n] == '|');
	}
	buf_release(&w);
}

/* A comma-separated list: the part up to the last comma stays. */
static void list_prefix(struct complete *k, struct buf *pre,
			const char *prefix)
{
	const char *comma = strrchr(k->cur, ',');

	buf_addstr(pre, prefix);
	if (comma && (size_t)(comma - k->cur) >= strlen(prefix))
		buf_add(pre, k->cur + strlen(prefix),
			(size_t)(comma + 1 - k->cur) - strlen(prefix));
}

static void offer_values(struct complete *k, const char *prefix,
			 enum opt_value v, const char *argh)
{
	struct buf pre = BUF_INIT;

	switch (v) {
	case OPT_V_WORDS:
		offer_words(k, prefix, argh);
		break;
	case OPT_V_ITEM:
		offer_items(k, prefix);
		break;
	case OPT_V_ITEMS:
		list_prefix(k, &pre, prefix);
		offer_items(k, pre.ptr);
		break;
	case OPT_V_DIM:
		offer_codebook(k, prefix, 0);
		break;
	case OPT_V_DIMS:
		list_prefix(k, &pre, prefix);
		offer_codebook(k, pre.ptr, 0);
		break;
	case OPT_V_DIM_CODE:
		offer_codebook(k, prefix, 1);
		break;
	case OPT_V_MEMBER:
		offer_members(k, prefix);
		break;
	case OPT_V_MEMBERS:
		list_prefix(k, &pre, prefix);
		offer_members(k, pre.ptr);
		break;
	case OPT_V_ROUND:
		offer_rounds(k, prefix);
		break;
	default:
		break;		/* text, or a file the shell offers */
	}
	buf_release(&pre);
}

static const struct option *find_any(const struct complete *k,
				     const char *name, size_t len)
{
	const struct option *o = k->cmd ? opt_find(k->cmd->opts, name, len) :
				 NULL;

	return o ? o : opt_find(global_opts, name, len);
}

static int takes_value(const struct option *o)
{
	return o && (o->kind == OPT_KIND_STRING || o->kind == OPT_KIND_LIST ||
		     o->kind == OPT_KIND_INT);
}

/* Note a global option's value: the study to read, the member. */
static void note_global(struct complete *k, const struct option *o,
			const char *val)
{
	if (o->long_name && !strcmp(o->long_name, "study") &&
	    opt_find(global_opts, "--study", 7) == o)
		k->study = val;
	else if (o->long_name && !strcmp(o->long_name, "as") &&
		 opt_find(global_opts, "--as", 4) == o)
		k->as = val;
}

/* Walk the words before the current one.  -1 when nothing can follow
 * (an unknown command). */
static int walk(struct complete *k, int n, char **w)
{
	int i, dashdash = 0;

	for (i = 0; i < n; i++) {
		const char *a = w[i], *eq;
		const struct option *o;

		if (!dashdash && !strcmp(a, "--")) {
			dashdash = 1;
			continue;
		}
		if (!dashdash && a[0] == '-' && a[1]) {
			eq = a[1] == '-' ? strchr(a, '=') : NULL;
			o = find_any(k, a, eq ? (size_t)(eq - a) : strlen(a));
			if (eq && o)
				note_global(k, o, eq + 1);
			if (eq || !takes_value(o))
				continue;
			if (i + 1 == n) {
				k->pending = o;
				return 0;
			}
			note_global(k, o, w[++i]);
			continue;
		}
		if (!k->cmd) {
			k->cmd = command_find(a);
			if (!k->cmd)
				return -1;
		} else {
			if (k->cmd->subs && !k->npos)
				k->sub = a;
			k->npos++;
		}
	}
	return 0;
}

static void offer_options(struct complete *k, const struct option *o)
{
	struct buf name = BUF_INIT;

	for (; o && o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_ARG || o->kind == OPT_KIND_GLOBAL ||
		    o->kind == OPT_KIND_DOC || !o->long_name)
			continue;
		buf_reset(&name);
		buf_addf(&name, "--%s", o->long_name);
		offer(k, "", name.ptr);
	}
	buf_release(&name);
}

/* The argument at position k->npos after the command (and its
 * subcommand): the last one documented repeats. */
static void offer_argument(struct complete *k)
{
	const struct option *o, *last = NULL;
	int at = k->npos - (k->cmd->subs ? 1 : 0);

	if (k->cmd->subs && !k->npos) {
		const char *const *s;

		for (s = k->cmd->subs; *s; s++)
			offer(k, "", *s);
		return;
	}
	for (o = k->cmd->opts; o && o->kind != OPT_KIND_END; o++) {
		if (o->kind != OPT_KIND_ARG ||
		    (o->sub && (!k->sub || strcmp(o->sub, k->sub))))
			continue;
		last = o;
		if (!at--)
			break;
	}
	if (last)
		offer_values(k, "", last->value, last->argh);
}

static void offer_current(struct complete *k)
{
	const char *cur = k->cur, *eq;
	size_t i;

	if (k->pending) {
		offer_values(k, "", k->pending->value, k->pending->argh);
		return;
	}
	if (cur[0] == '-' && cur[1] == '-' && (eq = strchr(cur, '='))) {
		const struct option *o = find_any(k, cur, (size_t)(eq - cur));
		char *prefix = xstrndup(cur, (size_t)(eq + 1 - cur));

		if (takes_value(o))
			offer_values(k, prefix, o->value, o->argh);
		free(prefix);
		return;
	}
	if (cur[0] == '-') {
		if (k->cmd)
			offer_options(k, k->cmd->opts);
		offer(k, "", "--study");
		offer(k, "", "--as");
		offer(k, "", "--help");
		if (!k->cmd)
			offer(k, "", "--version");
		return;
	}
	if (!k->cmd) {
		for (i = 0; i < nr_commands; i++)
			offer(k, "", commands[i]->name);
		return;
	}
	offer_argument(k);
}

int cli_complete(int argc, char **argv)
{
	struct complete k;

	memset(&k, 0, sizeof(k));
	if (argc < 1)
		return 0;
	k.cur = argv[argc - 1];
	if (walk(&k, argc - 1, argv) == 0)
		offer_current(&k);
	if (k.st_state > 0) {
		actor_release(&k.actor);
		store_close(&k.st);
	}
	return 0;
}
