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
 * steplog.c: a step's output, kept as rows of chunks with the time each
 * arrived and its stream (out, err, or sluice's own notes), read back in
 * order from any row on, so a follower asks only for what is new.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char log_add_sql[] =
	"INSERT INTO step_logs (step_id, at, stream, data) VALUES (?, ?, ?, ?)";
static const char log_read_sql[] =
	"SELECT id, at, stream, data FROM step_logs WHERE step_id = ?"
	" AND id > ? ORDER BY id LIMIT ?";

/* Append a chunk of a step's output. */
int
store_log_add(struct store *s, int64_t step, int64_t at, const char *stream,
    const char *data, size_t len)
{
	return (store_runf(s, "add log", log_add_sql, "iitb", step, at, stream,
	    data, len));
}

/* Fill a log chunk from a row of log_read_sql. */
static int
store_log_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_log	*l = p;
	const char		*stream;
	const void		*data;
	size_t			 len;

	l->id = store_col_int64(st, 0);
	l->at = store_col_int64(st, 1);
	stream = store_col_text(st, 2);
	strlcpy(l->stream, stream != NULL ? stream : "", sizeof l->stream);
	data = store_col_blob(st, 3, &len);
	l->data = xmalloc(len + 1);
	if (len > 0)
		memcpy(l->data, data, len);
	l->data[len] = '\0';
	l->len = len;
	(void)cause;
	return (0);
}

/* store_rows' way to free a partly read array. */
static void
store_log_rows_free(void *list, size_t n)
{
	store_logs_free(list, n);
}

const struct store_rows store_log_rows = {
	.what = "read log",
	.size = sizeof (struct store_log),
	.fill = store_log_row,
	.free = store_log_rows_free,
};

/* Up to limit chunks of a step's log after row after_id, in order. */
int
store_log_read(struct store *s, int64_t step, int64_t after_id,
    int64_t limit, struct store_log **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	int			 rc, bad = 0;

	if ((rc = store_stmt(s, log_read_sql, &st, cause)) != 0)
		return (rc);
	bad |= store_bind_int64(st, 1, step);
	bad |= store_bind_int64(st, 2, after_id);
	bad |= store_bind_int64(st, 3, limit > 0 ? limit : 1000);
	if (bad != STORE_DRV_OK) {
		rc = store_fail(s, store_errcode(s), "read log", cause);
		store_release(s, st);
		return (rc);
	}
	return (store_rows(s, st, &store_log_rows, (void **)listp, np, cause));
}

/* Free a log array. */
void
store_logs_free(struct store_log *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(list[i].data);
	free(list);
}
