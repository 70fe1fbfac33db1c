/* SPDX-License-Identifier: MIT */
/*
 * keymap: keys, actions and the tables that bind them.
 *
 * Every action is listed once in ACTION_LIST with its config name and
 * help text; the binding tables are data, one per keymap (the coding
 * screen, the picker, the memo editor ...) plus a generic table that the
 * scrolling views fall back to.  The help screen is generated from the
 * same tables, so what `?` shows is what the keys do.
 *
 * A key is an int: a Unicode code point for characters (control
 * characters included, e.g. TK_CTRL('g')), or TK_FN(k) for a curses
 * function key code k (KEY_DOWN, KEY_NPAGE ...).  Enter is always '\r'.
 */
#ifndef BUGCODER_TUI_KEYMAP_H
#define BUGCODER_TUI_KEYMAP_H

#include <stddef.h>

#include "core/base/buf.h"

#define TK_FN_BASE 0x200000
#define TK_FN(k) (TK_FN_BASE + (k))
#define TK_IS_FN(k) ((k) >= TK_FN_BASE)
#define TK_CTRL(c) ((c) & 0x1f)
#define TK_ESC 27
#define TK_ENTER '\r'
#define TK_TAB '\t'
#define TK_DEL_CHAR 127
/* A bracketed paste, as one key; its text is ui_paste()'s. */
#define TK_PASTE (TK_FN_BASE + 0x10000)

