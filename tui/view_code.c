/* SPDX-License-Identifier: MIT */
/*
 * view_code: the annotator's coding screen - its header, the coding bar
 * under the two panes, its status hints, its own keys - and everything
 * that saves.  The frame it is built on (windows, overlays, the status
 * line and search, the keys every screen shares) is screen.c's.
 *
 * Layout: one header row; the panes (side by side from SCREEN_SPLIT_COLS
 * columns, else one at a time with Tab to switch); the coding bar, whose
 * height is worked out from the codebook alone so that picking never
 * moves the panes; the status line.  Below the SCREEN_MIN_* size only a
 * "terminal too small" notice is drawn.
 *
 * Data: the item, the codebook and the actor's queue are loaded when an
 * item opens; after that a keypress touches the database only to save
 * (label_set/toggle/memo/flag/propose/submit, evidence_add, one
 * transaction each), to reload the actor's own coding (and which
 * dimensions have the actor's evidence) after a save, and to add the time
 * spent on an item (drift_add_time) when it is left.
 *
 * Evidence: `.` shows a line cursor in the focused pane (its pager's),
 * `v` starts a range, `e` asks for a dimension's key and cites the lines
 * as the pane maps them (view_ops.cite).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/study/access.h"
#include "core/study/draft.h"
#include "core/study/drift.h"
#include "core/study/evidence.h"
#include "core/base/priv.h"
#include "core/study/recode.h"
#include "core/study/screening.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "tui/screen.h"
#include "tui/tui.h"
#include "tui/ui.h"

#define BAR_VALUE_MAX 18

struct pending_pick;

/* The annotator's screen's own state (scr->priv; the frame holds the
 * item, its name and the codebook). */
struct code_state {
	struct codebook study_cb;	/* the study's codebook while scr->cb
					   is a screening question (else
					   empty) */
	char **recode_was;	/* per dimension of cb: the split code the
				   actor is to recode there, or NULL */
	struct queue q;
	size_t qpos;		/* index in q, or NOT_QUEUED */
	struct coding coding;	/* the actor's own work on the item */
	double item_secs;	/* work on the item not yet saved (drift) */
	double last_key;	/* the clock at the last key; < 0: none */
	const char *key_gaps;	/* test clock (BUGCODER_KEY_GAPS); NULL: real */
	double fake_now;	/* that clock's time */
	unsigned long long ev_dims;	/* bit i: dimension i (of the first
					   64) has the actor's evidence */
	struct evidence_cite *citing;	/* lines waiting for `e`'s dimension
					   key (owned); NULL: none */
	int last_dim;		/* the dimension last coded on the item,
				   which `e e` cites for; -1: none yet */
	char *drop_dim;		/* a dimension just cleared whose
				   citations the next key drops (y) or
				   keeps (owned); NULL: none asked */
	size_t drop_nr;		/* ... how many there are */
	int cb_stale;		/* a save met a newer codebook version
				   (loaded again once the key is handled) */
	struct pending_pick *pending;	/* a pick that met a busy study,
					   retried while idle; owned */
};

static const struct screen_ops code_screen_ops;

/* ---- the coding ----------------------------------------------------- */

static int ev_mark(const struct evidence_row *row, void *data)
{
	struct screen *scr = data;
	struct code_state *cs = scr->priv;
	size_t i;

	for (i = 0; i < scr->cb.nr_dims && i < 64; i++)
		if (!strcmp(scr->cb.dims[i].key, row->dimension))
			cs->ev_dims |= 1ULL << i;
	return 0;
}

/* Which dimensions the actor cited evidence for (the bar's mark). */
static int reload_evidence(struct screen *scr, struct err *e)
{
	struct code_state *cs = scr->priv;

	cs->ev_dims = 0;
	if (!scr->actor->member_id)
		return 0;
	return evidence_each(scr->st, scr->actor, scr->item.id,
			     scr->actor->member_id, ev_mark, scr, e) < 0 ?
	       -1 : 0;
}

static void recodes_free(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	size_t i;

	for (i = 0; cs->recode_was && i < scr->cb.nr_dims; i++)
		free(cs->recode_was[i]);
	free(cs->recode_was);
	cs->recode_was = NULL;
}

/* Which dimensions of the item a split left the actor to recode: the
 * bar shows the old code there. */
static int reload_recodes(struct screen *scr, struct err *e)
{
	struct code_state *cs = scr->priv;
	size_t i;

	recodes_free(scr);
	cs->recode_was = xcalloc(scr->cb.nr_dims + 1, sizeof(char *));
	for (i = 0; i < scr->cb.nr_dims; i++)
		if (recode_pending(scr->st, scr->item.id,
				   scr->actor->member_id, scr->cb.dims[i].key,
				   &cs->recode_was[i], NULL, e) < 0)
			return -1;
	return 0;
}

static void reload_coding(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;

	coding_release(&cs->coding);
	if (coding_load(scr->st, scr->actor, scr->item.id,
			scr->actor->member_id, &cs->coding, &e) < 0 ||
	    reload_evidence(scr, &e) < 0 || reload_recodes(scr, &e) < 0)
		screen_msg(scr, MSG_ERR, "%s", e.msg);
	scr->dirty |= DIRTY_BAR | DIRTY_HEADER | DIRTY_STATUS;
}

/* The codebook is the study's, or, on an item being screened, its round's
 * screening question: set scr->cb for item `id`. */
static int choose_codebook(struct screen *scr, long long id, struct err *e)
{
	struct code_state *cs = scr->priv;
	long long round = screening_phase(scr->st, id, e);
	struct codebook q = CODEBOOK_INIT;

	if (round < 0)
		return -1;
	recodes_free(scr);
	if (round) {
		if (screening_codebook(scr->st, round, &q, e) < 0)
			return -1;
		if (screening_is_codebook(&scr->cb))
			codebook_release(&scr->cb);
		else
			cs->study_cb = scr->cb;
		scr->cb = q;
	} else if (screening_is_codebook(&scr->cb)) {
		codebook_release(&scr->cb);
		scr->cb = cs->study_cb;
		memset(&cs->study_cb, 0, sizeof(cs->study_cb));
	}
	return 0;
}

/* Say why a save failed.  When the codebook changed since the screen
 * read it, nothing was saved and the codebook is loaded again once the
 * key is handled (the picker that made the pick holds codes of the old
 * one until then). */
