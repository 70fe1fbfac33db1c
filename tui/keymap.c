/* SPDX-License-Identifier: MIT */
/*
 * keymap: the default bindings, key names, and the generated help.
 *
 * Bindings are searched in the keymap's own table first, then (for the
 * scrolling keymaps) in the generic one, as tig's get_keybinding() does.
 * Text-entry keymaps (picker, memo, form, prompt) have no fallback: a key
 * they do not bind is text, or nothing.
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/keymap.h"

#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "core/base/text.h"
#include "tui/settings.h"

struct binding {
	int key;
	enum action action;
};

/* The function keys curses has: F1 to F63 (terminals send F13 and up
 * for F1-F12 with Shift, Control or both). */
#define KEYMAP_F_MAX 63

#define ACTION_NAME(id, name, help) name,
static const char *const action_names[] = { ACTION_LIST(ACTION_NAME) };
#undef ACTION_NAME
#define ACTION_HELP(id, name, help) help,
static const char *const action_helps[] = { ACTION_LIST(ACTION_HELP) };
#undef ACTION_HELP

static const struct binding generic_keys[] = {
	{ 'j', ACT_LINE_DOWN }, { TK_FN(KEY_DOWN), ACT_LINE_DOWN },
	{ TK_CTRL('n'), ACT_LINE_DOWN }, { TK_ENTER, ACT_LINE_DOWN },
	{ 'k', ACT_LINE_UP }, { TK_FN(KEY_UP), ACT_LINE_UP },
	{ TK_CTRL('p'), ACT_LINE_UP },
	{ ' ', ACT_PAGE_DOWN }, { 'f', ACT_PAGE_DOWN },
	{ TK_FN(KEY_NPAGE), ACT_PAGE_DOWN }, { TK_CTRL('f'), ACT_PAGE_DOWN },
	{ 'b', ACT_PAGE_UP }, { TK_FN(KEY_PPAGE), ACT_PAGE_UP },
	{ TK_CTRL('b'), ACT_PAGE_UP },
	{ TK_CTRL('d'), ACT_HALF_DOWN }, { TK_CTRL('u'), ACT_HALF_UP },
	{ 'g', ACT_TOP }, { TK_FN(KEY_HOME), ACT_TOP },
	{ 'G', ACT_BOTTOM }, { TK_FN(KEY_END), ACT_BOTTOM },
	{ 'h', ACT_SCROLL_LEFT }, { TK_FN(KEY_LEFT), ACT_SCROLL_LEFT },
	{ 'l', ACT_SCROLL_RIGHT }, { TK_FN(KEY_RIGHT), ACT_SCROLL_RIGHT },
	{ '^', ACT_SCROLL_HOME },
	{ '/', ACT_SEARCH }, { 'n', ACT_SEARCH_NEXT },
	{ 'N', ACT_SEARCH_PREV },
	{ '?', ACT_HELP }, { TK_FN(KEY_F(1)), ACT_HELP },
	{ 'q', ACT_QUIT }, { TK_CTRL('l'), ACT_REDRAW },
	{ 0, ACT_NONE }
};

static const struct binding main_keys[] = {
	{ '1', ACT_PICK_DIM }, { '2', ACT_PICK_DIM }, { '3', ACT_PICK_DIM },
	{ '4', ACT_PICK_DIM }, { '5', ACT_PICK_DIM }, { '6', ACT_PICK_DIM },
	{ '7', ACT_PICK_DIM }, { '8', ACT_PICK_DIM }, { '9', ACT_PICK_DIM },
	{ 'c', ACT_PICK_UNCODED },
	{ 's', ACT_SUBMIT },
	{ 'm', ACT_MEMO }, { 'M', ACT_MEMO_EDITOR },
	{ 'u', ACT_UNCERTAIN }, { 'd', ACT_DISCUSS },
	{ TK_TAB, ACT_SWITCH_PANE }, { TK_FN(KEY_BTAB), ACT_SWITCH_PANE },
	{ 'z', ACT_ZOOM }, { 'w', ACT_WRAP }, { 'o', ACT_TOGGLE_SECTION },
	{ ']', ACT_NEXT_HUNK }, { '[', ACT_PREV_HUNK },
	{ '}', ACT_NEXT_FILE }, { '{', ACT_PREV_FILE },
	{ 'F', ACT_NEXT_FIX },
	{ '.', ACT_LINE_CURSOR }, { 'v', ACT_MARK_RANGE }, { 'e', ACT_CITE },
	{ 'E', ACT_CITATIONS },
	{ '>', ACT_NEXT_ITEM }, { '<', ACT_PREV_ITEM }, { 't', ACT_NEXT_TODO },
	{ 'C', ACT_CODEBOOK }, { 'A', ACT_AGREEMENT },
	{ 0, ACT_NONE }
};

