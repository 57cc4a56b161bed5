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
 * driver-pg-int.h: what the files of the PostgreSQL driver that use
 * libpq share (built with --with-postgresql only): the connection, and
 * one statement run on it.
 */

#ifndef SLUICE_STORE_DRIVER_PG_INT_H
#define SLUICE_STORE_DRIVER_PG_INT_H

/* Only with --with-postgresql (libpq's header is not there without). */
#ifdef HAVE_POSTGRESQL

#include <stdint.h>

#include "store/driver-pg-lib.h"

#include "store/driver.h"

/*
 * How long a wait for the server's answer may last (driver-pg-wait.c):
 * until a monotonic ms (0: no such time), at most limit ms (0: no limit),
 * serve(arg) called meanwhile (NULL: nothing).
 */
struct pg_bound {
	int64_t		  until;
	int64_t		  limit;
	void		(*serve)(void *);
	void		 *arg;
};

/* How many ids turn_id draws at once (driver-pg-defer.c). */
#define PG_IDS_AHEAD	16

/* The nested levels a turn keeps without savepoints (driver-pg-defer.c). */
#define PG_NEST_MAX	16

struct pg_conn {
	PGconn			*pg;
	enum store_drv_code	 code;		/* the last failure */
	char			*message;
	int64_t			 changes;
	int64_t			 total;
	unsigned		 nstmts;	/* names given so far */
	store_drv_busy_cb	 busy_cb;
	void			*busy_arg;
	int			 begin_pending;	/* a write transaction begun */
						/* here, not yet on the server */
	const char		*pending[8];	/* then these, before the */
	int			 npending;	/* next statement */
	char			*at_commit;	/* SQL sent with the COMMIT */
	int64_t			 lastval;	/* the last INSERT's id */
	int			 lastval_known;
	int			 lastval_owed;	/* a turn's INSERT sent ahead: */
						/* lastval() says its id */
	const char		*ahead_table;	/* pg_post: an id drawn for */
	int64_t			 ahead;		/* this table's next row, or 0 */
	int64_t			 answer;	/* driver-pg-async.c: of the */
	int			 answer_failed;	/* statement in flight */
	/* driver-pg-defer.c: the engine's turn (STORE_DRV_WRITE_TURN). */
	int			 defer;		/* its writes need not wait */
	int			 fence_pending;	/* the fence, sent after the */
	int64_t			 fence_epoch;	/* write lock */
	int64_t			 fence_now;	/* its heartbeat, or 0 */
	int			 fence_prepared; /* its forms on the server */
	struct pg_queued	*queued;	/* sent, answers not yet read */
	int			 nqueued;
	int			 queued_max;
	enum store_drv_code	 failed;	/* one of them (or the fence) */
	char			*failed_message; /* failed: the turn is lost */
	int64_t			 writes;	/* statements that may write */
	int64_t			 nest_mark[PG_NEST_MAX]; /* writes when a */
						/* nested level began */
	const char		*ids_table;	/* turn_id: ids drawn ahead */
	int64_t			 ids[PG_IDS_AHEAD]; /* for this table */
	int			 nids;		/* how many drawn */
	int			 ids_used;	/* and used */
	struct pg_bound		 bound;		/* of every wait */
	char			*unreachable;	/* set: a wait passed it, */
						/* the connection given up */
};

/* A query on the open pipeline whose answer is read later. */
struct pg_queued {
	int	 kind;
#define PG_Q_PLAIN	0	/* its failure alone looked at */
#define PG_Q_WRITE	1	/* an INSERT, UPDATE or DELETE: its count */
#define PG_Q_LASTVAL	2	/* SELECT sluice_lastval(): an id asked */
	char	*sql;		/* to name it when it fails */
};

/*
 * driver-pg.c: run SQL without parameters (a failure noted on c), first
 * beginning on the server a write transaction begun here; note a failure
 * from its result (NULL: from the connection).
 */
#define PG_BYTEA	17	/* type oids we name */
#define PG_INT8		20
#define PG_TEXT		25

/*
 * What the engine's fence says when it refuses (driver-pg-fence.c), in
 * the text of an error by construction; pg_fail finds it there.
 */
#define PG_FENCE_MARK	"sluice fence: "

/* The key of the write lock: the application id (STORE_APPLICATION_ID). */
#define PG_WRITE_LOCK	"1936484707"

struct pg_stmt {
	struct store_stmt	 base;		/* first: the store's handle */
	struct pg_conn		*c;
	char			*sql;		/* translated */
	int			 nparams;
	int			 keep;
	int			 insert;	/* its id read back with it */
	int			 write;		/* may be sent ahead: no rows */
	int			 reads;		/* a SELECT: writes nothing */
	char			 name[24];	/* prepared on the server, */
	int			 prepared;	/* once */
	char			**values;	/* bound, as text or bytes */
	int			*lengths;
	int			*formats;
	PGresult		*res;		/* its rows, once run */
	int			 row;
	int			 nrows;
	unsigned char		**bytes;	/* bytea columns, decoded */
	size_t			*nbytes;
};

/*
 * A pipeline's queries, by their places: the one whose rows are wanted,
 * and those whose results are looked at on the way (-1: none).
 */
