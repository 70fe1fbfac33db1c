/* SPDX-License-Identifier: MIT */
/*
 * cairo_lazy: see cairo_lazy.h.
 */
#include "exports/cairo_lazy.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

struct cairo_lazy cairo_lazy;
static void *handle;

static const struct {
	const char *name;
	size_t offset;
} entries[] = {
#define CAIRO_LAZY_ENTRY(n) { "cairo_" #n, offsetof(struct cairo_lazy, n) },
	CAIRO_LAZY_LIST(CAIRO_LAZY_ENTRY)
#undef CAIRO_LAZY_ENTRY
};

int cairo_lazy_load(struct err *e)
{
	static const char *const names[] = { "libcairo.so.2", "libcairo.so" };
	struct cairo_lazy t;
	size_t i;

	if (handle)
		return 0;
	for (i = 0; !handle && i < sizeof(names) / sizeof(names[0]); i++)
		handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return err_set(e, ERR_IO, "cannot load cairo, which draws the "
			       "figures (%s); install the libcairo2 package",
			       dlerror());
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		/* POSIX guarantees a data pointer from dlsym() converts to
		 * a function pointer; copy it through memory to say so */
		void *sym = dlsym(handle, entries[i].name);

		if (!sym) {
			dlclose(handle);
			handle = NULL;
			return err_set(e, ERR_IO, "cairo lacks %s",
				       entries[i].name);
		}
		memcpy((char *)&t + entries[i].offset, &sym, sizeof(sym));
	}
	cairo_lazy = t;
	return 0;
}

void cairo_lazy_drop_caches(void)
{
	void *sym;
	void (*fini)(void);

	if (!handle)
		return;
	cairo_debug_reset_static_data();
	/* fontconfig came with cairo: found through cairo's handle */
	sym = dlsym(handle, "FcFini");
	if (sym) {
		memcpy(&fini, &sym, sizeof(fini));
		fini();
	}
}
