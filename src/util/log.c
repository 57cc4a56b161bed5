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
 * log.c: the debug log (a file, enabled by -v, since nothing may reach the
 * terminal while curses owns it) and fatal errors, which run a teardown hook
 * first so the terminal is restored before the message is printed.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"

static FILE	*log_file;
static void	(*fatal_hook)(void);

static void	log_vwrite(const char *, va_list) printflike(1, 0);

/* Start appending debug lines to path. */
void
log_open(const char *path)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = file_open_private(path);
	if (log_file != NULL)
		setvbuf(log_file, NULL, _IOLBF, 0);
}

/* Stop logging. */
void
log_close(void)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
}

/* Write one timestamped line. */
static void
log_vwrite(const char *fmt, va_list ap)
{
	int64_t	now;

	if (log_file == NULL)
		return;
	now = time_now_ms();
	fprintf(log_file, "%lld.%03lld ", (long long)(now / 1000),
	    (long long)(now % 1000));
	vfprintf(log_file, fmt, ap);
	fputc('\n', log_file);
}

/* Log a debug line when -v is on. */
void
log_debug(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	log_vwrite(fmt, ap);
	va_end(ap);
}

/* Register the teardown run before a fatal message (restores the tty). */
void
fatal_set_hook(void (*hook)(void))
{
	fatal_hook = hook;
}

/* Report a broken invariant with errno's text and exit. */
void
fatal(const char *fmt, ...)
{
	va_list	ap;
	int	saved = errno;

	if (fatal_hook != NULL)
		fatal_hook();
	fprintf(stderr, "sluice: fatal: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(saved));
	exit(1);
}

/* Report a broken invariant and exit. */
void
fatalx(const char *fmt, ...)
{
	va_list	ap;

	if (fatal_hook != NULL)
		fatal_hook();
	fprintf(stderr, "sluice: fatal: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
