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
 * driver.h: the seam under the store.  Every store file reaches its
 * database through a struct store_driver: a connection and statements
 * addressed by opaque handles, values bound and columns read through the
 * table, and failures as a driver-neutral code with the driver's message.
 * driver-sqlite.c is the one implementation; another (a read-only driver
 * that ships each statement to the engine, a PostgreSQL one) fills the
 * same table and is named in store_drivers[] (driver.c).
 *
 * What only one kind of database has (SQLite's busy handler, its WAL and
 * checkpoint settings, its online backup, its pragmas) is a named hook
 * here, NULL in a driver without it, so no store file needs to know.  A
 * read-only driver answers the writing calls (exec, a write begin) with
 * STORE_DRV_READONLY.
 *
 * tests/unit/test-store-conformance checks a driver through store.h.
 *
 * Columns and parameters count as SQLite's do: parameters from 1,
 * columns from 0.
 */

#ifndef SLUICE_STORE_DRIVER_H
#define SLUICE_STORE_DRIVER_H

#include <stddef.h>
#include <stdint.h>

struct store_conn;	/* a driver's open connection: its own struct */
struct store_driver;

/*
 * A prepared statement.  Each driver's statement struct begins with this,
 * so the binding and column calls below find their driver from the
 * handle alone (the row readers get no struct store).
 */
struct store_stmt {
	const struct store_driver	*drv;
};

/* What a driver call returns: 0, a step's outcome, or why it failed. */
enum store_drv_code {
	STORE_DRV_OK = 0,
	STORE_DRV_ROW,		/* step: a row is ready to read */
	STORE_DRV_DONE,		/* step: no more rows */
	STORE_DRV_BUSY,		/* locked by another connection */
	STORE_DRV_CONSTRAINT,	/* a constraint or trigger refused it */
	STORE_DRV_READONLY,	/* this connection may not write */
	STORE_DRV_NOTREADY,	/* may not write for a moment: the */
				/* message says what another process */
				/* is doing (waited out like a lock) */
	STORE_DRV_FOREIGN,	/* not a database this driver reads */
	STORE_DRV_FENCED,	/* the epoch fence refused: another */
				/* engine took over (fence, below) */
	STORE_DRV_ERROR		/* anything else: the message says */
};

/* How open opens. */
#define STORE_DRV_O_READONLY	0x1	/* never write */

/* The levels of begin, commit and rollback: 0 outermost, then nested. */
#define STORE_DRV_READ		0	/* begin: a read snapshot */
#define STORE_DRV_WRITE		1	/* begin: take the write lock now */
#define STORE_DRV_WRITE_NEXT	2	/* or with the next statement, which */
					/* follows at once (a server's driver */
					/* saves a round trip): as WRITE else */
#define STORE_DRV_WRITE_TURN	3	/* as WRITE_NEXT, and a write whose */
					/* count and id are not asked for */
					/* need not be waited for (below) */

/*
 * The store's wait for a lock: called by the driver with how many times
 * it has asked so far; 1 to try again (after waiting as it likes), 0 to
 * give up with STORE_DRV_BUSY.
 */
typedef int (*store_drv_busy_cb)(void *, int);

/* One argument of an SQL function the store defines (sluice_state). */
struct store_drv_arg {
	int64_t		 i;	/* not text: as an integer (NULL: 0) */
	const char	*text;	/* text: the text, else NULL */
};
/*
 * A deterministic scalar SQL function: fill *result with a static string
 * and return 0, or set *why (freed by the driver) and return -1.
 */
struct store_drv_function {
	const char	*name;
	int		 nargs;
	int		(*call)(const struct store_drv_arg *, int,
			     const char **, char **);
};

struct store_migration;	/* store-int.h */

struct store_driver {
	const char	*name;		/* store_set_driver's word */
	/*
	 * 1: the database is a server's, named by a connection string
	 * (PostgreSQL), with a schema of its own dialect (migrations, a
	 * list numbered as schema.c's).  0: a file here, which store.c makes,
	 * locks while setting it up, checks with its journal and copies for
	 * a backup (SQLite, and the socket driver reading one).
	 */
	int		 server;
	const struct store_migration *migrations;
	const size_t	*nmigrations;

	/*
	 * The connection: open the database at the path (STORE_DRV_O_*
	 * flags), or return -1 with a cause ("cannot open database ...").
	 */
	int		(*open)(const char *, int, struct store_conn **,
			     char **);
	void		(*close)(struct store_conn *);
	/*
	 * The last failure's code and message.  For STORE_DRV_BUSY and
	 * STORE_DRV_NOTREADY the message says what another process does,
	 * in words that follow "busy (" or "not ready for writing (".
	 */
	enum store_drv_code (*error)(struct store_conn *);
	const char	*(*message)(struct store_conn *);

	/*
	 * Statements.  prepare's int is 1 for a statement the store keeps
	 * for the connection's life (cache.c), 0 for one used once; reset
	 * makes a statement ready to run again, its bindings kept, or with
	 * its int set cleared too.
	 */
	enum store_drv_code (*prepare)(struct store_conn *, const char *,
			     int, struct store_stmt **);
	void		(*finalize)(struct store_stmt *);
	void		(*reset)(struct store_stmt *, int);
	int		(*parameters)(struct store_stmt *);
	enum store_drv_code (*step)(struct store_stmt *);

