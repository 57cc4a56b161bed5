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

#include <stddef.h>

#define PG_LIB_DEFINE	/* the real names here, not the redirections */
#include "util/util.h"
#include "store/driver-pg-lib.h"

struct pg_lib	 pg_lib;

static const struct dlib_sym pg_lib_symbols[] = {
#define PG_LIB_SYMBOL(name) { #name, offsetof(struct pg_lib, name) },
	PG_LIB_FUNCS(PG_LIB_SYMBOL)
#undef PG_LIB_SYMBOL
};
static const char *const pg_lib_sonames[] = {
	"libpq.so.5", "libpq.so", NULL
};
static struct dlib pg_dlib = {
	pg_lib_sonames, pg_lib_symbols, nitems(pg_lib_symbols),
	&pg_lib, sizeof pg_lib,
	"libpq, which postgresql: databases need, is missing or older "
	"than PostgreSQL 14's (install libpq5)", NULL
};

/* Load libpq once; 0, or -1 and why (then nothing is half loaded). */
int
pg_lib_load(char **cause)
{
	return (dlib_need(&pg_dlib, cause));
}
