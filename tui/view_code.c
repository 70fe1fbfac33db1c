/* SPDX-License-Identifier: MIT */
/*
 * view_code: the annotator's coding screen - its items and queue, its
 * own keys, the time spent on an item, and what it reads again when the
 * study changes elsewhere.  Saving is view_code_save.c's, evidence
 * view_code_cite.c's, the header, coding bar and status hints
 * view_code_bar.c's.  The frame it is built on (windows, overlays, the
 * status line and search, the keys every screen shares) is screen.c's.
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
#include "tui/view_code.h"
#include "tui/view_code_int.h"

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

void code_reload_coding(struct screen *scr)
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
	code_cite_drop(scr);
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
			code_save_failed(scr, &e, "not submitted");
		else
			screen_msg(scr, MSG_ERR, "%s", e.msg);
		return;
	}
	if (cs->qpos != NOT_QUEUED)
		queue_mark_submitted(&cs->q, cs->qpos);
	if (time_save(scr, &e) < 0)
		screen_msg(scr, MSG_ERR, "time on the item not saved: %s",
			   e.msg);
	code_reload_coding(scr);
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

/* ---- keys ----------------------------------------------------------- */

/* `1`-`9`: the picker on that dimension; `c`: on the first not coded. */
static void pick_dim(struct screen *scr, enum action a, int key)
{
	struct code_state *cs = scr->priv;
	size_t i;

	if (a == ACT_PICK_DIM) {
		i = (size_t)(key - '1');
		if (key < '1' || key > '9' || i >= scr->cb.nr_dims) {
			screen_msg(scr, MSG_ERR, "the codebook has %zu "
				   "dimension%s", scr->cb.nr_dims,
				   scr->cb.nr_dims == 1 ? "" : "s");
			return;
		}
		screen_open_picker(scr, i);
		return;
	}
	for (i = 0; i < scr->cb.nr_dims; i++)
		if (!coding_dim(&cs->coding, scr->cb.dims[i].key))
			break;
	if (i == scr->cb.nr_dims) {
		screen_msg(scr, MSG_INFO, "every dimension is coded; "
			   "s submits");
		return;
	}
	screen_open_picker(scr, i);
}

/* `.`: the focused pane's line cursor on or off; 0 when the pane has
 * no pager. */
static int line_cursor(struct screen *scr)
{
	struct pager *pg = code_focus_pager(scr);

	if (!pg)
		return 0;
	pager_cursor(pg, !pg->cursor_on);
	screen_msg(scr, MSG_INFO, pg->cursor_on ? "line cursor: j/k "
		   "move it, v marks a range, e cites it, . hides it" :
		   "line cursor hidden");
	code_panes_dirty(scr);
	return 1;
}

/* `M`: the memo in $EDITOR, saved when it changed. */
static void memo_in_editor(struct screen *scr)
{
	struct code_state *cs = scr->priv;
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
		else if (code_save_memo(scr, text) < 0)
			code_open_memo(scr, text);
		free(text);
	}
}

/* The next or previous item of the queue, or the next one to do. */
static void move_in_queue(struct screen *scr, enum action a)
{
	struct code_state *cs = scr->priv;
	size_t i;

	switch (a) {
	case ACT_NEXT_ITEM:
		if (!cs->q.nr)
			return;
		if (cs->qpos == NOT_QUEUED)
			go_item(scr, 0, "item");
		else if (cs->qpos + 1 < cs->q.nr)
			go_item(scr, cs->qpos + 1, "item");
		else
			screen_msg(scr, MSG_INFO, "last item of your queue");
		return;
	case ACT_PREV_ITEM:
		if (!cs->q.nr)
			return;
		if (cs->qpos == NOT_QUEUED)
			go_item(scr, 0, "item");
		else if (cs->qpos > 0)
			go_item(scr, cs->qpos - 1, "item");
		else
			screen_msg(scr, MSG_INFO, "first item of your queue");
		return;
	default:
		i = next_todo(scr, cs->qpos);
		if (i == NOT_QUEUED)
			screen_msg(scr, MSG_INFO, "no other item of your "
				   "queue is waiting");
		else
			go_item(scr, i, "to do:");
		return;
	}
}

/* The annotator's own actions (the frame's are screen_action()'s);
 * returns 1 when `a` was one. */