static const struct binding adjudicate_keys[] = {
	{ '1', ACT_TAKE_CODER }, { '2', ACT_TAKE_CODER },
	{ '3', ACT_TAKE_CODER }, { '4', ACT_TAKE_CODER },
	{ '5', ACT_TAKE_CODER }, { '6', ACT_TAKE_CODER },
	{ '7', ACT_TAKE_CODER }, { '8', ACT_TAKE_CODER },
	{ '9', ACT_TAKE_CODER },
	{ 'c', ACT_CHOOSE_CODE },
	{ 'J', ACT_NEXT_DIM }, { 'K', ACT_PREV_DIM },
	{ 'S', ACT_SETTLE }, { 'M', ACT_SHOW_MEMOS },
	{ 'E', ACT_SHOW_EVIDENCE }, { 'e', ACT_NEXT_EVIDENCE },
	{ 'B', ACT_TOGGLE_BLIND }, { 'A', ACT_AGREEMENT },
	{ 'P', ACT_PROPOSALS },
	{ TK_TAB, ACT_SWITCH_PANE }, { TK_FN(KEY_BTAB), ACT_SWITCH_PANE },
	{ 'z', ACT_ZOOM }, { 'w', ACT_WRAP }, { 'o', ACT_TOGGLE_SECTION },
	{ ']', ACT_NEXT_HUNK }, { '[', ACT_PREV_HUNK },
	{ '}', ACT_NEXT_FILE }, { '{', ACT_PREV_FILE },
	{ 'F', ACT_NEXT_FIX },
	{ '>', ACT_NEXT_ITEM }, { '<', ACT_PREV_ITEM },
	{ 'C', ACT_CODEBOOK },
	{ 0, ACT_NONE }
};

static const struct binding pager_keys[] = {
	{ 'q', ACT_CLOSE }, { TK_ESC, ACT_CLOSE }, { TK_CTRL('g'), ACT_CLOSE },
	{ '?', ACT_CLOSE },
	{ 0, ACT_NONE }
};

static const struct binding picker_keys[] = {
	{ '1', ACT_PICK_NUMBER }, { '2', ACT_PICK_NUMBER },
	{ '3', ACT_PICK_NUMBER }, { '4', ACT_PICK_NUMBER },
	{ '5', ACT_PICK_NUMBER }, { '6', ACT_PICK_NUMBER },
	{ '7', ACT_PICK_NUMBER }, { '8', ACT_PICK_NUMBER },
	{ '9', ACT_PICK_NUMBER }, { '/', ACT_FILTER },
	{ TK_ENTER, ACT_PICK }, { ' ', ACT_TOGGLE },
	{ TK_FN(KEY_DOWN), ACT_LINE_DOWN }, { TK_CTRL('n'), ACT_LINE_DOWN },
	{ TK_FN(KEY_UP), ACT_LINE_UP }, { TK_CTRL('p'), ACT_LINE_UP },
	{ TK_FN(KEY_NPAGE), ACT_PAGE_DOWN }, { TK_FN(KEY_PPAGE), ACT_PAGE_UP },
	{ TK_FN(KEY_BACKSPACE), ACT_ED_BACKSPACE },
	{ TK_CTRL('u'), ACT_ED_KILL_BACK },
	{ TK_FN(KEY_DC), ACT_CLEAR_DIM },
	{ '+', ACT_PROPOSE },
	{ TK_TAB, ACT_NEXT_DIM }, { TK_FN(KEY_BTAB), ACT_PREV_DIM },
	{ TK_ESC, ACT_CLOSE }, { TK_CTRL('g'), ACT_CLOSE },
	{ '?', ACT_HELP }, { TK_FN(KEY_F(1)), ACT_HELP },
	{ 0, ACT_NONE }
};

