/* SPDX-License-Identifier: MIT */
/*
 * ui: terminal lifecycle, main loop, key scripts and screen dumps (see
 * ui.h).  The only file that starts or stops curses.
 *
 * Limitations: one screen at a time per process; the key script is read
 * whole at start (scripts are short).
 */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/ui.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/priv.h"
#include "core/base/text.h"
#include "tui/draw.h"
#include "tui/dump.h"
#include "tui/keymap.h"
#include "tui/keytime.h"
#include "tui/script.h"
#include "tui/settings.h"

/* ---- bracketed paste ------------------------------------------------ */

/*
 * With bracketed paste on, the terminal wraps pasted text in ESC [200~
 * and ESC [201~, so a paste is one event: text for a field that takes
 * it (the memo, a rationale, a search), ignored elsewhere, where its
 * characters would otherwise run as commands (a digit codes, s submits).
 * The sequences are xterm's, which tmux, screen and the common terminal
 * emulators share; terminfo's BE/BD/PS/PE are used where it has them.
 */
#define PASTE_ON "\033[?2004h"
#define PASTE_OFF "\033[?2004l"
#define PASTE_START "\033[200~"
#define PASTE_END "\033[201~"
#define KEY_PASTE_START (KEY_MAX + 2)
#define KEY_PASTE_END (KEY_MAX + 3)
#define PASTE_MAX (1024 * 1024)		/* bytes kept of one paste */

static void paste_on(void);
static void paste_off(void);

/* ---- lifecycle ------------------------------------------------------ */

/* A crash, or abort() (which running out of memory calls), would leave
 * the terminal in curses' modes and what went to stderr in the capture
 * file: on_fatal() puts both back first, as htop's crash handler does. */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NR_FATAL (sizeof(fatal_sigs) / sizeof(fatal_sigs[0]))

static struct {
	int started;
	SCREEN *screen;
	FILE *out, *in;		/* /dev/null when headless, else NULL */
	WINDOW *input;		/* never drawn on: reading from it never
				   repaints anything */
	int headless;
	struct script script;
	int scripted;
	int pending;		/* a key read while draining resizes */
	int saved_stderr;
	FILE *err_capture;
	int err_fd;		/* err_capture's, for on_fatal() */
	struct sigaction old_hup, old_term, old_int, old_pipe;
	struct sigaction old_fatal[NR_FATAL];
	int atexit_done;
	int paste_mode;		/* bracketed paste is on in the terminal */
	struct buf paste;	/* the text of the last TK_PASTE */
	char paste_on_seq[32], paste_off_seq[32];	/* for handlers */
	struct sigaction old_tstp;	/* curses' own, which we wrap */
	int tstp_wrapped;
} ui = { .saved_stderr = -1, .err_fd = -1, .paste = BUF_INIT };

static struct buf keys_warn = BUF_INIT;	/* the keys file's bad lines */

static volatile sig_atomic_t caught_signal;

static void on_signal(int sig)
{
	caught_signal = sig;
}

static void on_fatal(int sig, siginfo_t *info, void *uctx)
{
	char chunk[512];
	ssize_t n;
	size_t i;

	(void)uctx;
	/* the action we replaced (the default, a sanitizer's) takes over */
	for (i = 0; i < NR_FATAL; i++)
		if (fatal_sigs[i] == sig)
			sigaction(sig, &ui.old_fatal[i], NULL);
	if (ui.started)
		endwin();
	if (ui.paste_mode && write(STDOUT_FILENO, ui.paste_off_seq,
				   strlen(ui.paste_off_seq)) < 0)
		ui.paste_mode = 0;
	if (ui.saved_stderr >= 0) {
		dup2(ui.saved_stderr, STDERR_FILENO);
		ui.saved_stderr = -1;
		if (ui.err_fd >= 0 && lseek(ui.err_fd, 0, SEEK_SET) == 0)
			while ((n = read(ui.err_fd, chunk, sizeof(chunk))) > 0)
				if (write(STDERR_FILENO, chunk, (size_t)n) < 0)
					break;
	}
	/* a fault happens again when we return, now under the old action;
	 * a signal that was sent (or raised by abort()) is sent again */
	if (info->si_code <= 0)
		raise(sig);
}

