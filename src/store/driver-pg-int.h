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
	const char		*ahead_table;	/* pg_post: an id drawn for */
	int64_t			 ahead;		/* this table's next row, or 0 */
	int64_t			 answer;	/* driver-pg-async.c: of the */
	int			 answer_failed;	/* statement in flight */
};

/*
 * driver-pg.c: run SQL without parameters (a failure noted on c), first
 * beginning on the server a write transaction begun here; note a failure
 * from its result (NULL: from the connection).
 */
enum store_drv_code pg_run(struct pg_conn *, const char *);
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

/* driver-pg-async.c: a statement whose answer is read as it comes. */
enum store_drv_code store_pg_send(struct store_conn *, const char *, int,
		     const char *const *);
int		 store_pg_answer(struct store_conn *, int, int64_t *);

#endif /* HAVE_POSTGRESQL */
#endif /* SLUICE_STORE_DRIVER_PG_INT_H */