#define EDIT_KEYS \
	{ TK_FN(KEY_LEFT), ACT_ED_LEFT }, { TK_CTRL('b'), ACT_ED_LEFT }, \
	{ TK_FN(KEY_RIGHT), ACT_ED_RIGHT }, { TK_CTRL('f'), ACT_ED_RIGHT }, \
	{ TK_FN(KEY_HOME), ACT_ED_HOME }, { TK_CTRL('a'), ACT_ED_HOME }, \
	{ TK_FN(KEY_END), ACT_ED_END }, { TK_CTRL('e'), ACT_ED_END }, \
	{ TK_FN(KEY_BACKSPACE), ACT_ED_BACKSPACE }, \
	{ TK_FN(KEY_DC), ACT_ED_DELETE }, { TK_CTRL('d'), ACT_ED_DELETE }, \
	{ TK_CTRL('k'), ACT_ED_KILL }, { TK_CTRL('u'), ACT_ED_KILL_BACK }

static const struct binding memo_keys[] = {
	{ TK_ESC, ACT_SAVE_CLOSE }, { TK_CTRL('x'), ACT_SAVE_CLOSE },
	{ TK_CTRL('g'), ACT_CANCEL },
	{ TK_CTRL('o'), ACT_MEMO_EDITOR },
	{ TK_ENTER, ACT_ED_NEWLINE },
	{ TK_FN(KEY_UP), ACT_ED_UP }, { TK_CTRL('p'), ACT_ED_UP },
	{ TK_FN(KEY_DOWN), ACT_ED_DOWN }, { TK_CTRL('n'), ACT_ED_DOWN },
	EDIT_KEYS,
	{ 0, ACT_NONE }
};

static const struct binding form_keys[] = {
	{ TK_TAB, ACT_NEXT_FIELD }, { TK_ENTER, ACT_NEXT_FIELD },
	{ TK_FN(KEY_DOWN), ACT_NEXT_FIELD },
	{ TK_FN(KEY_BTAB), ACT_PREV_FIELD }, { TK_FN(KEY_UP), ACT_PREV_FIELD },
	{ TK_ESC, ACT_CANCEL }, { TK_CTRL('g'), ACT_CANCEL },
	EDIT_KEYS,
	{ 0, ACT_NONE }
};

static const struct binding prompt_keys[] = {
	{ TK_ENTER, ACT_ACCEPT },
	{ TK_ESC, ACT_CANCEL }, { TK_CTRL('g'), ACT_CANCEL },
	EDIT_KEYS,
	{ 0, ACT_NONE }
};

static const struct binding resolve_keys[] = {
	{ TK_ENTER, ACT_ACCEPT },
	{ TK_ESC, ACT_CANCEL }, { TK_CTRL('g'), ACT_CANCEL },
	{ TK_TAB, ACT_NEXT_CAUSE }, { TK_FN(KEY_BTAB), ACT_PREV_CAUSE },
	{ TK_CTRL('o'), ACT_RATIONALE_EDITOR },
	EDIT_KEYS,
	{ 0, ACT_NONE }
};

static const struct binding agree_keys[] = {
	{ 'j', ACT_NEXT_DIM }, { TK_FN(KEY_DOWN), ACT_NEXT_DIM },
	{ 'k', ACT_PREV_DIM }, { TK_FN(KEY_UP), ACT_PREV_DIM },
	{ TK_TAB, ACT_NEXT_ROUND }, { TK_FN(KEY_BTAB), ACT_PREV_ROUND },
	{ 'q', ACT_CLOSE }, { TK_ESC, ACT_CLOSE }, { TK_CTRL('g'), ACT_CLOSE },
	{ 0, ACT_NONE }
};