static void save_failed(struct screen *scr, const struct err *e,
			const char *what)
{
	struct code_state *cs = scr->priv;

	if (e->code == ERR_STALE)
		cs->cb_stale = 1;
	screen_msg(scr, MSG_ERR, "%s: %s", what, e->msg);
}

static void codes_text(struct screen *scr, const char *dim, struct buf *out)
{
	struct code_state *cs = scr->priv;
	const struct coded_dim *cd = coding_dim(&cs->coding, dim);
	size_t i;

	for (i = 0; cd && i < cd->nr_codes; i++)
		buf_addf(out, "%s%s", i ? ", " : "", cd->codes[i]);
}

static void saved_msg(struct screen *scr, const char *dim)
{
	struct buf b = BUF_INIT;

	codes_text(scr, dim, &b);
	if (b.len)
		screen_msg(scr, MSG_OK, "saved: %s = %s", dim, b.ptr);
	else
		screen_msg(scr, MSG_OK, "saved: %s cleared", dim);
	buf_release(&b);
}

/*
 * Busy, not frozen.  A save waits only PICK_BUSY_MS for another writer (a
 * long import, say); then the pick is kept as pending - shown on the
 * status line, the picker closed so no key typed next can mean something
 * else - and retried every PENDING_RETRY_MS while no key comes, until it
 * is saved, or dropped with Esc.  One pick is pending at a time.
 */
#define PICK_BUSY_MS 300
#define PENDING_RETRY_MS 250
#define IDLE_MS 2000

struct pending_pick {
	long long item_id;
	char *item_name;
	char *dim;
	char **codes;
	size_t nr;
	int toggle;		/* a `select: many` toggle of codes[0] */
	int tries;
};

static void pending_free(struct pending_pick *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr; i++)
		free(p->codes[i]);
	free(p->codes);
	free(p->dim);
	free(p->item_name);
	free(p);
}

static void pending_text(const struct pending_pick *p, struct buf *b)
{
	size_t i;

	buf_addf(b, "%s %s", p->item_name, p->dim);
	buf_addstr(b, p->toggle ? " toggle " : " = ");
	for (i = 0; i < p->nr; i++)
		buf_addf(b, "%s%s", i ? "," : "", p->codes[i]);
	if (!p->nr)
		buf_addstr(b, "(cleared)");
}

static void set_idle(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	screen_set_idle(scr, cs->pending ? PENDING_RETRY_MS : IDLE_MS);
}

static void pending_drop(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	pending_free(cs->pending);
	cs->pending = NULL;
	set_idle(scr);
}

/* Keep the pick that met a busy study; returns 0: it is taken. */
static int pend(struct screen *scr, const char *dim, const char *const *codes,
		size_t n, int toggle)
{
	struct code_state *cs = scr->priv;
	struct pending_pick *p = xcalloc(1, sizeof(*p));
	struct buf b = BUF_INIT;
	size_t i;

	p->item_id = scr->item.id;
	p->item_name = xstrdup(scr->item_name);
	p->dim = xstrdup(dim);
	p->codes = xcalloc(n + 1, sizeof(*p->codes));
	for (i = 0; i < n; i++)
		p->codes[i] = xstrdup(codes[i]);
	p->nr = n;
	p->toggle = toggle;
	cs->pending = p;
	set_idle(scr);
	pending_text(p, &b);
	screen_msg(scr, MSG_INFO, "pending: %s - the study is busy (another "
		   "bugcoder is writing); retrying, Esc drops it", b.ptr);
	buf_release(&b);
	return 0;
}

/* Refuse a second pick while one is pending. */
static int pending_refuse(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct buf b = BUF_INIT;

	pending_text(cs->pending, &b);
	screen_msg(scr, MSG_ERR, "not saved: %s is still pending (the study is "
		   "busy); wait for it, or Esc drops it", b.ptr);
	buf_release(&b);
	return -1;
}

static void saved_msg(struct screen *scr, const char *dim);
static void ask_drop(struct screen *scr, const char *dim);

/* Try the pending pick again: 1 saved (or given up, said why), 0 still
 * busy. */
static int pending_retry(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct pending_pick *p = cs->pending;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	int rc;

	if (!p)
		return 1;
	p->tries++;
	rc = p->toggle ?
	     label_toggle(scr->st, scr->actor, &scr->cb, p->item_id, p->dim,
			  p->codes[0], &e) :
	     label_set(scr->st, scr->actor, &scr->cb, p->item_id, p->dim,
		       (const char *const *)p->codes, p->nr, 0, &e);
	pending_text(p, &b);
	if (rc < 0 && e.code == ERR_BUSY) {
		screen_msg(scr, MSG_INFO, "pending: %s - the study is still "
			   "busy (%d tries); retrying, Esc drops it", b.ptr,
			   p->tries);
		buf_release(&b);
		return 0;
	}
	if (rc < 0) {
		if (e.code == ERR_STALE)
			cs->cb_stale = 1;
		screen_msg(scr, MSG_ERR, "not saved: %s: %s", b.ptr, e.msg);
	} else if (p->item_id == scr->item.id) {
		reload_coding(scr);
		saved_msg(scr, p->dim);
	} else {
		screen_msg(scr, MSG_OK, "saved: %s", b.ptr);
	}
	buf_release(&b);
	pending_drop(scr);
	return 1;
}

int screen_save_codes(struct screen *scr, const struct dimension *dim,
		      const char *const *codes, size_t n)
{
	struct code_state *cs = scr->priv;

	static const char *const none[1] = { NULL };
	struct err e = ERR_INIT;
	const struct coded_dim *cd;

	/* label_set copies codes[0..n): never hand it NULL, even for 0 */
	if (!codes)
		codes = none;
	if (scr->pick_ops)
		return scr->pick_ops->set_codes(scr, dim, codes, n);
	/* the code chosen already (as the study has it now, not as the
	 * screen last read it): saving it again would only detach the
	 * proposal an `other` label carries (label_set attaches none) */
	reload_coding(scr);
	cd = coding_dim(&cs->coding, dim->key);
	if (n == 1 && cd && cd->nr_codes == 1 &&
	    !strcmp(cd->codes[0], codes[0])) {
		screen_msg(scr, MSG_INFO, "already saved: %s = %s%s", dim->key,
			   codes[0], cd->proposal_id ? " (with its proposal)" :
			   "");
		return 0;
	}
	if (cs->pending)
		return pending_refuse(scr);
	if (label_set(scr->st, scr->actor, &scr->cb, scr->item.id, dim->key,
		      codes, n, 0, &e) < 0) {
		if (e.code == ERR_BUSY)
			return pend(scr, dim->key, codes, n, 0);
		save_failed(scr, &e, "not saved");
		return -1;
	}
	reload_coding(scr);
	saved_msg(scr, dim->key);
	if (n)
		cs->last_dim = (int)(dim - scr->cb.dims);
	else
		ask_drop(scr, dim->key);
	return 0;
}

