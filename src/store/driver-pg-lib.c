/*
 * Copyright (c) 2026 The sluice authors
 *
 * Permission to use, copy, modify, and distribute this software for any
 * purpose with or without fee is hereby granted, provided that the above
 * copyright notice and this permission notice appear in all copies.
 *
 * THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
 * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
 * MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
 * ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
 * WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
 * ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
 * OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
 */

/*
 * driver-pg-lib.c: load libpq the first time a postgresql: database is
 * opened (see driver-pg-lib.h for why it is not linked).  Its soname is
 * libpq.so.5 since PostgreSQL 8.0; the unversioned name is the fallback
 * for a development install.
 */

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#define PG_LIB_DEFINE	/* the real names here, not the redirections */
#include "util/util.h"
#include "store/driver-pg-lib.h"

struct pg_lib	 pg_lib;

static const struct {
	const char	*name;
	size_t		 offset;
} pg_lib_symbols[] = {
#define PG_LIB_SYMBOL(name) { #name, offsetof(struct pg_lib, name) },
	PG_LIB_FUNCS(PG_LIB_SYMBOL)
#undef PG_LIB_SYMBOL
};

/* Load libpq once; 0, or -1 and why (then nothing is half loaded). */
int
pg_lib_load(char **cause)
{
	static void	*handle;
	struct pg_lib	 lib;
	void		*h, *sym;
	size_t		 i;

	if (handle != NULL)
		return (0);
	if ((h = dlopen("libpq.so.5", RTLD_NOW|RTLD_LOCAL)) == NULL &&
	    (h = dlopen("libpq.so", RTLD_NOW|RTLD_LOCAL)) == NULL) {
		xasprintf(cause, "cannot load libpq, which postgresql: "
		    "databases need (install libpq5): %s", dlerror());
		return (-1);
	}
	memset(&lib, 0, sizeof lib);
	for (i = 0; i < nitems(pg_lib_symbols); i++) {
		if ((sym = dlsym(h, pg_lib_symbols[i].name)) == NULL) {
			xasprintf(cause, "the libpq found has no %s (it is "
			    "older than PostgreSQL 14's)",
			    pg_lib_symbols[i].name);
			dlclose(h);
			return (-1);
		}
		/* POSIX: a function's address fits a data pointer. */
		memcpy((char *)&lib + pg_lib_symbols[i].offset, &sym,
		    sizeof sym);
	}
	pg_lib = lib;
	handle = h;
	return (0);
}
