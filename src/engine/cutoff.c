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
 * waits end (store/driver-pg-wait.c) when the leader would stop anyway,
 * L after its deadline (leader_stop_at), as a heartbeat unanswered does,
 * and its socket is served while they last: pings answered, and members'
 * reads, which run on connections of their own.  Past its deadline it
 * starts nothing and the fence keeper has stopped its steps, but an
 * answer that comes still counts: a slow server's commit of the turn
 * under way (a step's end, say) is kept rather than done again by the
 * next leader, and the leader stops as superseded at its next heartbeat.
 * A wait still unanswered L after the deadline fails "database
 * unreachable: no answer in N s", and the connection is given up: the
 * leader steps down.  It stops leading at once, as on losing the lease,
 * with the turn it was in undone (nothing of it was acknowledged) and its
 * held work left in the tables for the next leader, whose recovery
 * decides what a COMMIT whose answer never came did.  For L more the
 * node keeps its socket: a ping says it stepped down and why, any other
 * request is answered with that one line.  Then it stops as superseded,
 * and its service manager starts it again to stand by.
 */

#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"
#include "os/os.h"
#include "store/store.h"
#include "engine/engine.h"
#include "engine/engine-int.h"

/* How long one serving of the socket lasts while stepped down. */
#define CUTOFF_SERVE_MS		100
/*
 * The store's bound is by another clock (engine_cutoff_bound moves it
 * from the fence clock to the monotonic one), read a moment apart: a wait
 * given up so little before it was given up at it.
 */
#define CUTOFF_SLACK_MS		50

/* While a wait on the engine's connection lasts: serve the socket. */
static void
engine_cutoff_serve(void *arg)
{
	engine_server_wait(arg, 0);
}

/*
 * Bound the waits on the engine's connection by when the leader stops at
 * the latest (leader_stop_at, fence clock ms: its deadline + L), serving
 * the socket meanwhile.
 */
void
engine_cutoff_bound(struct engine *e)
{
	store_wait_bound(e->store, time_mono_ms() +
	    (leader_stop_at(e->leader) - fence_now_ms()), 0,
	    engine_cutoff_serve, e);
}

/*
 * The store failed under a leader: when its connection was given up at
 * the bound, step down, answer on the socket with why for L, then stop as
 * superseded.  Any other failure stops it now.
 */
void
engine_cutoff(struct engine *e, const char *why)
{
	int64_t			 stop, left;

	if (!store_lost(e->store) || fence_now_ms() + CUTOFF_SLACK_MS <
	    leader_stop_at(e->leader))
		engine_superseded(e, why);
	stop = fence_now_ms() + leader_lease(e->leader);
	if (e->in_txn) {
		store_rollback(e->store);	/* fails at once: given up */
		e->in_txn = 0;
	}
	fprintf(stderr, "sluice: engine: stepping down: %s; not leading, "
	    "the socket says so until stopping in %lld ms\n", why,
	    (long long)(stop - fence_now_ms()));
	engine_server_down(e, why);
	while ((left = stop - fence_now_ms()) > 0) {
		engine_server_wait(e, left < CUTOFF_SERVE_MS ? (int)left :
		    CUTOFF_SERVE_MS);
		engine_server_down_tidy(e);
	}
	engine_superseded(e, why);
}
