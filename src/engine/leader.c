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
 * leader.c: leadership in cluster mode (a postgresql: database, SPEC §14).
 * Every node runs an engine; the one whose lock session holds the
 * advisory lock leads, the others poll it every LEADER_POLL_MS as
 * standbys and take over when the session that held it ends (the leader
 * died: at once; frozen or cut off: after the lease L, when the server
 * ends the idle session).  Fencing is in three layers:
 *
 * - the lock session, whose heartbeat keeps it from going idle;
 * - the epoch: taking over bumps it, and every write transaction of the
 *   engine first reads it locked (lease.c), so a superseded leader's
 *   next write is refused; its own connection cannot sit in a
 *   transaction for longer than L, so it cannot hold the bump up;
 * - the local deadline, last successful heartbeat + L - margin by this
 *   host's clock: a leader cut off from PostgreSQL never hears that it
 *   lost, so past its deadline it starts nothing (every start checks in
 *   the child, just before exec) and its fence keeper stops what it
 *   started, also while this process is frozen or after it died.  The
 *   margin covers the keeper's own latency, so the steps are gone before
 *   the server can have freed the lock.
 *
 * Each node keeps its row in the nodes table (store/node.c) for "sluice
 * status": a standby every LEADER_SEEN_MS as it polls, the leader with
 * every heartbeat, which is that row's write and nothing else.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "store/store.h"
#include "engine/engine.h"
#include "engine/engine-int.h"

#define LEADER_POLL_MS		20	/* a standby tries the lock so often */
#define LEADER_MARGIN_MS	500	/* deadline ahead of the server's L */
#define LEADER_SEEN_MS		2000	/* a standby's row, at most so often */
#define LEADER_DOWN_MS		500	/* at most so long between tries */
					/* while the server is unreachable */

struct leader {
	struct loop		*loop;
	struct store		*lock;		/* the lock session */
	struct store_node	 node;		/* this node's row */
	int64_t			 seen_next;	/* a standby's next row, ms */
	struct engine		*engine;	/* once leading */
	struct fence_keeper	*keeper;
	struct loop_timer	*timer;		/* polls, then heartbeats */
	int64_t			 lease;		/* L, ms */
	int64_t			 margin;	/* ms */
	int64_t			 deadline;	/* fence clock ms */
	int			 won;
	int64_t			 down;		/* ms between tries while */
						/* unreachable, or 0 */
	char			*cause;		/* why polling failed */
};

static void	leader_poll(void *);
static void	leader_beat(void *);
static void	leader_renew(struct leader *, int64_t);

/*
 * Open the lock session on the database named: a connection of its own,
 * which the server ends after lease ms without a query.
 */
struct leader *
leader_open(struct loop *loop, const char *db, int64_t lease, char **cause)
{
	struct leader	*l;

	l = xcalloc(1, sizeof *l);
	l->loop = loop;
	l->node.name = xstrdup(engine_node_name());
	l->node.role = xstrdup("standby");
	l->node.pid = getpid();
	l->node.lease = lease;
	l->node.version = xstrdup(PACKAGE_VERSION);
	l->lease = lease;
	l->margin = lease / 4 < LEADER_MARGIN_MS ? lease / 4 :
	    LEADER_MARGIN_MS;
	if (store_open(db, STORE_F_NOCREATE, &l->lock, cause) != 0) {
		l->lock = NULL;
		leader_free(l);
		return (NULL);
	}
	if (store_leader_session(l->lock, lease, cause) != 0) {
		leader_free(l);
		return (NULL);
	}
	l->timer = loop_timer_create(loop, leader_poll, l);
	return (l);
}

/*
 * Let go of the lock (its session ends) and of the keeper; a node that
 * stops of its own accord takes its row with it.
 */
void
leader_free(struct leader *l)
{
	if (l == NULL)
		return;
	if (l->timer != NULL)
		loop_timer_free(l->timer);
	fence_keeper_free(l->keeper);
	if (l->lock != NULL && !store_lost(l->lock))
		(void)store_node_gone(l->lock, l->node.name, l->node.pid);
	store_close(l->lock);
	free(l->node.name);
	free(l->node.role);
	free(l->node.version);
	free(l->cause);
	free(l);
}

/*
 * Stand by until the lock is ours, trying it every LEADER_POLL_MS in the
 * loop (so signals are seen: *stop set gives up).  0 once leading; -1
 * with cause when the lock session fails or we are told to stop.
 */
int
leader_wait(struct leader *l, volatile int *stop, char **cause)
{
	int	 said = 0;

	leader_poll(l);
	while (!l->won && l->cause == NULL && !*stop) {
		if (!said) {
			fprintf(stderr, "sluice: engine: standing by: another "
			    "node leads %s\n", store_path(l->lock));
			said = 1;
		}
		loop_once(l->loop, 1);
	}
	if (l->won)
		return (0);
	if (l->cause != NULL) {
		xasprintf(cause, "engine: cannot take the leader's lock: %s",
		    l->cause);
	} else
		xasprintf(cause, "engine: stopped while standing by");
	loop_timer_stop(l->timer);
	return (-1);
}