#define ACTION_LIST(_) \
	_(NONE,         "none",           "Do nothing") \
	_(QUIT, "quit", \
	  "Leave the screen (everything is saved already)") \
	_(HELP,         "help",           "Show the keys (this screen)") \
	_(CODEBOOK, "codebook", \
	  "Show the codebook with every definition") \
	_(REDRAW,       "redraw",         "Redraw the whole screen") \
	_(LINE_DOWN,    "line-down",      "Move down one line") \
	_(LINE_UP,      "line-up",        "Move up one line") \
	_(PAGE_DOWN,    "page-down",      "Move down one page") \
	_(PAGE_UP,      "page-up",        "Move up one page") \
	_(HALF_DOWN,    "half-page-down", "Move down half a page") \
	_(HALF_UP,      "half-page-up",   "Move up half a page") \
	_(TOP,          "top",            "Go to the first line") \
	_(BOTTOM,       "bottom",         "Go to the last line") \
	_(SCROLL_LEFT, "scroll-left", \
	  "Scroll code and diff lines to the left") \
	_(SCROLL_RIGHT, "scroll-right", \
	  "Scroll code and diff lines to the right") \
	_(SCROLL_HOME,  "scroll-home",    "Undo sideways scrolling") \
	_(TOGGLE_SECTION, "toggle-section", \
	  "Close or open the first <details> section in view") \
	_(WRAP, "wrap", \
	  "Wrap long code and diff lines in the focused pane, or not") \
	_(SEARCH, "search", \
	  "Search the focused pane (Enter runs, Esc cancels)") \
	_(SEARCH_NEXT,  "search-next",    "Go to the next match") \
	_(SEARCH_PREV,  "search-prev",    "Go to the previous match") \
	_(SWITCH_PANE, "switch-pane", \
	  "Switch between the issue and the fix") \
	_(ZOOM, "zoom", \
	  "Give the focused pane the whole width, or share it again") \
	_(NEXT_HUNK,    "next-hunk",      "Go to the next hunk of the fix") \
	_(PREV_HUNK, "prev-hunk", \
	  "Go to the previous hunk of the fix") \
	_(NEXT_FILE,    "next-file",      "Go to the next file of the fix") \
	_(PREV_FILE, "prev-file", \
	  "Go to the previous file of the fix") \
	_(NEXT_FIX, "next-fix", \
	  "Show the next fix (pull request) of the item") \
	_(LINE_CURSOR, "line-cursor", \
	  "Show or hide the line cursor in the focused pane (j/k move it)") \
	_(MARK_RANGE, "mark-range", \
	  "Start a range of lines at the line cursor (again to drop it); " \
	  "without a cursor, the changed lines e would cite and the rest " \
	  "of their run") \
	_(CITE, "cite", \
	  "Cite the range or the cursor line - without a cursor, the " \
	  "search match in view or the fix pane's first changed line in " \
	  "view - for dimension N: the key after it, 1-9, or e or Enter " \
	  "for the dimension last coded") \
	_(CITATIONS, "citations", \
	  "List your citations of this item with their quotes (Enter " \
	  "shows one, x removes it)") \
	_(NEXT_CITATION, "next-citation", "Select the next citation") \
	_(PREV_CITATION, "prev-citation", "Select the previous citation") \
	_(SHOW_CITATION, "show-citation", \
	  "Show the selected citation's lines in their pane") \
	_(REMOVE_CITATION, "remove-citation", \
	  "Remove the selected citation (audited)") \
	_(PICK_DIM, "pick-dimension", \
	  "Choose a code for dimension N of the coding bar") \
	_(PICK_UNCODED, "pick-uncoded", \
	  "Choose a code for the first dimension not coded yet") \
	_(MEMO,         "memo",           "Write the memo of this item") \
	_(MEMO_EDITOR, "memo-editor", \
	  "Write the memo in $VISUAL or $EDITOR") \
	_(UNCERTAIN, "flag-uncertain", \
	  "Flag the item as uncertain (again to clear)") \
	_(DISCUSS, "flag-discuss", \
	  "Flag the item for discussion (again to clear)") \
	_(SUBMIT, "submit", \
	  "Submit the item, then go to the next one not submitted") \
	_(NEXT_ITEM,    "next-item",      "Go to the next item of the queue") \
	_(PREV_ITEM, "prev-item", \
	  "Go to the previous item of the queue") \
	_(NEXT_TODO, "next-todo", \
	  "Go to the next item not submitted yet") \
	_(PICK_NUMBER, "pick-number", \
	  "Pick the code shown with this key (1-9, then letters a-z A-Z), " \
	  "then go on to the next dimension to code") \
	_(FILTER, "filter", \
	  "Filter the codes by what is typed next (Esc ends the filter)") \
	_(PICK, "pick", \
	  "Pick the highlighted code; in a many-code dimension, close") \
	_(TOGGLE, "toggle", \
	  "Pick or toggle the highlighted code") \
	_(CLEAR_DIM, "clear", \
	  "Remove every code of this dimension") \
	_(PROPOSE, "propose", \
	  "Propose a new code for this dimension") \
	_(NEXT_DIM,     "next-dimension", "Go to the next dimension") \
	_(PREV_DIM,     "prev-dimension", "Go to the previous dimension") \
	_(CLOSE,        "close",          "Close") \
	_(SAVE_CLOSE,   "save-close",     "Save and close") \
	_(CANCEL,       "cancel",         "Close without saving") \
	_(ACCEPT,       "accept",         "Accept") \
	_(NEXT_FIELD, "next-field", \
	  "Go to the next field (Enter on the last one saves)") \
	_(PREV_FIELD,   "prev-field",     "Go to the previous field") \
	_(ED_LEFT,      "cursor-left",    "Move the cursor left") \
	_(ED_RIGHT,     "cursor-right",   "Move the cursor right") \
	_(ED_UP,        "cursor-up",      "Move the cursor up") \
	_(ED_DOWN,      "cursor-down",    "Move the cursor down") \
	_(ED_HOME,      "line-start",     "Move to the start of the line") \
	_(ED_END,       "line-end",       "Move to the end of the line") \
	_(ED_BACKSPACE, "delete-back", \
	  "Delete the character before the cursor") \
	_(ED_DELETE, "delete", \
	  "Delete the character under the cursor") \
	_(ED_KILL,      "kill-line",      "Delete to the end of the line") \
	_(ED_KILL_BACK, "kill-line-back", \
	  "Delete to the start of the line (in filters: all)") \
	_(ED_NEWLINE,   "newline",        "Start a new line") \
	_(TAKE_CODER, "take-coder", \
	  "Take Coder N's code for the selected dimension, then give a " \
	  "rationale") \
	_(CHOOSE_CODE, "choose-code", \
	  "Choose another code for the selected dimension in the picker") \
	_(SETTLE, "settle", \
	  "Settle an item flagged for discussion (a note is optional)") \
	_(SHOW_MEMOS,   "show-memos",     "Show the coders' memos in full") \
	_(SHOW_EVIDENCE, "show-evidence", \
	  "Show the coders' evidence with the lines they quote") \
	_(NEXT_EVIDENCE, "next-evidence", \
	  "Show the next citation of the selected dimension in its pane " \
	  "(the fix that has it)") \
	_(TOGGLE_BLIND, "toggle-blind", \
	  "Turn blind adjudication off or on (the owner only)") \
	_(AGREEMENT, "agreement", \
	  "Show agreement: kappa per dimension and round, confusion, codes") \
	_(NEXT_CAUSE, "next-cause", \
	  "Tag the next cause of the disagreement (optional)") \
	_(PREV_CAUSE, "prev-cause", \
	  "Tag the previous cause of the disagreement") \
	_(RATIONALE_EDITOR, "rationale-editor", \
	  "Write the rationale in $VISUAL or $EDITOR") \
	_(NEXT_ROUND, "next-round", \
	  "Show the next round (then the whole study)") \
	_(PREV_ROUND,   "prev-round",     "Show the previous round") \
	_(PROPOSALS, "proposals", \
	  "Review the proposed codes: accept one, or map it onto a code") \
	_(NEXT_PROPOSAL, "next-proposal", "Select the next proposal") \
	_(PREV_PROPOSAL, "prev-proposal", "Select the previous proposal") \
	_(ACCEPT_PROPOSAL, "accept-proposal", \
	  "Accept the selected proposal into a new codebook version; y " \
	  "confirms") \
	_(MAP_PROPOSAL, "map-proposal", \
	  "Map the selected proposal onto a code of its dimension, in the " \
	  "picker") \
	_(ALL_PROPOSALS, "all-proposals", \
	  "Show the decided proposals too, or the open ones only")

