/* SPDX-License-Identifier: MIT */
/*
 * limits: see limits.h.
 */
#include "core/base/limits.h"

#include <string.h>

int limit_text(const char *what, const char *text, struct err *e)
{
	size_t n = text ? strlen(text) : 0;

	if (n <= LIMIT_TEXT_MAX)
		return 0;
	return err_set(e, ERR_INPUT, "%s is %zu bytes, more than the limit "
		       "of 64 KiB (%d bytes): shorten it; nothing was saved",
		       what, n, LIMIT_TEXT_MAX);
}
