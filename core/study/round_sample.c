/* SPDX-License-Identifier: MIT */
/*
 * round_sample: which items a new round may take (the free items, and
 * why the others were left out), --items SPEC read, and the seeded,
 * optionally stratified draw of a --sample.
 */
#include "core/study/round.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/study/round_int.h"
#include "core/study/screening.h"

uint64_t round_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static uint64_t below(uint64_t *state, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;

	do {
		r = round_splitmix64(state);
	} while (r >= limit);
	return r % n;
}

void round_cands_release(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].repo);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/*
 * The items a new round may take (see round.h), of repository `repo`
 * (NULL: all), in id order, into `out`; what was left out, and why,
 * into *left.
 */
int round_free_items(struct store *st, int screen, const char *repo,
		     struct cands *out, struct left *left, struct err *e)
{
	sqlite3_stmt *s;
	int screens = 0, rc;

	memset(left, 0, sizeof(*left));
	s = store_prepare(st, "SELECT EXISTS (SELECT 1 FROM rounds WHERE "
			  "kind = 'screen')", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "reading rounds", e);
	if (rc > 0)
		screens = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = store_prepare(st, "SELECT i.id, i.repo, i.missing, (SELECT code "
			  "FROM screen_decisions d WHERE d.item_id = i.id), "
			  "EXISTS (SELECT 1 FROM screen_assignments sa WHERE "
			  "sa.item_id = i.id) FROM items i WHERE i.id NOT IN "
			  "(SELECT item_id FROM assignments) AND (?1 IS NULL "
			  "OR i.repo = ?1) ORDER BY i.id", e);
	if (!s)
		return -1;
	store_bind_text(s, 1, repo);
	while ((rc = store_step(st, s, "listing items", e)) == 1) {
		const char *dec = (const char *)sqlite3_column_text(s, 3);
		int missing = sqlite3_column_int(s, 2);
		int screened = sqlite3_column_int(s, 4);

		if (screen) {
			if (screened)
				continue;	/* in a round already */
			if (missing) {
				left->missing++;
				continue;
			}
		} else if (dec && strcmp(dec, SCREENING_INCLUDE)) {
			left->excluded++;
			continue;
		} else if (!dec && screened) {
			left->screening++;
			continue;
		} else if (missing) {
			left->missing++;
			continue;
		} else if (!dec && screens) {
			left->unscreened++;
			continue;
		}
		ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr].id = sqlite3_column_int64(s, 0);
		out->v[out->nr].repo = xstrdup((const char *)
					       sqlite3_column_text(s, 1));
		out->nr++;
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

/* Refuse item `id` for a new round (a screening round when `screen`)
 * when it may not go into it, naming it and why. */
int round_check_free(struct store *st, long long id, int screen,
		     struct err *e)
{
	sqlite3_stmt *s;
	char *item = NULL;
	int rc, ret = 0;

