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

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-sqlite.h"
#include "store/driver-sqlite-lib.h"

/*
 * A backup runs beside an engine that commits with fsync: it must never
 * keep the disk, or a CPU, long.  So it copies a slice of pages at a time
 * (SQLITE_BACKUP_PAGES) and rests between slices as long as the slice
 * took (at least SQLITE_BACKUP_REST_MIN us): half of the time at most is
 * the backup's.  The copy is written behind in steps of SQLITE_BACKUP_SYNC
 * bytes, so the kernel never holds much of it dirty (an engine's fsync
 * would wait behind the writeback of all of it): on Linux each step's
 * writeback is started and the step before waited for (sync_file_range),
 * which asks neither a journal commit nor a flush of the disk's cache, so
 * the engine's fsyncs are the only ones; elsewhere the copy is synced
 * every step.  The store syncs the whole copy once it is done.
 */
#define SQLITE_BACKUP_PAGES	64		/* pages copied per slice */
#define SQLITE_BACKUP_SYNC	(1 << 20)	/* bytes written behind */
#define SQLITE_BACKUP_REST_MIN	200		/* us of rest, at least */
#define SQLITE_BACKUP_REST_MAX	20000		/* us of rest, at most */

static int	sqlite_backup_pages(sqlite3 *, sqlite3 *, int, int64_t);
static void	sqlite_backup_behind(int, int64_t, int64_t *);
static void	sqlite_backup_rest(int64_t);
static int64_t	sqlite_backup_pagesize(sqlite3 *);

/* The source's page size, in bytes (4096 if it cannot say). */
static int64_t
sqlite_backup_pagesize(sqlite3 *db)
{
	sqlite3_stmt	*st;
	int64_t		 n = 4096;

	if (sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL) !=
	    SQLITE_OK)
		return (n);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return (n);
}

/*
 * The copy's first done bytes are written: wait for the writeback of
 * what was started before (*started bytes), and start the rest's.
 */
static void
sqlite_backup_behind(int fd, int64_t done, int64_t *started)
{
#ifdef SYNC_FILE_RANGE_WRITE
	if (*started > 0)
		(void)sync_file_range(fd, 0, *started,
		    SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|
		    SYNC_FILE_RANGE_WAIT_AFTER);
	if (done > *started)
		(void)sync_file_range(fd, *started, done - *started,
		    SYNC_FILE_RANGE_WRITE);
#else
	(void)fdatasync(fd);
#endif
	*started = done;
}

/* Rest after a slice that took us microseconds. */
static void
sqlite_backup_rest(int64_t us)
{
	struct timespec	 ts;

	if (us < SQLITE_BACKUP_REST_MIN)
		us = SQLITE_BACKUP_REST_MIN;
	else if (us > SQLITE_BACKUP_REST_MAX)
		us = SQLITE_BACKUP_REST_MAX;
#ifdef SLUICE_TEST_CLOCK
	/* Test builds: a slow backup, for commands to come during it. */
	if (getenv("SLUICE_TEST_BACKUP_REST_MS") != NULL)
		us = strtonum(getenv("SLUICE_TEST_BACKUP_REST_MS"), 0, 1000,
		    NULL) * 1000;
#endif
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Copy every page, a slice at a time, waiting out a lock up to timeout
 * ms; fd is the copy's file, synced as it grows.  SQLite's result code.
 */
static int
sqlite_backup_pages(sqlite3 *src, sqlite3 *dst, int fd, int64_t timeout)
{
	sqlite3_backup	*b;
	int64_t		 start = time_mono_ms(), t0, pagesz, done = 0;
	int64_t		 started = 0;
	int		 rc;

	if ((b = sqlite3_backup_init(dst, "main", src, "main")) == NULL)
		return (-1);
	pagesz = sqlite_backup_pagesize(src);
	for (;;) {
		t0 = time_mono_us();
		rc = sqlite3_backup_step(b, SQLITE_BACKUP_PAGES);
		if (rc == SQLITE_DONE)
			break;
		if (rc == SQLITE_OK) {
			done += SQLITE_BACKUP_PAGES * pagesz;
			if (done - started >= SQLITE_BACKUP_SYNC)
				sqlite_backup_behind(fd, done, &started);
			sqlite_backup_rest(time_mono_us() - t0);
			continue;
		}
		if ((rc == SQLITE_BUSY || rc == SQLITE_LOCKED) &&
		    time_mono_ms() - start < timeout) {
			sqlite_backup_rest(SQLITE_BACKUP_REST_MAX);
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
	int			 rc, ours = 0, fd = -1;

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
	/*
	 * The copy is a temporary file that the store syncs whole before
	 * it gets its name: no journal, no syncs of SQLite's own, a small
	 * cache (what spills goes to the file, synced as it grows).
	 */
	rc = sqlite3_exec(dst, "PRAGMA journal_mode = OFF;"
	    " PRAGMA synchronous = OFF; PRAGMA cache_size = -512", NULL, NULL,
	    NULL);
	if (rc != SQLITE_OK ||
	    (fd = open(to, O_RDONLY|O_CLOEXEC)) == -1) {
		xasprintf(cause, "cannot write %s: %s", to, rc != SQLITE_OK ?
		    sqlite3_errmsg(dst) : strerror(errno));
		code = STORE_DRV_ERROR;
		goto out;
	}
	rc = sqlite_backup_pages(db, dst, fd, timeout);
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
	if (fd != -1)
		close(fd);
	if (dst != NULL && sqlite3_close(dst) != SQLITE_OK &&
	    code == STORE_DRV_OK) {
		xasprintf(cause, "cannot close %s", to);
		code = STORE_DRV_ERROR;
	}
	if (ours)
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return (code);
}