int screen_save_toggle(struct screen *scr, const struct dimension *dim,
		       const char *code)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;

	if (scr->pick_ops)
		return scr->pick_ops->toggle(scr, dim, code);
	if (cs->pending)
		return pending_refuse(scr);
	if (label_toggle(scr->st, scr->actor, &scr->cb, scr->item.id,
			 dim->key, code, &e) < 0) {
		if (e.code == ERR_BUSY)
			return pend(scr, dim->key, &code, 1, 1);
		save_failed(scr, &e, "not saved");
		return -1;
	}
	reload_coding(scr);
	saved_msg(scr, dim->key);
	if (coding_dim(&cs->coding, dim->key))
		cs->last_dim = (int)(dim - scr->cb.dims);
	else
		ask_drop(scr, dim->key);
	return 0;
}

int screen_save_memo(struct screen *scr, const char *text)
{
	struct err e = ERR_INIT;
	size_t lines = 0;
	const char *p;

	if (label_memo(scr->st, scr->actor, scr->item.id, text, &e) < 0) {
		screen_msg(scr, MSG_ERR, "memo not saved: %s", e.msg);
		return -1;
	}
	reload_coding(scr);
	if (!text || !*text) {
		screen_msg(scr, MSG_OK, "saved: memo removed");
		return 0;
	}
	for (p = text, lines = 1; *p; p++)
		if (*p == '\n' && p[1])
			lines++;
	screen_msg(scr, MSG_OK, "saved: memo (%zu line%s)", lines,
		   lines == 1 ? "" : "s");
	return 0;
}

int screen_save_proposal(struct screen *scr, const struct dimension *dim,
			 const char *key, const char *name,
			 const char *definition)
{
	struct err e = ERR_INIT;
	long long id = 0;

	if (label_propose(scr->st, scr->actor, &scr->cb, scr->item.id,
			  dim->key, key, name, definition, &id, &e) < 0) {
		save_failed(scr, &e, "not proposed");
		return -1;
	}
	/* a draft of it has served */
	draft_remove(scr->st, scr->actor, scr->item.id, DRAFT_PROPOSAL,
		     dim->key, &e);
	reload_coding(scr);
	screen_msg(scr, MSG_OK, "saved: proposal %s=%s (#%lld); %s = other "
		   "until it is decided", dim->key, key, id, dim->key);
	return 0;
}

int screen_has_code(struct screen *scr, const char *dim, const char *code)
{
	struct code_state *cs = scr->priv;
	const struct coded_dim *cd;
	size_t i;

	if (scr->pick_ops)
		return scr->pick_ops->has_code(scr, dim, code);
	cd = coding_dim(&cs->coding, dim);
	for (i = 0; cd && i < cd->nr_codes; i++)
		if (!strcmp(cd->codes[i], code))
			return 1;
	return 0;
}

