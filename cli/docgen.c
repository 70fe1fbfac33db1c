/* SPDX-License-Identifier: MIT */
/*
 * docgen: `bugcoder __man` and `bugcoder __readme`, see docgen.h.
 *
 * A command's usage (struct command) holds one or more forms, a line
 * each ("bugcoder NAME ..."; an indented line without "bugcoder" goes
 * on the one before), and a line may give several forms split by a
 * " | " outside brackets ("add USER --role ROLE | list | remove USER"):
 * each form becomes a synopsis line and a README entry of its own.
 *
 * roff: text is escaped for the man page (\ as \e, - as \-, a line
 * that would begin with . or ' gets \& first); in a synopsis, words in
 * capitals are placeholders (italic), the rest of a word bold, brackets,
 * parentheses, bars and "..." roman, as the man page wrote them by hand.
 */
#include "cli/docgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "core/base/buf.h"

static int usage_error(const char *what)
{
	fprintf(stderr, "bugcoder: %s takes no arguments\n", what);
	return 2;
}

/* ---- usage forms ------------------------------------------------------ */

/* Append the forms of cmd's usage to `forms`, each ending in '\n',
 * without "bugcoder " and the global "[--study FILE] " before the name. */
static void usage_forms(const struct command *cmd, struct buf *forms)
{
	struct buf line = BUF_INIT;
	const char *p = cmd->usage;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *s = p;

		while (s < p + n && *s == ' ')
			s++;
		if (!strncmp(s, "bugcoder ", 9)) {
			if (line.len)
				buf_addch(&line, '\n');
			s += 9;
			if (!strncmp(s, "[--study FILE] ", 15))
				s += 15;
		} else if (line.len) {
			buf_addch(&line, ' ');
		}
		buf_add(&line, s, (size_t)(p + n - s));
		p += n + (p[n] == '\n');
	}
	/* each line: split at a " | " outside brackets and parentheses */
	for (p = line.ptr; *p; ) {
		size_t n = strcspn(p, "\n");
		const char *q, *start = p;
		int depth = 0;

		for (q = p; q < p + n; q++) {
			if (*q == '[' || *q == '(')
				depth++;
			else if (*q == ']' || *q == ')')
				depth--;
			else if (!depth && !strncmp(q, " | ", 3)) {
				buf_add(forms, start, (size_t)(q - start));
				buf_addf(forms, "\n%s ", cmd->name);
				start = q + 3;
				q += 2;
			}
		}
		buf_add(forms, start, (size_t)(p + n - start));
		buf_addch(forms, '\n');
		p += n + (p[n] == '\n');
	}
	buf_release(&line);
}

/* ---- roff ------------------------------------------------------------- */

enum font { F_R, F_B, F_I };

static void roff_char(struct buf *out, int c)
{
	if (c == '\\')
		buf_addstr(out, "\\e");
	else if (c == '-')
		buf_addstr(out, "\\-");
	else if ((c == '.' || c == '\'') &&
		 (!out->len || out->ptr[out->len - 1] == '\n'))
		buf_addf(out, "\\&%c", c);
	else
		buf_addch(out, c);
}

/* Plain text, escaped, on the line `out` is at. */
static void roff_text(struct buf *out, const char *s)
{
	for (; *s; s++)
		roff_char(out, *s == '\n' ? ' ' : (unsigned char)*s);
}