/* Ctrl-Z: curses' handler leaves the screen, stops, and repaints when
 * the shell continues the program; the shell meanwhile turns bracketed
 * paste off for its own prompt.  Off before, on again after. */
static void on_tstp(int sig)
{
	int saved = errno;

	if (ui.paste_mode && write(STDOUT_FILENO, ui.paste_off_seq,
				   strlen(ui.paste_off_seq)) < 0)
		errno = saved;
	if (ui.old_tstp.sa_handler != SIG_DFL &&
	    ui.old_tstp.sa_handler != SIG_IGN)
		ui.old_tstp.sa_handler(sig);
	if (ui.paste_mode && write(STDOUT_FILENO, ui.paste_on_seq,
				   strlen(ui.paste_on_seq)) < 0)
		errno = saved;
	errno = saved;
}

static void capture_stderr(void)
{
	if (ui.headless)
		return;
	fflush(stderr);
	ui.err_capture = tmpfile();
	if (!ui.err_capture)
		return;
	ui.saved_stderr = dup(STDERR_FILENO);
	if (ui.saved_stderr < 0 ||
	    dup2(fileno(ui.err_capture), STDERR_FILENO) < 0) {
		if (ui.saved_stderr >= 0)
			close(ui.saved_stderr);
		ui.saved_stderr = -1;
		fclose(ui.err_capture);
		ui.err_capture = NULL;
		return;
	}
	ui.err_fd = fileno(ui.err_capture);
}

/* Put stderr back; `replay` prints what was written meanwhile. */
static void release_stderr(int replay)
{
	char chunk[4096];
	size_t n;

	if (ui.saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(ui.saved_stderr, STDERR_FILENO);
	close(ui.saved_stderr);
	ui.saved_stderr = -1;
	if (replay) {
		rewind(ui.err_capture);
		while ((n = fread(chunk, 1, sizeof(chunk), ui.err_capture)))
			fwrite(chunk, 1, n, stderr);
		fflush(stderr);
	}
	ui.err_fd = -1;
	fclose(ui.err_capture);
	ui.err_capture = NULL;
}

static void catch_signals(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	/* no SA_RESTART: a blocked read returns so the loop sees the flag */
	sa.sa_flags = 0;
	sigaction(SIGHUP, &sa, &ui.old_hup);
	sigaction(SIGTERM, &sa, &ui.old_term);
	sigaction(SIGINT, &sa, &ui.old_int);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, &ui.old_pipe);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	for (i = 0; i < NR_FATAL; i++)
		sigaction(fatal_sigs[i], &sa, &ui.old_fatal[i]);
	/* wrap curses' SIGTSTP handler, when it installed one */
	sigaction(SIGTSTP, NULL, &ui.old_tstp);
	if (!(ui.old_tstp.sa_flags & SA_SIGINFO) &&
	    ui.old_tstp.sa_handler != SIG_DFL &&
	    ui.old_tstp.sa_handler != SIG_IGN) {
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		sa.sa_handler = on_tstp;
		sa.sa_flags = ui.old_tstp.sa_flags;
		sigaction(SIGTSTP, &sa, NULL);
		ui.tstp_wrapped = 1;
	}
}

static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < NR_FATAL; i++)
		sigaction(fatal_sigs[i], &ui.old_fatal[i], NULL);
	if (ui.tstp_wrapped)
		sigaction(SIGTSTP, &ui.old_tstp, NULL);
	ui.tstp_wrapped = 0;
	sigaction(SIGPIPE, &ui.old_pipe, NULL);
	sigaction(SIGINT, &ui.old_int, NULL);
	sigaction(SIGTERM, &ui.old_term, NULL);
	sigaction(SIGHUP, &ui.old_hup, NULL);
}

