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
 * driver-sqlite-backup.c: the SQLite driver's backup hook: the online
 * backup API copying the database, a few pages a step, into a file the
 * store made (backup.c names, syncs and places it).
 */

#include <time.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-sqlite.h"

#define SQLITE_BACKUP_PAGES	256	/* pages copied per step */

static int	sqlite_backup_pages(sqlite3 *, sqlite3 *, int64_t);

/*
 * Copy every page, waiting out a lock up to timeout ms; SQLite's result
 * code.
 */
static int
sqlite_backup_pages(sqlite3 *src, sqlite3 *dst, int64_t timeout)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	sqlite3_backup	*b;
	int64_t		 start = time_mono_ms();
	int		 rc;

	if ((b = sqlite3_backup_init(dst, "main", src, "main")) == NULL)
		return (-1);
	for (;;) {
		rc = sqlite3_backup_step(b, SQLITE_BACKUP_PAGES);
		if (rc == SQLITE_DONE)
			break;
		if (rc == SQLITE_OK)
			continue;
		if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) &&
		    time_mono_ms() - start < timeout) {
			nanosleep(&ts, NULL);
			continue;
		}
		break;
	}
	sqlite3_backup_finish(b);
	return (rc);
}

/*
 * Copy the database into the file to, all from one read transaction: the
 * copy is one state of the database, and writers (the engine, in WAL
 * mode) are never held up by it.  A failure of our own transaction
 * leaves *cause NULL: the store says why from the connection.
 */
enum store_drv_code
store_sqlite_backup(struct store_conn *conn, const char *to, int64_t timeout,
    char **cause)
{
	sqlite3			*db = (sqlite3 *)conn, *dst = NULL;
	enum store_drv_code	 code = STORE_DRV_OK;
	int			 rc, ours = 0;

	if (sqlite3_get_autocommit(db)) {
		/* BEGIN is deferred: the first read takes the snapshot. */
		if ((rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL)) !=
		    SQLITE_OK)
			return (store_sqlite_code(db, rc));
		ours = 1;
		rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_master",
		    NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			code = store_sqlite_code(db, rc);
			goto out;
		}
	}
	rc = sqlite3_open_v2(to, &dst, SQLITE_OPEN_READWRITE, NULL);
	if (rc != SQLITE_OK) {
		xasprintf(cause, "cannot open %s: %s", to, dst != NULL ?
		    sqlite3_errmsg(dst) : sqlite3_errstr(rc));
		code = STORE_DRV_ERROR;
		goto out;
	}
	rc = sqlite_backup_pages(db, dst, timeout);
	if (rc == -1) {
		xasprintf(cause, "cannot copy to %s: %s", to,
		    sqlite3_errmsg(dst));
		code = STORE_DRV_ERROR;
		goto out;
	}
	if (rc != SQLITE_DONE) {
		xasprintf(cause, "cannot copy %s to %s: %s",
		    sqlite3_db_filename(db, "main"), to, sqlite3_errstr(rc));
		code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ?
		    STORE_DRV_BUSY : STORE_DRV_ERROR;
		goto out;
	}
out:
	if (dst != NULL && sqlite3_close(dst) != SQLITE_OK &&
	    code == STORE_DRV_OK) {
		xasprintf(cause, "cannot close %s", to);
		code = STORE_DRV_ERROR;
	}
	if (ours)
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return (code);
}