	/* Binding, by parameter number; text and blobs are copied. */
	enum store_drv_code (*bind_int64)(struct store_stmt *, int, int64_t);
	enum store_drv_code (*bind_text)(struct store_stmt *, int,
			     const char *, size_t);
	enum store_drv_code (*bind_blob)(struct store_stmt *, int,
			     const void *, size_t);
	enum store_drv_code (*bind_null)(struct store_stmt *, int);

	/* The current row's columns; pointers live until the next step. */
	int		(*column_null)(struct store_stmt *, int);
	int64_t		(*column_int64)(struct store_stmt *, int);
	const char	*(*column_text)(struct store_stmt *, int);
	const void	*(*column_blob)(struct store_stmt *, int, size_t *);

	/* Constant SQL, one or more statements, rows ignored (schema). */
	enum store_drv_code (*exec)(struct store_conn *, const char *);

	/* Transactions: level 0 the transaction, above it savepoints. */
	enum store_drv_code (*begin)(struct store_conn *, int, int);
	enum store_drv_code (*commit)(struct store_conn *, int);
	enum store_drv_code (*rollback)(struct store_conn *, int);
	int		(*in_transaction)(struct store_conn *);

	/* What the last statements did. */
	int64_t		(*last_insert_id)(struct store_conn *);
	int64_t		(*changes)(struct store_conn *);
	int64_t		(*total_changes)(struct store_conn *);
	/* A counter that moves when another connection commits. */
	enum store_drv_code (*data_version)(struct store_conn *, int64_t *);

	/*
	 * What the database is: its application id, its schema version and
	 * how many objects (tables, indexes, triggers) it has; all 0 for a
	 * new, empty one.  Asked inside a read transaction.  NULL: a
	 * driver reading through one that checked (ours, and current).
	 */
	enum store_drv_code (*identify)(struct store_conn *, int64_t *,
			     int64_t *, int64_t *);

	/*
	 * Settings our database is used with (foreign keys enforced, full
	 * sync, the cache's size), then the journal other processes read
	 * beside the writer (SQLite: WAL), then an SQL function the store's
	 * queries call.  Each may be NULL: nothing to do.
	 */
	enum store_drv_code (*tune)(struct store_conn *);
	enum store_drv_code (*journal)(struct store_conn *);
	enum store_drv_code (*function)(struct store_conn *,
			     const struct store_drv_function *);

