/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the keys file (~/.config/bugcoder/keys, read by
 * tui/keymap's keymap_load_text()) and the key names it and key scripts
 * use (key_parse()): whatever the bytes, every bad line is counted and
 * named on a line of its own, in text that is safe for a terminal; the
 * bindings in force give a help text; and a key name parses to a key
 * whose name (keyname_of(), what the help shows) parses back to it.
 * Build with `make fuzz`; run as `tests/fuzz/fuzz_keys -max_total_time=60
 * tests/fuzz/seeds/keys`.
 */
#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/text.h"
#include "tui/keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every key name in s[0..len), one after another, names a key whose own
 * name reads back as the same key. */
static void names_round_trip(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		char name[32];
		int key = -1, again = -1;
		size_t n = key_parse(s + i, len - i, &key), m;

		if (!n) {
			i++;
			continue;
		}
		if (n > len - i)
			abort();
		keyname_of(key, name);
		m = key_parse(name, strlen(name), &again);
		if (m != strlen(name) || again != key)
			abort();
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int init;
	const char *text = (const char *)data;
	struct buf warn = BUF_INIT, help = BUF_INIT;
	size_t i, lines = 0;
	int bad, k;

	if (!init) {
		setlocale(LC_ALL, "C.UTF-8");
		init = 1;
	}
	bad = keymap_load_text(text, size, "keys", &warn);
	if (bad < 0 || !text_valid_utf8(warn.ptr, warn.len))
		abort();
	for (i = 0; i < warn.len; i++) {
		unsigned char c = (unsigned char)warn.ptr[i];

		if (c == '\n')
			lines++;
		else if (c < 0x20 || c == 0x7f)
			abort();
	}
	if ((int)lines != bad || (warn.len && warn.ptr[warn.len - 1] != '\n'))
		abort();
	keymap_help(&help);
	for (k = 0; k < NR_KEYMAPS; k++) {
		if (keymap_lookup((enum keymap_id)k, size ? data[0] : 'q') >=
		    NR_ACTIONS)
			abort();
	}
	names_round_trip(text, size);
	keymap_reset();
	buf_release(&warn);
	buf_release(&help);
	return 0;
}