	s = store_prepare(st, "SELECT i.repo, i.number, i.missing, r.name, "
			  "r.closed_at IS NOT NULL, sr.name, sr.closed_at IS "
			  "NOT NULL, d.code, d.how, EXISTS (SELECT 1 FROM "
			  "rounds WHERE kind = 'screen') FROM items i LEFT JOIN "
			  "assignments a ON a.item_id = i.id LEFT JOIN rounds r "
			  "ON r.id = a.round_id LEFT JOIN screen_assignments sa "
			  "ON sa.item_id = i.id LEFT JOIN rounds sr ON sr.id = "
			  "sa.round_id LEFT JOIN screen_decisions d ON "
			  "d.item_id = i.id WHERE i.id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	rc = store_step(st, s, "reading an item", e);
	if (rc == 1) {
		const char *round = (const char *)sqlite3_column_text(s, 3);
		const char *sround = (const char *)sqlite3_column_text(s, 5);
		const char *dec = (const char *)sqlite3_column_text(s, 7);
		const char *how = (const char *)sqlite3_column_text(s, 8);
		int closed = sqlite3_column_int(s, 4);

		item = item_name((const char *)sqlite3_column_text(s, 0),
				 sqlite3_column_int64(s, 1));
		if (round && closed && !screen)
			ret = err_set(e, ERR_INPUT, "%s is already in round %s "
				      "(closed; --items unfinished:%s moves the "
				      "items it left unfinished)", item, round,
				      round);
		else if (round)
			ret = err_set(e, ERR_INPUT, "%s is already in round %s%s",
				      item, round, screen ? " (a coding "
				      "round: screening comes before coding)" :
				      "");
		else if (sqlite3_column_int(s, 2))
			ret = err_set(e, ERR_INPUT, "%s has not been fetched "
				      "yet: nobody can screen or code it before "
				      "`bugcoder fetch --missing` fills it",
				      item);
		else if (screen && sround && sqlite3_column_int(s, 6))
			ret = err_set(e, ERR_INPUT, "%s is already in screening "
				      "round %s (closed; --screen --items "
				      "unfinished:%s moves the items it left "
				      "unfinished)", item, sround, sround);
		else if (screen && sround)
			ret = err_set(e, ERR_INPUT, "%s is already in screening "
				      "round %s", item, sround);
		else if (!screen && dec && strcmp(dec, SCREENING_INCLUDE))
			ret = err_set(e, ERR_INPUT, "%s was screened out in "
				      "round %s (%s, %s): it never enters a "
				      "coding round", item, sround, dec, how);
		else if (!screen && !dec && sround)
			ret = err_set(e, ERR_INPUT, "%s is being screened in "
				      "round %s: it can go into a coding round "
				      "once it is screened in", item, sround);
		else if (!screen && !dec && sqlite3_column_int(s, 9))
			ret = err_set(e, ERR_INPUT, "%s has not been screened: "
				      "the study screens items before coding "
				      "them (round create NAME --screen --items "
				      "%s ...)", item, item);
	}
	sqlite3_finalize(s);
	free(item);
	if (rc == 0)
		return err_set(e, ERR_NOTFOUND, "no item with id %lld", id);
	if (rc < 0)
		return -1;
	return ret;
}

/* The items of round `rid` that not every annotator of the round
 * submitted, in round order: appended to `out` (may be NULL), counted in
 * *nr, the first named in *first (may be NULL; owned, NULL when none). */
int round_unfinished_items(struct store *st, long long rid, int screen,
			   struct cands *out, size_t *nr, char **first,
			   struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	*nr = 0;
	if (first)
		*first = NULL;
	s = store_prepare(st, screen ?
			  "SELECT a.item_id, i.repo, i.number FROM "
			  "screen_assignments a JOIN items i ON i.id = "
			  "a.item_id WHERE a.round_id = ?1 AND (SELECT "
			  "count(*) FROM screen_labels s JOIN round_annotators "
			  "ra ON ra.member_id = s.member_id AND ra.round_id = "
			  "?1 WHERE s.item_id = a.item_id AND s.submitted_at "
			  "IS NOT NULL) < (SELECT count(*) FROM "
			  "round_annotators WHERE round_id = ?1) ORDER BY "
			  "a.position" :
			  "SELECT a.item_id, i.repo, i.number FROM "
			  "assignments a JOIN items i ON i.id = a.item_id "
			  "WHERE a.round_id = ?1 AND (SELECT count(*) FROM "
			  "submissions s JOIN round_annotators ra ON "
			  "ra.member_id = s.member_id AND ra.round_id = ?1 "
			  "WHERE s.item_id = a.item_id) < (SELECT count(*) "
			  "FROM round_annotators WHERE round_id = ?1) "
			  "ORDER BY a.position", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	while ((rc = store_step(st, s, "listing a round's items", e)) == 1) {
		if (first && !*first)
			*first = item_name((const char *)
					   sqlite3_column_text(s, 1),
					   sqlite3_column_int64(s, 2));
		if (out) {
			ALLOC_GROW(out->v, out->nr + 1, out->alloc);
			out->v[out->nr].id = sqlite3_column_int64(s, 0);
			out->v[out->nr].repo = NULL;
			out->nr++;
		}
		(*nr)++;
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		if (first) {
			free(*first);
			*first = NULL;
		}
		return -1;
	}
	return 0;
}

static int add_named(struct store *st, const char *name, int screen,
		     struct cands *out, struct err *e)
{
	long long id = item_find(st, name, e);
	size_t i;

	if (id < 0)
		return -1;
	if (round_check_free(st, id, screen, e) < 0)
		return -1;
	for (i = 0; i < out->nr; i++)
		if (out->v[i].id == id)
			return err_set(e, ERR_INPUT, "%s: named twice", name);
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].id = id;
	out->v[out->nr].repo = NULL;
	out->nr++;
	return 0;
}

/* --items unfinished:ROUND: the unfinished items of a closed round, whose
 * id goes to *from. */
static int unfinished_spec(struct store *st, const char *name, int screen,
			   struct cands *out, long long *from, struct err *e)
{
	struct round_info r;
	size_t nr;
	int ret = -1;

