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
 * cutoff.c: a leader cut off from PostgreSQL.  Its own connection's
 * waits end at its deadline (store/driver-pg-wait.c), and its socket is
 * served while they last: pings answered, and members' reads, which run
 * on connections of their own.  A wait still unanswered at the deadline
 * fails "database unreachable: no answer in N s", and the connection is
 * given up.  By then the fence keeper has stopped the leader's steps and
 * nothing starts, so the leader steps down: it stops leading at once, as
 * on losing the lease, with the turn it was in undone (nothing of it
 * was acknowledged) and its held work left in the tables for the next
 * leader, whose recovery decides what a COMMIT whose answer never came
 * did.  Until it would have stopped anyway (the deadline + L, when the
 * server has long ended its lock session) the node keeps its socket:
 * a ping says it stepped down and why, any other request is answered
 * with that one line.  Then it stops as superseded, and its service
 * manager starts it again to stand by.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"
#include "os/os.h"
#include "store/store.h"
#include "engine/engine.h"
#include "engine/engine-int.h"
#include "engine/server-int.h"

/* How long one serving of the socket lasts while stepped down. */
#define CUTOFF_SERVE_MS		100

/* While a wait on the engine's connection lasts: serve the socket. */
static void
engine_cutoff_serve(void *arg)
{
	engine_server_wait(arg, 0);
}

/*
 * Bound the waits on the engine's connection by the leader's deadline
 * (fence clock ms), serving the socket meanwhile.
 */
void
engine_cutoff_bound(struct engine *e, int64_t deadline)
{
	store_wait_bound(e->store, time_mono_ms() + (deadline -
	    fence_now_ms()), 0, engine_cutoff_serve, e);
}

/*
 * The store failed under a leader: when its connection was given up at
 * the deadline, step down, answer on the socket with why until stop (fence
 * clock ms), then stop as superseded.  Any other failure stops it now.
 */
void
engine_cutoff(struct engine *e, const char *why, int64_t stop)
{
	struct engine_server	*srv = e->server;
	int64_t			 left;

	if (!store_lost(e->store) || !fence_expired(e->fence.deadline))
		engine_superseded(e, why);
	if (e->in_txn) {
		store_rollback(e->store);	/* fails at once: given up */
		e->in_txn = 0;
	}
	fprintf(stderr, "sluice: engine: stepping down: %s; not leading, "
	    "the socket says so until stopping in %lld ms\n", why,
	    (long long)(stop - fence_now_ms()));
	if (srv != NULL) {
		free(srv->down);
		xasprintf(&srv->down, "not leading: this node stepped down: "
		    "%s", why);
	}
	while ((left = stop - fence_now_ms()) > 0) {
		engine_server_wait(e, left < CUTOFF_SERVE_MS ? (int)left :
		    CUTOFF_SERVE_MS);
		engine_server_down_tidy(e);
	}
	engine_superseded(e, why);
}
