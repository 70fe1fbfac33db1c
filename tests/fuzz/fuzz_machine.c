/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for a machine coder's answers (core/study/machine's
 * machine_parse()), what `machine-code` reads from a command's stdout:
 * whatever the bytes, an answer is either refused (ERR_INPUT, with a
 * reason) owning nothing, or read into labels that the codebook allows
 * - each dimension known and given once, each code one of its codes,
 * one code for a `select: one` dimension, every required dimension
 * coded.  The codebook is fuzz_study.h's.  Build with `make fuzz`; run
 * as `tests/fuzz/fuzz_machine -max_total_time=60 tests/fuzz/seeds/machine`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/machine.h"
#include "tests/fuzz/fuzz_study.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_answer(const struct codebook *cb,
			 const struct machine_answer *ans)
{
	size_t i, j, k;

	for (i = 0; i < ans->nr_dims; i++) {
		const struct dimension *d = codebook_dim(cb, ans->dims[i].dim);

		/* [] leaves a `select: many` dimension uncoded */
		if (!d || (!d->select_many && ans->dims[i].nr != 1))
			abort();
		for (j = 0; j < i; j++)
			if (!strcmp(ans->dims[j].dim, ans->dims[i].dim))
				abort();
		for (k = 0; k < ans->dims[i].nr; k++)
			if (!dimension_code(d, ans->dims[i].codes[k]))
				abort();
	}
	for (i = 0; i < cb->nr_dims; i++) {
		if (!cb->dims[i].required)
			continue;
		for (j = 0; j < ans->nr_dims; j++)
			if (!strcmp(ans->dims[j].dim, cb->dims[i].key) &&
			    ans->dims[j].nr)
				break;
		if (j == ans->nr_dims)
			abort();
	}
	if (ans->model && !*ans->model)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_study *f = fuzz_study();
	struct machine_answer ans;
	struct err e = ERR_INIT;

	if (machine_parse(&f->cb, (const char *)data, size, &ans, &e) < 0) {
		if (e.code != ERR_INPUT || !e.msg[0] || ans.dims ||
		    ans.nr_dims || ans.rationale || ans.model)
			abort();
		return 0;
	}
	check_answer(&f->cb, &ans);
	machine_answer_release(&ans);
	return 0;
}
