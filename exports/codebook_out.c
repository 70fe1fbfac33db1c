/* SPDX-License-Identifier: MIT */
/*
 * codebook_out: see codebook_out.h.
 */
#include "exports/codebook_out.h"

#include <string.h>

#include "core/base/text.h"
#include "exports/json_out.h"
#include "exports/tex.h"

/* Terminal-safe, on one line. */
static void safe(struct buf *out, const char *s)
{
	struct buf t = BUF_INIT;
	size_t i;

	text_sanitize(&t, s, strlen(s), 1, 0);
	for (i = 0; i < t.len; i++)
		buf_addch(out, t.ptr[i] == '\n' || t.ptr[i] == '\r' ? ' ' :
			  t.ptr[i]);
	buf_release(&t);
}

static void md(struct buf *out, const char *s)
{
	struct buf t = BUF_INIT;
	size_t i;

	if (!s)
		return;
	safe(&t, s);
	for (i = 0; i < t.len; i++) {
		if (strchr("|\\*_`[]<>#", t.ptr[i]))
			buf_addch(out, '\\');
		buf_addch(out, t.ptr[i]);
	}
	buf_release(&t);
}

static void tex(struct buf *out, const char *s)
{
	struct buf t = BUF_INIT;

	if (!s)
		return;
	safe(&t, s);
	tex_escape(out, t.ptr);
	buf_release(&t);
}

static void markdown(const struct codebook *cb, struct buf *out)
{
	size_t d, i, k;

	buf_addstr(out, "# Codebook ");
	md(out, cb->name);
	buf_addch(out, ' ');
	md(out, cb->version);
	if (cb->title) {
		buf_addstr(out, ": ");
		md(out, cb->title);
	}
	buf_add(out, "\n\n", 2);
	if (cb->description) {
		md(out, cb->description);
		buf_add(out, "\n\n", 2);
	}
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];

		buf_addstr(out, "## ");
		md(out, dim->key);
		buf_addstr(out, ": ");
		md(out, dim->name);
		buf_add(out, "\n\n", 2);
		if (dim->question) {
			md(out, dim->question);
			buf_add(out, "\n\n", 2);
		}
		buf_addf(out, "Select %s%s; %zu codes.\n\n",
			 dim->select_many ? "many" : "one",
			 dim->required ? ", required" : ", optional",
			 dim->nr_codes);
		buf_addstr(out, "| code | name | group | distributed | "
			   "definition | include | exclude | examples |\n"
			   "|---|---|---|---|---|---|---|---|\n");
		for (i = 0; i < dim->nr_codes; i++) {
			const struct code *c = &dim->codes[i];

			buf_addstr(out, "| ");
			md(out, c->key);
			buf_addstr(out, " | ");
			md(out, c->name);
			buf_addstr(out, " | ");
			md(out, c->group);
			buf_addstr(out, c->distributed ? " | yes | " :
				   " | no | ");
			md(out, c->definition);
			buf_addstr(out, " | ");
			md(out, c->include);
			buf_addstr(out, " | ");
			md(out, c->exclude);
			buf_addstr(out, " | ");
			for (k = 0; k < c->nr_examples; k++) {
				if (k)
					buf_addstr(out, "; ");
				md(out, c->examples[k]);
			}
			buf_addstr(out, " |\n");
		}
		buf_addch(out, '\n');
	}
}