	if (round_get(st, name, &r, e) < 0)
		return err_prefix(e, "--items unfinished:%s", name);
	if (r.screen != screen) {
		err_set(e, ERR_INPUT, "--items unfinished:%s: round %s is a "
			"%s round; its unfinished items go on to another %s "
			"round%s", name, name, r.screen ? "screening" :
			"coding", r.screen ? "screening" : "coding",
			r.screen ? " (--screen)" : " (without --screen)");
		goto out;
	}
	if (!r.closed_at) {
		err_set(e, ERR_INPUT, "--items unfinished:%s: round %s is "
			"still open; its items can move once it is closed "
			"(round close %s --force)", name, name, name);
		goto out;
	}
	if (round_unfinished_items(st, r.id, r.screen, out, &nr, NULL, e) < 0)
		goto out;
	*from = r.id;
	ret = 0;
out:
	round_info_release(&r);
	return ret;
}

int round_parse_items(struct store *st, const char *spec, int screen,
		      struct cands *out, struct left *left, long long *from,
		      struct err *e)
{
	*from = 0;
	memset(left, 0, sizeof(*left));
	if (!strcmp(spec, "all"))
		return round_free_items(st, screen, NULL, out, left, e);
	if (!strncmp(spec, "unfinished:", 11))
		return unfinished_spec(st, spec + 11, screen, out, from, e);
	if (!strncmp(spec, "repo:", 5))
		return round_free_items(st, screen, spec + 5, out, left, e);
	if (spec[0] == '@') {
		struct buf b = BUF_INIT;
		char *line, *save = NULL;
		int lineno = 0, ret = 0;

		if (buf_read_file(&b, spec + 1) < 0) {
			err_set(e, ERR_IO, "%s: %s", spec + 1,
				strerror(errno));
			buf_release(&b);
			return -1;
		}
		for (line = strtok_r(b.ptr, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			size_t n = strlen(line);

			lineno++;
			while (n && strchr(" \t\r", line[n - 1]))
				line[--n] = '\0';
			while (*line == ' ' || *line == '\t')
				line++;
			if (!*line || *line == '#')
				continue;
			if (add_named(st, line, screen, out, e) < 0) {
				err_prefix(e, "%s:%d", spec + 1, lineno);
				ret = -1;
				break;
			}
		}
		buf_release(&b);
		return ret;
	}
	{
		char *copy = xstrdup(spec), *tok, *save = NULL;
		int ret = 0;

		for (tok = strtok_r(copy, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			while (*tok == ' ')
				tok++;
			if (!*tok)
				continue;
			if (add_named(st, tok, screen, out, e) < 0) {
				ret = -1;
				break;
			}
		}
		free(copy);
		return ret;
	}
}

static void shuffle(struct cand *v, size_t n, uint64_t *state)
{
	size_t i;

	for (i = n; i > 1; i--) {
		size_t j = (size_t)below(state, i);
		struct cand t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

int round_parse_sample(const char *s, size_t total, size_t *want,
		       struct err *e)
{
	char *end;
	double v = strtod(s, &end);

	/* !(v > 0) also refuses "nan"; a count is compared before it is
	 * converted, as converting 1e30 to a size_t is undefined */
	if (end == s || !(v > 0))
		goto bad;
	if (*end == '%') {
		if (end[1] || v > 100)
			goto bad;
		*want = (size_t)(v * (double)total / 100.0 + 0.5);
		if (*want == 0 && total)
			*want = 1;
		return 0;
	}
	if (*end)
		goto bad;
	if (v > (double)total)
		return err_set(e, ERR_INPUT, "--sample %s: only %zu items are "
			       "free for the round", s, total);
	if (v != (double)(size_t)v)
		goto bad;
	*want = (size_t)v;
	return 0;
bad:
	return err_set(e, ERR_INPUT, "--sample %s: expected N or P%% "
		       "(e.g. 40 or 40%%)", s);
}

struct stratum {
	const char *repo;
	size_t first, nr;	/* into the sorted candidates */
	size_t take;
	double rem;
};

static int cmp_cand_repo(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->repo, y->repo);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int cmp_stratum_rem(const void *a, const void *b)
{
	const struct stratum *x = *(struct stratum *const *)a;
	const struct stratum *y = *(struct stratum *const *)b;

	if (x->rem != y->rem)
		return x->rem < y->rem ? 1 : -1;
	if (x->nr != y->nr)
		return x->nr < y->nr ? 1 : -1;
	return strcmp(x->repo, y->repo);
}

/* Draw `want` of the candidates, in place: the chosen come first. */
void round_draw(struct cands *c, size_t want, uint64_t seed, int stratify)
{
	uint64_t state = seed;
	struct stratum *st = NULL;
	struct stratum **order = NULL;
	struct cand *out;
	size_t nst = 0, alloc = 0, i, taken = 0, k = 0;

	if (!stratify) {
		shuffle(c->v, c->nr, &state);
		return;
	}
	qsort(c->v, c->nr, sizeof(*c->v), cmp_cand_repo);
	for (i = 0; i < c->nr; i++) {
		if (!nst || strcmp(st[nst - 1].repo, c->v[i].repo)) {
			ALLOC_GROW(st, nst + 1, alloc);
			st[nst].repo = c->v[i].repo;
			st[nst].first = i;
			st[nst].nr = 0;
			nst++;
		}
		st[nst - 1].nr++;
	}
	for (i = 0; i < nst; i++) {
		double exact = (double)want * (double)st[i].nr /
			       (double)c->nr;

		st[i].take = (size_t)exact;
		st[i].rem = exact - (double)st[i].take;
		taken += st[i].take;
	}
	order = xcalloc(nst, sizeof(*order));
	for (i = 0; i < nst; i++)
		order[i] = &st[i];
	qsort(order, nst, sizeof(*order), cmp_stratum_rem);
	for (i = 0; taken < want && i < nst; i++) {
		if (order[i]->take < order[i]->nr) {
			order[i]->take++;
			taken++;
		}
	}
	/* shuffle within each stratum, then interleave the draws by a
	 * final shuffle of the chosen so round order mixes repositories */
	out = xcalloc(c->nr + 1, sizeof(*out));
	for (i = 0; i < nst; i++) {
		shuffle(c->v + st[i].first, st[i].nr, &state);
		memcpy(out + k, c->v + st[i].first, st[i].take *
		       sizeof(*out));
		k += st[i].take;
	}
	shuffle(out, k, &state);
	for (i = 0; i < nst; i++) {
		memcpy(out + k, c->v + st[i].first + st[i].take,
		       (st[i].nr - st[i].take) * sizeof(*out));
		k += st[i].nr - st[i].take;
	}
	memcpy(c->v, out, c->nr * sizeof(*out));
	free(out);
	free(order);
	free(st);
}
