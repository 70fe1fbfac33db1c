/* SPDX-License-Identifier: MIT */
/*
 * view_adjudicate: the adjudicator's screen - the queue of items with
 * disagreements (or a discussion flag), each shown with the issue and
 * fix panes of the annotator's screen over a resolution panel, and the
 * dialog that asks for a rationale and saves.
 *
 * The panel has a row per dimension: the status (done: agreed or
 * resolved; differing: the coders disagree, bold and underlined with a
 * glyph, never colour alone; waiting), the codes of every coder side by
 * side, and the final code; then a row per coder with their flags and the
 * first line of their memo (M shows the memos in full).  Coders are
 * "Coder 1", "Coder 2" ... in the order adjudicate_state() draws per item
 * (blind adjudication, the default) - their names appear only when the
 * owner has turned blinding off.  A third coder and more follow in member
 * order.
 *
 * Resolving: J/K select a dimension (the first disagreement is selected
 * when an item opens); a digit takes that coder's code, c opens the
 * picker (view_picker.c, whose picks this screen takes over through
 * pick_ops) for another code; then the dialog asks for the rationale on
 * one line (C-o: $EDITOR) and lets Tab tag a cause.  Enter saves with
 * adjudicate_resolve() (one transaction, audited).  S settles a
 * discussion (adjudicate_settle(), with an optional note).  When the item
 * needs nothing more the next item of the queue that does opens.
 *
 * Proposed codes: P opens view_proposals.c over the screen; after each
 * decision there, proposals_decided() loads the codebook again (after an
 * accept), the item's state and the queue.
 *
 * Files: this one holds the screen, its queue, loading, saving, the
 * memos overlay and the keys; view_adjudicate_coders.c the coders and
 * their order, view_adjudicate_panel.c the resolution panel,
 * view_adjudicate_dialog.c the rationale dialog (view_adjudicate.h is
 * what they share).
 *
 * Data: the queue is adjudicate_queue() once, at start (and again after
 * a proposal is decided); afterwards only the item shown is worked out
 * again (adjudicate_state()), after each save, and the count of items
 * left is kept from that.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/access.h"
#include "core/study/adjudicate.h"
#include "core/study/draft.h"
#include "core/study/evolve.h"
#include "core/study/proposal.h"
#include "core/study/study.h"
#include "core/base/text.h"
#include "tui/doc.h"
#include "tui/screen.h"
#include "tui/tui.h"
#include "tui/ui.h"
#include "tui/view_adjudicate.h"



/* ---- the picks -------------------------------------------------------- */

static void pick_clear(struct adj *adj)
{
	size_t i;

	for (i = 0; i < adj->nr_pick; i++)
		free(adj->pick[i]);
	free(adj->pick);
	adj->pick = NULL;
	adj->nr_pick = 0;
	adj->pick_ready = 0;
}

static void pick_add(struct adj *adj, const char *code)
{
	adj->pick = xrealloc(adj->pick, (adj->nr_pick + 1) *
			     sizeof(*adj->pick));
	adj->pick[adj->nr_pick++] = xstrdup(code);
}

/* Start collecting a pick for dimension index d: empty, or the codes of
 * its resolution. */
static void pick_start(struct adj *adj, size_t d)
{
	const char *final = adj->is.dims[d].status == DIM_RESOLVED ?
			    adj->is.dims[d].final : NULL;

	pick_clear(adj);
	adj->pick_dim = (int)d;
	if (final && adj->is.dims[d].dim->select_many) {
		char *copy = xstrdup(final), *tok, *save = NULL;

		for (tok = strtok_r(copy, ";", &save); tok;
		     tok = strtok_r(NULL, ";", &save))
			pick_add(adj, tok);
		free(copy);
	}
}

static size_t dim_index(const struct screen *scr, const struct dimension *d)
{
	return (size_t)(d - scr->cb.dims);
}