static void toggle_flag(struct screen *scr, const char *flag, int on)
{
	struct err e = ERR_INIT;

	if (label_flag(scr->st, scr->actor, scr->item.id, flag, on, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not saved: %s", e.msg);
		return;
	}
	reload_coding(scr);
	screen_msg(scr, MSG_OK, "saved: %s %s", flag, on ? "on" : "off");
}

/* ---- time on the item (drift) --------------------------------------- */

/*
 * The clock the time on an item is measured with: the monotonic clock,
 * or, for tests, BUGCODER_KEY_GAPS - a comma-separated list of seconds,
 * the k-th the gap before the k-th key (the last one repeats), so that a
 * key script can stand for hours of work in no time.
 */
static double clock_now(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct timespec ts;

	if (cs->key_gaps)
		return cs->fake_now;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Advance the test clock by the next gap of the list. */
static void clock_tick(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	const char *p = cs->key_gaps, *comma;
	char *end;
	double gap;

	if (!p || !*p)
		return;
	gap = strtod(p, &end);
	if (end != p && gap > 0)
		cs->fake_now += gap;
	comma = strchr(p, ',');
	if (comma && comma[1])
		cs->key_gaps = comma + 1;
}

/* A key came: the gap since the last one counts for the item open,
 * unless it is longer than DRIFT_IDLE_CUTOFF. */
static void time_key(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	double now;

	clock_tick(scr);
	now = clock_now(scr);
	if (cs->last_key >= 0 && now - cs->last_key <= DRIFT_IDLE_CUTOFF &&
	    now > cs->last_key)
		cs->item_secs += now - cs->last_key;
	cs->last_key = now;
}

/* Save the time on the item so far (leaving it, submitting it, quitting).
 * 0, or -1 with `e`; the time is kept for the next try then. */
static int time_save(struct screen *scr, struct err *e)
{
	struct code_state *cs = scr->priv;

	if (!(cs->item_secs > 0) || scr->item.id <= 0)
		return 0;
	if (drift_add_time(scr->st, scr->actor, scr->item.id, cs->item_secs,
			   e) < 0)
		return -1;
	cs->item_secs = 0;
	return 0;
}

/* ---- evidence ------------------------------------------------------- */

static void cite_drop(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	if (cs->citing) {
		evidence_cite_release(cs->citing);
		free(cs->citing);
		cs->citing = NULL;
	}
}

static struct pager *focus_pager(struct screen *scr)
{
	struct view *v = &scr->panes[scr->focus];

	return v->ops->pager ? v->ops->pager(v) : NULL;
}

static void panes_dirty(struct screen *scr)
{
	scr->panes[0].dirty = scr->panes[1].dirty = 1;
	scr->dirty |= DIRTY_PANES;
}

/* What `e` cites without a line cursor: the current search match when
 * it is in view, else what the pane offers (the fix pane: its first
 * changed line in view, and with `whole` the rest of their run). */
static int cite_target(struct screen *scr, int whole, size_t *from,
		       size_t *to)
{
	struct view *v = &scr->panes[scr->focus];
	struct pager *pg = focus_pager(scr);

	if (!pg)
		return 0;
	if (pg->match != NO_MATCH && pager_in_view(pg, pg->match)) {
		*from = *to = pg->match;
		return 1;
	}
	return v->ops->target && v->ops->target(v, whole, from, to);
}

/* `e`: the lines under the cursor (or, without one, cite_target()'s)
 * become the citation waiting for its dimension's key. */
static void cite_begin(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct view *v = &scr->panes[scr->focus];
	struct pager *pg = focus_pager(scr);
	struct evidence_cite c;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	size_t from, to;

	cite_drop(scr);
	if (!pg || !v->ops->cite || (!pager_cursor_range(pg, &from, &to) &&
				     !cite_target(scr, 0, &from, &to))) {
		screen_msg(scr, MSG_ERR, "nothing to cite in view: . shows a "
			   "line cursor, v marks a range, e cites it (or a "
			   "search match, or the fix's first change in "
			   "view)");
		return;
	}
	if (v->ops->cite(v, from, to, &c, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not cited: %s", e.msg);
		return;
	}
	cs->citing = xmalloc(sizeof(*cs->citing));
	*cs->citing = c;
	evidence_format(&c, &b);
	if (cs->last_dim >= 0 && (size_t)cs->last_dim < scr->cb.nr_dims) {
		char kn[32];
		int k = keymap_key_for(KEYMAP_MAIN, ACT_CITE);

		screen_msg(scr, MSG_INFO, "cite %s for which dimension? %s: "
			   "%s (last coded), or 1-%zu; Esc cancels", b.ptr,
			   k ? keyname_hint(k, kn) : "Enter",
			   scr->cb.dims[cs->last_dim].key,
			   scr->cb.nr_dims < 9 ? scr->cb.nr_dims : (size_t)9);
	}
	else
		screen_msg(scr, MSG_INFO, "cite %s for which dimension? 1-%zu "
			   "(Esc cancels)", b.ptr, scr->cb.nr_dims < 9 ?
			   scr->cb.nr_dims : (size_t)9);
	buf_release(&b);
}

/* The key after `e`: the dimension to cite the lines for - a digit, or
 * the cite key again (or Enter) for the one last coded. */
static void cite_key(struct screen *scr, int key)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	struct pager *pg;
	size_t i = (size_t)(key - '1');
	const char *dim;

	/* the cite key again (e), or Enter: the dimension coded last */
	if ((keymap_lookup(KEYMAP_MAIN, key) == ACT_CITE || key == TK_ENTER) &&
	    cs->last_dim >= 0 && (size_t)cs->last_dim < scr->cb.nr_dims)
		i = (size_t)cs->last_dim;
	else if (key < '1' || key > '9' || i >= scr->cb.nr_dims) {
		screen_msg(scr, MSG_INFO, "not cited");
		cite_drop(scr);
		return;
	}
	dim = scr->cb.dims[i].key;
	evidence_format(cs->citing, &b);
	if (evidence_add(scr->st, scr->actor, &scr->cb, scr->item.id, dim,
			 cs->citing, NULL, &e) < 0) {
		if (e.code == ERR_STALE)
			save_failed(scr, &e, "not cited");
		else
			screen_msg(scr, MSG_ERR, "not cited: %s: %s", b.ptr,
				   e.msg);
	} else {
		reload_coding(scr);
		screen_msg(scr, MSG_OK, "cited %s for %s (E lists your "
			   "citations)", b.ptr, dim);
		pg = focus_pager(scr);
		if (pg)
			pg->mark = NO_MATCH;
		panes_dirty(scr);
	}
	buf_release(&b);
	cite_drop(scr);
}

/* `v`: a range at the line cursor, or, without one, the lines `e` would
 * cite with the rest of their run, under a cursor. */
static void mark_range(struct screen *scr)
{
	struct pager *pg = focus_pager(scr);
	size_t from, to;

	if (!pg)
		return;
	if (!pg->cursor_on && cite_target(scr, 1, &from, &to)) {
		pager_cursor(pg, 1);
		pg->cursor = to;
		pg->mark = from;
		screen_msg(scr, MSG_INFO, "range of %zu line%s: e cites it, "
			   "j/k change it, v drops it", to - from + 1,
			   to == from ? "" : "s");
	} else {
		pager_mark(pg);
		screen_msg(scr, MSG_INFO, pg->mark != NO_MATCH ? "range from "
			   "the cursor line: j/k extend it, e cites it" :
			   "range dropped");
	}
	panes_dirty(scr);
}

/* ---- clearing a dimension: its citations ----------------------------- */

struct dim_count {
	const char *dim;
	size_t nr;
};

static int count_cites(const struct evidence_row *row, void *data)
{
	struct dim_count *dc = data;

	dc->nr += !strcmp(row->dimension, dc->dim);
	return 0;
}

/* A dimension was cleared: when it has citations, ask whether they go
 * too (the next key answers). */
static void ask_drop(struct screen *scr, const char *dim)
{
	struct code_state *cs = scr->priv;
	struct dim_count dc = { dim, 0 };
	struct err e = ERR_INIT;

	if (evidence_each(scr->st, scr->actor, scr->item.id,
			  scr->actor->member_id, count_cites, &dc, &e) < 0 ||
	    !dc.nr)
		return;
	free(cs->drop_dim);
	cs->drop_dim = xstrdup(dim);
	cs->drop_nr = dc.nr;
	screen_msg(scr, MSG_INFO, "saved: %s cleared; drop its %zu "
		   "citation%s too? y drops, any other key keeps", dim, dc.nr,
		   dc.nr == 1 ? "" : "s");
}

/* The answer to ask_drop(): y drops the citations, any other key keeps
 * them (and is used up). */
static void drop_key(struct screen *scr, int key)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;
	size_t n = 0;
	char *dim = cs->drop_dim;

	cs->drop_dim = NULL;
	if (key == 'y' || key == 'Y') {
		if (evidence_remove_dim(scr->st, scr->actor, scr->item.id, dim,
					&n, &e) < 0)
			screen_msg(scr, MSG_ERR, "citations of %s not dropped: "
				   "%s", dim, e.msg);
		else
			screen_msg(scr, MSG_OK, "dropped: %zu citation%s of %s",
				   n, n == 1 ? "" : "s", dim);
		reload_coding(scr);
	} else {
		screen_msg(scr, MSG_INFO, "kept: %zu citation%s of %s (E lists "
			   "them)", cs->drop_nr, cs->drop_nr == 1 ? "" : "s",
			   dim);
	}
	free(dim);
}

int screen_remove_citation(struct screen *scr, long long id)
{
	struct err e = ERR_INIT;

	if (evidence_remove(scr->st, scr->actor, scr->item.id, id, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not removed: %s", e.msg);
		return -1;
	}
	reload_coding(scr);
	panes_dirty(scr);
	return 0;
}

/* ---- items ---------------------------------------------------------- */

static int load_item(struct screen *scr, long long id, struct err *e)
{
	struct code_state *cs = scr->priv;
	struct item it;
	struct coding c = CODING_INIT;
	size_t i;

	if (item_load_flags(scr->st, id, &it, ITEM_LOAD_NO_DIFF, e) < 0)
		return -1;
	if (id != scr->item.id && time_save(scr, e) < 0) {
		item_release(&it);
		return -1;
	}
	if (coding_load(scr->st, scr->actor, id, scr->actor->member_id, &c,
			e) < 0) {
		item_release(&it);
		return -1;
	}
	while (scr->nr_overlays)
		screen_pop(scr);
	if (choose_codebook(scr, id, e) < 0) {
		item_release(&it);
		coding_release(&c);
		return -1;
	}
	item_release(&scr->item);
	coding_release(&cs->coding);
	scr->item = it;
	cs->coding = c;
	cite_drop(scr);
	cs->last_dim = -1;
	free(cs->drop_dim);
	cs->drop_dim = NULL;
	if (reload_evidence(scr, e) < 0 || reload_recodes(scr, e) < 0)
		return -1;
	free(scr->item_name);
	scr->item_name = item_name(it.repo, it.number);
	cs->qpos = NOT_QUEUED;
	for (i = 0; i < cs->q.nr; i++)
		if (queue_item(&cs->q, i) == id) {
			cs->qpos = i;
			break;
		}
	/* the bar's height follows the codebook (or screening question) */
	if (!scr->too_small && scr->rows)
		screen_relayout(scr);
	screen_open_panes(scr);
	scr->dirty |= DIRTY_ALL;
	return 0;
}

static void go_item(struct screen *scr, size_t qpos, const char *verb)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;

	if (load_item(scr, queue_item(&cs->q, qpos), &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return;
	}
	if (verb)
		screen_msg(scr, MSG_INFO, "%s %s (%zu of %zu)", verb,
			   scr->item_name, qpos + 1, cs->q.nr);
}

/* The next queue position after `from` (NOT_QUEUED: from the start)
 * not submitted, skipping `from` itself; NOT_QUEUED when none. */
static size_t next_todo(const struct screen *scr, size_t from)
{
	struct code_state *cs = scr->priv;
	size_t k, n = cs->q.nr;

	for (k = 1; k <= n; k++) {
		size_t i = from == NOT_QUEUED ? k - 1 : (from + k) % n;

		if (i == from)
			continue;
		if (!queue_submitted(&cs->q, i))
			return i;
	}
	return NOT_QUEUED;
}

static void submit(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;
	size_t next;
	char *name;

	if (label_submit(scr->st, scr->actor, &scr->cb, scr->item.id,
			 &e) < 0) {
		if (e.code == ERR_STALE)
			save_failed(scr, &e, "not submitted");
		else
			screen_msg(scr, MSG_ERR, "%s", e.msg);
		return;
	}
	if (cs->qpos != NOT_QUEUED)
		queue_mark_submitted(&cs->q, cs->qpos);
	if (time_save(scr, &e) < 0)
		screen_msg(scr, MSG_ERR, "time on the item not saved: %s",
			   e.msg);
	reload_coding(scr);
	name = xstrdup(scr->item_name);
	next = next_todo(scr, cs->qpos);
	if (next == NOT_QUEUED) {
		screen_msg(scr, MSG_OK, "submitted %s; all %zu items of your "
			   "queue are submitted", name, cs->q.nr);
	} else {
		go_item(scr, next, NULL);
		screen_msg(scr, MSG_OK, "submitted %s (%zu/%zu done); now %s",
			   name, cs->q.nr_submitted, cs->q.nr,
			   scr->item_name);
	}
	free(name);
}

/* ---- layout --------------------------------------------------------- */

static int dim_label_width(const struct dimension *d, size_t i)
{
	return (i < 9 ? 2 : 0) + text_width(d->key, strlen(d->key)) + 2;
}

static int dim_value_width(const struct dimension *d)
{
	size_t i;
	int w = 3;

	for (i = 0; i < d->nr_codes; i++) {
		int k = text_width(d->codes[i].key, strlen(d->codes[i].key));

		if (k > w)
			w = k;
	}
	return w > BAR_VALUE_MAX ? BAR_VALUE_MAX : w;
}

/* Where cell i of the coding bar goes (cy and cx, may be NULL, have a
 * slot per dimension): rows needed for `cols`. */
static int bar_flow(const struct screen *scr, int cols, int *cy, int *cx)
{
	int row = 0, x = 1;
	size_t i;

	for (i = 0; i < scr->cb.nr_dims; i++) {
		const struct dimension *d = &scr->cb.dims[i];
		int w = dim_label_width(d, i) + dim_value_width(d);

		if (x + w > cols && x > 1) {
			row++;
			x = 1;
		}
		if (cy)
			cy[i] = row;
		if (cx)
			cx[i] = x;
		x += w + 2;
	}
	return row + 1;
}

/* The coding bar's height: the codebook's alone, so that picking never
 * moves the panes. */
static int bar_rows(struct screen *scr)
{
	int rows = bar_flow(scr, scr->cols, NULL, NULL);

	return rows > 4 ? 4 : rows;
}

/* ---- drawing -------------------------------------------------------- */

static void draw_header(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct buf right = BUF_INIT;

	if (cs->coding.memo)
		buf_addstr(&right, "[memo] ");
	if (cs->coding.uncertain)
		buf_addstr(&right, "[uncertain] ");
	if (cs->coding.discuss)
		buf_addstr(&right, "[discuss] ");
	if (cs->coding.submitted)
		buf_addstr(&right, "[submitted] ");
	buf_addf(&right, " %zu/%zu done  ", cs->q.nr_submitted, cs->q.nr);
	sanitize_line(&right, scr->actor->name);
	buf_addch(&right, ' ');
	screen_draw_header(scr, right.ptr);
	buf_release(&right);
}

static void draw_bar(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	WINDOW *w = scr->bar;
	struct buf b = BUF_INIT;
	size_t i, n = scr->cb.nr_dims;
	/* a cell per dimension: the codebook sets how many there are */
	int *cy = xcalloc(n + 1, sizeof(*cy)), *cx = xcalloc(n + 1,
							      sizeof(*cx));

	werase(w);
	bar_flow(scr, scr->cols, cy, cx);
	for (i = 0; i < n; i++) {
		const struct dimension *d = &scr->cb.dims[i];
		const struct coded_dim *cd = coding_dim(&cs->coding, d->key);
		int x = cx[i], vw = dim_value_width(d);
		int active = scr->picking == (int)i;

		if (cy[i] >= scr->bar_rows)
			break;
		buf_reset(&b);
		if (i < 9) {
			/* `"` after the number: the actor cited evidence */
			int ev = i < 64 && (cs->ev_dims >> i & 1);

			buf_addf(&b, "%zu", i + 1);
			x += draw_str(w, cy[i], x, 1, b.ptr, b.len,
				      active ? SLOT_SEL : SLOT_BAR_KEY);
			x += draw_str(w, cy[i], x, 1, ev ? "\"" : " ", 1,
				      active ? SLOT_SEL : ev ? SLOT_BAR_KEY :
				      SLOT_BAR);
		}
		buf_reset(&b);
		sanitize_line(&b, d->key);
		buf_addstr(&b, ":");
		x += draw_str(w, cy[i], x, scr->cols - x, b.ptr, b.len,
			      active ? SLOT_SEL : SLOT_BAR);
		x += draw_str(w, cy[i], x, 1, " ", 1, SLOT_BAR);
		buf_reset(&b);
		if (cd) {
			size_t k;

			for (k = 0; k < cd->nr_codes; k++) {
				if (k)
					buf_addch(&b, ',');
				sanitize_line(&b, cd->codes[k]);
			}
			if (cd->proposal_id)
				buf_addstr(&b, "+");
			draw_str(w, cy[i], x, vw, b.ptr, b.len, SLOT_BAR_SET);
		} else if (cs->recode_was && cs->recode_was[i]) {
			/* a split took its code: recode it */
			buf_addstr(&b, "was ");
			sanitize_line(&b, cs->recode_was[i]);
			draw_str(w, cy[i], x, vw, b.ptr, b.len,
				 SLOT_BAR_MISSING);
		} else {
			draw_str(w, cy[i], x, vw, "[ ]", 3, d->required ?
				 SLOT_BAR_MISSING : SLOT_BAR_EMPTY);
		}
	}
	wnoutrefresh(w);
	buf_release(&b);
	free(cy);
	free(cx);
}

/* The status line's hints: the keys in force (a keys file's too). */
static void hints(struct screen *scr, struct buf *b)
{
	size_t n = scr->cb.nr_dims > 9 ? 9 : scr->cb.nr_dims;

	if (n && keymap_lookup(KEYMAP_MAIN, '1') == ACT_PICK_DIM &&
	    keymap_lookup(KEYMAP_MAIN, (int)('0' + n)) == ACT_PICK_DIM)
		buf_addf(b, "1-%zu code  ", n);
	else
		screen_hint(b, KEYMAP_MAIN, ACT_PICK_UNCODED, ACT_NONE, "code");
	screen_hint(b, KEYMAP_MAIN, ACT_SUBMIT, ACT_NONE, "submit");
	screen_hint(b, KEYMAP_MAIN, ACT_MEMO, ACT_NONE, "memo");
	screen_hint(b, KEYMAP_MAIN, ACT_UNCERTAIN, ACT_DISCUSS, "flag");
	if (!scr->split)
		screen_hint(b, KEYMAP_MAIN, ACT_SWITCH_PANE, ACT_NONE, "pane");
	screen_hint(b, KEYMAP_MAIN, ACT_NEXT_HUNK, ACT_PREV_HUNK, "hunk");
	screen_hint(b, KEYMAP_MAIN, ACT_SEARCH, ACT_NONE, "search");
	screen_hint(b, KEYMAP_MAIN, ACT_NEXT_ITEM, ACT_PREV_ITEM, "item");
	screen_hint(b, KEYMAP_MAIN, ACT_HELP, ACT_NONE, "help");
	screen_hint(b, KEYMAP_MAIN, ACT_QUIT, ACT_NONE, "quit");
	/* no trailing blanks */
	while (b->len && b->ptr[b->len - 1] == ' ')
		buf_setlen(b, b->len - 1);
}

static void draw_status(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct buf b = BUF_INIT, pos = BUF_INIT;

	if (cs->qpos != NOT_QUEUED)
		buf_addf(&pos, " item %zu/%zu ", cs->qpos + 1, cs->q.nr);
	else
		buf_addstr(&pos, " not in your queue ");
	hints(scr, &b);
	screen_draw_status(scr, b.ptr, pos.ptr);
	buf_release(&b);
	buf_release(&pos);
}

/* ---- keys ----------------------------------------------------------- */

/* The annotator's own actions (the frame's are screen_action()'s);
 * returns 1 when `a` was one. */
static int code_action(struct screen *scr, enum action a, int key)
{
	struct code_state *cs = scr->priv;
	size_t i;

	switch (a) {
	case ACT_PICK_DIM:
		i = (size_t)(key - '1');
		if (key < '1' || key > '9' || i >= scr->cb.nr_dims) {
			screen_msg(scr, MSG_ERR, "the codebook has %zu "
				   "dimension%s", scr->cb.nr_dims,
				   scr->cb.nr_dims == 1 ? "" : "s");
			return 1;
		}
		screen_open_picker(scr, i);
		return 1;
	case ACT_PICK_UNCODED:
		for (i = 0; i < scr->cb.nr_dims; i++)
			if (!coding_dim(&cs->coding, scr->cb.dims[i].key))
				break;
		if (i == scr->cb.nr_dims) {
			screen_msg(scr, MSG_INFO, "every dimension is coded; "
				   "s submits");
			return 1;
		}
		screen_open_picker(scr, i);
		return 1;
	case ACT_LINE_CURSOR: {
		struct pager *pg = focus_pager(scr);

		if (!pg)
			return 0;
		pager_cursor(pg, !pg->cursor_on);
		screen_msg(scr, MSG_INFO, pg->cursor_on ? "line cursor: j/k "
			   "move it, v marks a range, e cites it, . hides it" :
			   "line cursor hidden");
		panes_dirty(scr);
		return 1;
	}
	case ACT_MARK_RANGE:
		if (!focus_pager(scr))
			return 0;
		mark_range(scr);
		return 1;
	case ACT_CITE:
		cite_begin(scr);
		return 1;
	case ACT_CITATIONS:
		screen_push(scr, &citations_view_ops);
		return 1;
	case ACT_MEMO:
		screen_open_memo(scr, NULL);
		return 1;
	case ACT_MEMO_EDITOR: {
		char *text = screen_run_editor(scr, cs->coding.memo);

		if (text) {
			/* compared first: saving reloads the coding, and
			 * with it the old memo */
			int same = !strcmp(cs->coding.memo ?
					   cs->coding.memo : "", text);

			/* not saved (too long, say): kept in the memo
			 * editor, to be cut and saved there */
			if (same)
				screen_msg(scr, MSG_INFO, "memo unchanged");
			else if (screen_save_memo(scr, text) < 0)
				screen_open_memo(scr, text);
			free(text);
		}
		return 1;
	}
	case ACT_UNCERTAIN:
		toggle_flag(scr, "uncertain", !cs->coding.uncertain);
		return 1;
	case ACT_DISCUSS:
		toggle_flag(scr, "discuss", !cs->coding.discuss);
		return 1;
	case ACT_SUBMIT:
		submit(scr);
		return 1;
	case ACT_NEXT_ITEM:
		if (!cs->q.nr)
			return 1;
		if (cs->qpos == NOT_QUEUED)
			go_item(scr, 0, "item");
		else if (cs->qpos + 1 < cs->q.nr)
			go_item(scr, cs->qpos + 1, "item");
		else
			screen_msg(scr, MSG_INFO, "last item of your queue");
		return 1;
	case ACT_PREV_ITEM:
		if (!cs->q.nr)
			return 1;
		if (cs->qpos == NOT_QUEUED)
			go_item(scr, 0, "item");
		else if (cs->qpos > 0)
			go_item(scr, cs->qpos - 1, "item");
		else
			screen_msg(scr, MSG_INFO, "first item of your queue");
		return 1;
	case ACT_NEXT_TODO:
		i = next_todo(scr, cs->qpos);
		if (i == NOT_QUEUED)
			screen_msg(scr, MSG_INFO, "no other item of your "
				   "queue is waiting");
		else
			go_item(scr, i, "to do:");
		return 1;
	default:
		return 0;
	}
}

/*
 * A save met a newer codebook version: close the overlays that show
 * codes of the old one (the picker, the proposal form, the codebook), so
 * the keys typed next cannot mean a code that has gone, then load the
 * new version, lay the coding bar out for it, and say so.
 */
static void reload_codebook(struct screen *scr, int saving)
{
	struct code_state *cs = scr->priv;
	struct codebook cb = CODEBOOK_INIT;
	struct err e = ERR_INIT;
	struct view *v;
	int kept = 0;

	cs->cb_stale = 0;
	while ((v = screen_top(scr)) && (v->ops == &picker_view_ops ||
					 v->ops == &form_view_ops ||
					 screen_is_codebook(v))) {
		/* a proposal being typed stays, as a draft */
		if (v->ops->hangup && v->ops->hangup(v))
			kept = 1;
		screen_pop(scr);
	}
	if (study_codebook(scr->st, &cb, NULL, &e) < 0) {
		screen_msg(scr, MSG_ERR, "the codebook changed and could not "
			   "be read again: %s", e.msg);
		return;
	}
	if (screening_is_codebook(&scr->cb)) {
		/* the item shows its screening question meanwhile */
		codebook_release(&cs->study_cb);
		cs->study_cb = cb;
	} else {
		recodes_free(scr);
		codebook_release(&scr->cb);
		scr->cb = cb;
	}
	scr->picking = -1;
	reload_coding(scr);
	if (scr->rows && !scr->too_small)
		screen_relayout(scr);
	scr->dirty |= DIRTY_ALL;
	if (saving)
		screen_msg(scr, MSG_ERR, "not saved: the codebook is now %s %s; "
			   "reloaded, pick again%s", scr->cb.name,
			   scr->cb.version, kept ? " (the proposal is kept as "
			   "a draft)" : "");
	else
		screen_msg(scr, MSG_INFO, "the codebook is now %s %s, loaded "
			   "elsewhere; reloaded%s", scr->cb.name,
			   scr->cb.version, kept ? " (the proposal is kept as "
			   "a draft)" : "");
}

/* The queue again, the same item selected (submissions made elsewhere
 * show in its "done" count). */
static void reload_queue(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct queue q = QUEUE_INIT;
	struct err e = ERR_INIT;
	size_t i;

	if (queue_load(scr->st, scr->actor->member_id, &q, &e) < 0)
		return;
	queue_release(&cs->q);
	cs->q = q;
	cs->qpos = NOT_QUEUED;
	for (i = 0; i < cs->q.nr; i++)
		if (queue_item(&cs->q, i) == scr->item.id) {
			cs->qpos = i;
			break;
		}
}

/*
 * Idle: has another process changed the study?  PRAGMA data_version
 * says so cheaply; then what this screen shows of it is read again - the
 * codebook (when a new version came in), the actor's own coding, the
 * queue - and redrawn.  Items themselves are as they were imported.
 */
static void code_idle(struct screen *scr)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;

	if (cs->pending && pending_retry(scr) && cs->cb_stale)
		reload_codebook(scr, 1);
	/* the study file alone holds everything saved so far */
	store_checkpoint(scr->st);
	if (store_changed(scr->st, &e) <= 0)
		return;
	if (study_codebook_current(scr->st, screening_is_codebook(&scr->cb) ?
				   &cs->study_cb : &scr->cb, &e) < 0 &&
	    e.code == ERR_STALE)
		reload_codebook(scr, 0);
	reload_coding(scr);
	reload_queue(scr);
	scr->dirty |= DIRTY_HEADER | DIRTY_BAR | DIRTY_STATUS;
}

/* A key before the frame's: the clock, and what the screen asked for
 * (a dimension for `e`, whether to drop citations); a pick pending
 * takes Esc (drop it) and q (not while it waits). */
static int code_key(struct screen *scr, int key)
{
	struct code_state *cs = scr->priv;

	time_key(scr);
	if (cs->drop_dim) {
		drop_key(scr, key);
		return 1;
	}
	if (cs->citing) {
		cite_key(scr, key);
		return 1;
	}
	if (cs->pending && !scr->nr_overlays && !scr->prompting &&
	    !scr->too_small) {
		struct buf b = BUF_INIT;

		if (key == TK_ESC) {
			pending_text(cs->pending, &b);
			screen_msg(scr, MSG_INFO, "dropped: %s is not saved",
				   b.ptr);
			buf_release(&b);
			pending_drop(scr);
			return 1;
		}
		if (keymap_lookup(KEYMAP_MAIN, key) == ACT_QUIT &&
		    !pending_retry(scr)) {
			pending_text(cs->pending, &b);
			screen_msg(scr, MSG_ERR, "%s is still pending (the "
				   "study is busy): wait for it, or Esc drops "
				   "it", b.ptr);
			buf_release(&b);
			return 1;
		}
	}
	return 0;
}

/* An overlay (the picker, the form) or the screen itself may have saved
 * and found the codebook changed: it is loaded again after the key. */
static void code_after_key(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	if (cs->cb_stale)
		reload_codebook(scr, 1);
}

/* The screen was stopped (a signal, a lost terminal): a pick still
 * pending gets one last try, then the frame lets the overlays keep what
 * was typed. */
static void code_hangup(struct screen *scr, struct err *e)
{
	struct code_state *cs = scr->priv;

	if (e->code == ERR_INTERRUPTED || e->code == ERR_IO) {
		struct err te = ERR_INIT;

		/* what is kept now may wait for another writer as long as
		 * the command line would */
		store_busy_timeout(scr->st, -1);
		time_save(scr, &te);
		if (cs->pending && !pending_retry(scr)) {
			char msg[sizeof(e->msg)];
			struct buf b = BUF_INIT;

			pending_text(cs->pending, &b);
			snprintf(msg, sizeof(msg), "%s", e->msg);
			err_set(e, e->code, "%s; the pending %s was not saved "
				"(the study stayed busy)", msg, b.ptr);
			buf_release(&b);
			pending_drop(scr);
		}
	}
	screen_hangup(scr, e);
}

/* ---- entry ---------------------------------------------------------- */

static void code_close(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	pending_free(cs->pending);
	cs->pending = NULL;
	cite_drop(scr);
	free(cs->drop_dim);
	coding_release(&cs->coding);
	recodes_free(scr);
	codebook_release(&cs->study_cb);
	queue_release(&cs->q);
}

static const struct screen_ops code_screen_ops = {
	.name = "code",
	.keymap = KEYMAP_MAIN,
	.private_size = sizeof(struct code_state),
	.panel_rows = bar_rows,
	.draw_header = draw_header,
	.draw_panel = draw_bar,
	.draw_status = draw_status,
	.key = code_key,
	.action = code_action,
	.after_key = code_after_key,
	.idle = code_idle,
	.idle_ms = IDLE_MS,
	.hangup = code_hangup,
	.close = code_close,
};

const struct coding *screen_coding(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	return scr->ops == &code_screen_ops ? &cs->coding : NULL;
}

int screen_pick_pending(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	return scr->ops == &code_screen_ops && cs->pending;
}

int tui_code(struct store *st, const struct actor *a, const char *name,
	     struct err *e)
{
	struct screen scr;
	struct code_state *cs;
	long long id = -1;
	size_t i;
	int ret = -1;

	/* the screen reads one item at a time and diffs in windows: a small
	 * page cache serves it, and a screen open all day stays small */
	store_small_cache(st);
	screen_init(&scr, &code_screen_ops, st, a);
	cs = scr.priv;
	cs->qpos = NOT_QUEUED;
	cs->last_dim = -1;
	cs->last_key = -1;
	cs->key_gaps = priv_hook_env("BUGCODER_KEY_GAPS");

	if (actor_require(a, ROLES(ROLE_ANNOTATOR) | ROLES(ROLE_OWNER),
			  "coding items", e) < 0)
		goto out;
	/* what is read from here on is what later changes are against */
	if (store_changed(st, e) < 0)
		goto out;
	if (study_codebook(st, &scr.cb, NULL, e) < 0)
		goto out;
	if (queue_load(st, a->member_id, &cs->q, e) < 0)
		goto out;
	if (name) {
		id = item_find(st, name, e);
		if (id < 0)
			goto out;
	} else {
		if (!cs->q.nr) {
			err_set(e, ERR_NOTFOUND, "no items to code for %s: "
				"the study has none, or no round gives %s any",
				a->name, a->name);
			goto out;
		}
		id = queue_item(&cs->q, 0);
		for (i = 0; i < cs->q.nr; i++)
			if (!queue_submitted(&cs->q, i)) {
				id = queue_item(&cs->q, i);
				break;
			}
	}
	if (load_item(&scr, id, e) < 0)
		goto out;
	if (cs->qpos == NOT_QUEUED) {
		struct label_verdict v;
		int may = access_label_item(st, a, id, &v, e);

		if (may < 0)
			goto out;
		/* the labelling rule says why, and saves are refused */
		if (may == LABEL_NO)
			screen_msg(&scr, MSG_ERR, "not in your queue, read "
				   "only: %s", v.why);
		else
			screen_msg(&scr, MSG_INFO, "%s is not in your queue",
				   scr.item_name);
		free(v.why);
	}
	else if (!name && cs->q.nr_submitted == cs->q.nr)
		screen_msg(&scr, MSG_INFO, "all %zu items of your queue are "
			   "submitted", cs->q.nr);

	store_busy_timeout(st, PICK_BUSY_MS);
	if (screen_start(&scr, e) < 0)
		goto out;
	cs->last_key = clock_now(&scr);	/* the item is open from now */
	ret = screen_run(&scr, e);
	if (ret == 0 && cs->pending) {
		/* the loop ended with a pick pending: one last try, as long
		 * as the command line would wait */
		store_busy_timeout(st, -1);
		if (!pending_retry(&scr)) {
			struct buf b = BUF_INIT;

			pending_text(cs->pending, &b);
			ret = err_set(e, ERR_BUSY, "%s was not saved: the study "
				      "stayed busy", b.ptr);
			buf_release(&b);
		}
	}
	if (ret == 0 && time_save(&scr, e) < 0)
		ret = -1;
out:
	store_busy_timeout(st, -1);
	screen_fini(&scr);
	return ret;
}
