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
 * leader.c: cluster leadership's SQL (PostgreSQL; SPEC §14).  The leader
 * holds a session-level advisory lock on a connection of its own, the
 * lock session, which does nothing else: PostgreSQL frees the lock the
 * moment that session ends, and ends it after idle_session_timeout (the
 * lease, L) without a query, so a leader that is frozen or cut off loses
 * the lock within L while a live one keeps it with a heartbeat query.
 * The engine's own connection gets idle_in_transaction_session_timeout =
 * L, so a leader frozen inside a transaction cannot hold the engine row
 * (and with it a new leader's epoch bump) for longer than that.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The advisory lock's key: "sluice" in ASCII, one per database. */
#define LEADER_KEY	STORE_LEADER_KEY

static const char leader_try_sql[] =
	"SELECT CASE WHEN pg_try_advisory_lock(?) THEN 1 ELSE 0 END";
static const char leader_set_sql[] =
	"SELECT length(set_config(?, ?, false))";

static int	leader_set(struct store *, const char *, const char *,
		    char **);
static int	leader_set_ms(struct store *, const char *, int64_t, char **);

/* Set a session setting, on this connection only. */
static int
leader_set(struct store *s, const char *name, const char *value,
    char **cause)
{
	int64_t	 n;

	if (store_int64f(s, name, &n, leader_set_sql, "tt", name,
	    value) != 0) {
		xasprintf(cause, "cannot set %s: %s", name,
		    store_last_error(s));
		return (-1);
	}
	return (0);
}

/* Set a session setting to ms milliseconds. */
static int
leader_set_ms(struct store *s, const char *name, int64_t ms, char **cause)
{
	char	 value[32];

	snprintf(value, sizeof value, "%lldms", (long long)ms);
	return (leader_set(s, name, value, cause));
}

/*
 * Make s the lock session: ended by the server after lease ms idle.  Its
 * only writes are the node's row (node.c), which need not wait for a
 * synchronous standby: a heartbeat must not hang on one that is down.
 */
int
store_leader_session(struct store *s, int64_t lease, char **cause)
{
	s->lock_lease = lease;
	if (leader_set(s, "synchronous_commit", "off", cause) != 0)
		return (-1);
	return (leader_set_ms(s, "idle_session_timeout", lease, cause));
}

/* The engine's connection: no transaction may sit idle past the lease. */
int
store_leader_engine_session(struct store *s, int64_t lease, char **cause)
{
	return (leader_set_ms(s, "idle_in_transaction_session_timeout",
	    lease, cause));
}

/*
 * Try to take the leader's lock on the lock session, without waiting for
 * the lock nor for the answer: store_answer says 1 (ours, until the
 * session ends) or 0 (another node leads).  A standby whose session was
 * lost (the primary crashed) connects again first, to whichever server
 * is the primary now, and makes that a lock session too.
 */
int
store_leader_try_send(struct store *s, char **cause)
{
	char	 key[32];
	const char *values[1] = { key };

	if (store_lost(s) && (store_reconnect(s, cause) != 0 ||
	    store_leader_session(s, s->lock_lease, cause) != 0))
		return (-1);
	snprintf(key, sizeof key, "%lld", (long long)LEADER_KEY);
	return (store_send(s, "take the leader's lock", leader_try_sql, 1,
	    values, cause));
}