static int pick_has(struct screen *scr, const char *dim, const char *code)
{
	struct adj *adj = ADJ(scr);
	size_t i;

	if (adj->pick_dim >= 0 &&
	    !strcmp(scr->cb.dims[adj->pick_dim].key, dim)) {
		for (i = 0; i < adj->nr_pick; i++)
			if (!strcmp(adj->pick[i], code))
				return 1;
		return 0;
	}
	/* another dimension (Tab in the picker): its resolution */
	for (i = 0; i < adj->is.nr_dims; i++) {
		const struct dim_state *ds = &adj->is.dims[i];
		const char *p;
		size_t n = strlen(code);

		if (strcmp(ds->dim->key, dim) || ds->status != DIM_RESOLVED)
			continue;
		for (p = ds->final; p && *p; p += strcspn(p, ";"),
		     p += *p == ';')
			if (!strncmp(p, code, n) && (p[n] == ';' || !p[n]))
				return 1;
	}
	return 0;
}

static void pick_msg(struct adj *adj, const struct dimension *d)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; i < adj->nr_pick; i++) {
		if (i)
			buf_addch(&b, ',');
		sanitize_line(&b, adj->pick[i]);
	}
	screen_msg(adj->scr, MSG_INFO, "%s: %s (Enter when done, then the "
		   "rationale)", d->key, b.len ? b.ptr : "no code");
	buf_release(&b);
}

static int pick_set(struct screen *scr, const struct dimension *d,
		    const char *const *codes, size_t n)
{
	struct adj *adj = ADJ(scr);
	size_t i;

	pick_start(adj, dim_index(scr, d));
	pick_clear(adj);
	for (i = 0; i < n; i++)
		pick_add(adj, codes[i]);
	adj->pick_ready = n > 0;
	if (!n)
		screen_msg(scr, MSG_INFO, "%s: no code chosen", d->key);
	return 0;
}

static int pick_toggle(struct screen *scr, const struct dimension *d,
		       const char *code)
{
	struct adj *adj = ADJ(scr);
	size_t i;

	if (adj->pick_dim != (int)dim_index(scr, d))
		pick_start(adj, dim_index(scr, d));
	for (i = 0; i < adj->nr_pick; i++)
		if (!strcmp(adj->pick[i], code))
			break;
	if (i < adj->nr_pick) {
		free(adj->pick[i]);
		memmove(adj->pick + i, adj->pick + i + 1,
			(adj->nr_pick - i - 1) * sizeof(*adj->pick));
		adj->nr_pick--;
	} else {
		pick_add(adj, code);
	}
	adj->pick_ready = 1;
	pick_msg(adj, d);
	return 0;
}

static const struct pick_ops adj_pick_ops = {
	.has_code = pick_has,
	.set_codes = pick_set,
	.toggle = pick_toggle,
	.pick_verb = "choose",
};

/* ---- loading ---------------------------------------------------------- */

/* The panel's height: a row per dimension and per coder. */
static int panel_rows(struct screen *scr)
{
	const struct adj *adj = ADJ(scr);
	size_t coders = adj->is.nr_coders > 2 ? adj->is.nr_coders : 2;
	int rows = 1 + (int)scr->cb.nr_dims + (int)coders;
	int max = (scr->rows - 2) / 2;

	return rows > max ? max : rows;
}

static void relayout(struct adj *adj)
{
	struct screen *scr = adj->scr;

	if (scr->rows)
		screen_relayout(scr);
}

