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
 * The lock session's queries (the standby's tries, the rows, the
 * heartbeat) are sent and their answers read as the loop finds the
 * session's socket readable: the loop never waits on PostgreSQL for
 * them, so a cut-off leader's socket still answers, and its timers and
 * reaping go on.  The deadline is kept by the engine's own clock (a
 * timer at it), not by when an answer comes: a heartbeat unanswered at
 * the deadline fences the leader (it starts nothing, its keeper stops
 * its steps), and it stops as superseded when the answer comes, which
 * can only say the session is gone, or L later at the latest.
 *
 * Each node keeps its row in the nodes table (store/node.c) for "sluice
 * status": a standby every LEADER_SEEN_MS as it polls, the leader with
 * every heartbeat, which is that row's write and nothing else.
 */

#include <sys/types.h>

#include <poll.h>
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
#define LEADER_GONE_MS		1000	/* a clean stop waits so long for */
					/* the answer in flight */
#define LEADER_AFTER_MAX	4	/* callers waiting for an answer: */
					/* the inbox poll, the held rows */

/* What the lock session's answer in flight is to. */
enum leader_ask {
	LEADER_ASK_NONE,
	LEADER_ASK_TRY,		/* a standby's try for the lock */
	LEADER_ASK_SEEN,	/* a standby's row */
	LEADER_ASK_BEAT		/* the leader's heartbeat */
};

/* Called once, just after the next heartbeat's answer. */
struct leader_after {
	void			(*cb)(void *);
	void			*arg;
};

struct leader {
	struct loop		*loop;
	struct store		*lock;		/* the lock session */
	struct store_node	 node;		/* this node's row */
	int64_t			 seen_next;	/* a standby's next row, ms */
	struct engine		*engine;	/* once leading */
	struct fence_keeper	*keeper;
	struct loop_timer	*timer;		/* polls, then heartbeats */
	struct loop_timer	*fence;		/* at the deadline */
	struct loop_fd		*watch;		/* the session's socket, */
	enum leader_ask		 ask;		/* while an answer is due */
	int64_t			 sent;		/* when, fence clock ms */
	int			 overdue;	/* a beat waits for the last */
	int			 fenced;	/* the deadline passed first */
	int64_t			 lease;		/* L, ms */
	int64_t			 margin;	/* ms */
	int64_t			 deadline;	/* fence clock ms */
	int			 won;
	int64_t			 down;		/* ms between tries while */
						/* unreachable, or 0 */
	char			*cause;		/* why polling failed */
	struct leader_after	 after[LEADER_AFTER_MAX];	/* once the */
	size_t			 nafter;		/* next beat answers */
};

static void	leader_poll(void *);
static void	leader_beat(void *);
static void	leader_fence(void *);
static void	leader_renew(struct leader *, int64_t);
static void	leader_asked(struct leader *, enum leader_ask);
static void	leader_heard(int, short, void *);
static void	leader_answer(struct leader *, int);
static void	leader_tried(struct leader *, int, int64_t, char *);
static void	leader_beaten(struct leader *, int, char *);

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
	/* Not a reason to stop: the next node to start tries again. */
	(void)store_node_prune(l->lock);
	l->timer = loop_timer_create(loop, leader_poll, l);
	return (l);
}

/*
 * Let go of the lock (its session ends) and of the keeper; a node that
 * stops of its own accord says so in its row ("stopped", for status),
 * once the answer in flight is in (waited for a moment: a cut-off node
 * does not hang).
 */