	/* Hooks only some drivers have (NULL otherwise). */
	void		(*busy_handler)(struct store_conn *, store_drv_busy_cb,
			     void *);
	int		(*file_readonly)(struct store_conn *);
	/*
	 * Whether a failure lost the connection to the server (it crashed,
	 * or ended our session): nothing more can run on it.
	 */
	int		(*lost)(struct store_conn *);
	/* Whether closing may fold the journal into another's file. */
	void		(*checkpoint_on_close)(struct store_conn *, int);
	/* Keep the journal's files after close, for readers. */
	void		(*keep_journal)(struct store_conn *);
	/*
	 * Copy the database, as one snapshot, into the (empty, existing)
	 * file named, waiting up to the ms given for locks.  A failure sets
	 * the cause, or leaves it NULL for the store to say from error and
	 * message.
	 */
	enum store_drv_code (*backup)(struct store_conn *, const char *,
			     int64_t, char **);
	/*
	 * A row relayed to another connection (a standby's command for the
	 * leader, store/inbox.c).  next_id gives the id a new row of the
	 * table named will have, before it is written (its seal hashes the
	 * id).  post runs a bound INSERT as a transaction of its own, in one
	 * round trip: it takes no write lock (it reads nothing, so it need
	 * not wait behind another writer), says the channel named at its
	 * commit, and that commit need not be durable (PostgreSQL: nor wait
	 * for the synchronous standby), because nobody is told of the row
	 * before a later commit that follows it in the log, and is durable,
	 * answers for it.  In the same round trip it draws the id of the
	 * next row of the table named, which next_id then gives without one
	 * of its own.  That id is the connection's and goes with it: a
	 * server that crashed (and may hand it out again, its draw not yet
	 * durable) is reached again through a new connection.
	 */
	enum store_drv_code (*next_id)(struct store_conn *, const char *,
			     int64_t *);
	enum store_drv_code (*post)(struct store_stmt *, const char *,
			     const char *);
	/*
	 * A server's notifications between connections (PostgreSQL's
	 * LISTEN and NOTIFY; store/notify.c).  listen subscribes the
	 * connection to a channel (NULL: to none any more); notify sends
	 * on one, at commit when a transaction is open; listen_fd is the
	 * descriptor to poll for what arrives; heard calls back with each
	 * channel heard since, reading the descriptor first when its int
	 * is set, and returns -1 when the connection is gone.
	 */
	enum store_drv_code (*listen)(struct store_conn *, const char *);
	enum store_drv_code (*notify)(struct store_conn *, const char *);
	int		(*listen_fd)(struct store_conn *);
	int		(*heard)(struct store_conn *, int,
			     void (*)(void *, const char *), void *);
	/*
	 * One statement whose answer is not waited for (the lock session's,
	 * which the engine's loop must never wait on): send puts it on the
	 * wire, its parameters as text (NULL: SQL NULL); answer reads what
	 * came (its int: listen_fd was readable): 1 while the answer is not
	 * all in, 0 with its first row's first column (0 without one), or
	 * -1 with the failure for error and message.
	 */
	enum store_drv_code (*send)(struct store_conn *, const char *, int,
			     const char *const *);
	int		(*answer)(struct store_conn *, int, int64_t *);
	/*
	 * The engine's epoch fence (store/lease.c), checked by the server:
	 * the transaction fails STORE_DRV_FENCED unless the engine row's
	 * epoch is the int64 given (its heartbeat set to the second, when
	 * not 0), under the row's lock.  In a transaction begun with its
	 * next statement it goes with that statement and its refusal is
	 * that statement's (and the transaction's): OK here says only that
	 * it is on its way.  NULL: the store reads the epoch and compares.
	 *
	 * A transaction begun STORE_DRV_WRITE_TURN (the engine's turn, whose
	 * writes the engine alone makes and never expects refused) may send
	 * an INSERT, UPDATE or DELETE without waiting for its answer, which
	 * comes with the next statement's, or when changes or
	 * last_insert_id is asked, or with the COMMIT.  A refused one fails
	 * every later statement and the COMMIT with its message: nothing of
	 * the transaction commits.
	 */
	enum store_drv_code (*fence)(struct store_conn *, int64_t, int64_t);
	/*
	 * In the engine's turn, the id the next row of the table named is
	 * to have, drawn ahead a few at a time (one round trip for several
	 * rows), so that its INSERT binds it and need not wait for an id
	 * (0: none drawn, outside a turn; the INSERT draws its own).  The
	 * ids one connection draws increase, and those it leaves unused
	 * are gaps; a new connection (a new leader) draws fresh ones.
	 */
	enum store_drv_code (*turn_id)(struct store_conn *, const char *,
			     int64_t *);
	/*
	 * Bound every wait for the server's answer on the connection: until
	 * the monotonic ms given (0: no such time) and at most the limit in
	 * ms per wait (0: none), calling serve(arg) now and then meanwhile
	 * (NULL: none).  A wait past its bound gives the connection up: the
	 * statement fails, "database unreachable: no answer in N s", and so
	 * does every later one (lost says 1).  NULL: the database is a file,
	 * whose waits are its locks'.
	 */
	void		(*wait_bound)(struct store_conn *, int64_t, int64_t,
			     void (*)(void *), void *);
};

/* driver.c: the drivers there are, by name, and the one chosen. */
const struct store_driver	*store_driver_find(const char *);
const struct store_driver	*store_driver(void);
const struct store_driver	*store_driver_for(const char *, char **);

/* driver-sqlite.c */
extern const struct store_driver	 store_driver_sqlite;

/* driver-socket.c: members' reads through the engine (service mode). */
extern const struct store_driver	 store_driver_socket;

/* driver-pg.c: PostgreSQL (cluster mode), when built --with-postgresql. */
extern const struct store_driver	 store_driver_pg;

/*
 * The statement calls every store file uses: one pointer call through
 * the statement's driver.
 */
static inline enum store_drv_code
store_stmt_step(struct store_stmt *st)
{
	return (st->drv->step(st));
}

static inline void
store_stmt_reset(struct store_stmt *st)
{
	st->drv->reset(st, 0);
}

static inline void
store_stmt_finalize(struct store_stmt *st)
{
	if (st != NULL)
		st->drv->finalize(st);
}

static inline enum store_drv_code
store_bind_int64(struct store_stmt *st, int idx, int64_t v)
{
	return (st->drv->bind_int64(st, idx, v));
}

static inline enum store_drv_code
store_bind_int(struct store_stmt *st, int idx, int v)
{
	return (st->drv->bind_int64(st, idx, v));
}

static inline enum store_drv_code
store_bind_null(struct store_stmt *st, int idx)
{
	return (st->drv->bind_null(st, idx));
}

static inline int
store_col_null(struct store_stmt *st, int col)
{
	return (st->drv->column_null(st, col));
}

static inline int64_t
store_col_int64(struct store_stmt *st, int col)
{
	return (st->drv->column_int64(st, col));
}

static inline int
store_col_int(struct store_stmt *st, int col)
{
	return ((int)st->drv->column_int64(st, col));
}

/* A text column as the driver holds it (store_column_text copies). */
static inline const char *
store_col_text(struct store_stmt *st, int col)
{
	return (st->drv->column_text(st, col));
}

static inline const void *
store_col_blob(struct store_stmt *st, int col, size_t *len)
{
	return (st->drv->column_blob(st, col, len));
}

#endif /* SLUICE_STORE_DRIVER_H */
