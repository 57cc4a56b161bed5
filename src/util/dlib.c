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
 * dlib.c: load a shared library the first time it is needed and fill a
 * table of its functions, all or none.  A library linked is mapped and
 * relocated at every start of every command, even one that only talks to
 * the engine's socket and never calls it; loaded here it costs only the
 * commands that use it (see store/driver-sqlite-lib.h, ui/curses-lib.h).
 */

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void	*dlib_open(const struct dlib *, char **);

/*
 * Load lib once: 0, or -1 with why in *cause (lib's own words first,
 * then dlopen's, or the function missing); then its table is as it was,
 * and the next call tries again.
 */
int
dlib_need(struct dlib *lib, char **cause)
{
	char	*why = NULL;

	if (lib->handle != NULL)
		return (0);
	if ((lib->handle = dlib_open(lib, &why)) == NULL) {
		xasprintf(cause, "%s: %s", lib->missing, why);
		free(why);
		return (-1);
	}
	return (0);
}

/*
 * Open the first of lib's sonames that loads and copy the address of
 * each of its functions into its table.  The handle, or NULL with why.
 */
static void *
dlib_open(const struct dlib *lib, char **cause)
{
	const char *const	*so;
	void			*h = NULL, *sym, *got;
	size_t			 i;

	for (so = lib->sonames; *so != NULL && h == NULL; so++)
		h = dlopen(*so, RTLD_NOW|RTLD_LOCAL);
	if (h == NULL) {
		xasprintf(cause, "cannot load %s: %s", lib->sonames[0],
		    dlerror());
		return (NULL);
	}
	/* Filled aside, so that a missing function leaves table as it was. */
	got = xcalloc(1, lib->size);
	for (i = 0; i < lib->nsyms; i++) {
		if ((sym = dlsym(h, lib->syms[i].name)) == NULL) {
			xasprintf(cause, "the %s found has no %s (too old?)",
			    lib->sonames[0], lib->syms[i].name);
			free(got);
			dlclose(h);
			return (NULL);
		}
		/* POSIX: a function's address fits a data pointer. */
		memcpy((char *)got + lib->syms[i].offset, &sym, sizeof sym);
	}
	memcpy(lib->table, got, lib->size);
	free(got);
	return (h);
}
