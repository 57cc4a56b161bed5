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
 * cache.c: the engine's kept statements.  Each is prepared once per
 * connection, found again by the address of its static text, bound from a
 * one-letter-per-parameter format (see store-int.h) and reset after use;
 * the last failure's cause is kept for store_last_error.
 */

#include <stdarg.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/*
 * A statement prepared once per connection and kept, found by the address
 * of its (static) text; give it back with store_release.
 */
int
store_stmt(struct store *s, const char *sql, struct store_stmt **stp,
    char **cause)
{
	size_t	 i;
	int	 rc;

	for (i = 0; i < s->ncached; i++) {
		if (s->cached[i].sql == sql) {
			*stp = s->cached[i].st;
			return (0);
		}
	}
	if (s->ncached == STORE_NCACHED)
		return (store_prepare(s, sql, stp, cause));
	if ((rc = s->drv->prepare(s->conn, sql, 1, stp)) != STORE_DRV_OK)
		return (store_fail(s, rc, "prepare", cause));
	s->cached[s->ncached].sql = sql;
	s->cached[s->ncached++].st = *stp;
	return (0);
}

/* Done with a statement: reset a kept one, finalize any other. */
void
store_release(struct store *s, struct store_stmt *st)
{
	size_t	 i;

	for (i = 0; i < s->ncached; i++) {
		if (s->cached[i].st == st) {
			st->drv->reset(st, 1);
			return;
		}
	}
	store_stmt_finalize(st);
}

/* Bind parameters 1.. from a format (see store-int.h). */
int
store_bindv(struct store_stmt *st, const char *fmt, va_list ap)
{
	const char	*text;
	int64_t		 v;
	size_t		 len;
	int		 idx, bad = STORE_DRV_OK;

	for (idx = 1; *fmt != '\0'; fmt++, idx++) {
		switch (*fmt) {
		case 'i':
			bad |= store_bind_int64(st, idx, va_arg(ap, int64_t));
			break;
		case 'd':
			bad |= store_bind_int(st, idx, va_arg(ap, int));
			break;
		case 't':
			text = va_arg(ap, const char *);
			bad |= store_bind_text(st, idx, text);
			break;
		case 'T':
			v = va_arg(ap, int64_t);
			bad |= store_bind_time(st, idx, v);
			break;
		case 'n':
			bad |= store_bind_null(st, idx);
			break;
		case 'x':
			v = va_arg(ap, int64_t);
			if (v == STORE_NULL)
				bad |= store_bind_null(st, idx);
			else
				bad |= store_bind_int64(st, idx, v);
			break;
		case 'b':
			text = va_arg(ap, const char *);
			len = va_arg(ap, size_t);
			bad |= st->drv->bind_blob(st, idx, text, len);
			break;
		default:
			fatalx("%s: bad format %c", __func__, *fmt);
		}
	}
	return (bad);
}

/*
 * Run a kept statement bound from fmt: with v set, a query for one
 * integer (0 when there is no row); without, a statement with no rows.
 */
static int
store_stepv(struct store *s, const char *what, int64_t *v, const char *sql,
    const char *fmt, va_list ap)
{
	struct store_stmt	*st;
	char			*cause = NULL;
	int			 rc;

	if ((rc = store_stmt(s, sql, &st, &cause)) != 0) {
		store_keep_error(s, cause);
		return (rc);
	}
	if ((rc = store_bindv(st, fmt, ap)) == STORE_DRV_OK)
		rc = store_stmt_step(st);
	if (rc == STORE_DRV_ROW && v != NULL)
		*v = store_col_int64(st, 0);
	if (rc == STORE_DRV_ROW || rc == STORE_DRV_DONE)
		rc = 0;
	else {
		rc = store_fail(s, store_errcode(s), what, &cause);
		store_keep_error(s, cause);
	}
	store_release(s, st);
	return (rc);
}

/* Run a kept statement that returns no rows, bound from fmt. */
int
store_runf(struct store *s, const char *what, const char *sql,
    const char *fmt, ...)
{
	va_list	 ap;
	int	 rc;

	va_start(ap, fmt);
	rc = store_stepv(s, what, NULL, sql, fmt, ap);
	va_end(ap);
	return (rc);
}

/* Run a kept query for one integer (0 when there is no row). */
int
store_int64f(struct store *s, const char *what, int64_t *v, const char *sql,
    const char *fmt, ...)
{
	va_list	 ap;
	int	 rc;

	*v = 0;
	va_start(ap, fmt);
	rc = store_stepv(s, what, v, sql, fmt, ap);
	va_end(ap);
	return (rc);
}

/* Keep why the last engine statement failed, for store_last_error. */
void
store_keep_error(struct store *s, char *cause)
{
	log_debug("%s: %s", __func__, cause);
	free(s->last_error);
	s->last_error = cause;
}

/* Why the last store_runf or store_int64f failed. */
const char *
store_last_error(const struct store *s)
{
	return (s->last_error != NULL ? s->last_error : "no error");
}
