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
 * status.c: "sluice status", the health of a database at a glance: the
 * file (path, sizes, schema), its runs by state, its engine, the config
 * and tools files in use, and the problems found by cheap checks.  Exit 1
 * when there is a problem, so a monitoring script needs only the status.
 */

#include <sys/stat.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

#define STATUS_WAL_LIMIT	(64 * 1024 * 1024)	/* bytes */

/* Everything the command found, for either form of output. */
struct status {
	const char		*path;
	int64_t			 size;
	int64_t			 wal;
	int			 readonly;
	struct store_health	 health;
	struct store_lease	 lease;
	int			 server;	/* PostgreSQL: facts below */
	struct store_server	 sv;
	struct status_cluster	 cluster;	/* PostgreSQL: its nodes */
	int			 running;	/* an engine holds the lock */
	const char		*mode;		/* personal, service, NULL */
	char			*waiting;	/* what the engine waits for */
	int64_t			 waiting_since;
	char			*site, *user, *tools;
	char			**problems;
	size_t			 nproblems;
};

/* One problem found, for either form of output. */
#define status_problem(st, ...) \
	status_problem_add(&(st)->problems, &(st)->nproblems, __VA_ARGS__)

static int	cmd_status_run(struct client *, const struct cli_args *);
static void	status_check(struct client *, struct status *);
static void	status_print(const struct status *);
static void	status_json(const struct status *);
static void	status_json_path(cJSON *, const char *, const char *);
static void	status_waiting(struct client *, struct status *);
static void	status_print_server(const struct status *);
static int	status_has_sync(const struct status *);
static void	status_json_server(cJSON *, const struct status *);
static void	status_free(struct status *);