/* Test and benchmark hooks: never honoured in a setgid program. */
static int env_set(const char *name)
{
	const char *v = priv_hook_env(name);

	return v && *v;
}

static void at_exit(void)
{
	ui_stop();
}

/*
 * Can terminal type `term` draw the screen?  It must name a terminal this system has a
 * terminfo entry for, with cursor addressing.  TERM=dumb (what some
 * editors' shells and CI set) would show a blank screen; an entry
 * missing (xterm-kitty on a server without kitty's terminfo) is refused
 * by ncurses with no hint.  The message says what to set.
 */
int ui_term_check(const char *term, struct err *e)
{
	TERMINAL *saved = cur_term;
	const char *hint = "set TERM to your terminal's type (TERM=xterm-256color "
			   "suits most terminals)";
	char *cup;
	int err = 0, has_cup;

	if (!term || !*term)
		return err_set(e, ERR_INPUT, "TERM is not set, so the screen "
			       "cannot be drawn: %s", hint);
	if (!strcmp(term, "dumb"))
		return err_set(e, ERR_INPUT, "TERM=dumb: this terminal cannot "
			       "move the cursor, so the screen cannot be drawn: "
			       "%s", hint);
	if (setupterm((char *)term, -1, &err) != OK) {
		set_curterm(saved);
		if (err == -1)
			return err_set(e, ERR_INPUT, "TERM=%s: no terminfo "
				       "database was found; set TERMINFO to "
				       "where it is, or %s", term, hint);
		if (err == 1)
			return err_set(e, ERR_INPUT, "TERM=%s: a hardcopy "
				       "terminal cannot show the screen: %s",
				       term, hint);
		return err_set(e, ERR_INPUT, "TERM=%s: this system has no "
			       "terminfo entry for it; install one (e.g. copy "
			       "it with `infocmp -x %s | tic -x -` from a "
			       "machine that has it) or %s", term, term, hint);
	}
	cup = tigetstr("cup");
	has_cup = cup && cup != (char *)-1;
	if (cur_term && cur_term != saved)
		del_curterm(cur_term);
	set_curterm(saved);
	if (!has_cup)
		return err_set(e, ERR_INPUT, "TERM=%s: the terminal cannot "
			       "move the cursor (no cup in its terminfo): %s",
			       term, hint);
	return 0;
}

/* Step 3 of ui_start(): the screen - on the terminal, or on /dev/null
 * without a display (tests).  0, or -1 with `e`. */
static int open_screen(int utf8, const char *codeset, struct err *e)
{
	if (ui.headless) {
		const char *term = getenv("TERM");

		ui.out = fopen("/dev/null", "w");
		ui.in = fopen("/dev/null", "r");
		if (!ui.out || !ui.in) {
			err_set(e, ERR_IO, "/dev/null: %s", strerror(errno));
			return -1;
		}
		ui.screen = newterm(term && *term ? term : "dumb", ui.out,
				    ui.in);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			err_set(e, ERR_INPUT, "the coding screen needs a "
				"terminal (stdin and stdout)");
			return -1;
		}
		if (ui_term_check(getenv("TERM"), e) < 0)
			return -1;
		/* one line, before the screen covers it, that stays when
		 * the screen goes */
		if (!utf8)
			fprintf(stderr, "bugcoder: warning: the locale's "
				"character set is %s, not UTF-8: text outside "
				"ASCII shows as '?'; set LANG=C.UTF-8 (or "
				"another UTF-8 locale) to see it\n",
				codeset && *codeset ? codeset : "unknown");
		ui.screen = newterm(NULL, stdout, stdin);
	}
	if (!ui.screen) {
		const char *term = getenv("TERM");

		err_set(e, ERR_INPUT, "cannot use terminal type \"%s\"",
			term ? term : "(unset)");
		return -1;
	}
	return 0;
}

/* Step 4 of ui_start(): input modes, and the window keys are read from.
 * 0, or -1 with `e`. */
