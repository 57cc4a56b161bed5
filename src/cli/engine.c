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
 * engine.c: "sluice engine", the engine headless in the foreground, for
 * systemd or a terminal.  SIGTERM or SIGINT stop it cleanly: no new steps
 * start and it exits when the running ones have ended; a second signal
 * interrupts those (they follow on_interrupt at the next engine's start).
 * SIGHUP reads the tools catalog and the site config again, as daemons
 * do.  A console's engine gone headless on the database is asked to hand
 * over, and this one waits for its lock.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

struct cmd_engine_state;

static int	 cmd_engine_run(struct client *, const struct cli_args *);
static void	 cmd_engine_signal(int, void *);
static void	 cmd_engine_retry(void *);
static void	 cmd_engine_check(void *);
static void	 cmd_engine_reload(int, void *);
static void	 cmd_engine_retire(struct cmd_engine_state *);
static void	 cmd_engine_retired_free(struct cmd_engine_state *);
static int	 cmd_engine_standby(struct client *, struct loop *,
		     struct cmd_engine_state *, struct engine_opts *);

static const struct cli_opt cmd_engine_opts[] = {
	{ "jobs", 'j', "JOBS", 0, "step processes at once (default 32)" },
	{ "drain", 0, NULL, 0, "exit once no workflow is running (gates, "
	    "retries and steps still to come keep it running)" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_engine = {
	.name = "engine",
	.summary = "Run the engine headless in the foreground (for systemd).",
	.opts = cmd_engine_opts,
	.help = "SIGTERM or SIGINT: start nothing new and exit when running "
	    "steps have\nended; a second signal interrupts them.  SIGHUP: "
	    "read the tools catalog\nand the site config again (a file with "
	    "errors is not taken: the engine\nsays why and keeps what it "
	    "had).\n\n"
	    "When a console's engine runs headless on the database (its "
	    "terminal went\naway), this engine asks it to hand over: it "
	    "starts nothing new, exits once\nits running steps have ended, "
	    "and this one takes over then.\n\n"
	    "Commands reach it over DB.sock beside the database (0660, the "
	    "directory's\ngroup), which knows each caller by its uid.  Run "
	    "as an account that owns\nthe database's directory (mode 2750), "
	    "it is the only writer: see TEAM USE\nin sluice(1).\n\n"
	    "On a postgresql: database (cluster mode), engines on several "
	    "nodes share it:\none leads, the others stand by and take over "
	    "within the lease (3 s) when\nit dies, freezes or loses "
	    "PostgreSQL; each listens on $SLUICE_SOCKET, a\nstandby too: "
	    "it relays commands to the leader, tells its consoles\nof "
	    "the leader's commits and answers members' reads, logged in "
	    "as the\nsite config's cluster.reader.  The lease is the site "
	    "config's\n"
	    "cluster.lease_ms if set; each node writes its row for "
	    "\"sluice status\".\nSee CLUSTER in sluice(1).\n",
	.run = cmd_engine_run
};

/* A catalog and config replaced by a reload: steps may still use them. */
struct cmd_engine_retired {
	struct client			 settings;	/* no store of its own */
	struct cmd_engine_retired	*next;
};

struct cmd_engine_state {
	struct loop	*loop;
	struct engine	*engine;
	struct client	*ctx;
	struct engine_opts opts;	/* as started (the step limit) */
	struct cmd_engine_retired *retired;	/* replaced by reloads */
	int		 signals;
	int		 retry;		/* the lock may be free: try again */
	int		 drain;		/* --drain: exit once idle */
};

/* A stop signal: drain first, interrupt on the second. */
static void
cmd_engine_signal(int signo, void *arg)
{
	struct cmd_engine_state	*st = arg;

	st->signals++;
	log_debug("%s: signal %d (%d)", __func__, signo, st->signals);
	if (st->engine == NULL)
		return;		/* still waiting for a handover: give up */
	if (st->signals == 1) {
		sdnotify("STOPPING=1");
		fprintf(stderr, "sluice: engine stopping: waiting for running "
		    "steps (signal again to interrupt them)\n");
	}
	engine_shutdown(st->engine, st->signals > 1);
}

/*
 * SIGHUP: read the catalog and the config again, into a context of their
 * own so that a file with errors leaves the ones in force untouched.  The
 * errors go to standard error (the journal) with their places, and the
 * audit trail says the reload was refused.
 */
static void
cmd_engine_reload(int signo, void *arg)
{
	struct cmd_engine_state	*st = arg;
	struct client		 fresh, *ctx = st->ctx;
	struct engine_opts	 opts;
	const struct flow_tools	*tools;
	char			*why = NULL;

	(void)signo;
	if (st->engine == NULL)
		return;
	/* systemctl reload returns once READY=1 follows, either way. */
	sdnotify_reloading();
	memset(&fresh, 0, sizeof fresh);
	fresh.db_path = ctx->db_path;
	fresh.tools_path = ctx->tools_path;
	memset(&opts, 0, sizeof opts);
	opts.max_jobs = st->opts.max_jobs;
	if (client_tools(&fresh, &tools) != 0)
		xasprintf(&why, "the tools catalog has errors");
	else if (client_engine_opts(&fresh, &opts) != 0)
		xasprintf(&why, "the config has errors");
	if (why != NULL) {
		fprintf(stderr, "sluice: engine: reload refused: %s (above); "
		    "the catalog and config in force are kept\n", why);
		engine_reload(st->engine, NULL, &opts, why);
		free(why);
		client_free(&fresh);
		sdnotify("READY=1");
		return;
	}
	cmd_engine_retire(st);
	ctx->tools = fresh.tools;
	ctx->site = fresh.site;
	ctx->notify = fresh.notify;
	ctx->authority = fresh.authority;
	ctx->secrets = fresh.secrets;
	ctx->nsecrets = fresh.nsecrets;
	ctx->tools_file = fresh.tools_file;
	ctx->config_file = fresh.config_file;
	engine_reload(st->engine, tools, &opts, NULL);
	fprintf(stderr, "sluice: engine: reloaded the tools catalog %s and the "
	    "config %s\n", opts.tools_path != NULL ? opts.tools_path :
	    "(built-ins only)", opts.config_path != NULL ? opts.config_path :
	    "(none)");
	sdnotify("READY=1");
}

/* Keep what the context holds now, for the engine's steps, till exit. */
static void
cmd_engine_retire(struct cmd_engine_state *st)
{
	struct cmd_engine_retired	*r;
	struct client			*ctx = st->ctx;

	r = xcalloc(1, sizeof *r);
	r->settings = *ctx;
	r->settings.store = NULL;	/* the database stays the engine's */
	r->next = st->retired;
	st->retired = r;
}

/* Free what reloads replaced, once the engine is closed. */
static void
cmd_engine_retired_free(struct cmd_engine_state *st)
{
	struct cmd_engine_retired	*r;

	while ((r = st->retired) != NULL) {
		st->retired = r->next;
		client_free(&r->settings);
		free(r);
	}
}

/* Waiting for a headless engine to hand over: look at the lock again. */
static void
cmd_engine_retry(void *arg)
{
	struct cmd_engine_state	*st = arg;

	st->retry = 1;
}

/*
 * Before the loop sleeps: with --drain, stop once no workflow runs; once
 * the engine has finished, do not sleep.  Asked after poll() instead, the
 * answer would wait for the next timer (up to five seconds) although the
 * last step ended in the turn before it.
 */
static void
cmd_engine_check(void *arg)
{
	struct cmd_engine_state	*st = arg;

	if (st->drain && engine_idle(st->engine))
		engine_shutdown(st->engine, 0);
	if (engine_finished(st->engine))
		loop_break(st->loop);
}

/*
 * The lock is held.  If a console's engine runs headless there, ask it to
 * hand over and wait (in the loop, signals seen) until the lock is ours;
 * a signal meanwhile gives up.  Returns engine_open's code.
 */
static int
cmd_engine_handover(struct client *ctx, struct loop *loop,
    struct cmd_engine_state *st, const struct flow_tools *tools,
    const struct engine_opts *opts, char **cause)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	struct loop_timer	*t;
	char			*why = NULL;
	int			 rc = LOCK_HELD;

	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	q.command = "handover";
	if (client_submit(ctx->store, tools, opts, &ctx->actor, &q, &r,
	    &why) != 0 || r.code != 0) {
		log_debug("%s: %s", __func__, why != NULL ? why :
		    r.message != NULL ? r.message : "?");
		free(why);
		engine_reply_clear(&r);
		return (LOCK_HELD);	/* *cause says who holds it */
	}
	if (!r.offline && r.message != NULL)
		fprintf(stderr, "sluice: engine: a headless engine runs on %s: "
		    "%s; waiting\n", store_path(ctx->store), r.message);
	engine_reply_clear(&r);
	t = loop_timer_create(loop, cmd_engine_retry, st);
	while (rc == LOCK_HELD && st->signals == 0) {
		free(*cause);
		*cause = NULL;
		st->retry = 0;
		loop_timer_start(t, 200);
		while (!st->retry && st->signals == 0)
			loop_once(loop, 1);
		if (st->signals != 0) {
			xasprintf(cause, "engine: stopped while waiting for "
			    "the headless engine to hand over");
			rc = -1;
			break;
		}
		rc = engine_open(loop, ctx->store, tools, opts, &st->engine,
		    cause);
	}
	loop_timer_free(t);
	return (rc);
}

/* "sluice engine": take the lock and run until told to stop. */
static int
cmd_engine_run(struct client *ctx, const struct cli_args *args)
{
	struct cmd_engine_state	 st;
	struct engine_opts	 opts;
	const struct flow_tools	*tools;
	struct loop		*loop;
	char			*cause = NULL;
	const char		*s;
	int64_t			 jobs;
	int			 rc;

	/* First, so that no step ever inherits NOTIFY_SOCKET. */
	if (sdnotify_init() != 0)
		cli_warn("engine: NOTIFY_SOCKET is not a socket's name; "
		    "the service manager is not told when it is ready");
	memset(&opts, 0, sizeof opts);
	if ((s = cli_args_get(args, "jobs")) != NULL) {
		if (str_parse_int64(s, &jobs) != 0 || jobs < 1 ||
		    jobs > 10000) {
			cli_error("engine: -j: a number from 1 to 10000");
			return (EXIT_USAGE);
		}
		opts.max_jobs = (int)jobs;
	}
	/* A busy database is waited out, never a reason to exit. */
	engine_busy_init("engine");
	if ((rc = client_store(ctx, 1|CLIENT_STORE_CREATE)) != 0 ||
	    (rc = client_tools(ctx, &tools)) != 0)
		return (rc);
	engine_busy_over();
	if ((rc = client_engine_opts(ctx, &opts)) != 0)
		return (rc);
	/* Nothing here but the engine uses the store: it may commit aside. */
	opts.commit_thread = 1;
	loop = loop_create();
	memset(&st, 0, sizeof st);
	st.loop = loop;
	st.ctx = ctx;
	st.opts = opts;
	st.drain = cli_args_has(args, "drain");
	/* Caught from now on: a signal during recovery is seen after it. */
	loop_signal(loop, SIGTERM, cmd_engine_signal, &st);
	loop_signal(loop, SIGINT, cmd_engine_signal, &st);
	loop_signal(loop, SIGHUP, cmd_engine_reload, &st);
	signal(SIGPIPE, SIG_IGN);
	if (store_is_server(ctx->store) &&
	    (rc = cmd_engine_standby(ctx, loop, &st, &opts)) != 0) {
		loop_free(loop);
		return (rc > 0 ? EXIT_OK : EXIT_FAILED);
	}
	rc = engine_open(loop, ctx->store, tools, &opts, &st.engine, &cause);
	engine_standby_free(opts.standby);	/* its socket is the engine's */
	opts.standby = NULL;
	if (rc == LOCK_HELD)
		rc = cmd_engine_handover(ctx, loop, &st, tools, &opts, &cause);
	if (rc != 0) {
		cli_error("%s", cause);
		free(cause);
		leader_free(opts.leader);
		loop_free(loop);
		return (EXIT_FAILED);
	}
	fprintf(stderr, "sluice: engine running on %s (pid %ld, %d jobs)\n",
	    store_path(ctx->store), (long)getpid(), opts.max_jobs > 0 ?
	    opts.max_jobs : ENGINE_MAX_JOBS);
	if (opts.leader != NULL)
		fprintf(stderr, "sluice: engine: leading, epoch %lld, lease "
		    "%lld ms\n", (long long)engine_epoch(st.engine),
		    (long long)leader_lease(opts.leader));
	if (engine_server_error(st.engine) != NULL)
		cli_warn("%s: commands come through the database's inbox "
		    "instead, more slowly", engine_server_error(st.engine));
	/*
	 * DB.sock listens (engine_open), so a command sent from now on
	 * waits in its backlog until the loop below answers it: systemd
	 * may let "systemctl start" return and start what needs us.
	 */
	sdnotify("READY=1");
	loop_hook_add(loop, cmd_engine_check, &st);
	while (!engine_finished(st.engine))
		loop_once(loop, 1);
	loop_hook_del(loop, cmd_engine_check, &st);
	if (st.signals == 0)
		sdnotify("STOPPING=1");		/* --drain: done */
	engine_close(st.engine);
	leader_free(opts.leader);	/* the keeper stops what is left */
	cmd_engine_retired_free(&st);
	loop_free(loop);
	return (EXIT_OK);
}

/*
 * Cluster mode: open the lock session and stand by until it holds the
 * leader's lock (at once when no node leads).  The service manager hears
 * READY=1 while we stand by: a standby is a node doing its job, and
 * serves its socket meanwhile (relay.c), which the engine takes over
 * with its clients once this node leads.  0 once leading; 1 when told
 * to stop meanwhile (a clean stop); -1 on failure, said.
 */
static int
cmd_engine_standby(struct client *ctx, struct loop *loop,
    struct cmd_engine_state *st, struct engine_opts *opts)
{
	char	*cause = NULL;

	opts->leader = leader_open(loop, store_path(ctx->store),
	    opts->lease != 0 ? opts->lease : LEADER_LEASE_MS, &cause);
	if (opts->leader == NULL) {
		cli_error("engine: cannot open the leader's lock session: %s",
		    cause);
		free(cause);
		return (-1);
	}
	if ((opts->standby = engine_standby_open(loop, ctx->store,
	    &cause)) == NULL) {
		cli_warn("engine: standing by without a socket: %s", cause);
		free(cause);
		cause = NULL;
	}
	sdnotify("READY=1\nSTATUS=standing by");
	if (leader_wait(opts->leader, &st->signals, &cause) != 0) {
		/* Told to stop (SIGTERM from its unit): a clean stop. */
		if (st->signals != 0)
			fprintf(stderr, "sluice: %s\n", cause);
		else
			cli_error("%s", cause);
		free(cause);
		engine_standby_free(opts->standby);
		opts->standby = NULL;
		leader_free(opts->leader);
		opts->leader = NULL;
		return (st->signals != 0 ? 1 : -1);
	}
	/*
	 * The primary may have changed while we stood by (it crashed and a
	 * standby was promoted): the engine's own connection goes to the
	 * server whose lock we hold.
	 */
	if (store_reconnect(ctx->store, &cause) != 0) {
		cli_error("engine: cannot reach the database again: %s",
		    cause);
		free(cause);
		engine_standby_free(opts->standby);
		opts->standby = NULL;
		leader_free(opts->leader);
		opts->leader = NULL;
		return (-1);
	}
	sdnotify("STATUS=leading");
	return (0);
}
