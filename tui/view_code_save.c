/* SPDX-License-Identifier: MIT */
/*
 * view_code_save: what the annotator's screen saves - its picks (the
 * picker's pick_ops: codes, toggles, proposed codes), the memo, the
 * flags - each in one transaction through core/study/label.h, confirmed
 * on the status line; and a pick that met a busy study, kept pending and
 * retried while no key comes.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/draft.h"
#include "core/study/label.h"
#include "tui/screen.h"
#include "tui/view_code.h"
#include "tui/view_code_int.h"

/* Say why a save failed.  When the codebook changed since the screen
 * read it, nothing was saved and the codebook is loaded again once the
 * key is handled (the picker that made the pick holds codes of the old
 * one until then). */
void code_save_failed(struct screen *scr, const struct err *e,
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
struct pending_pick {
	long long item_id;
	char *item_name;
	char *dim;
	char **codes;
	size_t nr;
	int toggle;		/* a `select: many` toggle of codes[0] */
	int tries;
};

void code_pending_free(struct pending_pick *p)
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

void code_pending_text(const struct pending_pick *p, struct buf *b)
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

void code_pending_drop(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	code_pending_free(cs->pending);
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
	code_pending_text(p, &b);
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

	code_pending_text(cs->pending, &b);
	screen_msg(scr, MSG_ERR, "not saved: %s is still pending (the study is "
		   "busy); wait for it, or Esc drops it", b.ptr);
	buf_release(&b);
	return -1;
}

/* Try the pending pick again: 1 saved (or given up, said why), 0 still
 * busy. */
int code_pending_retry(struct screen *scr)
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
	code_pending_text(p, &b);
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
		code_reload_coding(scr);
		saved_msg(scr, p->dim);
	} else {
		screen_msg(scr, MSG_OK, "saved: %s", b.ptr);
	}
	buf_release(&b);
	code_pending_drop(scr);
	return 1;
}

/* The picks (code_pick_ops), each saved in one transaction through
 * core/study/label.h, then the coding is reloaded and the status line
 * says what was saved (or why not).  They return 0 or -1. */

static int pick_set_codes(struct screen *scr, const struct dimension *dim,
			  const char *const *codes, size_t n)
{
	struct code_state *cs = scr->priv;

	static const char *const none[1] = { NULL };
	struct err e = ERR_INIT;
	const struct coded_dim *cd;

	/* label_set copies codes[0..n): never hand it NULL, even for 0 */
	if (!codes)
		codes = none;
	/* the code chosen already (as the study has it now, not as the
	 * screen last read it): saving it again would only detach the
	 * proposal an `other` label carries (label_set attaches none) */
	code_reload_coding(scr);
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
		code_save_failed(scr, &e, "not saved");
		return -1;
	}
	code_reload_coding(scr);
	saved_msg(scr, dim->key);
	if (n)
		cs->last_dim = (int)(dim - scr->cb.dims);
	else
		code_ask_drop(scr, dim->key);
	return 0;
}

static int pick_toggle(struct screen *scr, const struct dimension *dim,
		       const char *code)
{
	struct code_state *cs = scr->priv;
	struct err e = ERR_INIT;

	if (cs->pending)
		return pending_refuse(scr);
	if (label_toggle(scr->st, scr->actor, &scr->cb, scr->item.id,
			 dim->key, code, &e) < 0) {
		if (e.code == ERR_BUSY)
			return pend(scr, dim->key, &code, 1, 1);
		code_save_failed(scr, &e, "not saved");
		return -1;
	}
	code_reload_coding(scr);
	saved_msg(scr, dim->key);
	if (coding_dim(&cs->coding, dim->key))
		cs->last_dim = (int)(dim - scr->cb.dims);
	else
		code_ask_drop(scr, dim->key);
	return 0;
}

int code_save_memo(struct screen *scr, const char *text)
{
	struct err e = ERR_INIT;
	size_t lines = 0;
	const char *p;

	if (label_memo(scr->st, scr->actor, scr->item.id, text, &e) < 0) {
		screen_msg(scr, MSG_ERR, "memo not saved: %s", e.msg);
		return -1;
	}
	code_reload_coding(scr);
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

static int pick_propose(struct screen *scr, const struct dimension *dim,
			const char *key, const char *name,
			const char *definition)
{
	struct err e = ERR_INIT;
	long long id = 0;

	if (label_propose(scr->st, scr->actor, &scr->cb, scr->item.id,
			  dim->key, key, name, definition, &id, &e) < 0) {
		code_save_failed(scr, &e, "not proposed");
		return -1;
	}
	/* a draft of it has served */
	draft_remove(scr->st, scr->actor, scr->item.id, DRAFT_PROPOSAL,
		     dim->key, &e);
	code_reload_coding(scr);
	screen_msg(scr, MSG_OK, "saved: proposal %s=%s (#%lld); %s = other "
		   "until it is decided", dim->key, key, id, dim->key);
	return 0;
}

/* Is `code` chosen for `dim` by the actor on this item? */
static int pick_has_code(struct screen *scr, const char *dim,
			 const char *code)
{
	struct code_state *cs = scr->priv;
	const struct coded_dim *cd;
	size_t i;

	cd = coding_dim(&cs->coding, dim);
	for (i = 0; cd && i < cd->nr_codes; i++)
		if (!strcmp(cd->codes[i], code))
			return 1;
	return 0;
}

/* The next required dimension after `dim` (going round) that the
 * actor has not coded, or -1: a decision made, the picker moves on
 * there, or closes. */
static long pick_next_dim(struct screen *scr, size_t dim)
{
	struct code_state *cs = scr->priv;
	const struct coding *c = &cs->coding;
	size_t n = scr->cb.nr_dims, k;

	for (k = 1; c && k <= n; k++) {
		const struct dimension *d = &scr->cb.dims[(dim + k) % n];

		if (d->required && !coding_dim(c, d->key))
			return (long)((dim + k) % n);
	}
	return -1;
}

/* Is a pick waiting for a busy study (kept pending)? */
static int pick_pending(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	return cs->pending != NULL;
}

const struct pick_ops code_pick_ops = {
	.has_code = pick_has_code,
	.set_codes = pick_set_codes,
	.toggle = pick_toggle,
	.next_dim = pick_next_dim,
	.pending = pick_pending,
	.propose = pick_propose,
};

void code_toggle_flag(struct screen *scr, const char *flag, int on)
{
	struct err e = ERR_INIT;

	if (label_flag(scr->st, scr->actor, scr->item.id, flag, on, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not saved: %s", e.msg);
		return;
	}
	code_reload_coding(scr);
	screen_msg(scr, MSG_OK, "saved: %s %s", flag, on ? "on" : "off");
}
