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
 * tap.h: a tiny TAP producer for the unit tests.  Each check prints one
 * "ok N - what" or "not ok N - what" line; tap_done() prints the plan and
 * returns the exit status, so automake's tap-driver counts every case.
 */

#ifndef SLUICE_TAP_H
#define SLUICE_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

/* Report one case; returns its truth so callers can add detail on failure. */
static inline int
tap_ok(int cond, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
static inline int
tap_ok(int cond, const char *fmt, ...)
{
	va_list	ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return (cond);
}

/* Compare two strings (NULL-safe) and show both on a mismatch. */
static inline int
tap_is(const char *got, const char *want, const char *what)
{
	int	same;

	if (got == NULL || want == NULL)
		same = (got == want);
	else
		same = (strcmp(got, want) == 0);
	tap_ok(same, "%s", what);
	if (!same)
		printf("#   got:  %s\n#   want: %s\n", got ? got : "(null)",
		    want ? want : "(null)");
	return (same);
}

/* Compare two integers and show both on a mismatch. */
static inline int
tap_is_int(long long got, long long want, const char *what)
{
	tap_ok(got == want, "%s", what);
	if (got != want)
		printf("#   got:  %lld\n#   want: %lld\n", got, want);
	return (got == want);
}

/* Print the plan; the exit status is non-zero if any case failed. */
static inline int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return (tap_failed != 0);
}

#endif /* SLUICE_TAP_H */
