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
 * floor-fsync.c: the machine's floor for durable commits.  It opens a fresh
 * SQLite database in WAL mode with synchronous=FULL, as sluice's store
 * does, and times N small transactions (BEGIN IMMEDIATE, one INSERT,
 * COMMIT), each of which must reach the disk.  No engine can commit step
 * changes durably faster than this, so sluice's benchmarks compare with
 * it.  Links sqlite3 only; floor-fsync.sh builds and runs it.
 *
 * usage: floor-fsync DATABASE N
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <sqlite3.h>

static void	floor_exec(sqlite3 *, const char *);
static int64_t	floor_now_ns(void);

/* Run SQL that returns no rows, or die saying why. */
static void
floor_exec(sqlite3 *db, const char *sql)
{
	char	*err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "floor-fsync: %s: %s\n", sql,
		    err != NULL ? err : sqlite3_errmsg(db));
		exit(1);
	}
}

/* The monotonic clock in nanoseconds, for timing only. */
static int64_t
floor_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
}

int
main(int argc, char **argv)
{
	sqlite3		*db;
	sqlite3_stmt	*st;
	char		*end;
	long		 n, i;
	int64_t		 t0, t1;
	double		 s;

	if (argc != 3) {
		fprintf(stderr, "usage: floor-fsync DATABASE N\n");
		return (2);
	}
	errno = 0;
	n = strtol(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || n < 1) {
		fprintf(stderr, "floor-fsync: bad count: %s\n", argv[2]);
		return (2);
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
		fprintf(stderr, "floor-fsync: %s: %s\n", argv[1],
		    sqlite3_errmsg(db));
		return (1);
	}
	floor_exec(db, "PRAGMA journal_mode=WAL");
	floor_exec(db, "PRAGMA synchronous=FULL");
	floor_exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, at INTEGER,"
	    " note TEXT)");
	if (sqlite3_prepare_v2(db, "INSERT INTO t (at, note) VALUES (?, ?)",
	    -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "floor-fsync: %s\n", sqlite3_errmsg(db));
		return (1);
	}

	t0 = floor_now_ns();
	for (i = 0; i < n; i++) {
		floor_exec(db, "BEGIN IMMEDIATE");
		sqlite3_bind_int64(st, 1, i);
		sqlite3_bind_text(st, 2, "step done", -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "floor-fsync: insert: %s\n",
			    sqlite3_errmsg(db));
			return (1);
		}
		sqlite3_reset(st);
		floor_exec(db, "COMMIT");
	}
	t1 = floor_now_ns();

	sqlite3_finalize(st);
	sqlite3_close(db);
	s = (double)(t1 - t0) / 1e9;
	printf("sqlite fsync floor: %ld transactions in %.3f s: %.0f/s "
	    "(%.3f ms each)\n", n, s, s > 0 ? (double)n / s : 0,
	    s * 1000 / (double)n);
	return (0);
}
