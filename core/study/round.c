/* SPDX-License-Identifier: MIT */
/*
 * round: see round.h.
 */
#include "core/study/round.h"

#include "core/study/access.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/audit.h"
#include "core/base/buf.h"
#include "core/study/item.h"
#include "core/study/replay.h"
#include "core/base/suggest.h"
#include "core/base/text.h"
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

struct cand {
	long long id;
	char *repo;
};

struct cands {
	struct cand *v;
	size_t nr, alloc;
};

static void cands_release(struct cands *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->v[i].repo);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/* What the candidates of a new round left out (round_info's left_*). */
struct left {
	size_t missing, unscreened, screening, excluded;
};

/*
 * The items a new round may take (see round.h), of repository `repo`
 * (NULL: all), in id order, into `out`; what was left out, and why,
 * into *left.
 */
static int free_items(struct store *st, int screen, const char *repo,
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
static int check_free(struct store *st, long long id, int screen,
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
static int unfinished_items(struct store *st, long long rid, int screen,
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
	if (check_free(st, id, screen, e) < 0)
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
	if (unfinished_items(st, r.id, r.screen, out, &nr, NULL, e) < 0)
		goto out;
	*from = r.id;
	ret = 0;
out:
	round_info_release(&r);
	return ret;
}

static int parse_items(struct store *st, const char *spec, int screen,
		       struct cands *out, struct left *left, long long *from,
		       struct err *e)
{
	*from = 0;
	memset(left, 0, sizeof(*left));
	if (!strcmp(spec, "all"))
		return free_items(st, screen, NULL, out, left, e);
	if (!strncmp(spec, "unfinished:", 11))
		return unfinished_spec(st, spec + 11, screen, out, from, e);
	if (!strncmp(spec, "repo:", 5))
		return free_items(st, screen, spec + 5, out, left, e);
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

static int parse_sample(const char *s, size_t total, size_t *want,
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
static void draw(struct cands *c, size_t want, uint64_t seed, int stratify)
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

static int check_annotators(struct store *st, const struct round_spec *spec,
			    long long *ids, struct err *e)
{
	size_t i, j;

	if (!spec->nr_annotators)
		return err_set(e, ERR_INPUT, "a round needs annotators "
			       "(--annotators A,B)");
	for (i = 0; i < spec->nr_annotators; i++) {
		enum role r;

		for (j = 0; j < i; j++)
			if (!strcmp(spec->annotators[i], spec->annotators[j]))
				return err_set(e, ERR_INPUT, "--annotators: "
					       "%s named twice",
					       spec->annotators[i]);
		if (member_find(st, spec->annotators[i], &ids[i], &r, e) < 0)
			return err_prefix(e, "--annotators");
		if (r != ROLE_ANNOTATOR && r != ROLE_OWNER &&
		    r != ROLE_MACHINE)
			return err_set(e, ERR_INPUT, "--annotators: %s is %s, "
				       "not an annotator", spec->annotators[i],
				       role_name(r));
		if (r == ROLE_MACHINE && spec->screen)
			return err_set(e, ERR_INPUT, "--annotators: %s is a "
				       "machine; people screen, machines may "
				       "code afterwards", spec->annotators[i]);
	}
	return 0;
}

/* The gate of a round being created, in its transaction; a forced gate
 * is audited with what the check found. */
static int save_gate(struct store *st, const struct actor *a,
		     const struct round_spec *spec, long long rid,
		     struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	s = store_prepare(st, "INSERT INTO round_gates (round_id, "
			  "after_round_id, min_kappa, on_lower, forced) "
			  "SELECT ?1, id, ?3, ?4, ?5 FROM rounds WHERE name = "
			  "?2", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, rid);
	sqlite3_bind_text(s, 2, spec->gate_after, -1, SQLITE_STATIC);
	sqlite3_bind_double(s, 3, spec->gate_min_kappa);
	sqlite3_bind_int(s, 4, spec->gate_on_lower);
	sqlite3_bind_int(s, 5, spec->gate_forced);
	rc = store_step_done(st, s, "saving the round's gate", e);
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	if (sqlite3_changes(st->db) != 1) {
		struct buf what = BUF_INIT;

		buf_addf(&what, "--after %s", spec->gate_after);
		round_unknown(st, what.ptr, spec->gate_after, e);
		buf_release(&what);
		return -1;
	}
	{
		struct buf d = BUF_INIT;
		long long after = 0;

		s = store_prepare(st, "SELECT after_round_id FROM round_gates "
				  "WHERE round_id = ?", e);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, rid);
		rc = store_step(st, s, "reading the round's gate", e);
		if (rc > 0)
			after = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
		audit_detail_int(&d, "round", rid);
		audit_detail_int(&d, "after", after);
		audit_detail_real(&d, "min_kappa", spec->gate_min_kappa);
		audit_detail_int(&d, "on_lower", spec->gate_on_lower);
		audit_detail_int(&d, "forced", spec->gate_forced);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					spec->gate_forced ?
					"round.gate-forced" : "round.gate", 0,
					NULL, spec->gate_after,
					spec->gate_detail ? spec->gate_detail :
					spec->name, audit_detail_end(&d), e);
		buf_release(&d);
		return rc;
	}
}

/* What the candidates left out, as a clause: "; left out: 4 never
 * fetched (bugcoder fetch --missing), 2 screened out". */
static void left_text(const struct left *l, struct buf *out)
{
	size_t n = out->len;

	if (l->missing)
		buf_addf(out, "%s%zu never fetched (`bugcoder fetch "
			 "--missing` fetches them)", out->len > n ? ", " : "",
			 l->missing);
	if (l->unscreened)
		buf_addf(out, "%s%zu not screened yet (round create NAME "
			 "--screen ...)", out->len > n ? ", " : "",
			 l->unscreened);
	if (l->screening)
		buf_addf(out, "%s%zu not decided in screening yet",
			 out->len > n ? ", " : "", l->screening);
	if (l->excluded)
		buf_addf(out, "%s%zu screened out", out->len > n ? ", " : "",
			 l->excluded);
}

/* Why a round would have no items, with the way out when a closed round
 * left items unfinished. */
static int no_items(struct store *st, const struct round_spec *spec,
		    long long from, const struct left *l, struct err *e)
{
	sqlite3_stmt *s;
	struct buf why = BUF_INIT;
	char *hint = NULL;
	int rc;

	if (from)
		return err_set(e, ERR_INPUT, "round %s would have no items: "
			       "round %s has none left that is unfinished",
			       spec->name, spec->items + 11);
	s = store_prepare(st, spec->screen ?
			  "SELECT r.name FROM rounds r WHERE r.kind = 'screen' "
			  "AND r.closed_at IS NOT NULL AND EXISTS (SELECT 1 "
			  "FROM screen_assignments a WHERE a.round_id = r.id "
			  "AND (SELECT count(*) FROM screen_labels s JOIN "
			  "round_annotators ra ON ra.member_id = s.member_id "
			  "AND ra.round_id = r.id WHERE s.item_id = a.item_id "
			  "AND s.submitted_at IS NOT NULL) < (SELECT count(*) "
			  "FROM round_annotators WHERE round_id = r.id)) ORDER "
			  "BY r.id LIMIT 1" :
			  "SELECT r.name FROM rounds r WHERE "
			  "r.closed_at IS NOT NULL AND EXISTS (SELECT 1 FROM "
			  "assignments a WHERE a.round_id = r.id AND (SELECT "
			  "count(*) FROM submissions s JOIN round_annotators "
			  "ra ON ra.member_id = s.member_id AND ra.round_id = "
			  "r.id WHERE s.item_id = a.item_id) < (SELECT "
			  "count(*) FROM round_annotators WHERE round_id = "
			  "r.id)) ORDER BY r.id LIMIT 1", e);
	if (!s)
		return -1;
	rc = store_step(st, s, "listing rounds", e);
	if (rc == 1)
		hint = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	buf_addf(&why, "round %s would have no items: every item%s is in a "
		 "%sround already", spec->name, spec->items &&
		 !strncmp(spec->items, "repo:", 5) ? " of that repository" :
		 "", spec->screen ? "" : "coding ");
	if (l->missing || l->unscreened || l->screening || l->excluded) {
		buf_addstr(&why, " or left out: ");
		left_text(l, &why);
	}
	if (hint)
		buf_addf(&why, "; round %s is closed with items unfinished, "
			 "which --items unfinished:%s moves", hint, hint);
	err_set(e, ERR_INPUT, "%s", why.ptr);
	buf_release(&why);
	free(hint);
	return -1;
}

/* Take the items c[] out of round `from`, auditing each move to round
 * `to`. */
static int move_out(struct store *st, const struct actor *a, long long from,
		    int screen, const char *to, const struct cands *c,
		    struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s;
	size_t i;
	int ret = -1, rc;

	memset(&r, 0, sizeof(r));
	s = store_prepare(st, "SELECT name FROM rounds WHERE id = ?", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, from);
	rc = store_step(st, s, "reading a round", e);
	if (rc <= 0) {
		if (rc == 0)
			err_set(e, ERR_NOTFOUND, "reading a round: it is gone");
		goto out;
	}
	r.name = xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	s = store_prepare(st, screen ? "DELETE FROM screen_assignments WHERE "
			  "round_id = ? AND item_id = ?" : "DELETE FROM "
			  "assignments WHERE round_id = ? AND item_id = ?", e);
	if (!s)
		goto out;
	for (i = 0; i < c->nr; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, from);
		sqlite3_bind_int64(s, 2, c->v[i].id);
		if (store_step_done(st, s, "moving an item", e) < 0)
			goto out;
		if (audit_write(st, a->os_user, actor_for(a), "round.move",
				c->v[i].id, NULL, r.name, to, e) < 0)
			goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(s);
	round_info_release(&r);
	return ret;
}

int round_create(struct store *st, const struct actor *a,
		 const struct round_spec *spec, struct round_info *out,
		 struct err *e)
{
	struct cands c = { 0 };
	long long *ann = NULL, rid, from = 0;
	struct buf desc = BUF_INIT;
	struct left left;
	sqlite3_stmt *s = NULL;
	char *reasons = NULL;
	size_t want = 0, i;
	char now[32];
	int ret = -1;

	if (actor_require(a, ROLES(ROLE_OWNER), "round create", e) < 0)
		return -1;
	if (!spec->name || !*spec->name || strlen(spec->name) > 64 ||
	    strspn(spec->name, "abcdefghijklmnopqrstuvwxyz"
		   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-") !=
	    strlen(spec->name))
		return err_set(e, ERR_INPUT, "a round needs a name of 1-64 "
			       "letters, digits, spaces, '_', '.' or '-'");
	if (!!spec->items == !!spec->sample)
		return err_set(e, ERR_USAGE, "give either --items SPEC or "
			       "--sample N|P%% --seed S");
	if (spec->sample && !spec->has_seed)
		return err_set(e, ERR_USAGE, "--sample needs --seed S, so the "
			       "draw can be repeated");
	if (spec->stratify && strcmp(spec->stratify, "repo"))
		return err_set(e, ERR_INPUT, "--stratify %s: only \"repo\" is "
			       "supported", spec->stratify);
	if (spec->stratify && !spec->sample)
		return err_set(e, ERR_USAGE, "--stratify goes with --sample");
	if (spec->reasons && !spec->screen)
		return err_set(e, ERR_USAGE, "--reasons goes with --screen");
	if (spec->screen && spec->gate_after)
		return err_set(e, ERR_USAGE, "a screening round has no "
			       "calibration gate (--after)");
	memset(&left, 0, sizeof(left));
	if (spec->screen &&
	    screening_reasons_parse(spec->reasons ? spec->reasons :
				    SCREENING_DEFAULT_REASONS, &reasons,
				    e) < 0)
		return -1;
	ann = xcalloc(spec->nr_annotators + 1, sizeof(*ann));
	if (store_begin(st, e) < 0)
		goto out;
	s = store_prepare(st, "SELECT 1 FROM rounds WHERE name = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, spec->name, -1, SQLITE_STATIC);
	switch (store_step(st, s, "reading rounds", e)) {
	case -1:
		goto out;
	case 1:
		err_set(e, ERR_INPUT, "round %s already exists", spec->name);
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (check_annotators(st, spec, ann, e) < 0)
		goto out;
	if (spec->items) {
		if (parse_items(st, spec->items, spec->screen, &c, &left,
				&from, e) < 0)
			goto out;
		want = c.nr;
		if (!strcmp(spec->items, "all") ||
		    !strncmp(spec->items, "repo:", 5))
			buf_addf(&desc, "items: %s %s at creation",
				 spec->items, spec->screen ? "in no round" :
				 "free for coding");
		else
			buf_addf(&desc, "items: %s", spec->items);
	} else {
		if (free_items(st, spec->screen, NULL, &c, &left, e) < 0)
			goto out;
		if (parse_sample(spec->sample, c.nr, &want, e) < 0)
			goto out;
		draw(&c, want, spec->seed, spec->stratify != NULL);
		buf_addf(&desc, "sample: %s of %zu", spec->sample, c.nr);
	}
	if (!want) {
		no_items(st, spec, from, &left, e);
		goto out;
	}
	store_now(now);
	s = store_prepare(st, "INSERT INTO rounds (name, spec, seed, "
			  "stratify, created_at, created_by, kind, reasons) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, spec->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, desc.ptr, -1, SQLITE_STATIC);
	if (spec->has_seed)
		sqlite3_bind_int64(s, 3, (sqlite3_int64)spec->seed);
	else
		sqlite3_bind_null(s, 3);
	store_bind_text(s, 4, spec->stratify);
	sqlite3_bind_text(s, 5, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 7, spec->screen ? "screen" : "code", -1,
			  SQLITE_STATIC);
	store_bind_text(s, 8, reasons);
	if (store_step_done(st, s, "creating the round", e) < 0)
		goto out;
	sqlite3_finalize(s);
	rid = sqlite3_last_insert_rowid(st->db);
	s = store_prepare(st, "INSERT INTO round_annotators (round_id, "
			  "member_id) VALUES (?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < spec->nr_annotators; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, rid);
		sqlite3_bind_int64(s, 2, ann[i]);
		if (store_step_done(st, s, "creating the round", e) < 0)
			goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (from && move_out(st, a, from, spec->screen, spec->name, &c, e) < 0)
		goto out;
	s = store_prepare(st, spec->screen ? "INSERT INTO screen_assignments "
			  "(round_id, item_id, position) VALUES (?, ?, ?)" :
			  "INSERT INTO assignments (round_id, item_id, "
			  "position) VALUES (?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < want; i++) {
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, rid);
		sqlite3_bind_int64(s, 2, c.v[i].id);
		sqlite3_bind_int64(s, 3, (long long)i);
		if (store_step_done(st, s, "creating the round", e) < 0) {
			/* e says "creating the round" unless a constraint
			 * says more: which item is not free */
			if (sqlite3_errcode(st->db) == SQLITE_CONSTRAINT &&
			    check_free(st, c.v[i].id, spec->screen, e) == 0)
				err_set(e, ERR_INPUT, "an item is named twice "
					"for round %s", spec->name);
			goto out;
		}
	}
	{
		struct buf d = BUF_INIT, items = BUF_INIT;
		long long *ids = xcalloc(want + 1, sizeof(*ids));
		int rc;

		for (i = 0; i < want; i++)
			ids[i] = c.v[i].id;
		replay_format_ids(&items, ids, want);
		free(ids);
		audit_detail_int(&d, "id", rid);
		audit_detail_str(&d, "spec", desc.ptr);
		/* as text: a JSON number would lose a large seed's digits */
		if (spec->has_seed) {
			char seed[32];

			snprintf(seed, sizeof(seed), "%lld",
				 (long long)spec->seed);
			audit_detail_str(&d, "seed", seed);
		}
		audit_detail_str(&d, "stratify", spec->stratify);
		buf_addstr(&d, ",\"annotators\":[");
		for (i = 0; i < spec->nr_annotators; i++)
			buf_addf(&d, "%s%lld", i ? "," : "", ann[i]);
		buf_addch(&d, ']');
		audit_detail_str(&d, "items", items.ptr);
		/* a screening round's items are screened, not coded: the
		 * replay keeps them out of the coding assignments */
		if (spec->screen)
			audit_detail_str(&d, "kind", "screen");
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"round.create", 0, NULL, NULL,
					spec->name, audit_detail_end(&d), e);
		buf_release(&d);
		buf_release(&items);
		if (rc < 0)
			goto out;
	}
	if (spec->screen && audit_write(st, a->os_user, actor_for(a),
					"round.screen", 0, NULL, spec->name,
					reasons, e) < 0)
		goto out;
	if (spec->gate_after && save_gate(st, a, spec, rid, e) < 0)
		goto out;
	if (store_commit(st, e) < 0)
		goto out;
	ret = 0;
	if (out && round_get(st, spec->name, out, e) < 0)
		ret = -1;
	if (out && !ret) {
		out->left_missing = left.missing;
		out->left_unscreened = left.unscreened;
		out->left_screening = left.screening;
		out->left_excluded = left.excluded;
	}
out:
	if (ret < 0)
		store_rollback(st);
	sqlite3_finalize(s);
	cands_release(&c);
	buf_release(&desc);
	free(reasons);
	free(ann);
	return ret;
}

int round_add_items(struct store *st, const struct actor *a,
		    const char *name, const long long *ids, size_t n,
		    struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	long long pos = 0;
	size_t i;
	int rc, ret = -1, began = 0;

	if (actor_require(a, ROLES(ROLE_OWNER), "adding items to a round",
			  e) < 0)
		return -1;
	if (round_get(st, name, &r, e) < 0)
		return -1;
	if (r.closed_at) {
		err_set(e, ERR_INPUT, "round %s is closed: items go into open "
			"rounds only", name);
		goto out;
	}
	/* the items and their audit rows together, or none */
	if (store_begin(st, e) < 0)
		goto out;
	began = 1;
	s = store_prepare(st, r.screen ? "SELECT coalesce(max(position) + 1, "
			  "0) FROM screen_assignments WHERE round_id = ?" :
			  "SELECT coalesce(max(position) + 1, 0) FROM "
			  "assignments WHERE round_id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, r.id);
	rc = store_step(st, s, "reading the round", e);
	if (rc > 0)
		pos = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	s = store_prepare(st, r.screen ? "INSERT INTO screen_assignments "
			  "(round_id, item_id, position) VALUES (?, ?, ?)" :
			  "INSERT INTO assignments (round_id, item_id, "
			  "position) VALUES (?, ?, ?)", e);
	if (!s)
		goto out;
	for (i = 0; i < n; i++) {
		if (check_free(st, ids[i], r.screen, e) < 0)
			goto out;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, r.id);
		sqlite3_bind_int64(s, 2, ids[i]);
		sqlite3_bind_int64(s, 3, pos++);
		if (store_step_done(st, s, "adding an item to the round",
				    e) < 0)
			goto out;
		{
			struct buf d = BUF_INIT;

			/* what the replay puts into the round */
			audit_detail_int(&d, "round", r.id);
			audit_detail_int(&d, "position", pos - 1);
			if (r.screen)
				audit_detail_str(&d, "kind", "screen");
			rc = audit_write_detail(st, a->os_user, actor_for(a),
						"round.add", ids[i], NULL, NULL,
						name, audit_detail_end(&d), e);
			buf_release(&d);
			if (rc < 0)
				goto out;
		}
	}
	sqlite3_finalize(s);
	s = NULL;
	ret = store_commit(st, e);
	began = 0;
out:
	sqlite3_finalize(s);
	if (began)
		store_rollback(st);
	round_info_release(&r);
	return ret;
}

/* Keep round `rid` as it stands: its annotators' submissions and their
 * labels, and the codebook version now current (`freeze`); or forget
 * that record when the round opens again (`freeze` 0). */
static int round_freeze(struct store *st, long long rid, int freeze,
			struct err *e)
{
	static const char *const keep[] = {
		"INSERT INTO round_frozen (round_id, codebook_id, frozen_at) "
		"SELECT ?1, (SELECT id FROM codebooks WHERE current), ?2",
		"INSERT INTO round_submissions (round_id, item_id, member_id) "
		"SELECT a.round_id, s.item_id, s.member_id FROM submissions s "
		"JOIN assignments a ON a.item_id = s.item_id JOIN "
		"round_annotators ra ON ra.round_id = a.round_id AND "
		"ra.member_id = s.member_id WHERE a.round_id = ?1",
		"INSERT INTO round_labels (round_id, item_id, member_id, "
		"dimension, code, codebook_version) SELECT rs.round_id, "
		"l.item_id, l.member_id, l.dimension, l.code, "
		"l.codebook_version FROM labels l JOIN round_submissions rs ON "
		"rs.item_id = l.item_id AND rs.member_id = l.member_id WHERE "
		"rs.round_id = ?1",
		NULL
	};
	static const char *const forget[] = {
		"DELETE FROM round_labels WHERE round_id = ?1",
		"DELETE FROM round_submissions WHERE round_id = ?1",
		"DELETE FROM round_frozen WHERE round_id = ?1",
		NULL
	};
	const char *const *sql = freeze ? keep : forget;
	char now[32];
	size_t i;

	store_now(now);
	for (i = 0; sql[i]; i++) {
		sqlite3_stmt *s = store_prepare(st, sql[i], e);
		int rc;

		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, rid);
		if (sqlite3_bind_parameter_count(s) >= 2)
			sqlite3_bind_text(s, 2, now, -1, SQLITE_STATIC);
		rc = store_step(st, s, "keeping the round's record", e);
		sqlite3_finalize(s);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int round_close(struct store *st, const struct actor *a, const char *name,
		unsigned flags, struct err *e)
{
	return round_close_decided(st, a, name, flags, NULL, e);
}

/* Would closing round `name` be refused?  -1 with `e` filled (no such
 * round, items unfinished without ROUND_FORCE), 1 when it is closed
 * already, 0 when it may close; *r is the round (release it), *left
 * (may be NULL) the unfinished items. */
static int close_refused(struct store *st, const char *name, unsigned flags,
			 struct round_info *r, size_t *left, struct err *e)
{
	char *first = NULL;
	size_t n = 0;

	if (round_get(st, name, r, e) < 0)
		return -1;
	if (r->closed_at)
		return 1;	/* nothing to do */
	if (unfinished_items(st, r->id, r->screen, NULL, &n, &first, e) < 0)
		return -1;
	if (left)
		*left = n;
	if (n && !(flags & ROUND_FORCE)) {
		err_set(e, ERR_INPUT, "round %s: %zu of %zu %s %s not "
			"submitted by every annotator (%s is one); closing "
			"freezes them: `round close %s --force` closes it "
			"anyway", name, n, r->nr_items,
			text_plural((long long)r->nr_items, "item", "items"),
			n == 1 ? "is" : "are", first, name);
		free(first);
		return -1;
	}
	free(first);
	return 0;
}

int round_close_decided(struct store *st, const struct actor *a,
			const char *name, unsigned flags, size_t *decided,
			struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	struct buf note = BUF_INIT;
	char *first = NULL;
	size_t left = 0;
	char now[32];
	int ret = -1;

	memset(&r, 0, sizeof(r));
	if (decided)
		*decided = 0;
	if (actor_require(a, ROLES(ROLE_OWNER) | ROLES(ROLE_ADJUDICATOR),
			  "round close", e) < 0)
		return -1;
	/* what refuses the close is said before the full check, so that
	 * a refused close leaves the study as it was */
	if ((ret = close_refused(st, name, flags, &r, NULL, e)) != 0)
		goto out;
	round_info_release(&r);
	memset(&r, 0, sizeof(r));
	ret = -1;
	/* the full check before a round's labels are frozen for good */
	if (store_verify(st, 1, e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if ((ret = close_refused(st, name, flags, &r, &left, e)) != 0)
		goto out;
	ret = -1;
	buf_addstr(&note, name);
	if (left)
		buf_addf(&note, " (forced: %zu of %zu %s unfinished)", left,
			 r.nr_items, text_plural((long long)r.nr_items,
						 "item", "items"));
	store_now(now);
	s = store_prepare(st, "UPDATE rounds SET closed_at = ?, closed_by = ? "
			  "WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_text(s, 1, now, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, a->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, r.id);
	if (store_step_done(st, s, "closing the round", e) < 0)
		goto out;
	if (!r.screen && round_freeze(st, r.id, 1, e) < 0)
		goto out;
	{
		struct buf d = BUF_INIT;
		int rc;

		audit_detail_int(&d, "round", r.id);
		/* a screening round keeps no frozen labels */
		if (r.screen)
			audit_detail_str(&d, "kind", "screen");
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"round.close", 0, NULL, NULL, note.ptr,
					audit_detail_end(&d), e);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	/* a screening round decides what its screeners agree on */
	if (r.screen && screening_decide_round(st, a, r.id, decided, e) < 0)
		goto out;
	ret = store_commit(st, e);
out:
	if (ret != 0)
		store_rollback(st);
	sqlite3_finalize(s);
	round_info_release(&r);
	buf_release(&note);
	free(first);
	return ret;
}

int round_reopen(struct store *st, const struct actor *a, const char *name,
		 unsigned flags, struct err *e)
{
	struct round_info r;
	sqlite3_stmt *s = NULL;
	struct buf note = BUF_INIT;
	char *first = NULL;
	long long done = 0;
	int rc, ret = -1;

	memset(&r, 0, sizeof(r));
	if (actor_require(a, ROLES(ROLE_OWNER), "round reopen", e) < 0)
		return -1;
	if (store_begin(st, e) < 0)
		return -1;
	if (round_get(st, name, &r, e) < 0)
		goto out;
	if (!r.closed_at) {
		ret = 1;	/* nothing to do */
		goto out;
	}
	/* adjudicated items (for a screening round, also items decided
	 * and coded since) stay as they are */
	s = store_prepare(st, r.screen ?
			  "SELECT i.repo, i.number, count(*) OVER () FROM "
			  "screen_assignments a JOIN items i ON i.id = "
			  "a.item_id JOIN screen_decisions d ON d.item_id = "
			  "a.item_id WHERE a.round_id = ?1 AND (d.how = "
			  "'adjudicated' OR a.item_id IN (SELECT item_id FROM "
			  "assignments)) ORDER BY a.position LIMIT 1" :
			  "SELECT i.repo, i.number, count(*) OVER () "
			  "FROM assignments a JOIN items i ON i.id = "
			  "a.item_id WHERE a.round_id = ?1 AND (EXISTS "
			  "(SELECT 1 FROM resolutions WHERE item_id = "
			  "a.item_id) OR EXISTS (SELECT 1 FROM settled WHERE "
			  "item_id = a.item_id)) ORDER BY a.position LIMIT 1",
			  e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, r.id);
	rc = store_step(st, s, "reading a round", e);
	if (rc == 1) {
		first = item_name((const char *)sqlite3_column_text(s, 0),
				  sqlite3_column_int64(s, 1));
		done = sqlite3_column_int64(s, 2);
	}
	sqlite3_finalize(s);
	s = NULL;
	if (rc < 0)
		goto out;
	if (done && !(flags & ROUND_FORCE)) {
		err_set(e, ERR_INPUT, "round %s: %lld of its items %s been "
			"adjudicated (%s is one); `round reopen %s --force` "
			"reopens it anyway, and what was adjudicated stays "
			"frozen", name, done, done > 1 ? "have" : "has", first,
			name);
		goto out;
	}
	buf_addf(&note, "%s (closed %s by %s)", name, r.closed_at,
		 r.closed_by ? r.closed_by : "?");
	s = store_prepare(st, "UPDATE rounds SET closed_at = NULL, closed_by "
			  "= NULL WHERE id = ?", e);
	if (!s)
		goto out;
	sqlite3_bind_int64(s, 1, r.id);
	if (store_step_done(st, s, "reopening the round", e) < 0)
		goto out;
	if (!r.screen && round_freeze(st, r.id, 0, e) < 0)
		goto out;
	if (r.screen && screening_undecide_round(st, a, r.id, e) < 0)
		goto out;
	{
		struct buf d = BUF_INIT;

		audit_detail_int(&d, "round", r.id);
		rc = audit_write_detail(st, a->os_user, actor_for(a),
					"round.reopen", 0, NULL, note.ptr,
					done ? "forced: adjudicated items "
					"stay frozen" : name,
					audit_detail_end(&d), e);
		buf_release(&d);
		if (rc < 0)
			goto out;
	}
	ret = store_commit(st, e);
out:
	if (ret != 0)
		store_rollback(st);
	sqlite3_finalize(s);
	round_info_release(&r);
	buf_release(&note);
	free(first);
	return ret;
}

static char *dup_col(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return t ? xstrdup(t) : NULL;
}

static int fill(struct store *st, sqlite3_stmt *s, struct round_info *r,
		struct err *e)
{
	sqlite3_stmt *q;
	size_t alloc = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(s, 0);
	r->name = dup_col(s, 1);
	r->spec = dup_col(s, 2);
	r->has_seed = sqlite3_column_type(s, 3) != SQLITE_NULL;
	r->seed = sqlite3_column_int64(s, 3);
	r->stratify = dup_col(s, 4);
	r->created_at = dup_col(s, 5);
	r->created_by = dup_col(s, 6);
	r->closed_at = dup_col(s, 7);
	r->closed_by = dup_col(s, 8);
	r->screen = !strcmp((const char *)sqlite3_column_text(s, 9),
			    "screen");
	r->reasons = dup_col(s, 10);
	q = store_prepare(st, "SELECT m.name FROM round_annotators ra JOIN "
			  "members m ON m.id = ra.member_id WHERE ra.round_id "
			  "= ? ORDER BY m.name", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, r->id);
	while ((rc = store_step(st, q, "reading a round", e)) > 0) {
		ALLOC_GROW(r->annotators, r->nr_annotators + 1, alloc);
		r->annotators[r->nr_annotators++] = dup_col(q, 0);
	}
	sqlite3_finalize(q);
	if (rc < 0)
		return -1;
	q = store_prepare(st, r->screen ?
			  "SELECT count(*), sum((SELECT count(*) FROM "
			  "screen_labels s JOIN round_annotators ra ON "
			  "ra.member_id = s.member_id AND ra.round_id = "
			  "a.round_id WHERE s.item_id = a.item_id AND "
			  "s.submitted_at IS NOT NULL) = ?2) FROM "
			  "screen_assignments a WHERE a.round_id = ?1" :
			  "SELECT count(*), sum((SELECT count(*) FROM "
			  "submissions s JOIN round_annotators ra ON "
			  "ra.member_id = s.member_id AND ra.round_id = "
			  "a.round_id WHERE s.item_id = a.item_id) = ?2) "
			  "FROM assignments a WHERE a.round_id = ?1", e);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, (long long)r->nr_annotators);
	rc = store_step(st, q, "reading a round", e);
	if (rc > 0) {
		r->nr_items = (size_t)sqlite3_column_int64(q, 0);
		r->nr_complete = (size_t)sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return rc < 0 ? -1 : 0;
}

#define ROUND_COLS "SELECT id, name, spec, seed, stratify, created_at, " \
	"created_by, closed_at, closed_by, kind, reasons FROM rounds "

int round_unknown(struct store *st, const char *what, const char *name,
		  struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, "SELECT name FROM rounds ORDER BY "
					"id", e);
	struct suggest sg;
	struct buf near = BUF_INIT;
	int rc;

	if (!s)
		return -1;
	suggest_init(&sg, name);
	while ((rc = store_step(st, s, "listing rounds", e)) == 1)
		suggest_add(&sg, (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0) {
		suggest_release(&sg);
		return -1;
	}
	if (suggest_result(&sg))
		buf_set(&near, suggest_result(&sg));
	suggest_release(&sg);
	err_set(e, ERR_NOTFOUND, "%s: no such round", what);
	if (near.len)
		err_suggest(e, near.ptr);
	buf_release(&near);
	return -1;
}

int round_get(struct store *st, const char *name, struct round_info *out,
	      struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, ROUND_COLS "WHERE name = ?", e);
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if (!s)
		return -1;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = store_step(st, s, "reading a round", e);
	if (rc != 1) {
		sqlite3_finalize(s);
		if (rc == 0)
			return round_unknown(st, name, name, e);
		return -1;
	}
	ret = fill(st, s, out, e);
	sqlite3_finalize(s);
	if (ret < 0)
		round_info_release(out);	/* fill() left it half made */
	return ret;
}

int round_list(struct store *st, struct round_info **v, size_t *nr,
	       struct err *e)
{
	sqlite3_stmt *s = store_prepare(st, ROUND_COLS "ORDER BY id", e);
	size_t alloc = 0;
	int rc;

	*v = NULL;
	*nr = 0;
	if (!s)
		return -1;
	while ((rc = store_step(st, s, "reading rounds", e)) > 0) {
		ALLOC_GROW(*v, *nr + 1, alloc);
		if (fill(st, s, &(*v)[*nr], e) < 0) {
			sqlite3_finalize(s);
			round_list_free(*v, *nr + 1);
			*v = NULL;
			*nr = 0;
			return -1;
		}
		(*nr)++;
	}
	sqlite3_finalize(s);
	if (rc < 0) {
		round_list_free(*v, *nr);
		*v = NULL;
		*nr = 0;
		return -1;
	}
	return 0;
}

int round_list_for(struct store *st, const struct actor *a,
		   struct round_info **v, size_t *nr, struct err *e)
{
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc = 0;

	if (round_list(st, v, nr, e) < 0)
		return -1;
	for (i = 0; i < *nr; i++) {
		struct round_info *r = &(*v)[i];

		/* how far the others are would show, item by item, when
		 * they submit: the same rule as their labels */
		if (access_rule(a, 0, 1, r->closed_at != NULL))
			continue;
		r->own_only = 1;
		r->nr_complete = 0;
		sqlite3_finalize(s);
		s = store_prepare(st, r->screen ? "SELECT count(*) FROM "
				  "screen_labels s JOIN screen_assignments a "
				  "ON a.item_id = s.item_id WHERE a.round_id = "
				  "? AND s.member_id = ? AND s.submitted_at IS "
				  "NOT NULL" : "SELECT count(*) FROM "
				  "submissions s JOIN assignments a ON "
				  "a.item_id = s.item_id WHERE "
				  "a.round_id = ? AND s.member_id = ?", e);
		if (!s)
			goto fail;
		sqlite3_reset(s);
		sqlite3_bind_int64(s, 1, r->id);
		sqlite3_bind_int64(s, 2, a->member_id);
		rc = store_step(st, s, "reading a round's progress", e);
		if (rc < 0)
			goto fail;
		if (rc > 0)
			r->nr_complete = (size_t)sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return 0;
fail:
	sqlite3_finalize(s);
	round_list_free(*v, *nr);
	*v = NULL;
	*nr = 0;
	return -1;
}

int round_later_changes(struct store *st, const struct round_info *r,
			struct buf *out, struct err *e)
{
	sqlite3_stmt *s;
	int rc;

	if (!r->closed_at)
		return 0;
	s = store_prepare(st, "SELECT p.dimension, count(*) FROM labels l "
			  "JOIN proposals p ON p.id = l.proposal_id JOIN "
			  "assignments a ON a.item_id = l.item_id JOIN "
			  "round_annotators ra ON ra.round_id = a.round_id AND "
			  "ra.member_id = l.member_id WHERE a.round_id = ?1 AND "
			  "p.status <> 'open' AND p.decided_at > ?2 GROUP BY "
			  "p.dimension ORDER BY p.dimension", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1) {
		int n = sqlite3_column_int(s, 1);

		buf_addf(out, "%s: %d label%s moved by proposals decided "
			 "after the round closed\n",
			 (const char *)sqlite3_column_text(s, 0), n,
			 n == 1 ? "" : "s");
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	s = store_prepare(st, "SELECT DISTINCT au.dimension, au.old FROM audit "
			  "au WHERE au.action = 'codebook.map' AND au.at > ?2 "
			  "AND EXISTS (SELECT 1 FROM labels l JOIN assignments "
			  "a ON a.item_id = l.item_id WHERE a.round_id = ?1 AND "
			  "l.dimension = au.dimension) ORDER BY au.id", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1)
		buf_addf(out, "%s: code %s was mapped onto another after the "
			 "round closed\n",
			 (const char *)sqlite3_column_text(s, 0),
			 (const char *)sqlite3_column_text(s, 1));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	/* a code split since: its labels on the round's items went back
	 * to their coders, who recode them; the record keeps the figures */
	s = store_prepare(st, "SELECT rc.dimension, rc.old_code, count(*), "
			  "sum(rc.done_at IS NULL) FROM recodes rc JOIN "
			  "assignments a ON a.item_id = rc.item_id JOIN "
			  "round_annotators ra ON ra.round_id = a.round_id AND "
			  "ra.member_id = rc.member_id WHERE a.round_id = ?1 "
			  "AND rc.split_at >= ?2 GROUP BY rc.dimension, "
			  "rc.old_code ORDER BY min(rc.id)", e);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, r->id);
	sqlite3_bind_text(s, 2, r->closed_at, -1, SQLITE_STATIC);
	while ((rc = store_step(st, s, "reading later decisions", e)) == 1) {
		int n = sqlite3_column_int(s, 2);
		int left = sqlite3_column_int(s, 3);

		buf_addf(out, "%s: code %s was split after the round closed; "
			 "%d of its %d label%s await%s recoding (the round's "
			 "record keeps its figures)\n",
			 (const char *)sqlite3_column_text(s, 0),
			 (const char *)sqlite3_column_text(s, 1), left, n,
			 n == 1 ? "" : "s", left == 1 ? "s" : "");
	}
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

int round_codebook_versions(struct store *st, long long round_id,
			    struct buf *out, struct err *e)
{
	sqlite3_stmt *s;
	int rc, n = 0;

	s = store_prepare(st, round_id ? "SELECT DISTINCT l.codebook_version "
			  "FROM labels l JOIN assignments a ON a.item_id = "
			  "l.item_id JOIN round_annotators ra ON ra.round_id = "
			  "a.round_id AND ra.member_id = l.member_id WHERE "
			  "a.round_id = ?1 ORDER BY 1" : "SELECT DISTINCT "
			  "codebook_version FROM labels ORDER BY 1", e);
	if (!s)
		return -1;
	if (round_id)
		sqlite3_bind_int64(s, 1, round_id);
	while ((rc = store_step(st, s, "reading the round's codebook versions",
				e)) == 1)
		buf_addf(out, "%s%s", n++ ? ", " : "",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc < 0)
		return -1;
	return 0;
}

void round_info_release(struct round_info *r)
{
	size_t i;

	if (!r)
		return;
	free(r->name);
	free(r->spec);
	free(r->stratify);
	free(r->created_at);
	free(r->created_by);
	free(r->closed_at);
	free(r->closed_by);
	free(r->reasons);
	for (i = 0; i < r->nr_annotators; i++)
		free(r->annotators[i]);
	free(r->annotators);
	memset(r, 0, sizeof(*r));
}

void round_list_free(struct round_info *v, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		round_info_release(&v[i]);
	free(v);
}