static const struct binding citations_keys[] = {
	{ 'j', ACT_NEXT_CITATION }, { TK_FN(KEY_DOWN), ACT_NEXT_CITATION },
	{ TK_CTRL('n'), ACT_NEXT_CITATION },
	{ 'k', ACT_PREV_CITATION }, { TK_FN(KEY_UP), ACT_PREV_CITATION },
	{ TK_CTRL('p'), ACT_PREV_CITATION },
	{ TK_ENTER, ACT_SHOW_CITATION },
	{ 'x', ACT_REMOVE_CITATION }, { TK_FN(KEY_DC), ACT_REMOVE_CITATION },
	{ 'q', ACT_CLOSE }, { TK_ESC, ACT_CLOSE }, { TK_CTRL('g'), ACT_CLOSE },
	{ 'E', ACT_CLOSE },
	{ 0, ACT_NONE }
};

static const struct binding proposals_keys[] = {
	{ 'j', ACT_NEXT_PROPOSAL }, { TK_FN(KEY_DOWN), ACT_NEXT_PROPOSAL },
	{ TK_CTRL('n'), ACT_NEXT_PROPOSAL },
	{ 'k', ACT_PREV_PROPOSAL }, { TK_FN(KEY_UP), ACT_PREV_PROPOSAL },
	{ TK_CTRL('p'), ACT_PREV_PROPOSAL },
	{ TK_ENTER, ACT_ACCEPT_PROPOSAL }, { 'y', ACT_ACCEPT_PROPOSAL },
	{ 'm', ACT_MAP_PROPOSAL }, { 'a', ACT_ALL_PROPOSALS },
	{ 'q', ACT_CLOSE }, { TK_ESC, ACT_CLOSE }, { TK_CTRL('g'), ACT_CLOSE },
	{ 0, ACT_NONE }
};

/* The screens a keymap is used on, for the help of each screen. */
enum {
	ON_CODE = 1 << 0,	/* the annotator's screen */
	ON_ADJ = 1 << 1,	/* the adjudicator's screen */
	ON_AGREE = 1 << 2,	/* the agreement screen on its own */
	ON_ALL = ON_CODE | ON_ADJ | ON_AGREE,
};

/* Bindings from a keys file, per keymap, searched first. */
static struct user_keys {
	struct binding *v;
	size_t nr, alloc;
} user[NR_KEYMAPS];

static const char *const keymap_names[NR_KEYMAPS] = {
	[KEYMAP_GENERIC] = "generic", [KEYMAP_MAIN] = "main",
	[KEYMAP_PAGER] = "pager", [KEYMAP_PICKER] = "picker",
	[KEYMAP_MEMO] = "memo", [KEYMAP_FORM] = "form",
	[KEYMAP_PROMPT] = "prompt", [KEYMAP_ADJUDICATE] = "adjudicate",
	[KEYMAP_RESOLVE] = "resolve", [KEYMAP_AGREE] = "agree",
	[KEYMAP_PROPOSALS] = "proposals", [KEYMAP_CITATIONS] = "citations",
};

static const struct {
	const char *title;
	const struct binding *keys;
	int fallback;	/* also search the generic table */
	unsigned on;	/* ON_* */
} keymaps[NR_KEYMAPS] = {
	[KEYMAP_GENERIC] = { "Moving, searching, leaving (everywhere but "
			     "text fields)", generic_keys, 0, ON_ALL },
	[KEYMAP_MAIN] = { "Coding screen", main_keys, 1, ON_CODE },
	[KEYMAP_PAGER] = { "Help and codebook", pager_keys, 1, ON_ALL },
	[KEYMAP_PICKER] = { "Code picker (a code's digit or letter picks it)",
			    picker_keys, 0, ON_CODE | ON_ADJ },
	[KEYMAP_MEMO] = { "Memo editor", memo_keys, 0, ON_CODE },
	[KEYMAP_FORM] = { "Proposing a code", form_keys, 0, ON_CODE },
	[KEYMAP_PROMPT] = { "Search prompt", prompt_keys, 0, ON_ALL },
	[KEYMAP_ADJUDICATE] = { "Adjudicator's screen", adjudicate_keys, 1,
				ON_ADJ },
	[KEYMAP_RESOLVE] = { "Rationale and note dialog (the text is "
			     "typed in)", resolve_keys, 0, ON_ADJ },
	[KEYMAP_AGREE] = { "Agreement view", agree_keys, 1, ON_ALL },
	[KEYMAP_PROPOSALS] = { "Proposed codes (P on the adjudicator's "
			       "screen)", proposals_keys, 1, ON_ADJ },
	[KEYMAP_CITATIONS] = { "Your citations (E on the coding screen)",
			       citations_keys, 1, ON_CODE },
};

