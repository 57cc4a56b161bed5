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
 * driver-sqlite-lib.c: load SQLite the first time a database is opened
 * (see driver-sqlite-lib.h for why it is not linked).  Its soname has
 * been libsqlite3.so.0 since SQLite 3.0; the unversioned name is the
 * fallback for a development install.  A process that linked it anyway
 * (the unit tests call SQLite themselves) gets that same copy back.
 */

#include <stddef.h>

#define SQLITE_LIB_DEFINE	/* the real names here, not the redirections */
#include "util/util.h"
#include "store/driver-sqlite-lib.h"

struct sqlite_lib	 sqlite_lib;

static const struct dlib_sym sqlite_lib_symbols[] = {
#define SQLITE_LIB_SYMBOL(name) { #name, offsetof(struct sqlite_lib, name) },
	SQLITE_LIB_FUNCS(SQLITE_LIB_SYMBOL)
#undef SQLITE_LIB_SYMBOL
};
static const char *const sqlite_lib_sonames[] = {
	"libsqlite3.so.0", "libsqlite3.so", NULL
};
static struct dlib sqlite_dlib = {
	sqlite_lib_sonames, sqlite_lib_symbols, nitems(sqlite_lib_symbols),
	&sqlite_lib, sizeof sqlite_lib,
	"SQLite, which sluice's databases need, is missing (install "
	"libsqlite3-0)", NULL
};

/* Load SQLite once; 0, or -1 and why (then nothing is half loaded). */
int
sqlite_lib_load(char **cause)
{
	return (dlib_need(&sqlite_dlib, cause));
}
