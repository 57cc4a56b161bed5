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
 * busy.c: "sluice engine" never exits because its database is busy.  Any
 * process that may open the files can hold a lock on them (a reader left
 * in a transaction, a shared lock on the WAL index's write byte), and an
 * engine that gave up after the busy timeout and exited would let anyone
 * stop the service.  So the engine's store waits for a lock as long as it
 * is held (store_set_waiter): once the wait passes the busy timeout it
 * says once, on standard error, what it waits for and who holds it (from
 * /proc/locks), answers pings meanwhile with the same (sluice status shows
 * it), keeps the other requests for after, and says when it carries on.
 * The turn it was in simply goes on: nothing it acknowledged is lost,
 * since nothing is acknowledged before its commit.
 */

#include <sys/types.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine-int.h"

/* One process runs one such engine: its wait, if it waits. */
static struct {
	const char	*who;		/* "engine", or "init" before it */
	struct engine	*e;		/* serves its socket while waiting */
	int		 waiting;	/* said so, not yet over */
	int64_t		 since;		/* wall ms the wait began */
	int64_t		 began;		/* monotonic ms, for its length */
	char		*what;		/* "database DB: pid N holds ..." */
} engine_busy;

static void	 engine_busy_wait(void *, const char *, int64_t, int);

/*
 * From now on this process waits out a busy database, as above: the
 * engine, or "sluice init", which the service runs before it.
 */
void
engine_busy_init(const char *who)
{
	engine_busy.who = who;
	store_set_waiter(engine_busy_wait, NULL);
}

/* The engine whose socket is served while waiting (NULL: none now). */
void
engine_busy_attach(struct engine *e)
{
	engine_busy.e = e;
}

/* The store waits for a lock: say so once it is long, and serve pings. */
static void
engine_busy_wait(void *arg, const char *path, int64_t waited, int ms)
{
	char	*who;

	(void)arg;
	if (!engine_busy.waiting && waited >= STORE_BUSY_TIMEOUT) {
		engine_busy.waiting = 1;
		engine_busy.since = time_now_ms() - waited;
		engine_busy.began = time_mono_ms() - waited;
		who = lockers_describe(path);
		xasprintf(&engine_busy.what, "database %s is locked by "
		    "another process: %s", path, who != NULL ? who :
		    "/proc/locks names none");
		free(who);
		fprintf(stderr, "sluice: %s: waiting: %s; %s once it is "
		    "free\n", engine_busy.who, engine_busy.what,
		    engine_busy.e != NULL ? "commands are answered" :
		    "going on");
	}
	/* A commit on the thread (commit-thread.c) leaves the loop alone. */
	if (engine_busy.e != NULL && !engine_busy.e->committing)
		engine_server_wait(engine_busy.e, ms);
	else
		(void)poll(NULL, 0, ms);
}

/* Between turns: a wait that was said is over; say so too. */
void
engine_busy_over(void)
{
	int64_t	 ms;

	if (!engine_busy.waiting)
		return;
	ms = time_mono_ms() - engine_busy.began;
	fprintf(stderr, "sluice: %s: the database is free again after "
	    "%lld.%lld s; carrying on\n", engine_busy.who,
	    (long long)(ms / 1000),
	    (long long)(ms % 1000 / 100));
	engine_busy.waiting = 0;
	free(engine_busy.what);
	engine_busy.what = NULL;
}

/* What the engine waits for and since when (wall ms), or NULL. */
const char *
engine_busy_what(int64_t *since)
{
	if (!engine_busy.waiting)
		return (NULL);
	*since = engine_busy.since;
	return (engine_busy.what);
}