struct pg_pipe {
	int	 n;
	int	 want;
	int	 prep;		/* the Parse of a kept statement */
	int	 lock;		/* the write lock of a transaction begun */
	int	 last;		/* SELECT sluice_lastval() after an INSERT */
	int	 fence;		/* the engine's fence, after the lock */
	int	 fparse;	/* the fence's Parse, at its first run */
	int	 fform;		/* which of its forms */
	int	 fparsed;	/* set: the Parse succeeded */
	int	 failed;	/* set: the first that failed */
};

/* driver-pg-pipe.c */
enum store_drv_code pg_send(struct pg_conn *, const char *);
enum store_drv_code pg_flush(struct pg_conn *);
enum store_drv_code pg_pending(struct pg_conn *, const char *);
PGresult	*pg_collect(struct pg_conn *, struct pg_pipe *, int *);
int		 pg_queue(PGconn *, const char *, int *);
int		 pg_queue_bound(struct pg_stmt *, const Oid *, struct pg_pipe *);
Oid		*pg_blob_types(struct pg_stmt *);
PGresult	*pg_execute(struct pg_stmt *, const Oid *);
PGresult	*pg_execute_typed(struct pg_stmt *);

/* driver-pg-defer.c: the engine's turn, writes not waited for. */
int		 pg_deferrable(struct pg_stmt *);
enum store_drv_code pg_defer(struct pg_stmt *);
void		 pg_queue_note(struct pg_conn *, int, const char *);
int		 pg_queued_read(struct pg_conn *);
enum store_drv_code pg_settle(struct pg_conn *);
enum store_drv_code pg_lastval_owed(struct pg_conn *);
void		 pg_failed_set(struct pg_conn *, const char *);
enum store_drv_code pg_commit_piped(struct pg_conn *);
void		 pg_queued_drop(struct pg_conn *);
enum store_drv_code pg_failed(struct pg_conn *);
void		 pg_turn_end(struct pg_conn *);
enum store_drv_code pg_turn_id(struct store_conn *, const char *, int64_t *);
int		 pg_turn_nests(struct pg_conn *, int);
enum store_drv_code pg_turn_undo(struct pg_conn *, int);
void		 pg_turn_lost(struct pg_conn *, const char *);

/* driver-pg-fence.c: the engine's fence, prepared once per connection. */
enum store_drv_code pg_fence(struct store_conn *, int64_t, int64_t);
int		 pg_fence_queue(struct pg_conn *, struct pg_pipe *);
int		 pg_fence_failed(const struct pg_pipe *);
void		 pg_fence_parsed(struct pg_conn *, const struct pg_pipe *);
enum store_drv_code pg_fence_run(struct pg_conn *);

/* driver-pg-stmt.c */
enum store_drv_code pg_prepare(struct store_conn *, const char *, int,
		     struct store_stmt **);
void		 pg_rows_clear(struct pg_stmt *);
void		 pg_reset(struct store_stmt *, int);
void		 pg_finalize(struct store_stmt *);
int		 pg_parameters(struct store_stmt *);
enum store_drv_code pg_step(struct store_stmt *);
enum store_drv_code pg_bind_int64(struct store_stmt *, int, int64_t);
enum store_drv_code pg_bind_text(struct store_stmt *, int, const char *,
		     size_t);
enum store_drv_code pg_bind_blob(struct store_stmt *, int, const void *,
		     size_t);
enum store_drv_code pg_bind_null(struct store_stmt *, int);
int		 pg_column_null(struct store_stmt *, int);
int64_t		 pg_column_int64(struct store_stmt *, int);
const char	*pg_column_text(struct store_stmt *, int);
const void	*pg_column_blob(struct store_stmt *, int, size_t *);

const char	*pg_conninfo(const char *);
enum store_drv_code pg_run(struct pg_conn *, const char *);
enum store_drv_code pg_int(struct pg_conn *, const char *, int64_t *);
void		 pg_fail(struct pg_conn *, const PGresult *);

/* driver-pg.c: what goes with a COMMIT (NOTIFY). */
enum store_drv_code store_pg_notify(struct store_conn *, const char *);

/* driver-pg-session.c: a session's state, LISTEN. */
int		 store_pg_file_readonly(struct store_conn *);
int		 store_pg_lost(struct store_conn *);
enum store_drv_code store_pg_listen(struct store_conn *, const char *);
int		 store_pg_listen_fd(struct store_conn *);
int		 store_pg_heard(struct store_conn *, int,
		     void (*)(void *, const char *), void *);

/* driver-pg-wait.c: waits for the server's answer, bounded. */
int		 pg_ready(PGconn *, const struct pg_bound *, char **);
PGresult	*pg_get_result(struct pg_conn *);
PGresult	*pg_last(PGconn *, int, const struct pg_bound *, char **);
PGresult	*pg_exec_bounded(struct pg_conn *, const char *);
void		 pg_wait_bound(struct store_conn *, int64_t, int64_t,
		     void (*)(void *), void *);

/* driver-pg-async.c: a statement whose answer is read as it comes. */
enum store_drv_code store_pg_send(struct store_conn *, const char *, int,
		     const char *const *);
int		 store_pg_answer(struct store_conn *, int, int64_t *);

#endif /* HAVE_POSTGRESQL */
#endif /* SLUICE_STORE_DRIVER_PG_INT_H */