/* The order of the help's sections after a screen's own keymap and the
 * generic one; the search prompt comes last. */
static const enum keymap_id help_order[] = {
	KEYMAP_MAIN, KEYMAP_ADJUDICATE, KEYMAP_PAGER, KEYMAP_PICKER,
	KEYMAP_MEMO, KEYMAP_FORM, KEYMAP_RESOLVE, KEYMAP_AGREE,
	KEYMAP_PROPOSALS, KEYMAP_CITATIONS, KEYMAP_PROMPT,
};

static enum action find(const struct binding *b, int key)
{
	for (; b->action != ACT_NONE; b++)
		if (b->key == key)
			return b->action;
	return ACT_NONE;
}

/* The binding of `key` in keymap km: a keys file's first, then the
 * default. */
static enum action find_in(enum keymap_id km, int key)
{
	size_t i;

	for (i = 0; i < user[km].nr; i++)
		if (user[km].v[i].key == key)
			return user[km].v[i].action;
	return find(keymaps[km].keys, key);
}

enum action keymap_lookup(enum keymap_id km, int key)
{
	enum action a;

	if ((unsigned)km >= NR_KEYMAPS)
		return ACT_NONE;
	a = find_in(km, key);
	if (a == ACT_NONE && keymaps[km].fallback)
		a = find_in(KEYMAP_GENERIC, key);
	return a;
}

void keymap_reset(void)
{
	int k;

	for (k = 0; k < NR_KEYMAPS; k++) {
		free(user[k].v);
		user[k].v = NULL;
		user[k].nr = user[k].alloc = 0;
	}
}

int keymap_by_name(const char *name)
{
	int k;

	for (k = 0; k < NR_KEYMAPS; k++)
		if (!strcmp(keymap_names[k], name))
			return k;
	return -1;
}

int action_by_name(const char *name)
{
	int a;

	for (a = 0; a < NR_ACTIONS; a++)
		if (!strcmp(action_names[a], name))
			return a;
	return -1;
}

/* Split s at blanks into at most `max` words (NUL-terminated in place);
 * returns how many there are (max + 1 when there are more). */
static int split(char *s, char **w, int max)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			*s++ = '\0';
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
}

/* One line of a keys file; NULL when it is good, else what is wrong
 * (into `why`). */
static const char *bind_line(char *line, char why[160])
{
	char *w[4];
	int n = split(line, w, 4), km, a, key;
	size_t used, i;
	struct user_keys *u;

	if (!n || w[0][0] == '#')
		return NULL;
	if (!strcmp(w[0], "set")) {
		if (n != 3)
			return snprintf(why, 160, "set takes two words: NAME "
					"VALUE"), why;
		return settings_set_words(w[1], w[2], why);
	}
	if (strcmp(w[0], "bind"))
		return snprintf(why, 160, "unknown command \"%.40s\" (bind "
				"or set)", w[0]), why;
	if (n != 4)
		return snprintf(why, 160, "bind takes three words: KEYMAP KEY "
				"ACTION"), why;
	km = keymap_by_name(w[1]);
	if (km < 0)
		return snprintf(why, 160, "no keymap \"%.40s\"", w[1]), why;
	used = key_parse(w[2], strlen(w[2]), &key);
	if (!used || used != strlen(w[2]))
		return snprintf(why, 160, "no key \"%.40s\"", w[2]), why;
	a = action_by_name(w[3]);
	if (a < 0)
		return snprintf(why, 160, "no action \"%.40s\"", w[3]), why;
	u = &user[km];
	for (i = 0; i < u->nr; i++)
		if (u->v[i].key == key)
			break;
	if (i == u->nr) {
		ALLOC_GROW(u->v, u->nr + 1, u->alloc);
		u->nr++;
	}
	u->v[i].key = key;
	u->v[i].action = (enum action)a;
	return NULL;
}

