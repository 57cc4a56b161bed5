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
 * reader.c: the read connection members' reads run on (server-read.c in
 * the engine), whatever kind the database is: a file's is SQLite's
 * (driver-sqlite-reader.c), a postgresql: database's is PostgreSQL's on
 * the reader's own login (driver-pg-reader.c).  The rest of the seam
 * calls through the reader's ops.
 */

#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/driver.h"
#include "store/store-int.h"

/*
 * Open the read connection of the database named path: for a server's,
 * as login (a database name of the reader's login, "postgresql:...").
 */
int
store_reader_open(const char *path, const char *login,
    store_reader_yield_cb yield, void *arg, struct store_reader **rp,
    char **cause)
{
	*rp = NULL;
	if (!store_name_is_server(path))
		return (store_sqlite_reader_open(path, yield, arg, rp, cause));
	if (login == NULL) {
		/* Not the database's name: it may hold a password. */
		xasprintf(cause, "members' reads need the reader's login on "
		    "this node: set the site config's cluster.reader "
		    "(sluice(1) CLUSTER)");
		return (STORE_ERR);
	}
#ifdef HAVE_POSTGRESQL
	return (store_pg_reader_open(login, yield, arg, rp, cause));
#else
	xasprintf(cause, "cannot open database %s: this sluice was built "
	    "without PostgreSQL (configure --with-postgresql)", path);
	return (STORE_ERR);
#endif
}

/* Close the read connection, its cursors closed already. */
void
store_reader_close(struct store_reader *r)
{
	if (r != NULL)
		r->ops->close(r);
}

/*
 * Start a member's statement, sql with its values (a JSON array of wire
 * values, or NULL).  A statement that would write is refused with
 * STORE_READONLY, as is more than one at once (with STORE_ERR).
 */
int
store_cursor_open(struct store_reader *r, const char *sql,
    const struct cJSON *values, struct store_cursor **cp, char **cause)
{
	return (r->ops->cursor_open(r, sql, values, cp, cause));
}

/*
 * Add the cursor's next rows to rows (a JSON array of arrays): up to
 * STORE_READ_PAGE_ROWS or _BYTES, or what STORE_READ_TURN_MS of work
 * gives.  Returns 1 when there are more, 0 at the end (the cursor is then
 * finished, its snapshot let go), or a store code with *cause.
 */
int
store_cursor_page(struct store_cursor *c, struct cJSON *rows, char **cause)
{
	return (c->r->ops->cursor_page(c, rows, cause));
}

/* Finish a cursor, letting go of its snapshot. */
void
store_cursor_close(struct store_cursor *c)
{
	if (c != NULL)
		c->r->ops->cursor_close(c);
}
