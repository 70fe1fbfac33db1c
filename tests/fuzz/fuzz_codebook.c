/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for core/study/codebook and core/study/import: any bytes are
 * either loaded or refused with a one-line error, never a crash or a
 * leak.  Build with `make fuzz`; run as
 * `tests/fuzz/fuzz_codebook -max_total_time=60`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/study/codebook.h"
#include "core/base/err.h"
#include "core/study/item.h"
#include "core/study/import.h"
#include "core/study/member.h"
#include "core/store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct store st;
	static struct actor owner;
	static int init;
	struct codebook cb = CODEBOOK_INIT;
	struct import_stats stats;
	struct err e = ERR_INIT;

	if (codebook_parse(&cb, (const char *)data, size, "fuzz", &e) == 0)
		codebook_release(&cb);
	else if (!e.msg[0] || strchr(e.msg, '\n'))
		abort();
	if (!init) {
		if (store_open_memory(&st, &e) < 0)
			abort();
		owner.os_user = "fuzz";
		owner.name = "fuzz";
		owner.role = ROLE_OWNER;
		init = 1;
	}
	memset(&stats, 0, sizeof(stats));
	err_clear(&e);
	if (import_text(&st, &owner, (const char *)data, size, "fuzz",
			&stats, &e) < 0 && (!e.msg[0] || strchr(e.msg, '\n')))
		abort();
	return 0;
}
