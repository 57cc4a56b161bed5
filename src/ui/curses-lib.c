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
 * curses-lib.c: load ncurses the first time a screen is set up (see
 * curses-lib.h for why it is not linked).  libncursesw.so.6 brings its
 * libtinfo.so.6, where some of the names are; dlsym looks in both.  A
 * process that linked it anyway gets that same copy back.
 */

#include <stddef.h>

#define CURSES_LIB_DEFINE	/* the real names here, not the redirections */
#include "util/util.h"
#include "ui/curses-lib.h"

struct ui_curses	 ui_curses;

static const struct dlib_sym curses_lib_symbols[] = {
#define CURSES_LIB_SYMBOL(name) { #name, offsetof(struct ui_curses, name) },
	CURSES_LIB_NAMES(CURSES_LIB_SYMBOL)
#undef CURSES_LIB_SYMBOL
};
static const char *const curses_lib_sonames[] = {
	"libncursesw.so.6", "libncursesw.so", NULL
};
static struct dlib curses_dlib = {
	curses_lib_sonames, curses_lib_symbols, nitems(curses_lib_symbols),
	&ui_curses, sizeof ui_curses,
	"the console needs ncurses, which is missing (install libncursesw6)",
	NULL
};

/* Load ncurses once; 0, or -1 and why (then nothing is half loaded). */
int
ui_curses_load(char **cause)
{
	return (dlib_need(&curses_dlib, cause));
}
