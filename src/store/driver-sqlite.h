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
 * driver-sqlite.h: what the SQLite driver's files share.
 */

#ifndef SLUICE_STORE_DRIVER_SQLITE_H
#define SLUICE_STORE_DRIVER_SQLITE_H

#include <stdint.h>

#include "store/driver.h"

struct sqlite3;

/*
 * driver-sqlite.c: SQLite's own handle of a connection this driver opened,
 * for tests that look under the store (tests/unit).
 */
struct sqlite3	*store_sqlite_db(struct store_conn *);
/* SQLite's result code as the driver-neutral one (extended: from db). */
enum store_drv_code store_sqlite_code(struct sqlite3 *, int);

/* driver-sqlite-backup.c: the driver's backup hook. */
enum store_drv_code	 store_sqlite_backup(struct store_conn *, const char *,
			     int64_t, char **);

/* driver-sqlite-txn.c: transaction statements kept per connection. */
enum sqlite_txn_sql {
	SQLITE_TXN_BEGIN_WRITE,		/* BEGIN IMMEDIATE */
	SQLITE_TXN_COMMIT,
	SQLITE_TXN_NSQL
};
enum store_drv_code	 store_sqlite_txn(struct sqlite3 *, enum sqlite_txn_sql);
void			 store_sqlite_txn_forget(struct sqlite3 *);

#endif /* SLUICE_STORE_DRIVER_SQLITE_H */