#define ACTION_ENUM(id, name, help) ACT_##id,
enum action {
	ACTION_LIST(ACTION_ENUM)
	NR_ACTIONS
};
#undef ACTION_ENUM

/* The keymaps, each with its table; a view names the one it uses. */
enum keymap_id {
	KEYMAP_GENERIC,	/* scrolling, everywhere a view falls back */
	KEYMAP_MAIN,	/* the coding screen (issue and fix panes) */
	KEYMAP_PAGER,	/* help and codebook overlays */
	KEYMAP_PICKER,	/* the code picker (typing filters) */
	KEYMAP_MEMO,	/* the memo editor */
	KEYMAP_FORM,	/* the "propose a code" form */
	KEYMAP_PROMPT,	/* the search prompt */
	KEYMAP_ADJUDICATE,	/* the adjudicator's screen */
	KEYMAP_RESOLVE,	/* the rationale (or note) dialog */
	KEYMAP_AGREE,	/* the agreement view */
	KEYMAP_PROPOSALS,	/* the proposed codes (adjudicator's screen) */
	KEYMAP_CITATIONS,	/* one's citations (annotator's screen) */
	NR_KEYMAPS
};

/* The action bound to `key` in keymap `km`, falling back to the generic
 * table for the keymaps that scroll (main and pager).  ACT_NONE when the
 * key is not bound. */
enum action keymap_lookup(enum keymap_id km, int key);

const char *action_name(enum action a);
const char *action_help(enum action a);

/* Name of a key as key scripts and the help screen write it: "j",
 * "<Down>", "<C-x>", "<Space>", "<lt>".  Writes into out[32]. */
const char *keyname_of(int key, char out[32]);

/* Parse one key name at s (a single UTF-8 character, or "<Name>").
 * Returns the number of bytes used and stores the key, or 0 when s does
 * not start with a valid key (an unknown <Name>). */
size_t key_parse(const char *s, size_t len, int *key);

/* Append the help text of every keymap to `out`, one entry per line
 * ("keys  action  help"), sections headed by lines starting with "#". */
void keymap_help(struct buf *out);
/* The same for one screen, named by its main keymap (KEYMAP_MAIN,
 * KEYMAP_ADJUDICATE or KEYMAP_AGREE): its own keys first, then the
 * generic ones, then the overlays it opens. */
void keymap_help_for(struct buf *out, enum keymap_id screen);

/* The first key in force (a keys file's bindings first, then the
 * defaults, then the generic ones for the keymaps that fall back) that
 * does `a` in keymap `km`; 0 when no key does. */
int keymap_key_for(enum keymap_id km, enum action a);
/* A key's name for a hint line: as keyname_of() gives it, without the
 * angle brackets ("Tab", "C-x", "j").  Writes into out[32]. */
const char *keyname_hint(int key, char out[32]);

/* Is `key` something a text field takes (a printable character)? */
int key_is_text(int key);

/*
 * Keys of one's own: a file of lines
 *
 *	# a comment
 *	bind KEYMAP KEY ACTION
 *	set NAME VALUE
 *
 * KEYMAP is a keymap's name (generic, main, pager, picker, memo, form,
 * prompt, adjudicate, resolve, agree, proposals, citations), KEY a key as
 * key scripts write it ("x", "<C-x>", "<F5>", "<Space>"), ACTION an action's
 * name as `?` lists it, or "none" to take the key away.  A binding comes
 * before the keymap's defaults; a key bound again replaces the default.
 * A `set` line gives a setting its default (tui/settings.h).
 */

/* Forget every binding of a keys file. */
void keymap_reset(void);
/* Read the keys file `path` (NULL: $XDG_CONFIG_HOME/bugcoder/keys, or
 * ~/.config/bugcoder/keys), after forgetting every binding and setting
 * of the last one.  A missing file is no error.  Every bad line
 * is ignored and described in `warn` ("FILE:LINE: what is wrong", one a
 * line); returns the number of bad lines, or -1 when the file exists but
 * cannot be read (said in `warn`). */
int keymap_load(const char *path, struct buf *warn);
/* keymap_load() of the keys file's text[0..len), read from `origin` (a
 * path, for the warnings).  A line holding a NUL byte is a bad line. */
int keymap_load_text(const char *text, size_t len, const char *origin,
		     struct buf *warn);
/* The keymap named `name`, or -1. */
int keymap_by_name(const char *name);
/* The action named `name`, or -1. */
int action_by_name(const char *name);

#endif