static int input_modes(struct err *e)
{
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	ui.input = newwin(1, 1, 0, 0);
	if (!ui.input) {
		err_set(e, ERR_IO, "cannot create a window");
		return -1;
	}
	keypad(ui.input, TRUE);
	leaveok(ui.input, TRUE);
	untouchwin(ui.input);
	curs_set(0);
	paste_on();
	return 0;
}

int ui_start(struct err *e)
{
	const char *keys = priv_hook_env("BUGCODER_KEYS");
	const char *codeset, *nocolor;
	int utf8, color, bad;

	if (ui.started)
		return err_set(e, ERR_INPUT, "the screen is already open");
	caught_signal = 0;
	ui.pending = 0;
	ui.scripted = keys && *keys;
	if (ui.scripted && script_load(&ui.script, keys, e) < 0)
		return -1;
	ui.headless = env_set("BUGCODER_NO_DISPLAY");
	if (env_set("BUGCODER_BENCH"))
		keytime_begin(priv_hook_env("BUGCODER_BENCH"));

	/* 1. locale, 2. codeset */
	setlocale(LC_ALL, "");
	/* numbers stay in the C form whatever the user's locale */
	setlocale(LC_NUMERIC, "C");
	codeset = nl_langinfo(CODESET);
	utf8 = codeset && (!strcmp(codeset, "UTF-8") ||
			   !strcmp(codeset, "utf8"));

	/* 3. the screen */
	if (open_screen(utf8, codeset, e) < 0)
		goto fail;
	set_term(ui.screen);
	ui.started = 1;

	/* 4. input modes */
	if (input_modes(e) < 0)
		goto fail;

	/* 5. ESCDELAY, only if the user has not chosen one */
	if (!getenv("ESCDELAY"))
		set_escdelay(100);

	/* 6. colours: none without support or with a non-empty NO_COLOR */
	nocolor = getenv("NO_COLOR");
	color = has_colors() && !(nocolor && *nocolor);
	if (color && start_color() == ERR)
		color = 0;
	draw_init(color, utf8);

	/* 7. stderr, 8. signal flags, 9. SIGPIPE */
	capture_stderr();
	catch_signals();

	/* 10. the user's keys and settings; every bad line is listed on
	 * stderr, which shows when the screen ends, and the first on the
	 * status line */
	buf_reset(&keys_warn);
	bad = keymap_load(NULL, &keys_warn) != 0;
	if (settings_load(NULL, &keys_warn))
		bad = 1;
	if (bad)
		fputs(keys_warn.ptr, stderr);

	if (!ui.atexit_done) {
		atexit(at_exit);
		ui.atexit_done = 1;
	}
	return 0;
fail:
	ui_stop();
	return -1;
}

const char *ui_keys_warning(struct buf *out)
{
	const char *nl;
	size_t more = 0, i;

	if (!keys_warn.len)
		return NULL;
	nl = strchr(keys_warn.ptr, '\n');
	buf_add(out, keys_warn.ptr, nl ? (size_t)(nl - keys_warn.ptr) :
		keys_warn.len);
	for (i = nl ? (size_t)(nl - keys_warn.ptr) + 1 : keys_warn.len;
	     i < keys_warn.len; i++)
		if (keys_warn.ptr[i] == '\n')
			more++;
	if (more)
		buf_addf(out, "; %zu more bad line%s, listed when the screen "
			 "ends", more, more == 1 ? "" : "s");
	return out->ptr;
}

void ui_stop(void)
{
	if (ui.started) {
		restore_signals();
		if (ui.input)
			delwin(ui.input);
		ui.input = NULL;
		curs_set(1);
		paste_off();
		endwin();
		release_stderr(1);
		delscreen(ui.screen);
		ui.screen = NULL;
		ui.started = 0;
	}
	keytime_write();
	if (ui.out)
		fclose(ui.out);
	if (ui.in)
		fclose(ui.in);
	ui.out = ui.in = NULL;
	script_release(&ui.script);
	ui.scripted = 0;
	buf_release(&ui.paste);
}