/* Work the item's state out again (after a save). */
static int reload_state(struct adj *adj)
{
	struct screen *scr = adj->scr;
	struct item_state s;
	struct err e = ERR_INIT;
	size_t old = adj->is.nr_coders;

	if (adjudicate_state(scr->st, scr->actor, &scr->cb, scr->item.id, &s,
			     &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s", e.msg);
		return -1;
	}
	item_state_release(&adj->is);
	adj->is = s;
	adj->blind = adjudicate_blind(scr->st);
	adj_set_order(adj);
	if (adj->sel >= adj->is.nr_dims)
		adj->sel = 0;
	if (old != s.nr_coders && !scr->too_small)
		relayout(adj);
	scr->dirty |= DIRTY_BAR | DIRTY_HEADER | DIRTY_STATUS;
	return 0;
}

static int load_item(struct adj *adj, long long id, struct err *e)
{
	struct screen *scr = adj->scr;
	struct item it;
	struct item_state s;
	size_t i, old = adj->is.nr_coders;

	/* the fix pane reads the diff from the study in windows */
	if (item_load_flags(scr->st, id, &it, ITEM_LOAD_NO_DIFF, e) < 0)
		return -1;
	if (adjudicate_state(scr->st, scr->actor, &scr->cb, id, &s, e) < 0) {
		item_release(&it);
		return -1;
	}
	while (scr->nr_overlays)
		screen_pop(scr);
	pick_clear(adj);
	adj->pick_dim = -1;
	adj->picker_open = 0;
	item_release(&scr->item);
	item_state_release(&adj->is);
	scr->item = it;
	adj->is = s;
	adj->blind = adjudicate_blind(scr->st);
	adj_set_order(adj);
	free(scr->item_name);
	scr->item_name = item_name(it.repo, it.number);
	adj->pos = NOT_QUEUED;
	for (i = 0; i < adj->nr_queue; i++)
		if (adj->queue[i] == id) {
			adj->pos = i;
			break;
		}
	adj->top = 0;
	adj->sel = 0;
	adj->ev_next = 0;
	adj->ev_dim = adj->sel;
	if (adj->is.nr_dims) {
		size_t d = adj_first_disagreement(adj, adj->is.nr_dims - 1);

		if (adj->is.dims[d].status == DIM_DISAGREE)
			adj->sel = d;
	}
	screen_open_panes(scr);
	if (old != s.nr_coders && !scr->too_small)
		relayout(adj);
	scr->dirty |= DIRTY_ALL;
	return 0;
}

static void go_item(struct adj *adj, size_t pos)
{
	struct err e = ERR_INIT;

	if (load_item(adj, adj->queue[pos], &e) < 0)
		screen_msg(adj->scr, MSG_ERR, "%s", e.msg);
}

/* The next queue entry after `from` (NOT_QUEUED: from the start) that
 * still needs the adjudicator, or NOT_QUEUED. */
static size_t next_left(const struct adj *adj, size_t from)
{
	size_t k, n = adj->nr_queue;

	for (k = 1; k <= n; k++) {
		size_t i = from == NOT_QUEUED ? k - 1 : (from + k) % n;

		if (i != from && !adj->done[i])
			return i;
	}
	return NOT_QUEUED;
}

/* After a save: on to the next disagreement, or the next item. */
static void after_save(struct adj *adj)
{
	struct screen *scr = adj->scr;
	char *name;
	size_t next;

	if (item_state_needs_adjudication(&adj->is)) {
		adj->sel = adj_first_disagreement(adj, adj->sel);
		scr->dirty |= DIRTY_BAR;
		return;
	}
	if (adj->pos != NOT_QUEUED && !adj->done[adj->pos]) {
		adj->done[adj->pos] = 1;
		adj->nr_left--;
	}
	name = xstrdup(scr->item_name);
	next = next_left(adj, adj->pos);
	if (next == NOT_QUEUED) {
		screen_msg(scr, MSG_OK, "the queue is empty: %s done (%s)",
			   name, adj->saved.ptr);
	} else {
		go_item(adj, next);
		screen_msg(scr, MSG_OK, "done: %s (%s); %zu left", name,
			   adj->saved.ptr, adj->nr_left);
	}
	free(name);
	scr->dirty |= DIRTY_HEADER;
}

/* ---- proposed codes --------------------------------------------------- */

static void count_proposals(struct adj *adj)
{
	struct proposal *v;
	struct err e = ERR_INIT;
	size_t n;

	if (proposal_list(adj->scr->st, adj->scr->actor, 0, &v, &n, &e) < 0)
		return;
	proposal_list_free(v, n);
	adj->nr_proposals = n;
	adj->scr->dirty |= DIRTY_HEADER;
}

/*
 * A proposal was decided: labels moved, and after an accept the codebook
 * has a new version.  The item's state borrows its dimensions from
 * scr->cb, so the new codebook and the state worked out against it are
 * both loaded before the old ones are released; the queue is read again,
 * since moved labels can make or end a disagreement.
 */
static void proposals_decided(struct screen *scr, int new_codebook)
{
	struct adj *adj = ADJ(scr);
	struct codebook cb = CODEBOOK_INIT;
	const struct codebook *use = &scr->cb;
	struct item_state s;
	struct err e = ERR_INIT;
	long long *queue = NULL;
	size_t nr_queue = 0, i;

	if (new_codebook) {
		if (study_codebook(scr->st, &cb, NULL, &e) < 0)
			goto fail;
		use = &cb;
	}
	if (adjudicate_state(scr->st, scr->actor, use, scr->item.id, &s,
			     &e) < 0)
		goto fail;
	if (adjudicate_queue(scr->st, scr->actor, use, &queue, &nr_queue,
			     &e) < 0) {
		item_state_release(&s);
		goto fail;
	}
	item_state_release(&adj->is);
	if (new_codebook) {
		codebook_release(&scr->cb);
		scr->cb = cb;
	}
	adj->is = s;
	adj->blind = adjudicate_blind(scr->st);
	adj_set_order(adj);
	if (adj->sel >= adj->is.nr_dims)
		adj->sel = 0;
	free(adj->queue);
	free(adj->done);
	adj->queue = queue;
	adj->nr_queue = adj->nr_left = nr_queue;
	adj->done = xcalloc(nr_queue + 1, 1);
	adj->pos = NOT_QUEUED;
	for (i = 0; i < nr_queue; i++)
		if (queue[i] == scr->item.id)
			adj->pos = i;
	count_proposals(adj);
	if (!scr->too_small && scr->rows && panel_rows(scr) != scr->bar_rows)
		relayout(adj);
	scr->dirty |= DIRTY_ALL;
	return;
fail:
	codebook_release(&cb);
	screen_msg(scr, MSG_ERR, "saved, but the screen could not be "
		   "reloaded: %s", e.msg);
}

/* ---- saving ----------------------------------------------------------- */

int adj_save_resolution(struct adj *adj, size_t d, char **codes,
			size_t n, const char *rationale, const char *cause,
			const char *source)
{
	struct screen *scr = adj->scr;
	const struct dimension *dim = adj->is.dims[d].dim;
	struct err e = ERR_INIT;
	struct buf b = BUF_INIT;
	size_t i;

	if (adjudicate_resolve(scr->st, scr->actor, &scr->cb, scr->item.id,
			       dim->key, (const char *const *)codes, n,
			       rationale, cause, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not saved: %s", e.msg);
		return -1;
	}
	/* saved: a draft of it has served (a failure to remove it only
	 * leaves a draft that is offered once more) */
	draft_remove(scr->st, scr->actor, scr->item.id, DRAFT_RATIONALE,
		     dim->key, &e);
	for (i = 0; i < n; i++) {
		if (i)
			buf_addch(&b, ',');
		sanitize_line(&b, codes[i]);
	}
	reload_state(adj);
	buf_reset(&adj->saved);
	buf_addf(&adj->saved, "%s = %s%s%s", dim->key, b.ptr,
		 cause ? ", cause " : "", cause ? cause : "");
	screen_msg(scr, MSG_OK, "saved: %s = %s (%s)%s%s", dim->key, b.ptr,
		   source, cause ? ", cause " : "", cause ? cause : "");
	adj->advance = 1;
	buf_release(&b);
	return 0;
}

int adj_save_settle(struct adj *adj, const char *note)
{
	struct screen *scr = adj->scr;
	struct err e = ERR_INIT;

	if (adjudicate_settle(scr->st, scr->actor, scr->item.id,
			      note && *note ? note : NULL, &e) < 0) {
		screen_msg(scr, MSG_ERR, "not saved: %s", e.msg);
		return -1;
	}
	reload_state(adj);
	buf_set(&adj->saved, note && *note ? "settled, with a note" :
		"settled");
	screen_msg(scr, MSG_OK, "saved: the discussion of %s is settled%s",
		   scr->item_name, note && *note ? " (with a note)" : "");
	adj->advance = 1;
	return 0;
}

static void toggle_blind(struct adj *adj)
{
	struct screen *scr = adj->scr;
	struct err e = ERR_INIT;

	if (access_set_blind(scr->st, scr->actor, !adj->blind, &e) < 0) {
		screen_msg(scr, MSG_ERR, "%s%s", e.code == ERR_PERM ? "" :
			   "not saved: ", e.msg);
		return;
	}
	reload_state(adj);
	screen_msg(scr, MSG_OK, "saved: blind adjudication %s for the study",
		   adj->blind ? "on (Coder 1, Coder 2 ...)" :
		   "off (members' names)");
	scr->dirty |= DIRTY_ALL;
}

/* ---- the memos -------------------------------------------------------- */

/* The coders' memos and flags in full, for the text view. */
static void memos_render(struct doc *d, struct screen *scr, int width)
{
	struct adj *adj = ADJ(scr);
	struct buf b = BUF_INIT;
	struct text_lines tl = TEXT_LINES_INIT;
	size_t n, i;

	for (n = 0; n < adj->is.nr_coders; n++) {
		const struct coding *c = &adj->is.coders[adj->shown[n]].coding;

		if (n)
			doc_line(d, "", SLOT_NORMAL, d->nr);
		buf_reset(&b);
		adj_coder_label(adj, n, &b);
		if (c->uncertain)
			buf_addstr(&b, "  [uncertain]");
		if (c->discuss)
			buf_addstr(&b, "  [discuss]");
		doc_line(d, b.ptr, SLOT_MD_HEADING, d->nr);
		if (!c->memo || !*c->memo) {
			doc_line(d, "(no memo)", SLOT_DIM, d->nr);
			continue;
		}
		buf_reset(&b);
		text_sanitize(&b, c->memo, strlen(c->memo), 8, TEXT_KEEP_NL);
		text_wrap(&tl, b.ptr, b.len, width);
		for (i = 0; i < tl.nr; i++) {
			doc_begin(d, SLOT_NORMAL, 0, d->nr);
			doc_put(d, b.ptr + tl.v[i].off, tl.v[i].len,
				SLOT_NORMAL);
			doc_end(d);
		}
	}
	if (!adj->is.nr_coders)
		doc_line(d, "Nobody has submitted this item yet.", SLOT_DIM, 0);
	text_lines_release(&tl);
	buf_release(&b);
}

static const struct text_spec memos_text = {
	.title = "The coders' memos and flags (q closes)",
	.render = memos_render,
	.max_cols = 100,
	.close_action = ACT_SHOW_MEMOS,
};

static const struct text_spec evidence_text = {
	.title = "The coders' evidence (q closes; e shows each in its pane)",
	.render = adj_evidence_render,
	.max_cols = 100,
	.close_action = ACT_SHOW_EVIDENCE,
};

/* ---- drawing ---------------------------------------------------------- */

static void draw_header(struct screen *scr)
{
	struct adj *adj = ADJ(scr);
	struct buf right = BUF_INIT;

	if (adj->is.discuss)
		buf_addstr(&right, adj->is.settled ? "[settled] " :
			   "[discuss] ");
	if (adj->is.uncertain)
		buf_addstr(&right, "[uncertain] ");
	if (adj->nr_proposals)
		buf_addf(&right, "P: %zu proposal%s  ", adj->nr_proposals,
			 adj->nr_proposals == 1 ? "" : "s");
	buf_addstr(&right, adj->blind ? "blind" : "names shown");
	buf_addf(&right, "  %zu left  ", adj->nr_left);
	sanitize_line(&right, adj->scr->actor->name);
	buf_addch(&right, ' ');
	screen_draw_header(adj->scr, right.ptr);
	buf_release(&right);
}

static void draw_status(struct screen *scr)
{
	struct adj *adj = ADJ(scr);
	struct buf b = BUF_INIT, pos = BUF_INIT;
	size_t n = adj->is.nr_coders;

	if (adj->pos != NOT_QUEUED)
		buf_addf(&pos, " %zu/%zu ", adj->pos + 1, adj->nr_queue);
	else
		buf_addstr(&pos, " not queued ");
	if (n >= 2 && keymap_lookup(KEYMAP_ADJUDICATE, '1') ==
	    ACT_TAKE_CODER)
		buf_addf(&b, "1-%zu take  ", n > 9 ? 9 : n);
	screen_hint(&b, KEYMAP_ADJUDICATE, ACT_CHOOSE_CODE, ACT_NONE,
		    "choose");
	screen_hint(&b, KEYMAP_ADJUDICATE, ACT_NEXT_DIM, ACT_PREV_DIM, "dim");
	if (adj->is.discuss)
		screen_hint(&b, KEYMAP_ADJUDICATE, ACT_SETTLE, ACT_NONE,
			    "settle");
	if (scr->split)
		screen_hint(&b, KEYMAP_ADJUDICATE, ACT_SHOW_MEMOS, ACT_NONE,
			    "memos");
	screen_hint(&b, KEYMAP_ADJUDICATE, ACT_AGREEMENT, ACT_NONE,
		    "agreement");
	if (!scr->split)
		screen_hint(&b, KEYMAP_ADJUDICATE, ACT_SWITCH_PANE, ACT_NONE,
			    "pane");
	screen_hint(&b, KEYMAP_ADJUDICATE, ACT_HELP, ACT_NONE, "help");
	screen_hint(&b, KEYMAP_ADJUDICATE, ACT_QUIT, ACT_NONE, "quit");
	while (b.len && b.ptr[b.len - 1] == ' ')
		buf_setlen(&b, b.len - 1);
	screen_draw_status(scr, b.ptr, pos.ptr);
	buf_release(&b);
	buf_release(&pos);
}

/* Idle: the study file alone holds everything saved so far. */
static void adj_idle(struct screen *scr)
{
	store_checkpoint(scr->st);
}

/* ---- keys ------------------------------------------------------------- */

/* May the selected dimension be resolved now?  Says why not. */
static int resolvable(struct adj *adj)
{
	struct screen *scr = adj->scr;
	const struct dim_state *ds;
	struct buf b = BUF_INIT;

	if (!adj->is.nr_dims)
		return 0;
	if (!adj->is.ready) {
		screen_msg(scr, MSG_ERR, "not ready: %zu of %zu coders have "
			   "submitted %s", adj->is.nr_coders,
			   adj->is.nr_expected ? adj->is.nr_expected :
			   (size_t)2, scr->item_name);
		return 0;
	}
	ds = &adj->is.dims[adj->sel];
	if (ds->status == DIM_AGREED) {
		sanitize_line(&b, ds->final);
		screen_msg(scr, MSG_INFO, "%s is agreed (%s): nothing to "
			   "resolve", ds->dim->key, b.len ? b.ptr : "no code");
		buf_release(&b);
		return 0;
	}
	return 1;
}

static void take_coder(struct adj *adj, size_t n)
{
	struct screen *scr = adj->scr;
	const struct dim_state *ds;
	const struct coded_dim *cd;
	struct buf who = BUF_INIT, src = BUF_INIT;

	if (!resolvable(adj))
		return;
	ds = &adj->is.dims[adj->sel];
	adj_coder_label(adj, n, &who);
	if (n >= adj->is.nr_coders) {
		screen_msg(scr, MSG_ERR, "%zu coders coded %s: no Coder %zu",
			   adj->is.nr_coders, scr->item_name, n + 1);
		goto out;
	}
	cd = adj_coder_dim(adj, n, ds->dim->key);
	if (!cd || !cd->nr_codes) {
		screen_msg(scr, MSG_ERR, "%s left %s empty: c chooses a code",
			   who.ptr, ds->dim->key);
		goto out;
	}
	buf_addf(&src, "%s's code%s", who.ptr, cd->nr_codes > 1 ? "s" : "");
	adj_ask_rationale(adj, adj->sel, (const char *const *)cd->codes,
			  cd->nr_codes, src.ptr);
out:
	buf_release(&who);
	buf_release(&src);
}

static int picker_shown(struct screen *scr)
{
	int i;

	for (i = 0; i < scr->nr_overlays; i++)
		if (scr->overlays[i]->ops == &picker_view_ops)
			return 1;
	return 0;
}

static void move_item(struct adj *adj, int dir)
{
	struct screen *scr = adj->scr;
	size_t to;

	if (!adj->nr_queue) {
		screen_msg(scr, MSG_INFO, "the queue is empty");
		return;
	}
	if (adj->pos == NOT_QUEUED)
		to = 0;
	else if (dir > 0 && adj->pos + 1 < adj->nr_queue)
		to = adj->pos + 1;
	else if (dir < 0 && adj->pos > 0)
		to = adj->pos - 1;
	else {
		screen_msg(scr, MSG_INFO, "%s item of the queue",
			   dir > 0 ? "last" : "first");
		return;
	}
	go_item(adj, to);
	screen_msg(scr, MSG_INFO, "item %zu of %zu%s", to + 1, adj->nr_queue,
		   adj->done[to] ? " (done)" : "");
}

static int adj_action(struct screen *scr, enum action a, int key)
{
	struct adj *adj = ADJ(scr);

	switch (a) {
	case ACT_TAKE_CODER:
		take_coder(adj, (size_t)(key - '1'));
		return 1;
	case ACT_CHOOSE_CODE:
		if (!resolvable(adj))
			return 1;
		pick_start(adj, adj->sel);
		adj->picker_open = 1;
		screen_open_picker(scr, adj->sel);
		return 1;
	case ACT_NEXT_DIM:
		if (adj->sel + 1 < adj->is.nr_dims)
			adj->sel++;
		scr->dirty |= DIRTY_BAR;
		return 1;
	case ACT_PREV_DIM:
		if (adj->sel)
			adj->sel--;
		scr->dirty |= DIRTY_BAR;
		return 1;
	case ACT_SETTLE:
		if (!adj->is.discuss) {
			screen_msg(scr, MSG_INFO, "no coder flagged %s for "
				   "discussion", scr->item_name);
			return 1;
		}
		adj_ask_settle(adj);
		return 1;
	case ACT_SHOW_MEMOS:
		screen_open_text(scr, &memos_text);
		return 1;
	case ACT_SHOW_EVIDENCE:
		screen_open_text(scr, &evidence_text);
		return 1;
	case ACT_NEXT_EVIDENCE:
		while (scr->nr_overlays)
			screen_pop(scr);
		adj_next_evidence(adj);
		return 1;
	case ACT_TOGGLE_BLIND:
		toggle_blind(adj);
		return 1;
	case ACT_PROPOSALS:
		screen_open_proposals(scr, proposals_decided);
		return 1;
	case ACT_NEXT_ITEM:
	case ACT_PREV_ITEM:
		move_item(adj, a == ACT_NEXT_ITEM ? 1 : -1);
		return 1;
	default:
		return 0;
	}
}

/* What a key set in motion: a pick made in the picker asks for its
 * rationale; a save moves on. */
static void after_key(struct screen *scr)
{
	struct adj *adj = ADJ(scr);

	if (adj->picker_open && !picker_shown(scr)) {
		adj->picker_open = 0;
		if (adj->pick_dim >= 0 && adj->pick_ready && adj->nr_pick &&
		    adj->is.dims[adj->pick_dim].status == DIM_AGREED) {
			/* Tab in the picker went to a dimension that needs
			 * nothing */
			screen_msg(scr, MSG_INFO, "%s is agreed: nothing to "
				   "resolve",
				   adj->is.dims[adj->pick_dim].dim->key);
		} else if (adj->pick_dim >= 0 && adj->pick_ready &&
			   adj->nr_pick) {
			size_t d = (size_t)adj->pick_dim;
			char **codes = adj->pick;
			size_t n = adj->nr_pick;

			/* the dialog copies them */
			adj_ask_rationale(adj, d, (const char *const *)codes,
					  n, "chosen in the picker");
		} else if (adj->pick_ready) {
			screen_msg(scr, MSG_INFO, "no code chosen: nothing "
				   "to save");
		}
		pick_clear(adj);
		adj->pick_dim = -1;
	}
	if (adj->advance) {
		adj->advance = 0;
		after_save(adj);
	}
}

/* ---- entry ------------------------------------------------------------ */

static void adj_close(struct screen *scr)
{
	struct adj *adj = ADJ(scr);

	pick_clear(adj);
	item_state_release(&adj->is);
	free(adj->queue);
	free(adj->done);
	free(adj->shown);
	buf_release(&adj->saved);
}

static const struct screen_ops adj_screen_ops = {
	.name = "adjudicate",
	.keymap = KEYMAP_ADJUDICATE,
	.private_size = sizeof(struct adj),
	.pick_ops = &adj_pick_ops,
	.help_intro = "Every resolution is saved the moment it is made. "
		"The panel lists every dimension with each coder's codes: "
		"agreed and resolved ones are marked done, disagreements are "
		"marked, bold and underlined. J and K select a dimension; a "
		"digit takes that coder's code and c chooses another in the "
		"picker; then type the rationale (Tab tags a cause, C-o opens "
		"$EDITOR) and press Enter. When an item needs nothing more, "
		"the next one of the queue opens. P lists the codes annotators "
		"proposed, to accept into the codebook or map onto a code.",
	.panel_rows = panel_rows,
	.draw_header = draw_header,
	.draw_panel = adj_draw_panel,
	.draw_status = draw_status,
	.action = adj_action,
	.after_key = after_key,
	.idle = adj_idle,
	.idle_ms = 3000,
	.close = adj_close,
};

int tui_adjudicate(struct store *st, const struct actor *a,
		   const char *name, struct err *e)
{
	struct screen screen, *scr = &screen;
	struct adj *adj;
	long long id = -1;
	int ret = -1;

	screen_init(scr, &adj_screen_ops, st, a);
	adj = scr->priv;
	adj->scr = scr;
	adj->pos = NOT_QUEUED;
	adj->pick_dim = -1;
	buf_init(&adj->saved, 0);

	if (a->role == ROLE_ANNOTATOR) {
		err_set(e, ERR_PERM, "the adjudicator's screen is for the "
			"owner and adjudicators, and %s is an annotator "
			"(`bugcoder code` opens the annotator's screen)",
			a->name);
		goto out;
	}
	if (actor_require(a, ROLES(ROLE_ADJUDICATOR) | ROLES(ROLE_OWNER),
			  "adjudicating", e) < 0)
		goto out;
	if (study_codebook(st, &scr->cb, NULL, e) < 0)
		goto out;
	if (adjudicate_queue(st, a, &scr->cb, &adj->queue, &adj->nr_queue,
			     e) < 0)
		goto out;
	adj->done = xcalloc(adj->nr_queue + 1, 1);
	adj->nr_left = adj->nr_queue;
	if (name) {
		id = item_find(st, name, e);
		if (id < 0)
			goto out;
	} else if (!adj->nr_queue) {
		err_set(e, ERR_NOTFOUND, "nothing to adjudicate: no item that "
			"all its coders submitted has a disagreement or a "
			"discussion flag left");
		goto out;
	} else {
		id = adj->queue[0];
	}
	if (load_item(adj, id, e) < 0)
		goto out;
	count_proposals(adj);
	if (adj->pos == NOT_QUEUED) {
		if (!adj->is.ready)
			screen_msg(scr, MSG_ERR, "%s is not ready: %zu of %zu "
				   "coders have submitted", scr->item_name,
				   adj->is.nr_coders, adj->is.nr_expected ?
				   adj->is.nr_expected : (size_t)2);
		else
			screen_msg(scr, MSG_INFO, "%s needs no adjudication: "
				   "every dimension is agreed or resolved",
				   scr->item_name);
	}

	ret = screen_run(scr, e);
out:
	screen_fini(scr);
	return ret;
}