static int is_cap(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* s[i] starts or continues a placeholder: a run of capitals, digits
 * and _ with a capital in it, not inside a lower-case word */
static int placeholder_at(const char *s, size_t i)
{
	size_t a = i, b = i;
	int cap = 0;

	if (!is_cap((unsigned char)s[i]))
		return 0;
	while (a > 0 && is_cap((unsigned char)s[a - 1]))
		a--;
	while (s[b] && is_cap((unsigned char)s[b]))
		b++;
	if (a == b)
		return 0;
	if ((a > 0 && s[a - 1] >= 'a' && s[a - 1] <= 'z') ||
	    (s[b] >= 'a' && s[b] <= 'z'))
		return 0;
	for (; a < b; a++)
		if (s[a] >= 'A' && s[a] <= 'Z')
			cap = 1;
	return cap;
}

/* A synopsis or an entry's label, with its fonts; ends in roman. */
static void roff_synopsis(struct buf *out, const char *s)
{
	enum font cur = F_R, want;
	size_t i;

	for (i = 0; s[i]; i++) {
		int c = (unsigned char)s[i];

		if (c == ' ') {
			buf_addch(out, ' ');
			continue;
		}
		if (strchr("[]()|", c) || (c == '.' && !(s[i + 1] >= 'a' &&
							 s[i + 1] <= 'z')))
			want = F_R;
		else if (placeholder_at(s, i))
			want = F_I;
		else
			want = F_B;
		if (want != cur)
			buf_addstr(out, want == F_R ? "\\fR" :
				   want == F_B ? "\\fB" : "\\fI");
		cur = want;
		roff_char(out, c);
	}
	if (cur != F_R)
		buf_addstr(out, "\\fR");
}

/* "-o, --output FILE", "--items SPEC", "ITEM": an entry's label, as
 * --help writes it */
static void entry_label(const struct option *o, struct buf *out)
{
	if (o->kind == OPT_KIND_ARG || o->kind == OPT_KIND_DOC) {
		buf_addstr(out, o->long_name);
		return;
	}
	if (o->short_name && o->long_name)
		buf_addf(out, "-%c, ", o->short_name);
	if (o->long_name)
		buf_addf(out, "--%s", o->long_name);
	else
		buf_addf(out, "-%c", o->short_name);
	if (o->kind != OPT_KIND_FLAG && o->argh)
		buf_addf(out, " %s", o->argh);
}

static void man_command(const struct command *cmd, struct buf *out)
{
	struct buf forms = BUF_INIT, label = BUF_INIT;
	const struct option *o;
	const char *p;

	buf_addf(out, ".\\\" @SYNOPSIS %s@\n.SS ", cmd->name);
	roff_text(out, cmd->name);
	buf_addch(out, '\n');
	usage_forms(cmd, &forms);
	for (p = forms.ptr; *p; ) {
		size_t n = strcspn(p, "\n");
		char *form = xstrndup(p, n);

		if (p != forms.ptr)
			buf_addstr(out, ".br\n");
		buf_addstr(out, "\\fBbugcoder\\fR ");
		roff_synopsis(out, form);
		buf_addch(out, '\n');
		free(form);
		p += n + (p[n] == '\n');
	}
	buf_addstr(out, ".PP\n");
	buf_addf(out, ".\\\" @OPTIONS %s@\n", cmd->name);
	for (o = cmd->opts; o && o->kind != OPT_KIND_END; o++) {
		if (!o->help)
			continue;
		if (!label.len)
			buf_addstr(out, ".PP\nArguments and options:\n");
		buf_reset(&label);
		entry_label(o, &label);
		buf_addstr(out, ".TP\n");
		roff_synopsis(out, label.ptr);
		buf_addch(out, '\n');
		roff_text(out, o->help);
		buf_addch(out, '\n');
	}
	buf_release(&label);
	buf_release(&forms);
}

static int print_buf(const struct buf *b)
{
	if (fwrite(b->ptr, 1, b->len, stdout) != b->len || fflush(stdout)) {
		perror("bugcoder: standard output");
		return 1;
	}
	return 0;
}

int cli_man(int argc, char **argv)
{
	struct buf out = BUF_INIT;
	size_t i;
	int ret;

	(void)argv;
	if (argc > 0)
		return usage_error("__man");
	for (i = 0; i < nr_commands; i++)
		man_command(commands[i], &out);
	ret = print_buf(&out);
	buf_release(&out);
	return ret;
}

/* ---- README ----------------------------------------------------------- */

/* `s` as Markdown code in a table cell: a | escaped */
static void md_code(struct buf *out, const char *s, size_t n)
{
	size_t i;

	buf_addch(out, '`');
	for (i = 0; i < n; i++) {
		if (s[i] == '|')
			buf_addch(out, '\\');
		buf_addch(out, s[i]);
	}
	buf_addch(out, '`');
}

/* the examples, one a line: a line ending in "\" goes on with the next */
static void md_examples(struct buf *out, const char *ex)
{
	struct buf one = BUF_INIT;
	int first = 1;

	while (ex && *ex) {
		size_t n = strcspn(ex, "\n");
		const char *s = ex;

		while (*s == ' ')
			s++;
		buf_add(&one, s, (size_t)(ex + n - s));
		ex += n + (ex[n] == '\n');
		if (one.len && one.ptr[one.len - 1] == '\\' && *ex) {
			buf_setlen(&one, one.len - 1);
			while (one.len && one.ptr[one.len - 1] == ' ')
				buf_setlen(&one, one.len - 1);
			buf_addch(&one, ' ');
			continue;
		}
		if (!first)
			buf_addstr(out, "<br>");
		md_code(out, one.ptr, one.len);
		first = 0;
		buf_reset(&one);
	}
	buf_release(&one);
}

int cli_readme(int argc, char **argv)
{
	struct buf out = BUF_INIT, forms = BUF_INIT;
	size_t i;
	int ret;

	(void)argv;
	if (argc > 0)
		return usage_error("__readme");
	buf_addstr(&out, "| command | what it does | examples |\n"
		   "|---|---|---|\n");
	for (i = 0; i < nr_commands; i++) {
		const struct command *cmd = commands[i];
		const char *p;

		buf_reset(&forms);
		usage_forms(cmd, &forms);
		buf_addstr(&out, "| ");
		for (p = forms.ptr; *p; ) {
			size_t n = strcspn(p, "\n");

			if (p != forms.ptr)
				buf_addstr(&out, "<br>");
			md_code(&out, p, n);
			p += n + (p[n] == '\n');
		}
		buf_addstr(&out, " | ");
		for (p = cmd->summary; *p; p++)
			buf_addstr(&out, *p == '|' ? "\\|" : (char[2]){ *p, 0 });
		buf_addstr(&out, " | ");
		md_examples(&out, cmd->examples);
		buf_addstr(&out, " |\n");
	}
	ret = print_buf(&out);
	buf_release(&forms);
	buf_release(&out);
	return ret;
}