/*
 * A standby's try for the lock.  A server that cannot be reached (the
 * primary crashed, and no standby is promoted yet) is tried again, less
 * and less often, for as long as it takes: a node that gave up then
 * would leave no engine once the new primary is up.
 */
static void
leader_poll(void *arg)
{
	struct leader	*l = arg;
	int64_t		 t0 = fence_now_ms();
	int		 got;
	char		*cause = NULL;

	if (store_leader_try(l->lock, &got, &cause) != 0) {
		if (!store_lost(l->lock)) {
			l->cause = cause;
			return;
		}
		if (l->down == 0)
			fprintf(stderr, "sluice: engine: standing by: cannot "
			    "reach the database: %s; trying again\n", cause);
		free(cause);
		l->down = l->down == 0 ? LEADER_POLL_MS : l->down * 2;
		if (l->down > LEADER_DOWN_MS)
			l->down = LEADER_DOWN_MS;
		loop_timer_start(l->timer, l->down);
		return;
	}
	if (l->down != 0) {
		fprintf(stderr, "sluice: engine: standing by: the database "
		    "answers again\n");
		l->down = 0;
	}
	if (!got && t0 >= l->seen_next) {
		/* Not a reason to stop: the next try finds a lost session. */
		if (store_node_seen(l->lock, &l->node, &cause) != 0) {
			log_debug("%s: %s", __func__, cause);
			free(cause);
		}
		l->seen_next = t0 + (l->lease / 2 < LEADER_SEEN_MS ?
		    l->lease / 2 : LEADER_SEEN_MS);
	}
	if (!got) {
		loop_timer_start(l->timer, LEADER_POLL_MS);
		return;
	}
	l->won = 1;
	l->deadline = t0 + l->lease - l->margin;
	log_debug("%s: leading, deadline in %lld ms", __func__,
	    (long long)(l->deadline - fence_now_ms()));
}

/*
 * The engine has taken over (a new epoch): start the fence keeper before
 * any step, put the deadline on every start, give the engine's own
 * connection the lease as its limit inside a transaction, and beat.
 */
int
engine_leader_attach(struct engine *e, char **cause)
{
	struct leader	*l = e->leader;

	if (store_leader_engine_session(e->store, l->lease, cause) != 0)
		return (-1);
	if ((l->keeper = fence_keeper_start(l->deadline, cause)) == NULL)
		return (-1);
	l->engine = e;
	free(l->node.role);
	l->node.role = xstrdup("leader");
	l->node.epoch = engine_epoch(e);
	/* At once, not at the first beat: consoles show who leads. */
	if (store_node_seen(l->lock, &l->node, cause) != 0)
		return (-1);
	e->fence.keeper = l->keeper;
	e->fence.deadline = l->deadline;
	loop_timer_free(l->timer);
	l->timer = loop_timer_create(l->loop, leader_beat, l);
	loop_timer_start(l->timer, l->lease / 4);
	/* Commands relayed by the standbys, applied as they come. */
	return (engine_listen_open(e, STORE_CHANNEL_INBOX, cause));
}

/* A new deadline, for the engine's starts and the keeper. */
static void
leader_renew(struct leader *l, int64_t deadline)
{
	l->deadline = deadline;
	l->engine->fence.deadline = deadline;
	if (fence_keeper_renew(l->keeper, deadline) != 0)
		engine_superseded(l->engine, "the fence keeper is gone");
}

/*
 * The heartbeat, every L/4: a query on the lock session, the write of
 * this node's row (one round trip, not waiting for standbys).  Its answer
 * moves the deadline to when it was sent + L - margin; no answer (the
 * session is gone: terminated, or ended by the server while we were
 * frozen or cut off) means another node may lead, so stop at once.  A
 * heartbeat that comes after the deadline (we were frozen) finds our
 * steps stopped by the keeper: stop too, and let a standby recover them.
 */
static void
leader_beat(void *arg)
{
	struct leader	*l = arg;
	int64_t		 t0 = fence_now_ms();
	char		*cause = NULL, *why;

	if (fence_expired(l->deadline)) {
		xasprintf(&why, "the deadline passed %lld ms before the "
		    "heartbeat", (long long)(t0 - l->deadline));
		engine_superseded(l->engine, why);
	}
	if (store_node_seen(l->lock, &l->node, &cause) != 0) {
		xasprintf(&why, "the leader's lock session is gone: %s",
		    cause);
		engine_superseded(l->engine, why);
	}
	if (fence_expired(l->deadline)) {
		xasprintf(&why, "the heartbeat took past the deadline");
		engine_superseded(l->engine, why);
	}
	leader_renew(l, t0 + l->lease - l->margin);
	loop_timer_start(l->timer, l->lease / 4);
}

/* The lease, for status: ms, 0 when not in cluster mode. */
int64_t
leader_lease(const struct leader *l)
{
	return (l != NULL ? l->lease : 0);
}

/*
 * How long after taking over another node's running rows may still have
 * processes: that node's deadline is at most L - margin after its last
 * heartbeat, which came before we could take its lock.
 */
int64_t
leader_hold(const struct leader *l)
{
	return (l->lease - l->margin);
}