int keymap_load_text(const char *text, size_t len, const char *origin,
		     struct buf *warn)
{
	const char *p = text, *end = text + len;
	int bad = 0, nr = 0;

	keymap_reset();
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n), why[160];
		const char *err;

		nr++;
		if (memchr(p, '\0', n)) {
			err = "a NUL byte in the line";
		} else {
			if (n && line[n - 1] == '\r')
				line[n - 1] = '\0';
			err = bind_line(line, why);
		}
		if (err) {
			struct buf safe = BUF_INIT;

			/* the file's words go to a terminal: sanitized */
			text_sanitize(&safe, err, strlen(err), 8, 0);
			buf_addf(warn, "%s:%d: %s (line ignored)\n", origin, nr,
				 safe.ptr);
			buf_release(&safe);
			bad++;
		}
		free(line);
		p += n + (nl ? 1 : 0);
	}
	return bad;
}

int keymap_load(const char *path, struct buf *warn)
{
	struct buf def = BUF_INIT, text = BUF_INIT;
	int bad = 0;

	keymap_reset();
	settings_reset();
	if (!path) {
		const char *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");

		if (x && *x)
			buf_addf(&def, "%s/bugcoder/keys", x);
		else if (h && *h)
			buf_addf(&def, "%s/.config/bugcoder/keys", h);
		else
			return 0;
		path = def.ptr;
	}
	if (buf_read_file(&text, path) < 0) {
		if (errno != ENOENT) {
			buf_addf(warn, "%s: %s (keys file not read)\n", path,
				 strerror(errno));
			bad = -1;
		}
		goto out;
	}
	bad = keymap_load_text(text.ptr, text.len, path, warn);
out:
	buf_release(&def);
	buf_release(&text);
	return bad;
}

const char *action_name(enum action a)
{
	return (unsigned)a < NR_ACTIONS ? action_names[a] : "none";
}

const char *action_help(enum action a)
{
	return (unsigned)a < NR_ACTIONS ? action_helps[a] : "";
}

static const struct {
	const char *name;
	int key;
} named_keys[] = {
	{ "Enter", TK_ENTER }, { "CR", TK_ENTER }, { "Return", TK_ENTER },
	{ "Esc", TK_ESC }, { "Tab", TK_TAB }, { "Space", ' ' },
	{ "lt", '<' }, { "gt", '>' },
	{ "Down", TK_FN(KEY_DOWN) }, { "Up", TK_FN(KEY_UP) },
	{ "Left", TK_FN(KEY_LEFT) }, { "Right", TK_FN(KEY_RIGHT) },
	{ "PgDn", TK_FN(KEY_NPAGE) }, { "PageDown", TK_FN(KEY_NPAGE) },
	{ "PgUp", TK_FN(KEY_PPAGE) }, { "PageUp", TK_FN(KEY_PPAGE) },
	{ "Home", TK_FN(KEY_HOME) }, { "End", TK_FN(KEY_END) },
	{ "Del", TK_FN(KEY_DC) }, { "Delete", TK_FN(KEY_DC) },
	{ "Ins", TK_FN(KEY_IC) }, { "Insert", TK_FN(KEY_IC) },
	{ "S-Tab", TK_FN(KEY_BTAB) }, { "BTab", TK_FN(KEY_BTAB) },
	{ "Backspace", TK_FN(KEY_BACKSPACE) }, { "BS", TK_FN(KEY_BACKSPACE) },
	{ "Resize", TK_FN(KEY_RESIZE) },
};

