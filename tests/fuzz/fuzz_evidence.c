/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for core/study/evidence's evidence_parse(), the citations
 * `label --evidence SPEC` takes: whatever the text, a spec is either
 * refused with one line (ERR_INPUT) and nothing owned, or it parses into
 * a citation that holds together (lines from 1 and in order, a path for
 * the diff and none for the issue), whose compact form (what the exports
 * write) parses back into the same citation.
 * Build with `make fuzz`; run as `tests/fuzz/fuzz_evidence
 * -max_total_time=60 tests/fuzz/seeds/evidence`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/study/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_sane(const struct evidence_cite *c)
{
	if (c->from < 1 || c->to < c->from)
		abort();
	if (c->pane == EVIDENCE_DIFF) {
		if (!c->path || !*c->path || c->comment)
			abort();
	} else if (c->pane == EVIDENCE_ISSUE) {
		if (c->path || c->old_side || c->comment < 0)
			abort();
	} else {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a spec comes from the command line: a C string */
	char *spec = malloc(size + 1);
	struct evidence_cite c, back;
	struct err e = ERR_INIT;
	struct buf compact = BUF_INIT;

	if (!spec)
		abort();
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (evidence_parse(spec, &c, &e) < 0) {
		if (e.code != ERR_INPUT || !e.msg[0] || c.path)
			abort();
		free(spec);
		return 0;
	}
	check_sane(&c);
	evidence_format(&c, &compact);
	err_clear(&e);
	if (evidence_parse(compact.ptr, &back, &e) < 0)
		abort();
	if (back.pane != c.pane || back.old_side != c.old_side ||
	    back.comment != c.comment || back.from != c.from ||
	    back.to != c.to || !back.path != !c.path ||
	    (c.path && strcmp(back.path, c.path)))
		abort();
	evidence_cite_release(&back);
	evidence_cite_release(&c);
	buf_release(&compact);
	free(spec);
	return 0;
}
