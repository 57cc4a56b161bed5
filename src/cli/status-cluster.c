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
 * status-cluster.c: "sluice status" on a server's database (cluster
 * mode, SPEC §14): who leads and by which epoch, until when its lease
 * holds, every node with its role and when it was last seen, and the
 * problems a cluster can have that a file cannot: no leader, a node
 * gone quiet, this node's engine not running, commands the leader
 * refused in the last day because the nodes' accounts differ.  A node stopped on purpose
 * (its engine stopped cleanly) is shown as such and is no problem; run
 * on a host that is no node (no row of its name, no engine's socket),
 * status says so, and that is no problem either.  The server itself and
 * its standbys are status.c's, as for any server.
 */

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

#define STATUS_STALE_LEASES	3	/* a node unseen for 3×L is gone */
#define STATUS_ACCOUNTS_MS	(24 * 3600 * 1000LL) /* refusals looked at */

static int	node_stale(const struct store_node *);
static int	node_stopped(const struct store_node *);
static void	status_ago(char *, size_t, int64_t);

/* Whether a node stopped cleanly (its row stays, for a while). */
static int
node_stopped(const struct store_node *n)
{
	return (strcmp(n->role, "stopped") == 0);
}

/* Whether a running node has not been seen for longer than 3×L. */
static int
node_stale(const struct store_node *n)
{
	return (!node_stopped(n) && n->age > STATUS_STALE_LEASES * n->lease);
}

/* A span of ms for people: "0.4 s", "12 s". */
static void
status_ago(char *buf, size_t len, int64_t ms)
{
	if (ms < 0)
		ms = 0;
	if (ms < 10000)
		snprintf(buf, len, "%.1f s", (double)ms / 1000);
	else
		snprintf(buf, len, "%lld s", (long long)(ms / 1000));
}

/*
 * Read the cluster: the nodes, whether a session holds the leader's lock
 * and which node that is (the leader's row of the current epoch), whether
 * this host is a node (a row of its name, or its socket answers) and
 * whether this node's engine runs (its socket answers, or its row names
 * a live process here; a stopped row's pid is no one's any more).
 */
int
status_cluster_read(struct client *ctx, const struct store_lease *lease,
    struct status_cluster *sc, char **cause)
{
	const struct store_node	*n;
	size_t			 i;
	int			 rc;

	memset(sc, 0, sizeof *sc);
	sc->node = xstrdup(engine_node_name());
	if ((rc = store_nodes(ctx->store, &sc->nodes, &sc->nnodes,
	    cause)) != 0 ||
	    (rc = store_node_lock_held(ctx->store, STORE_LEADER_KEY,
	    &sc->held, cause)) != 0)
		return (rc);
	for (i = 0; i < sc->nnodes; i++) {
		n = &sc->nodes[i];
		if (strcmp(n->role, "leader") == 0 &&
		    n->epoch == lease->epoch && (sc->leader == NULL ||
		    n->age < sc->leader->age))
			sc->leader = n;
		if (strcmp(n->name, sc->node) != 0)
			continue;
		sc->member = 1;
		if (node_stopped(n))
			sc->stopped = 1;
		else if (!node_stale(n) &&
		    (kill((pid_t)n->pid, 0) == 0 || errno == EPERM))
			sc->local = 1;
	}
	if (client_probe(ctx->store))
		sc->member = sc->local = 1;
	return (store_audit_accounts(ctx->store, time_now_ms() -
	    STATUS_ACCOUNTS_MS, &sc->accounts, &sc->accounts_last, cause));
}

/* The cluster's problems, added to *problems. */
void
status_cluster_check(const struct status_cluster *sc,
    char ***problems, size_t *nproblems)
{
	const struct store_node	*n;
	char			 ago[32], limit[32];
	size_t			 i;

	if (!sc->held)
		status_problem_add(problems, nproblems, "no node leads: "
		    "nothing starts or moves until an engine takes the "
		    "leader's lock (sluice engine on a node)");
	for (i = 0; i < sc->nnodes; i++) {
		n = &sc->nodes[i];
		if (!node_stale(n))
			continue;
		status_ago(ago, sizeof ago, n->age);
		status_ago(limit, sizeof limit, STATUS_STALE_LEASES *
		    n->lease);
		status_problem_add(problems, nproblems, "node %s (%s, pid "
		    "%lld) not seen for %s, over 3 leases (%s): its engine "
		    "died, froze or cannot reach the database", n->name,
		    n->role, (long long)n->pid, ago, limit);
	}
	if (sc->accounts > 0)
		status_problem_add(problems, nproblems, "the leader refused "
		    "%lld relayed command%s in the last day because nodes' "
		    "accounts differ; the last: %s", (long long)sc->accounts,
		    sc->accounts == 1 ? "" : "s", sc->accounts_last != NULL ?
		    sc->accounts_last : "?");
	if (sc->member && !sc->local && !sc->stopped)
		status_problem_add(problems, nproblems, "this node's engine "
		    "(%s) is not running: it neither leads nor stands by "
		    "(sluice engine)", sc->node);
}

/* The human form: the leader, then a line a node. */
void
status_cluster_print(const struct status_cluster *sc,
    const struct store_lease *lease)
{
	const struct store_node	*n, *l = sc->leader;
	char			 ago[32], when[64], pid[32];
	size_t			 i, width = 0, pidw = 0;
	int64_t			 left;

	if (!sc->held)
		cli_printf("leader    none (no node holds the leader's lock; "
		    "last epoch %lld)\n", (long long)lease->epoch);
	else if (l != NULL) {
		left = l->lease - l->age;
		status_ago(ago, sizeof ago, left < 0 ? -left : left);
		cli_printf("leader    %s, epoch %lld, pid %lld, deadline %s "
		    "%s\n", l->name, (long long)l->epoch, (long long)l->pid,
		    left < 0 ? "passed" : "in", ago);
	} else
		cli_printf("leader    pid %lld on %s, epoch %lld (taking "
		    "over)\n", (long long)lease->pid, lease->host != NULL ?
		    lease->host : "?", (long long)lease->epoch);
	for (i = 0; i < sc->nnodes; i++) {
		if (strlen(sc->nodes[i].name) > width)
			width = strlen(sc->nodes[i].name);
		snprintf(pid, sizeof pid, "%lld", (long long)sc->nodes[i].pid);
		if (strlen(pid) > pidw)
			pidw = strlen(pid);
	}
	if (sc->nnodes == 0)
		cli_printf("nodes     none seen\n");
	for (i = 0; i < sc->nnodes; i++) {
		n = &sc->nodes[i];
		status_ago(ago, sizeof ago, n->age);
		time_format(node_stopped(n) ? n->seen : n->started, when,
		    sizeof when);
		cli_printf("%s%-*s  %-7s  pid %-*lld  %s %s ago, %s %s%s\n",
		    i == 0 ? "nodes     " : "          ", (int)width, n->name,
		    n->role, (int)pidw, (long long)n->pid,
		    node_stopped(n) ? "stopped" : "seen", ago,
		    node_stopped(n) ? "at" : "up since", when,
		    strcmp(n->name, sc->node) == 0 ? " (this node)" : "");
	}
	if (!sc->member)
		cli_printf("          this host is not a node (none is named "
		    "%s)\n", sc->node);
}

/* The JSON form: "cluster" with the leader and the nodes. */
void
status_cluster_json(cJSON *root, const struct status_cluster *sc,
    const struct store_lease *lease)
{
	const struct store_node	*n, *l = sc->leader;
	cJSON			*o, *a, *e;
	size_t			 i;

	o = cJSON_AddObjectToObject(root, "cluster");
	cJSON_AddStringToObject(o, "node", sc->node);
	cJSON_AddBoolToObject(o, "is_node", sc->member);
	cJSON_AddNumberToObject(o, "epoch", (double)lease->epoch);
	if (!sc->held)
		cJSON_AddNullToObject(o, "leader");
	else {
		e = cJSON_AddObjectToObject(o, "leader");
		if (l != NULL)
			cJSON_AddStringToObject(e, "node", l->name);
		else
			cJSON_AddNullToObject(e, "node");
		cJSON_AddNumberToObject(e, "epoch", (double)lease->epoch);
		cJSON_AddNumberToObject(e, "pid", (double)(l != NULL ?
		    l->pid : lease->pid));
		if (l != NULL)
			cJSON_AddNumberToObject(e, "deadline_ms",
			    (double)(l->lease - l->age));
		else
			cJSON_AddNullToObject(e, "deadline_ms");
	}
	a = cJSON_AddArrayToObject(o, "nodes");
	for (i = 0; i < sc->nnodes; i++) {
		n = &sc->nodes[i];
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", n->name);
		cJSON_AddStringToObject(e, "role", n->role);
		cJSON_AddNumberToObject(e, "pid", (double)n->pid);
		if (n->epoch != 0)
			cJSON_AddNumberToObject(e, "epoch", (double)n->epoch);
		else
			cJSON_AddNullToObject(e, "epoch");
		cJSON_AddNumberToObject(e, "lease_ms", (double)n->lease);
		json_add_time(e, "started_at", n->started);
		cJSON_AddNumberToObject(e, "seen_ms_ago", (double)n->age);
		if (node_stopped(n))
			json_add_time(e, "stopped_at", n->seen);
		else
			cJSON_AddNullToObject(e, "stopped_at");
		cJSON_AddBoolToObject(e, "stale", node_stale(n));
		cJSON_AddBoolToObject(e, "this_node",
		    strcmp(n->name, sc->node) == 0);
		cJSON_AddStringToObject(e, "version", n->version);
		cJSON_AddItemToArray(a, e);
	}
}

/* Free what status_cluster_read found. */
void
status_cluster_free(struct status_cluster *sc)
{
	free(sc->node);
	free(sc->accounts_last);
	store_nodes_free(sc->nodes, sc->nnodes);
	memset(sc, 0, sizeof *sc);
}