static int code_action(struct screen *scr, enum action a, int key)
{
	struct code_state *cs = scr->priv;

	switch (a) {
	case ACT_PICK_DIM:
	case ACT_PICK_UNCODED:
		pick_dim(scr, a, key);
		return 1;
	case ACT_LINE_CURSOR:
		return line_cursor(scr);
	case ACT_MARK_RANGE:
		if (!code_focus_pager(scr))
			return 0;
		code_mark_range(scr);
		return 1;
	case ACT_CITE:
		code_cite_begin(scr);
		return 1;
	case ACT_CITATIONS:
		screen_push(scr, &citations_view_ops);
		return 1;
	case ACT_MEMO:
		code_open_memo(scr, NULL);
		return 1;
	case ACT_MEMO_EDITOR:
		memo_in_editor(scr);
		return 1;
	case ACT_UNCERTAIN:
		code_toggle_flag(scr, "uncertain", !cs->coding.uncertain);
		return 1;
	case ACT_DISCUSS:
		code_toggle_flag(scr, "discuss", !cs->coding.discuss);
		return 1;
	case ACT_SUBMIT:
		submit(scr);
		return 1;
	case ACT_NEXT_ITEM:
	case ACT_PREV_ITEM:
	case ACT_NEXT_TODO:
		move_in_queue(scr, a);
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
	code_reload_coding(scr);
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

	if (cs->pending && code_pending_retry(scr) && cs->cb_stale)
		reload_codebook(scr, 1);
	/* the study file alone holds everything saved so far */
	store_checkpoint(scr->st);
	if (store_changed(scr->st, &e) <= 0)
		return;
	if (study_codebook_current(scr->st, screening_is_codebook(&scr->cb) ?
				   &cs->study_cb : &scr->cb, &e) < 0 &&
	    e.code == ERR_STALE)
		reload_codebook(scr, 0);
	code_reload_coding(scr);
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
		code_drop_key(scr, key);
		return 1;
	}
	if (cs->citing) {
		code_cite_key(scr, key);
		return 1;
	}
	if (cs->pending && !scr->nr_overlays && !scr->prompting &&
	    !scr->too_small) {
		struct buf b = BUF_INIT;

		if (key == TK_ESC) {
			code_pending_text(cs->pending, &b);
			screen_msg(scr, MSG_INFO, "dropped: %s is not saved",
				   b.ptr);
			buf_release(&b);
			code_pending_drop(scr);
			return 1;
		}
		if (keymap_lookup(KEYMAP_MAIN, key) == ACT_QUIT &&
		    !code_pending_retry(scr)) {
			code_pending_text(cs->pending, &b);
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
		if (cs->pending && !code_pending_retry(scr)) {
			char msg[sizeof(e->msg)];
			struct buf b = BUF_INIT;

			code_pending_text(cs->pending, &b);
			snprintf(msg, sizeof(msg), "%s", e->msg);
			err_set(e, e->code, "%s; the pending %s was not saved "
				"(the study stayed busy)", msg, b.ptr);
			buf_release(&b);
			code_pending_drop(scr);
		}
	}
	screen_hangup(scr, e);
}

/* ---- entry ---------------------------------------------------------- */

static void code_close(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	code_pending_free(cs->pending);
	cs->pending = NULL;
	code_cite_drop(scr);
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
	.pick_ops = &code_pick_ops,
	.panel_rows = code_bar_rows,
	.draw_header = code_draw_header,
	.draw_panel = code_draw_bar,
	.draw_status = code_draw_status,
	.key = code_key,
	.action = code_action,
	.after_key = code_after_key,
	.idle = code_idle,
	.idle_ms = IDLE_MS,
	.hangup = code_hangup,
	.close = code_close,
};

const struct coding *code_coding(struct screen *scr)
{
	struct code_state *cs = scr->priv;

	return scr->ops == &code_screen_ops ? &cs->coding : NULL;
}

/* The item the screen opens on: `name`, else the first of the queue
 * not submitted (the first of the queue when all are); -1 with `e`. */
static long long first_item(struct screen *scr, const char *name,
			    struct err *e)
{
	struct code_state *cs = scr->priv;
	long long id;
	size_t i;

	if (name)
		return item_find(scr->st, name, e);
	if (!cs->q.nr)
		return err_set(e, ERR_NOTFOUND, "no items to code for %s: "
			       "the study has none, or no round gives %s any",
			       scr->actor->name, scr->actor->name);
	id = queue_item(&cs->q, 0);
	for (i = 0; i < cs->q.nr; i++)
		if (!queue_submitted(&cs->q, i)) {
			id = queue_item(&cs->q, i);
			break;
		}
	return id;
}

/* What the status line says as the screen opens on item `id`: why it is
 * read only, or that it is not in the queue, or that the queue is
 * done.  0, or -1 with `e`. */
static int opening_msg(struct screen *scr, const char *name, long long id,
		       struct err *e)
{
	struct code_state *cs = scr->priv;

	if (cs->qpos == NOT_QUEUED) {
		struct label_verdict v;
		int may = access_label_item(scr->st, scr->actor, id, &v, e);

		if (may < 0)
			return -1;
		/* the labelling rule says why, and saves are refused */
		if (may == LABEL_NO)
			screen_msg(scr, MSG_ERR, "not in your queue, read "
				   "only: %s", v.why);
		else
			screen_msg(scr, MSG_INFO, "%s is not in your queue",
				   scr->item_name);
		free(v.why);
	}
	else if (!name && cs->q.nr_submitted == cs->q.nr)
		screen_msg(scr, MSG_INFO, "all %zu items of your queue are "
			   "submitted", cs->q.nr);
	return 0;
}

int tui_code(struct store *st, const struct actor *a, const char *name,
	     struct err *e)
{
	struct screen scr;
	struct code_state *cs;
	long long id;
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
	id = first_item(&scr, name, e);
	if (id < 0 || load_item(&scr, id, e) < 0 ||
	    opening_msg(&scr, name, id, e) < 0)
		goto out;

	store_busy_timeout(st, PICK_BUSY_MS);
	if (screen_start(&scr, e) < 0)
		goto out;
	cs->last_key = clock_now(&scr);	/* the item is open from now */
	ret = screen_run(&scr, e);
	if (ret == 0 && cs->pending) {
		/* the loop ended with a pick pending: one last try, as long
		 * as the command line would wait */
		store_busy_timeout(st, -1);
		if (!code_pending_retry(&scr)) {
			struct buf b = BUF_INIT;

			code_pending_text(cs->pending, &b);
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
