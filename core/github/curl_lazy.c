/* SPDX-License-Identifier: MIT */
/*
 * curl_lazy: see curl_lazy.h.
 */
#include "core/github/curl_lazy.h"

#include <dlfcn.h>
#include <stddef.h>

struct curl_lazy curl_lazy;
static void *handle;

static const struct {
	const char *name;
	size_t offset;
} entries[] = {
	{ "curl_global_init", offsetof(struct curl_lazy, global_init) },
	{ "curl_easy_init", offsetof(struct curl_lazy, easy_init) },
	{ "curl_easy_setopt", offsetof(struct curl_lazy, easy_setopt) },
	{ "curl_easy_perform", offsetof(struct curl_lazy, easy_perform) },
	{ "curl_easy_getinfo", offsetof(struct curl_lazy, easy_getinfo) },
	{ "curl_easy_cleanup", offsetof(struct curl_lazy, easy_cleanup) },
	{ "curl_easy_strerror", offsetof(struct curl_lazy, easy_strerror) },
	{ "curl_easy_escape", offsetof(struct curl_lazy, easy_escape) },
	{ "curl_free", offsetof(struct curl_lazy, free) },
	{ "curl_slist_append", offsetof(struct curl_lazy, slist_append) },
	{ "curl_slist_free_all", offsetof(struct curl_lazy, slist_free_all) },
};

int curl_lazy_load(struct err *e)
{
	static const char *const names[] = {
		"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"
	};
	size_t i;

	if (handle)
		return 0;
	for (i = 0; !handle && i < sizeof(names) / sizeof(names[0]); i++)
		handle = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return err_set(e, ERR_IO, "cannot load libcurl (%s); install "
			       "the libcurl4 package", dlerror());
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		/* POSIX guarantees a data pointer from dlsym() converts to
		 * a function pointer; copy it through memory to say so */
		void *sym = dlsym(handle, entries[i].name);

		if (!sym) {
			dlclose(handle);
			handle = NULL;
			return err_set(e, ERR_IO, "libcurl lacks %s",
				       entries[i].name);
		}
		*(void **)((char *)&curl_lazy + entries[i].offset) = sym;
	}
	if (curl_lazy.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		dlclose(handle);
		handle = NULL;
		return err_set(e, ERR_IO, "libcurl failed to initialise");
	}
	return 0;
}
