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
 * node.c: the nodes of a cluster (SPEC §14), one row each in "nodes".
 * Every node's engine writes its own row on its lock session: a standby
 * every few seconds as it polls the lock, the leader in its heartbeat
 * (the one statement, so the heartbeat stays one round trip).  The lock
 * session does not wait for a synchronous standby to acknowledge these
 * writes (leader.c sets synchronous_commit off there): a lost row is
 * written again a moment later, and a heartbeat must never hang on a
 * standby that is down.  Times are the server's clock, so nodes whose
 * clocks differ agree on how long ago each was seen.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

/* The server's clock, ms since the epoch. */
#define NODE_NOW	"(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

/* A new pid under the same name is a restart: started_at is new too. */
static const char node_seen_sql[] =
	"INSERT INTO nodes (name, role, pid, epoch, lease_ms, started_at,"
	" seen_at, version) VALUES (?, ?, ?, ?, ?, " NODE_NOW ", " NODE_NOW
	", ?) ON CONFLICT (name) DO UPDATE SET role = excluded.role,"
	" epoch = excluded.epoch, lease_ms = excluded.lease_ms,"
	" seen_at = excluded.seen_at, version = excluded.version,"
	" started_at = CASE WHEN nodes.pid = excluded.pid"
	"  THEN nodes.started_at ELSE excluded.started_at END,"
	" pid = excluded.pid";
/*
 * A clean stop keeps the row, as "stopped" since now; rows stopped for
 * longer than STORE_NODE_KEEP_MS go (a node taken out of the cluster).
 */
static const char node_stopped_sql[] =
	"UPDATE nodes SET role = 'stopped', epoch = NULL, seen_at = " NODE_NOW
	" WHERE name = ? AND pid = ?";
static const char node_prune_sql[] =
	"DELETE FROM nodes WHERE role = 'stopped' AND seen_at < " NODE_NOW
	" - ?";
static const char node_list_sql[] =
	"SELECT name, role, pid, epoch, lease_ms, started_at, "
	NODE_NOW " - seen_at, version, seen_at FROM nodes ORDER BY name";
/* The leader's node (its row of the engine row's epoch) and the epoch. */
static const char node_leader_sql[] =
	"SELECT e.epoch, (SELECT n.name FROM nodes n WHERE n.role = 'leader'"
	" AND n.epoch = e.epoch ORDER BY n.seen_at DESC LIMIT 1)"
	" FROM engine e WHERE e.id = 1";

/*
 * Whether a session holds the leader's lock: an advisory lock on a
 * bigint key shows as its high and low halves (objsubid 1).
 */
static const char node_held_sql[] =
	"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
	" AND granted AND objsubid = 1"
	" AND classid::bigint = (?::bigint >> 32)"
	" AND objid::bigint = (?::bigint & 4294967295)";

/*
 * Send this node's row, seen now in its role (epoch 0: none), without
 * waiting for the answer (store_answer reads it): the leader's heartbeat,
 * which must not hold up its loop.
 */
int
store_node_seen_send(struct store *s, const struct store_node *n,
    char **cause)
{
	char		 pid[24], epoch[24], lease[24];
	const char	*values[6];

	snprintf(pid, sizeof pid, "%lld", (long long)n->pid);
	snprintf(epoch, sizeof epoch, "%lld", (long long)n->epoch);
	snprintf(lease, sizeof lease, "%lld", (long long)n->lease);
	values[0] = n->name;
	values[1] = n->role;
	values[2] = pid;
	values[3] = n->epoch != 0 ? epoch : NULL;
	values[4] = lease;
	values[5] = n->version;
	return (store_send(s, "note this node", node_seen_sql, 6, values,
	    cause));
}

/*
 * A clean stop: the node's row (if it is still this process's) says
 * "stopped", and rows stopped long ago go.
 */
int
store_node_stopped(struct store *s, const char *name, int64_t pid)
{
	int	 rc;

	if ((rc = store_runf(s, "note this node stopped", node_stopped_sql,
	    "ti", name, pid)) != 0)
		return (rc);
	return (store_node_prune(s));
}

/* Forget the nodes stopped more than STORE_NODE_KEEP_MS ago. */
int
store_node_prune(struct store *s)
{
	return (store_runf(s, "forget nodes stopped long ago", node_prune_sql,
	    "i", (int64_t)STORE_NODE_KEEP_MS));
}

/* Read one node row. */
static int
node_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_node	*n = p;

	(void)cause;
	n->name = store_column_text(st, 0);
	n->role = store_column_text(st, 1);
	n->pid = store_col_int64(st, 2);
	n->epoch = store_col_int64(st, 3);
	n->lease = store_col_int64(st, 4);
	n->started = store_col_int64(st, 5);
	n->age = store_col_int64(st, 6);
	n->version = store_column_text(st, 7);
	n->seen = store_col_int64(st, 8);
	return (0);
}

/* Free node rows. */
void
store_nodes_free(struct store_node *n, size_t count)
{
	size_t	 i;

	if (n == NULL)
		return;
	for (i = 0; i < count; i++) {
		free(n[i].name);
		free(n[i].role);
		free(n[i].version);
	}
	free(n);
}

static void
node_rows_free(void *p, size_t count)
{
	store_nodes_free(p, count);
}

static const struct store_rows node_rows = {
	.what = "list nodes",
	.size = sizeof (struct store_node),
	.fill = node_row,
	.free = node_rows_free
};

/* Every node's row, by name; a file's database has none to show. */
int
store_nodes(struct store *s, struct store_node **np, size_t *count,
    char **cause)
{
	struct store_stmt	*st;
	void			*list = NULL;
	int			 rc;

	*np = NULL;
	*count = 0;
	if (!store_is_server(s))
		return (0);
	if ((rc = store_prepare(s, node_list_sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &node_rows, &list, count, cause);
	*np = list;
	return (rc);
}

/*
 * Who leads, for the console's header: *node the leading node's name (a
 * new string), NULL when no node has said it leads the current epoch (a
 * file's database never has one).  Plain SQL, so a member's console
 * reads it through the engine's socket as it reads everything else.
 */
int
store_node_leader(struct store *s, char **node, int64_t *epoch,
    char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	*node = NULL;
	*epoch = 0;
	if ((rc = store_prepare(s, node_leader_sql, &st, cause)) != 0)
		return (rc);
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		*epoch = store_col_int64(st, 0);
		*node = store_column_text(st, 1);
		rc = 0;
	} else if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "read the leader", cause);
	store_stmt_finalize(st);
	return (rc);
}

/* Whether some session holds the leader's lock (key), into *held. */
int
store_node_lock_held(struct store *s, int64_t key, int *held, char **cause)
{
	int64_t	 n;

	*held = 0;
	if (store_int64f(s, "look for the leader's lock", &n, node_held_sql,
	    "ii", key, key) != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		return (STORE_ERR);
	}
	*held = n > 0;
	return (0);
}