static const struct cli_opt cmd_status_opts[] = {
	{ "json", 0, NULL, 0, "one JSON object" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_status = {
	.name = "status",
	.summary = "Show the database, its engine and the problems found.",
	.help = "On a postgresql: database (cluster mode) it shows the server and\n"
	    "its standbys, the leader with its epoch and deadline, and every\n"
	    "node with its role and when it was last seen (a node stopped on\n"
	    "purpose: when it stopped, and no problem).\n"
	    "Exits 1 when a problem was found.\n",
	.opts = cmd_status_opts,
	.run = cmd_status_run
};

/* Note one problem (status-cluster.c's too). */
void
status_problem_add(char ***problems, size_t *n, const char *fmt, ...)
{
	va_list	 ap;

	*problems = xreallocarray(*problems, *n + 1, sizeof **problems);
	va_start(ap, fmt);
	xvasprintf(&(*problems)[(*n)++], fmt, ap);
	va_end(ap);
}

/*
 * The checks that need more than the database: the engine, the WAL's
 * size, and whether the config and tools files parse (their errors were
 * printed by the loaders, on stderr).
 */
static void
status_check(struct client *ctx, struct status *st)
{
	struct engine_opts	 opts;
	const struct flow_tools	*tools;
	const struct store_health *h = &st->health;
	char			 when[64];
	int64_t			 inflight;

	inflight = h->states[STATE_RUNNING] + h->states[STATE_WAITING] +
	    h->states[STATE_PAUSED] + h->states[STATE_SCHEDULED] +
	    h->states[STATE_LATE];
	/* On a server, the cluster's checks say it: no leader, no node. */
	if (st->server)
		status_cluster_check(&st->cluster, &st->problems,
		    &st->nproblems);
	if (!st->server && !st->running && inflight > 0) {
		status_problem(st, "%lld run%s in flight and no engine runs: "
		    "nothing moves until one starts (sluice engine)",
		    (long long)inflight, inflight == 1 ? "" : "s");
	}
	if (st->waiting != NULL) {
		time_format(st->waiting_since, when, sizeof when);
		status_problem(st, "the engine has waited since %s: %s; "
		    "commands are answered once it is free", when,
		    st->waiting);
	}
	if (!st->server && !st->running && st->lease.pid != 0) {
		status_problem(st, "the engine record names pid %lld on %s, "
		    "which holds no lock: it stopped without clearing it "
		    "(a crash?); the next engine takes over",
		    (long long)st->lease.pid, st->lease.host != NULL ?
		    st->lease.host : "?");
	}
	if (st->server && !st->sv.standby && st->sv.replication &&
	    st->sv.nstandbys == 0) {
		status_problem(st, "no standby streams from the primary: its "
		    "host is a single point of failure (sluice(1) CLUSTER)");
	} else if (st->server && !st->sv.standby && st->sv.nstandbys > 0 &&
	    !status_has_sync(st)) {
		status_problem(st, "no standby is synchronous: a crash of the "
		    "primary may lose acknowledged commits "
		    "(synchronous_standby_names)");
	}
	if (st->server && st->sv.standby)
		status_problem(st, "the server is a standby: nothing can be "
		    "written until it is promoted");
	if (st->wal > STATUS_WAL_LIMIT) {
		status_problem(st, "the WAL file is %lld MiB (over %d MiB): a "
		    "reader that never lets go keeps it from being "
		    "checkpointed", (long long)(st->wal / (1024 * 1024)),
		    STATUS_WAL_LIMIT / (1024 * 1024));
	}
	if (h->audit_problem != NULL)
		status_problem(st, "%s (sluice audit --verify)",
		    h->audit_problem);
	if (st->readonly && !st->running)
		status_problem(st, "the database is read-only to you and no "
		    "engine answers: commands that change it are refused");
	memset(&opts, 0, sizeof opts);
	if (client_config(ctx, &opts) != 0)
		status_problem(st, "the config file does not parse (see "
		    "above)");
	if (client_tools(ctx, &tools) != 0)
		status_problem(st, "the tools catalog %s does not parse (see "
		    "above)", st->tools != NULL ? st->tools : "");
}

/* Whether one of the standbys listed is synchronous. */
static int
status_has_sync(const struct status *st)
{
	size_t	 i;

	for (i = 0; i < st->sv.nstandbys; i++) {
		if (st->sv.standbys[i].sync != NULL &&
		    (strcmp(st->sv.standbys[i].sync, "sync") == 0 ||
		    strcmp(st->sv.standbys[i].sync, "quorum") == 0))
			return (1);
	}
	return (0);
}

/* A server's lines: its version and role, then its standbys. */
static void
status_print_server(const struct status *st)
{
	const struct store_standby	*sb;
	size_t				 i;

	cli_printf("          PostgreSQL %s (%s), %lld KiB, schema version "
	    "%lld\n", st->sv.version != NULL ? st->sv.version : "?",
	    st->sv.standby ? "standby" : "primary",
	    (long long)(st->sv.size / 1024), (long long)st->health.schema);
	if (!st->sv.standby && !st->sv.replication) {
		cli_printf("standbys  not shown to this role (a member of "
		    "pg_monitor sees them)\n");
		return;
	}
	if (st->sv.nstandbys == 0) {
		cli_printf("standbys  none\n");
		return;
	}
	for (i = 0; i < st->sv.nstandbys; i++) {
		sb = &st->sv.standbys[i];
		cli_printf("%s%s (%s, %s)\n", i == 0 ? "standbys  " :
		    "          ", sb->name != NULL ? sb->name : "?",
		    sb->state != NULL ? sb->state : "?", sb->sync != NULL ?
		    sb->sync : "?");
	}
}

/* The human form. */
static void
status_print(const struct status *st)
{
	const struct store_health	*h = &st->health;
	char				 when[64];
	size_t				 i;

	cli_printf("database  %s%s\n", st->path, st->readonly ?
	    " (read-only)" : "");
	if (st->server)
		status_print_server(st);
	else
		cli_printf("          %lld KiB, WAL %lld KiB, schema version "
		    "%lld\n", (long long)(st->size / 1024),
		    (long long)(st->wal / 1024), (long long)h->schema);
	cli_printf("runs      %lld running, %lld waiting, %lld paused, %lld "
	    "late, %lld scheduled\n", (long long)h->states[STATE_RUNNING],
	    (long long)h->states[STATE_WAITING],
	    (long long)h->states[STATE_PAUSED],
	    (long long)h->states[STATE_LATE],
	    (long long)h->states[STATE_SCHEDULED]);
	cli_printf("          %lld completed, %lld failed, %lld cancelled; %lld "
	    "gate%s waiting\n", (long long)h->states[STATE_COMPLETED],
	    (long long)h->states[STATE_FAILED],
	    (long long)h->states[STATE_CANCELLED], (long long)h->gates,
	    h->gates == 1 ? "" : "s");
	if (st->running && st->lease.pid != 0) {
		time_format(st->lease.since, when, sizeof when);
		cli_printf("engine    pid %lld on %s since %s (%s mode)\n",
		    (long long)st->lease.pid, st->lease.host != NULL ?
		    st->lease.host : "?", when, st->mode);
	} else if (st->running)
		cli_printf("engine    running (%s mode)\n", st->mode);
	else
		cli_printf("engine    none\n");
	if (st->server)
		status_cluster_print(&st->cluster, &st->lease);
	cli_printf("config    %s\n", st->site != NULL ? st->site : "none");
	if (st->user != NULL)
		cli_printf("          %s\n", st->user);
	cli_printf("tools     %s\n", st->tools != NULL ? st->tools :
	    "built-in only");
	if (st->nproblems == 0) {
		cli_printf("problems  none\n");
		return;
	}
	for (i = 0; i < st->nproblems; i++)
		cli_printf("%s%s\n", i == 0 ? "problems  " : "          ",
		    st->problems[i]);
}

/* A path, or null. */
static void
status_json_path(cJSON *o, const char *key, const char *path)
{
	if (path != NULL)
		cJSON_AddStringToObject(o, key, path);
	else
		cJSON_AddNullToObject(o, key);
}

/* A server's facts under "database": version, role, standbys. */
static void
status_json_server(cJSON *o, const struct status *st)
{
	const struct store_standby	*sb;
	cJSON				*a, *e;
	size_t				 i;

	o = cJSON_AddObjectToObject(o, "server");
	status_json_path(o, "version", st->sv.version);
	cJSON_AddStringToObject(o, "role", st->sv.standby ? "standby" :
	    "primary");
	if (!st->sv.replication) {
		cJSON_AddNullToObject(o, "standbys");	/* not shown to us */
		return;
	}
	a = cJSON_AddArrayToObject(o, "standbys");
	for (i = 0; i < st->sv.nstandbys; i++) {
		sb = &st->sv.standbys[i];
		e = cJSON_CreateObject();
		status_json_path(e, "name", sb->name);
		status_json_path(e, "state", sb->state);
		status_json_path(e, "sync", sb->sync);
		cJSON_AddItemToArray(a, e);
	}
}

/* The JSON form: one object. */
static void
status_json(const struct status *st)
{
	const struct store_health	*h = &st->health;
	cJSON				*root, *o, *c, *p;
	size_t				 i;

	root = cJSON_CreateObject();
	o = cJSON_AddObjectToObject(root, "database");
	cJSON_AddStringToObject(o, "path", st->path);
	cJSON_AddNumberToObject(o, "size", (double)st->size);
	cJSON_AddNumberToObject(o, "wal_size", (double)st->wal);
	cJSON_AddNumberToObject(o, "schema_version", (double)h->schema);
	cJSON_AddBoolToObject(o, "readonly", st->readonly);
	c = cJSON_AddObjectToObject(o, "counts");
	for (i = 0; i < STATE_N; i++)
		cJSON_AddNumberToObject(c, state_name((enum run_state)i),
		    (double)h->states[i]);
	cJSON_AddNumberToObject(o, "gates", (double)h->gates);
	cJSON_AddNumberToObject(o, "audit_rows", (double)h->audit_rows);
	if (st->server)
		status_json_server(o, st);
	else
		cJSON_AddNullToObject(o, "server");

	o = cJSON_AddObjectToObject(root, "engine");
	cJSON_AddBoolToObject(o, "running", st->running);
	if (st->running && st->lease.pid != 0) {
		cJSON_AddNumberToObject(o, "pid", (double)st->lease.pid);
		status_json_path(o, "host", st->lease.host);
		json_add_time(o, "since", st->lease.since);
	} else {
		cJSON_AddNullToObject(o, "pid");
		cJSON_AddNullToObject(o, "host");
		cJSON_AddNullToObject(o, "since");
	}
	status_json_path(o, "mode", st->mode);
	status_json_path(o, "waiting", st->waiting);
	if (st->server)
		status_cluster_json(root, &st->cluster, &st->lease);
	else
		cJSON_AddNullToObject(root, "cluster");

	o = cJSON_AddObjectToObject(root, "files");
	status_json_path(o, "config", st->site);
	status_json_path(o, "user_config", st->user);
	status_json_path(o, "tools", st->tools);

	p = cJSON_AddArrayToObject(root, "problems");
	for (i = 0; i < st->nproblems; i++)
		cJSON_AddItemToArray(p, cJSON_CreateString(st->problems[i]));
	cli_json_out(root);
}

/*
 * Ask the engine whether it waits for the database (it answers pings
 * while it does): a lock someone else holds keeps every command waiting.
 */
static void
status_waiting(struct client *ctx, struct status *st)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	char			*cause = NULL;

	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	q.command = "ping";
	if (client_ask_sock(store_path(ctx->store), &ctx->actor, &q, &r,
	    &cause) == 0 &&
	    r.waiting != NULL) {
		st->waiting = r.waiting;
		st->waiting_since = r.waiting_since;
		r.waiting = NULL;
	}
	free(cause);
	engine_reply_clear(&r);
}

/* Free what the command gathered. */
static void
status_free(struct status *st)
{
	size_t	 i;

	store_health_clear(&st->health);
	store_lease_clear(&st->lease);
	store_server_clear(&st->sv);
	status_cluster_free(&st->cluster);
	free(st->waiting);
	free(st->site);
	free(st->user);
	free(st->tools);
	for (i = 0; i < st->nproblems; i++)
		free(st->problems[i]);
	free(st->problems);
}

/* Gather, check and print. */
static int
cmd_status_run(struct client *ctx, const struct cli_args *args)
{
	struct status	 st;
	struct stat	 sb;
	char		*cause = NULL, *wal;
	int		 json, rc;

	json = cli_args_has(args, "json");
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	memset(&st, 0, sizeof st);
	st.path = store_path(ctx->store);
	if ((st.server = store_is_server(ctx->store))) {
		/* A server's: its facts, not a file's. */
		if ((rc = store_server_info(ctx->store, &st.sv, &cause)) != 0) {
			status_free(&st);
			return (client_store_fail(ctx, rc, cause));
		}
		st.readonly = !st.sv.writable;
		st.size = st.sv.size;
	} else {
		st.readonly = access(st.path, W_OK) != 0;
		if (stat(st.path, &sb) == 0)
			st.size = sb.st_size;
		xasprintf(&wal, "%s-wal", st.path);
		if (stat(wal, &sb) == 0)
			st.wal = sb.st_size;
		free(wal);
	}
	if ((rc = store_health(ctx->store, &st.health, &cause)) != 0 ||
	    (rc = store_lease_get(ctx->store, &st.lease, &cause)) != 0) {
		status_free(&st);
		return (client_store_fail(ctx, rc, cause));
	}
	if (st.server && (rc = status_cluster_read(ctx, &st.lease,
	    &st.cluster, &cause)) != 0) {
		status_free(&st);
		return (client_store_fail(ctx, rc, cause));
	}
	/* In a cluster, an engine runs when a node leads. */
	st.running = st.server ? st.cluster.held : client_probe(ctx->store);
	if (st.running) {
		st.mode = st.server ? "cluster" : st.readonly ? "service" :
		    "personal";
		status_waiting(ctx, &st);
	}
	client_config_files(&st.site, &st.user);
	st.tools = client_tools_file(ctx);
	status_check(ctx, &st);
	if (json)
		status_json(&st);
	else
		status_print(&st);
	rc = st.nproblems != 0 ? EXIT_FAILED : EXIT_OK;
	status_free(&st);
	return (rc);
}