static void latex(const struct codebook *cb, struct buf *out)
{
	size_t d, i, k;

	buf_addstr(out, "% bugcoder codebook: a fragment for \\input\n"
		   "\\section*{Codebook ");
	tex(out, cb->name);
	buf_addch(out, ' ');
	tex(out, cb->version);
	buf_addstr(out, "}\n");
	if (cb->title) {
		tex(out, cb->title);
		buf_add(out, "\n\n", 2);
	}
	if (cb->description) {
		tex(out, cb->description);
		buf_add(out, "\n\n", 2);
	}
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];

		buf_addstr(out, "\\subsection*{");
		tex(out, dim->name);
		buf_addstr(out, " (\\texttt{");
		tex(out, dim->key);
		buf_addstr(out, "})}\n");
		if (dim->question) {
			tex(out, dim->question);
			buf_add(out, "\n\n", 2);
		}
		buf_addf(out, "Select %s%s; %zu codes.\n\n",
			 dim->select_many ? "many" : "one",
			 dim->required ? ", required" : ", optional",
			 dim->nr_codes);
		buf_addstr(out, "\\begin{description}\n");
		for (i = 0; i < dim->nr_codes; i++) {
			const struct code *c = &dim->codes[i];

			buf_addstr(out, "\\item[");
			tex(out, c->name);
			buf_addstr(out, "] (\\texttt{");
			tex(out, c->key);
			buf_addstr(out, "}");
			if (c->group) {
				buf_addstr(out, "; group ");
				tex(out, c->group);
			}
			if (c->distributed)
				buf_addstr(out, "; distributed only");
			buf_addstr(out, ") ");
			tex(out, c->definition);
			if (c->include) {
				buf_addstr(out, " \\emph{Include:} ");
				tex(out, c->include);
			}
			if (c->exclude) {
				buf_addstr(out, " \\emph{Exclude:} ");
				tex(out, c->exclude);
			}
			if (c->nr_examples) {
				buf_addstr(out, " \\emph{Examples:} ");
				for (k = 0; k < c->nr_examples; k++) {
					if (k)
						buf_addstr(out, "; ");
					tex(out, c->examples[k]);
				}
			}
			buf_addch(out, '\n');
		}
		buf_addstr(out, "\\end{description}\n\n");
	}
}

static void jstr(struct buf *out, const char *key, const char *s)
{
	buf_addf(out, "\"%s\": ", key);
	if (s)
		json_quote(out, s, strlen(s));
	else
		buf_addstr(out, "null");
}

static void json(const struct codebook *cb, struct buf *out)
{
	size_t d, i, k;

	buf_addstr(out, "{");
	jstr(out, "name", cb->name);
	buf_addstr(out, ", ");
	jstr(out, "version", cb->version);
	buf_addstr(out, ",\n ");
	jstr(out, "title", cb->title);
	buf_addstr(out, ",\n ");
	jstr(out, "description", cb->description);
	buf_addstr(out, ",\n \"dimensions\": [");
	for (d = 0; d < cb->nr_dims; d++) {
		const struct dimension *dim = &cb->dims[d];

		buf_addstr(out, d ? ",\n  {" : "\n  {");
		jstr(out, "key", dim->key);
		buf_addstr(out, ", ");
		jstr(out, "name", dim->name);
		buf_addstr(out, ", ");
		jstr(out, "question", dim->question);
		buf_addf(out, ", \"select\": \"%s\", \"required\": %s,\n"
			 "   \"codes\": [", dim->select_many ? "many" : "one",
			 dim->required ? "true" : "false");
		for (i = 0; i < dim->nr_codes; i++) {
			const struct code *c = &dim->codes[i];

			buf_addstr(out, i ? ",\n    {" : "\n    {");
			jstr(out, "key", c->key);
			buf_addstr(out, ", ");
			jstr(out, "name", c->name);
			buf_addstr(out, ", ");
			jstr(out, "group", c->group);
			buf_addf(out, ", \"distributed\": %s, ",
				 c->distributed ? "true" : "false");
			jstr(out, "definition", c->definition);
			buf_addstr(out, ", ");
			jstr(out, "include", c->include);
			buf_addstr(out, ", ");
			jstr(out, "exclude", c->exclude);
			buf_addstr(out, ", \"examples\": [");
			for (k = 0; k < c->nr_examples; k++) {
				if (k)
					buf_addstr(out, ", ");
				json_quote(out, c->examples[k],
					   strlen(c->examples[k]));
			}
			buf_addstr(out, "]}");
		}
		buf_addstr(out, "]}");
	}
	buf_addstr(out, "\n]}\n");
}

void codebook_write(const struct codebook *cb, enum codebook_format fmt,
		    struct buf *out)
{
	if (fmt == CODEBOOK_LATEX)
		latex(cb, out);
	else if (fmt == CODEBOOK_JSON)
		json(cb, out);
	else
		markdown(cb, out);
}