const char *keyname_of(int key, char out[32])
{
	size_t i;

	for (i = 0; i < sizeof(named_keys) / sizeof(named_keys[0]); i++)
		if (named_keys[i].key == key && key != '>') {
			snprintf(out, 32, "<%s>", named_keys[i].name);
			return out;
		}
	if (TK_IS_FN(key)) {
		int k = key - TK_FN_BASE;

		if (k >= KEY_F(1) && k <= KEY_F(KEYMAP_F_MAX))
			snprintf(out, 32, "<F%d>", k - KEY_F0);
		else
			snprintf(out, 32, "<key%d>", k);
		return out;
	}
	if (key > 0 && key < 32) {
		snprintf(out, 32, "<C-%c>", key + 'a' - 1 <= 'z' ?
			 key + 'a' - 1 : key + '@');
		return out;
	}
	if (key == 127) {
		snprintf(out, 32, "<C-?>");
		return out;
	}
	if (key > 32 && key < 127) {
		out[0] = (char)key;
		out[1] = '\0';
		return out;
	}
	{
		char u[5] = { 0 };
		uint32_t cp = (uint32_t)key;

		/* only printable characters are written as themselves */
		if (text_char_width(cp) < 0 || cp > 0x10ffff) {
			snprintf(out, 32, "<U+%04X>", (unsigned)cp);
			return out;
		}
		if (cp < 0x800) {
			u[0] = (char)(0xc0 | (cp >> 6));
			u[1] = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			u[0] = (char)(0xe0 | (cp >> 12));
			u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[2] = (char)(0x80 | (cp & 0x3f));
		} else {
			u[0] = (char)(0xf0 | (cp >> 18));
			u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
			u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
			u[3] = (char)(0x80 | (cp & 0x3f));
		}
		snprintf(out, 32, "%s", u);
		return out;
	}
}

size_t key_parse(const char *s, size_t len, int *key)
{
	const char *end;
	size_t n, i;
	uint32_t cp;

	if (!len)
		return 0;
	if (s[0] == '<' && (end = memchr(s, '>', len)) && end > s + 1) {
		size_t nl = (size_t)(end - s) - 1;
		const char *name = s + 1;

		for (i = 0; i < sizeof(named_keys) / sizeof(named_keys[0]); i++)
			if (strlen(named_keys[i].name) == nl &&
			    !strncmp(named_keys[i].name, name, nl)) {
				*key = named_keys[i].key;
				return nl + 2;
			}
		if (nl == 3 && (name[0] == 'C' || name[0] == 'c') &&
		    name[1] == '-') {
			int c = (unsigned char)name[2];

			if (c == '?')
				*key = 127;
			else
				*key = TK_CTRL(c >= 'a' && c <= 'z' ?
					       c - 'a' + 'A' : c);
			return nl + 2;
		}
		if (nl >= 2 && nl <= 3 && name[0] == 'F' && name[1] >= '1' &&
		    name[1] <= '9') {
			int f = name[1] - '0';

			if (nl == 3 && (name[2] < '0' || name[2] > '9'))
				return 0;
			if (nl == 3)
				f = f * 10 + name[2] - '0';
			if (f > KEYMAP_F_MAX)
				return 0;
			*key = TK_FN(KEY_F(f));
			return nl + 2;
		}
		if (nl > 2 && name[0] == 'U' && name[1] == '+') {
			unsigned long v = 0;

			for (i = 2; i < nl; i++) {
				int c = name[i];

				if (c >= '0' && c <= '9')
					v = v * 16 + (unsigned)(c - '0');
				else if (c >= 'a' && c <= 'f')
					v = v * 16 + (unsigned)(c - 'a' + 10);
				else if (c >= 'A' && c <= 'F')
					v = v * 16 + (unsigned)(c - 'A' + 10);
				else
					return 0;
				if (v > 0x10ffff)
					return 0;
			}
			*key = (int)v;
			return nl + 2;
		}
		return 0;
	}
	n = text_decode(s, len, &cp);
	if (!n)
		return 0;
	*key = (int)cp;
	return n;
}

/* The first key of table `b` (NULL-ended by ACT_NONE), or of the user's
 * bindings `u`, that does `a` in keymap km. */
static int first_key(enum keymap_id km, enum action a,
		     const struct user_keys *u, const struct binding *b)
{
	size_t i;

	if (u) {
		for (i = 0; i < u->nr; i++)
			if (u->v[i].action == a &&
			    keymap_lookup(km, u->v[i].key) == a)
				return u->v[i].key;
		return 0;
	}
	for (; b->action != ACT_NONE; b++)
		if (b->action == a && keymap_lookup(km, b->key) == a)
			return b->key;
	return 0;
}

