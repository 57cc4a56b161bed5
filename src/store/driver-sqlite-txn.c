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
 * driver-sqlite-txn.c: the SQLite driver's BEGIN IMMEDIATE and COMMIT,
 * prepared once per connection and kept.  The engine runs both for every
 * turn that changes anything (a chain: every step), and parsing them each
 * time cost as much as one of the turn's row writes.  The engine's process
 * has one or two connections open, so a small table finds them; past it,
 * the statements are parsed each time, as before.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/driver.h"
#include "store/driver-sqlite.h"
#include "store/driver-sqlite-lib.h"

#define SQLITE_TXN_CONNS	4

static const char *const sqlite_txn_sql[SQLITE_TXN_NSQL] = {
	"BEGIN IMMEDIATE",
	"COMMIT",
};

static struct {
	sqlite3		*db;
	sqlite3_stmt	*st[SQLITE_TXN_NSQL];
} sqlite_txn[SQLITE_TXN_CONNS];

/* Run one of the kept statements on db (parsed the first time). */
enum store_drv_code
store_sqlite_txn(sqlite3 *db, enum sqlite_txn_sql which)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i, slot = SQLITE_TXN_CONNS;
	int		 rc;

	for (i = 0; i < SQLITE_TXN_CONNS; i++) {
		if (sqlite_txn[i].db == db)
			break;
		if (sqlite_txn[i].db == NULL && slot == SQLITE_TXN_CONNS)
			slot = i;
	}
	if (i == SQLITE_TXN_CONNS && slot != SQLITE_TXN_CONNS) {
		sqlite_txn[slot].db = db;
		i = slot;
	}
	if (i < SQLITE_TXN_CONNS)
		st = sqlite_txn[i].st[which];
	if (st == NULL) {
		rc = sqlite3_prepare_v3(db, sqlite_txn_sql[which], -1,
		    i < SQLITE_TXN_CONNS ? SQLITE_PREPARE_PERSISTENT : 0, &st,
		    NULL);
		if (rc != SQLITE_OK) {
			sqlite3_finalize(st);
			return (store_sqlite_code(db, rc));
		}
		if (i < SQLITE_TXN_CONNS)
			sqlite_txn[i].st[which] = st;
	}
	rc = sqlite3_step(st);
	if (i < SQLITE_TXN_CONNS)
		sqlite3_reset(st);
	else
		sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return (store_sqlite_code(db, rc));
	return (STORE_DRV_OK);
}

/* db closes: its kept statements go first (SQLite refuses otherwise). */
void
store_sqlite_txn_forget(sqlite3 *db)
{
	size_t	i, j;

	for (i = 0; i < SQLITE_TXN_CONNS; i++) {
		if (sqlite_txn[i].db != db)
			continue;
		for (j = 0; j < SQLITE_TXN_NSQL; j++) {
			sqlite3_finalize(sqlite_txn[i].st[j]);
			sqlite_txn[i].st[j] = NULL;
		}
		sqlite_txn[i].db = NULL;
	}
}