void
leader_free(struct leader *l)
{
	int64_t	 v;
	char	*cause = NULL;

	if (l == NULL)
		return;
	if (l->timer != NULL)
		loop_timer_free(l->timer);
	if (l->fence != NULL)
		loop_timer_free(l->fence);
	if (l->watch != NULL)
		loop_fd_del(l->watch);
	fence_keeper_free(l->keeper);
	if (l->lock != NULL &&
	    store_answer_wait(l->lock, LEADER_GONE_MS, &v, &cause) == 0 &&
	    !store_lost(l->lock))
		(void)store_node_stopped(l->lock, l->node.name, l->node.pid);
	free(cause);
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

/* An answer is now due on the lock session: watch its socket. */
static void
leader_asked(struct leader *l, enum leader_ask ask)
{
	int	 fd;

	l->ask = ask;
	l->sent = fence_now_ms();
	if (l->watch != NULL)
		loop_fd_del(l->watch);
	l->watch = NULL;
	/* No socket: the connection is gone, which reading says. */
	if ((fd = store_listen_fd(l->lock)) == -1) {
		leader_answer(l, 1);
		return;
	}
	l->watch = loop_fd_add(l->loop, fd, POLLIN, leader_heard, l);
	/* Sending may have read an answer already there. */
	leader_answer(l, 0);
}

static void
leader_heard(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	leader_answer(arg, 1);
}

/* Read what came on the lock session; once its answer is in, act on it. */
static void
leader_answer(struct leader *l, int readable)
{
	enum leader_ask	 ask = l->ask;
	int64_t		 v;
	char		*cause = NULL;
	int		 rc;

	if (ask == LEADER_ASK_NONE ||
	    (rc = store_answer(l->lock, readable, &v, &cause)) == 1)
		return;
	if (l->watch != NULL)
		loop_fd_del(l->watch);
	l->watch = NULL;
	l->ask = LEADER_ASK_NONE;
	switch (ask) {
	case LEADER_ASK_TRY:
		leader_tried(l, rc, v, cause);
		break;
	case LEADER_ASK_SEEN:
		/* Not a reason to stop: the next try finds a lost session. */
		if (rc != 0)
			log_debug("%s: %s", __func__, cause);
		free(cause);
		loop_timer_start(l->timer, LEADER_POLL_MS);
		break;
	case LEADER_ASK_BEAT:
		leader_beaten(l, rc, cause);
		break;
	case LEADER_ASK_NONE:
		break;
	}
}

/*
 * A standby's try for the lock: sent now, answered in leader_tried.
 */
static void
leader_poll(void *arg)
{
	struct leader	*l = arg;
	char		*cause = NULL;

	if (l->ask != LEADER_ASK_NONE)
		return;		/* the answer starts the next */
	if (store_leader_try_send(l->lock, &cause) != 0) {
		leader_tried(l, -1, 0, cause);
		return;
	}
	leader_asked(l, LEADER_ASK_TRY);
}

/*
 * The answer to a try (rc 0: got is whether the lock is ours).  A server
 * that cannot be reached (the primary crashed, and no standby is
 * promoted yet) is tried again, less and less often, for as long as it
 * takes: a node that gave up then would leave no engine once the new
 * primary is up.
 */
static void
leader_tried(struct leader *l, int rc, int64_t got, char *cause)
{
	int64_t	 t0 = l->sent;

	if (rc != 0) {
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
	if (got != 1 && t0 >= l->seen_next) {
		l->seen_next = t0 + (l->lease / 2 < LEADER_SEEN_MS ?
		    l->lease / 2 : LEADER_SEEN_MS);
		if (store_node_seen_send(l->lock, &l->node, &cause) == 0) {
			leader_asked(l, LEADER_ASK_SEEN);
			return;
		}
		log_debug("%s: %s", __func__, cause);
		free(cause);
	}
	if (got != 1) {
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
 * connection the lease as its limit inside a transaction, and beat at
 * once (the row says who leads, for consoles).
 */
int
engine_leader_attach(struct engine *e, char **cause)
{
	struct leader	*l = e->leader;

	if (store_leader_engine_session(e->store, l->lease, cause) != 0)
		return (-1);
	engine_cutoff_bound(e);
	if ((l->keeper = fence_keeper_start(l->deadline, cause)) == NULL)
		return (-1);
	l->engine = e;
	free(l->node.role);
	l->node.role = xstrdup("leader");
	l->node.epoch = engine_epoch(e);
	e->fence.keeper = l->keeper;
	e->fence.deadline = l->deadline;
	loop_timer_free(l->timer);
	l->timer = loop_timer_create(l->loop, leader_beat, l);
	l->fence = loop_timer_create(l->loop, leader_fence, l);
	loop_timer_start(l->fence, l->deadline - fence_now_ms());
	if (store_node_seen_send(l->lock, &l->node, cause) != 0)
		return (-1);
	loop_timer_start(l->timer, l->lease / 4);
	leader_asked(l, LEADER_ASK_BEAT);
	/* Commands relayed by the standbys, applied as they come. */
	return (engine_listen_open(e, STORE_CHANNEL_INBOX, cause));
}

/* A new deadline, for the engine's starts, the keeper and the timer. */
static void
leader_renew(struct leader *l, int64_t deadline)
{
	l->deadline = deadline;
	l->engine->fence.deadline = deadline;
	engine_cutoff_bound(l->engine);
	if (fence_keeper_renew(l->keeper, deadline) != 0)
		engine_superseded(l->engine, "the fence keeper is gone");
	loop_timer_start(l->fence, deadline - fence_now_ms());
}

/*
 * The heartbeat, every L/4: the write of this node's row on the lock
 * session (one round trip, not waiting for standbys), sent now and
 * answered in leader_beaten.  One is in flight at a time: while the last
 * is unanswered the next waits for it.  A heartbeat due after the
 * deadline (we were frozen, or the loop was held up) finds our steps
 * stopped by the keeper: stop too, and let a standby recover them.
 */
static void
leader_beat(void *arg)
{
	struct leader	*l = arg;
	int64_t		 t0 = fence_now_ms();
	char		*cause = NULL, *why;

	if (l->ask != LEADER_ASK_NONE) {
		l->overdue = 1;
		return;
	}
	l->overdue = 0;
	if (fence_expired(l->deadline)) {
		xasprintf(&why, "the deadline passed %lld ms before the "
		    "heartbeat", (long long)(t0 - l->deadline));
		engine_superseded(l->engine, why);
	}
	if (store_node_seen_send(l->lock, &l->node, &cause) != 0) {
		xasprintf(&why, "the leader's lock session is gone: %s",
		    cause);
		engine_superseded(l->engine, why);
	}
	loop_timer_start(l->timer, l->lease / 4);
	leader_asked(l, LEADER_ASK_BEAT);
}

/*
 * The heartbeat's answer moves the deadline to when it was sent + L -
 * margin.  A failure (the session is gone: terminated, or ended by the
 * server while we were frozen or cut off) means another node may lead,
 * and an answer after the deadline finds our steps stopped: either way,
 * stop at once.
 */
static void
leader_beaten(struct leader *l, int rc, char *cause)
{
	struct leader_after	 after[LEADER_AFTER_MAX];
	char			*why;
	size_t			 i, n;

	if (rc != 0) {
		xasprintf(&why, "the leader's lock session is gone: %s",
		    cause);
		engine_superseded(l->engine, why);
	}
	if (fence_expired(l->deadline)) {
		xasprintf(&why, "the heartbeat's answer came %lld ms after "
		    "the deadline", (long long)(fence_now_ms() - l->deadline));
		engine_superseded(l->engine, why);
	}
	leader_renew(l, l->sent + l->lease - l->margin);
	if (l->overdue) {
		loop_timer_stop(l->timer);
		leader_beat(l);
	}
	/* Each may ask again, for the answer after this one. */
	memcpy(after, l->after, sizeof after);
	n = l->nafter;
	l->nafter = 0;
	for (i = 0; i < n; i++)
		after[i].cb(after[i].arg);
}

/*
 * Call cb once, just after the next heartbeat's answer: the engine's
 * reads that are not urgent wait for a moment when the server has just
 * answered, so that a cut-off leader does not hang on them.  A few may
 * wait at once (the inbox poll, the release of held rows); the same cb
 * and arg wait once.
 */
void
leader_after_beat(struct leader *l, void (*cb)(void *), void *arg)
{
	size_t	 i;

	for (i = 0; i < l->nafter; i++) {
		if (l->after[i].cb == cb && l->after[i].arg == arg)
			return;
	}
	if (l->nafter == LEADER_AFTER_MAX)
		fatalx("%s: too many callers", __func__);
	l->after[l->nafter].cb = cb;
	l->after[l->nafter++].arg = arg;
}

/*
 * The deadline, by this host's clock, with no answer to renew it: the
 * keeper stops our steps now and nothing more starts.  A heartbeat still
 * in flight (cut off from the server, or it is slow) may yet answer, and
 * that answer stops us; without one we stop L later, when the server has
 * long ended the session.  Without a heartbeat in flight the loop was
 * held up past the deadline: stop.
 */
static void
leader_fence(void *arg)
{
	struct leader	*l = arg;
	char		*why;

	if (!fence_expired(l->deadline)) {
		loop_timer_start(l->fence, l->deadline - fence_now_ms());
		return;
	}
	if (l->ask != LEADER_ASK_BEAT) {
		xasprintf(&why, "the deadline passed %lld ms before the "
		    "heartbeat", (long long)(fence_now_ms() - l->deadline));
		engine_superseded(l->engine, why);
	}
	if (l->fenced) {
		xasprintf(&why, "the heartbeat has had no answer for %lld ms",
		    (long long)(fence_now_ms() - l->sent));
		engine_superseded(l->engine, why);
	}
	l->fenced = 1;
	fprintf(stderr, "sluice: engine: fenced: the heartbeat has had no "
	    "answer by the deadline; starting nothing\n");
	loop_timer_start(l->fence, l->lease);
}

/*
 * When a leader cut off from the database stops at the latest: L after
 * its deadline, as leader_fence does (fence clock ms).
 */
int64_t
leader_stop_at(const struct leader *l)
{
	return (l->deadline + l->lease);
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