int keymap_key_for(enum keymap_id km, enum action a)
{
	int k;

	if ((unsigned)km >= NR_KEYMAPS)
		return 0;
	if ((k = first_key(km, a, &user[km], NULL)) ||
	    (k = first_key(km, a, NULL, keymaps[km].keys)))
		return k;
	if (!keymaps[km].fallback)
		return 0;
	if ((k = first_key(km, a, &user[KEYMAP_GENERIC], NULL)) ||
	    (k = first_key(km, a, NULL, keymaps[KEYMAP_GENERIC].keys)))
		return k;
	return 0;
}

const char *keyname_hint(int key, char out[32])
{
	size_t n;

	if (key == '<') {
		snprintf(out, 32, "<");
		return out;
	}
	keyname_of(key, out);
	n = strlen(out);
	if (n > 2 && out[0] == '<' && out[n - 1] == '>') {
		memmove(out, out + 1, n - 2);
		out[n - 2] = '\0';
	}
	return out;
}

int key_is_text(int key)
{
	if (TK_IS_FN(key) || key < 32 || key == 127)
		return 0;
	return text_char_width((uint32_t)key) >= 0;
}

/* The bindings in force in keymap km: a keys file's, then the defaults
 * whose key it did not bind again; "none" bindings left out.  Owned by
 * the caller, ended by ACT_NONE. */
static struct binding *in_force(enum keymap_id km)
{
	const struct binding *b;
	struct binding *out = NULL;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < user[km].nr; i++) {
		if (user[km].v[i].action == ACT_NONE)
			continue;
		ALLOC_GROW(out, n + 1, alloc);
		out[n++] = user[km].v[i];
	}
	for (b = keymaps[km].keys; b->action != ACT_NONE; b++) {
		for (i = 0; i < user[km].nr; i++)
			if (user[km].v[i].key == b->key)
				break;
		if (i < user[km].nr)
			continue;
		ALLOC_GROW(out, n + 1, alloc);
		out[n++] = *b;
	}
	ALLOC_GROW(out, n + 1, alloc);
	out[n].key = 0;
	out[n].action = ACT_NONE;
	return out;
}

/* One section: every action of the keymap once, with all its keys in
 * force. */
static void help_section(struct buf *out, enum keymap_id km, int *listed)
{
	struct binding *keys = in_force(km);
	const struct binding *b;

	buf_addf(out, "#%s\n", keymaps[km].title);
	for (b = keys; b->action != ACT_NONE; b++) {
		const struct binding *o;
		int first = 1;

		if (listed[b->action])
			continue;
		listed[b->action] = 1;
		for (o = b; o->action != ACT_NONE; o++) {
			char kn[32];

			if (o->action != b->action)
				continue;
			buf_addf(out, "%s%s", first ? "" : " ",
				 keyname_of(o->key, kn));
			first = 0;
		}
		buf_addf(out, "\t%s\t%s\n", action_name(b->action),
			 action_help(b->action));
	}
	free(keys);
}

static void help_screens(struct buf *out, enum keymap_id first, unsigned on)
{
	size_t i;
	int listed[NR_ACTIONS];

	/* the screen's own keys, then the generic ones they fall back to
	 * (an action listed there is not repeated) */
	memset(listed, 0, sizeof(listed));
	help_section(out, first, listed);
	help_section(out, KEYMAP_GENERIC, listed);
	for (i = 0; i < sizeof(help_order) / sizeof(help_order[0]); i++) {
		enum keymap_id km = help_order[i];

		if (km == first || !(keymaps[km].on & on))
			continue;
		memset(listed, 0, sizeof(listed));
		help_section(out, km, listed);
	}
}

void keymap_help(struct buf *out)
{
	help_screens(out, KEYMAP_MAIN, ON_ALL);
}

void keymap_help_for(struct buf *out, enum keymap_id screen)
{
	switch (screen) {
	case KEYMAP_ADJUDICATE:
		help_screens(out, KEYMAP_ADJUDICATE, ON_ADJ);
		break;
	case KEYMAP_AGREE:
		help_screens(out, KEYMAP_AGREE, ON_AGREE);
		break;
	default:
		help_screens(out, KEYMAP_MAIN, ON_CODE);
		break;
	}
}