void die(const char *fmt, ...)
{
	va_list ap;

	ui_stop();
	fputs("bugcoder: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int ui_scripted(void)
{
	return ui.scripted;
}

/* ---- input ---------------------------------------------------------- */

static const char *ext_str(const char *cap, const char *def)
{
	char *v = tigetstr(cap);

	return v && v != (char *)-1 ? v : def;
}

static void paste_on(void)
{
	if (ui.headless || ui.paste_mode)
		return;
	snprintf(ui.paste_on_seq, sizeof(ui.paste_on_seq), "%s",
		 ext_str("BE", PASTE_ON));
	snprintf(ui.paste_off_seq, sizeof(ui.paste_off_seq), "%s",
		 ext_str("BD", PASTE_OFF));
	define_key(ext_str("PS", PASTE_START), KEY_PASTE_START);
	define_key(ext_str("PE", PASTE_END), KEY_PASTE_END);
	putp(ui.paste_on_seq);
	fflush(stdout);
	ui.paste_mode = 1;
}

static void paste_off(void)
{
	if (!ui.paste_mode)
		return;
	putp(ui.paste_off_seq);
	fflush(stdout);
	ui.paste_mode = 0;
}

/* Take raw pasted bytes into ui.paste: line ends become '\n', tabs stay,
 * other control characters go, invalid UTF-8 becomes U+FFFD. */
static void paste_take(const char *s, size_t len)
{
	size_t i = 0;

	buf_reset(&ui.paste);
	while (i < len && ui.paste.len < PASTE_MAX) {
		uint32_t cp;
		size_t n = text_decode(s + i, len - i, &cp);
		char u[4];

		if (s[i] == '\r') {
			buf_addch(&ui.paste, '\n');
			i += i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
			continue;
		}
		i += n;
		if (cp == '\n' || cp == '\t')
			buf_addch(&ui.paste, (char)cp);
		else if (cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0))
			buf_add(&ui.paste, u, text_encode(cp, u));
	}
}

const char *ui_paste(size_t *len)
{
	if (len)
		*len = ui.paste.len;
	return ui.paste.len ? ui.paste.ptr : "";
}


static int normalize(int key)
{
	switch (key) {
	case '\n':
	case TK_FN(KEY_ENTER):
		return TK_ENTER;
	case 127:
	case 8:
		return TK_FN(KEY_BACKSPACE);
	default:
		return key;
	}
}

enum { IN_KEY, IN_NONE, IN_END, IN_LOST, IN_IDLE };

/* One key from the terminal: IN_KEY, IN_NONE (interrupted, or nothing
 * with `nowait`), IN_LOST (the terminal is gone). */
static int read_terminal(int *key, int nowait)
{
	wint_t ch;
	int r;

	nodelay(ui.input, nowait ? TRUE : FALSE);
	errno = 0;
	r = wget_wch(ui.input, &ch);
	if (nowait)
		nodelay(ui.input, FALSE);
	if (r == KEY_CODE_YES) {
		*key = TK_FN((int)ch);
		return IN_KEY;
	}
	if (r == OK) {
		*key = (int)ch;
		return IN_KEY;
	}
	if (nowait || errno == EINTR || caught_signal)
		return IN_NONE;
	return IN_LOST;
}

static void dump_named(const char *name)
{
	const char *dir = priv_hook_env("BUGCODER_DUMP_DIR");
	struct buf path = BUF_INIT;

	buf_addf(&path, "%s/%s", dir && *dir ? dir : ".", name);
	ui_dump_screen(path.ptr);
	buf_release(&path);
}

/* The next key from the script, running its commands on the way. */
static int read_script(const struct ui_client *c, int *key)
{
	while (ui.script.pos < ui.script.nr) {
		struct event *ev = &ui.script.v[ui.script.pos++];

		switch (ev->type) {
		case EV_KEY:
			*key = ev->key;
			return IN_KEY;
		case EV_DUMP:
			dump_named(ev->name);
			break;
		case EV_RESIZE: {
			int k;

			/* the real path: resizeterm() queues KEY_RESIZE */
			resizeterm(ev->rows, ev->cols);
			if (read_terminal(&k, 1) == IN_KEY &&
			    k != TK_FN(KEY_RESIZE))
				ui.pending = k;
			*key = TK_FN(KEY_RESIZE);
			return IN_KEY;
		}
		case EV_PASTE:
			paste_take(ev->name, strlen(ev->name));
			*key = TK_PASTE;
			return IN_KEY;
		case EV_RUN: {
			/* its output goes where stderr goes meanwhile */
			int rc = system(ev->name);

			if (rc != 0)
				fprintf(stderr, "bugcoder: key script: :run %s: "
					"exit %d\n", ev->name,
					WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
			/* :run - the user paused while it ran; :exec - the
			 * next key comes at once */
			if (!ev->key)
				return IN_IDLE;
			break;
		}
		case EV_SIGNAL:
			/* the real handler sees it; the loop then stops as
			 * it would with the keyboard */
			raise(ev->key);
			return IN_NONE;
		}
		(void)c;
	}
	return IN_END;
}

/*
 * The keys of a paste up to its end mark, into ui.paste.  The end mark
 * may come apart over a slow link (ESC, then "[201~" as plain keys after
 * ESCDELAY): its text ends the paste too.  A paste whose end never comes
 * ends after PASTE_IDLE_MS without input, so the keyboard is not lost.
 */
#define PASTE_IDLE_MS 2000

static void read_paste(void)
{
	static const char end_text[] = PASTE_END;
	const size_t end_len = sizeof(end_text) - 1;
	struct buf raw = BUF_INIT;

	wtimeout(ui.input, PASTE_IDLE_MS);
	for (;;) {
		wint_t ch;
		int r, key;

		errno = 0;
		r = wget_wch(ui.input, &ch);
		if (r == ERR) {
			if (errno == EINTR && !caught_signal)
				continue;
			break;	/* idle, a signal, or no terminal */
		}
		key = r == KEY_CODE_YES ? TK_FN((int)ch) : (int)ch;
		if (key == TK_FN(KEY_PASTE_END))
			break;
		if (key == TK_FN(KEY_RESIZE)) {
			ui.pending = key;	/* laid out after the paste */
			continue;
		}
		if (TK_IS_FN(key)) {
			/* keypad decoding of pasted bytes (Enter) */
			if (key == TK_FN(KEY_ENTER))
				buf_addch(&raw, '\n');
			continue;
		}
		if (raw.len < PASTE_MAX + end_len) {
			char u[4];

			buf_add(&raw, u, text_encode((uint32_t)key, u));
		}
		if (raw.len >= end_len &&
		    !memcmp(raw.ptr + raw.len - end_len, end_text, end_len)) {
			buf_setlen(&raw, raw.len - end_len);
			break;
		}
	}
	wtimeout(ui.input, -1);
	paste_take(raw.len ? raw.ptr : "", raw.len);
	buf_release(&raw);
}

static int next_key(const struct ui_client *c, int *key)
{
	struct pollfd pfd;
	int r;

	if (ui.pending) {
		*key = ui.pending;
		ui.pending = 0;
		return IN_KEY;
	}
	if (ui.scripted)
		return read_script(c, key);
	if (!c->idle || c->idle_ms <= 0)
		return read_terminal(key, 0);
	/* what curses has read ahead first, then wait for the terminal at
	 * most idle_ms */
	r = read_terminal(key, 1);
	if (r != IN_NONE || caught_signal)
		return r;
	pfd.fd = STDIN_FILENO;
	pfd.events = POLLIN;
	pfd.revents = 0;
	r = poll(&pfd, 1, c->idle_ms);
	if (r == 0)
		return IN_IDLE;
	if (r < 0)
		return errno == EINTR ? IN_NONE : IN_LOST;
	return read_terminal(key, 0);
}

int ui_run(const struct ui_client *c, struct err *e)
{
	int idle_errors = 0;

	if (!ui.started)
		return err_set(e, ERR_INPUT, "the screen is not open");
	c->layout(c->ctx, LINES, COLS);
	while (!c->done(c->ctx)) {
		int key, r;

		c->draw(c->ctx);
		doupdate();
		keytime_stop();
		if (caught_signal)
			break;
		r = next_key(c, &key);
		if (r == IN_END)
			return 0;
		if (r == IN_LOST)
			return err_set(e, ERR_IO, "the terminal went away; "
				       "every saved label is kept");
		if (r == IN_IDLE) {
			if (c->idle)
				c->idle(c->ctx);
			continue;
		}
		if (r == IN_NONE) {
			/* a signal we do not handle, or ncurses giving up:
			 * never spin on a dead terminal */
			if (++idle_errors > 100)
				return err_set(e, ERR_IO, "the terminal does "
					       "not answer; every saved label "
					       "is kept");
			continue;
		}
		idle_errors = 0;
		keytime_start(key);
		if (key == TK_FN(KEY_PASTE_START)) {
			read_paste();	/* a lost terminal shows on the next
					 * read */
			key = TK_PASTE;
		} else if (key == TK_FN(KEY_PASTE_END)) {
			continue;	/* a stray end mark */
		}
		key = normalize(key);
		if (key == TK_FN(KEY_RESIZE)) {
			int k;

			/* drain repeats; keep the first other key */
			while (!ui.scripted && read_terminal(&k, 1) == IN_KEY) {
				if (k != TK_FN(KEY_RESIZE)) {
					ui.pending = k;
					break;
				}
			}
			c->layout(c->ctx, LINES, COLS);
			continue;
		}
		c->key(c->ctx, key);
	}
	/* the key that ended the loop has no frame: its handling is timed */
	keytime_stop();
	if (caught_signal) {
		int sig = caught_signal;

		return err_set(e, ERR_INTERRUPTED, "stopped by %s; every "
			       "saved label is kept", sig == SIGHUP ? "SIGHUP" :
			       sig == SIGTERM ? "SIGTERM" : sig == SIGINT ?
			       "SIGINT" : "a signal");
	}
	return 0;
}

/* ---- the editor ----------------------------------------------------- */

int ui_edit_file(const char *path, struct err *e)
{
	const char *ed = getenv("VISUAL");
	struct sigaction ign, old_int, old_quit;
	struct buf cmd = BUF_INIT;
	pid_t pid;
	int status = 0, ret = -1;

	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	buf_addf(&cmd, "%s \"$@\"", ed);

	def_prog_mode();
	paste_off();
	endwin();
	release_stderr(1);
	memset(&ign, 0, sizeof(ign));
	sigemptyset(&ign.sa_mask);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/* the editor is the user's own program: no group privilege,
		 * ever, and none of our descriptors or hooks */
		if (priv_drop_for_good() < 0)
			_exit(126);
		priv_clean_env();
		priv_close_fds(3);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (ui.headless) {
			int fd = open("/dev/null", O_RDWR);

			if (fd >= 0) {
				dup2(fd, STDIN_FILENO);
				dup2(fd, STDOUT_FILENO);
				if (fd > 2)
					close(fd);
			}
		}
		execl("/bin/sh", "sh", "-c", cmd.ptr, ed, path, (char *)NULL);
		_exit(127);
	}
	if (pid < 0) {
		err_set(e, ERR_IO, "cannot start the editor: %s",
			strerror(errno));
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ret = 0;
		else if (WIFEXITED(status))
			err_set(e, ERR_INPUT, "the editor (%s) exited with "
				"status %d; memo not changed", ed,
				WEXITSTATUS(status));
		else
			err_set(e, ERR_INPUT, "the editor (%s) was killed; "
				"memo not changed", ed);
	}

	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	/* our own handler again (old_int was it) */
	capture_stderr();
	reset_prog_mode();
	paste_on();
	clearok(curscr, TRUE);
	buf_release(&cmd);
	return ret;
}

int ui_dump_screen(const char *path)
{
	if (!ui.started)
		return -1;
	return dump_screen(path);
}
