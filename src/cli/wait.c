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
 * wait.c: "run --wait".  With no engine running, this process becomes the
 * engine for as long as its workflow runs (then finishes the steps it has
 * started and lets go); with one running, it asks that engine to start
 * the workflow and follows it, taking over if that engine goes away.
 * Exit 0 completed, 1 failed, 3 cancelled.
 */

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cli_wait_final(struct client *, int64_t, enum run_status);
static int	 cli_wait_follow(struct client *, int64_t);
static void	 cli_wait_signal(int, void *);
static void	 cli_wait_look(void *);
static int	 cli_wait_drive(struct client *, struct loop *,
		     struct engine *, int64_t);

/* What the loop hook driving a workflow looks at. */
struct cli_drive {
	struct loop	*loop;
	struct engine	*e;
	int64_t		 id;
	enum run_status	 status;
	int		 broke;		/* it stopped the loop's sleep */
};

/* The exit status for a workflow that ended, saying why it failed. */
static int
cli_wait_final(struct client *ctx, int64_t id, enum run_status status)
{
	struct store_workflow	*w;
	char			*cause = NULL;

	if (status == RUN_COMPLETED)
		return (EXIT_OK);
	if (status == RUN_CANCELLED) {
		cli_error("workflow %lld was cancelled", (long long)id);
		return (EXIT_NOTFOUND);
	}
	if (store_workflow_get(ctx->store, id, &w, &cause) == 0) {
		cli_error("workflow %lld failed: %s", (long long)id,
		    w->error != NULL ? w->error : "?");
		store_workflow_free(w);
	} else
		free(cause);
	return (EXIT_FAILED);
}

/*
 * Wait for the engine to say the database changed: subscribed to its
 * socket (*fd, opened on the first call), up to a second; without a
 * socket, 20 ms.  0 to look again, -1 when the engine's connection closed
 * (it went away).
 */
static int
cli_wait_change(struct client *ctx, int *fd)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	static const char sub[] = "{\"command\":\"subscribe\"}\n";
	struct pollfd	 pfd;
	char		 buf[4096];
	ssize_t		 n;

	if (*fd == -1 && (*fd = client_sock_connect(store_path(ctx->store))) != -1 &&
	    sock_write_all(*fd, sub, sizeof sub - 1, time_mono_ms() + 1000) !=
	    0) {
		close(*fd);
		*fd = -2;	/* no subscription: poll */
	}
	if (*fd < 0) {
		nanosleep(&ts, NULL);
		return (0);
	}
	pfd.fd = *fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 1000) <= 0)
		return (0);
	/* The lines say only "look again": read and drop them. */
	if ((n = read(*fd, buf, sizeof buf)) <= 0) {
		close(*fd);
		*fd = -1;
		return (-1);
	}
	return (0);
}

/*
 * Follow a workflow another engine runs, until it ends: told of changes
 * over the engine's socket, else looking every 20 ms.  Returns the exit
 * status, or -1 when the engine went away first (then we take over).
 */
static int
cli_wait_follow(struct client *ctx, int64_t id)
{
	struct store_workflow	*w;
	enum run_status		 status;
	char			*cause = NULL;
	int			 rc, n = 0, fd = -1;

	for (;;) {
		if ((rc = store_workflow_get(ctx->store, id, &w, &cause)) != 0) {
			rc = client_store_fail(ctx, rc, cause);
			break;
		}
		status = w->status;
		store_workflow_free(w);
		if (status_run_ended(status)) {
			rc = cli_wait_final(ctx, id, status);
			break;
		}
		if ((fd < 0 && ++n % 25 == 0 && !client_probe(ctx->store)) ||
		    (cli_wait_change(ctx, &fd) != 0 &&
		    !client_probe(ctx->store))) {
			rc = -1;
			break;
		}
	}
	if (fd >= 0)
		close(fd);
	return (rc);
}

/* SIGINT or SIGTERM while driving: interrupt the steps and stop. */
static void
cli_wait_signal(int signo, void *arg)
{
	struct engine	**ep = arg;

	(void)signo;
	if (*ep != NULL)
		engine_shutdown(*ep, 1);
}

/*
 * After each turn's commit (a hook added after the engine's): has the
 * workflow ended?  Then the poll that follows must not sleep until the
 * engine's next timer (a second or more) before we see it.
 */
static void
cli_wait_look(void *arg)
{
	struct cli_drive	*d = arg;

	if (status_run_ended(d->status))
		return;
	if (engine_workflow_status(d->e, d->id, &d->status) != 0)
		d->status = RUN_FAILED;
	if (status_run_ended(d->status)) {
		loop_break(d->loop);
		d->broke = 1;
	}
}

/* Drive a workflow as its engine until it ends; the exit status. */
static int
cli_wait_drive(struct client *ctx, struct loop *loop, struct engine *e,
    int64_t id)
{
	struct cli_drive	 d;

	memset(&d, 0, sizeof d);
	d.loop = loop;
	d.e = e;
	d.id = id;
	d.status = RUN_RUNNING;
	loop_hook_add(loop, cli_wait_look, &d);
	while (!engine_finished(e)) {
		loop_once(loop, 1);
		if (d.broke) {
			/* Its steps' ends and notifications: sleep for them. */
			loop_resume(loop);
			d.broke = 0;
		}
		if (status_run_ended(d.status))
			engine_shutdown(e, 0);
	}
	loop_hook_del(loop, cli_wait_look, &d);
	if (status_run_ended(d.status))
		return (cli_wait_final(ctx, id, d.status));
	cli_error("interrupted: workflow %lld goes on when an engine starts",
	    (long long)id);
	return (EXIT_FAILED);
}

/*
 * "run --wait": become the engine if none runs, else ask the one that
 * does and follow; if that one goes away before the workflow ends, take
 * over.
 */
int
cli_run_wait(struct client *ctx, const struct engine_request *q)
{
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	struct engine_reply	 r;
	struct engine		*e = NULL;
	struct loop		*loop;
	char			*cause = NULL;
	int64_t			 id = 0;
	int			 rc;

	memset(&r, 0, sizeof r);
	if ((rc = client_tools(ctx, &tools)) != 0)
		return (rc);
	memset(&opts, 0, sizeof opts);
	if ((rc = client_engine_opts(ctx, &opts)) != 0)
		return (rc);
	loop = loop_create();
	loop_signal(loop, SIGINT, cli_wait_signal, &e);
	loop_signal(loop, SIGTERM, cli_wait_signal, &e);
	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		if (store_is_readonly(ctx->store)) {
			/* Service mode: ask its engine; we cannot be one. */
			rc = LOCK_HELD;
		} else
			rc = engine_open(loop, ctx->store, tools, &opts, &e,
			    &cause);
		if (rc == 0)
			break;
		if (rc != LOCK_HELD) {
			cli_error("%s", cause);
			free(cause);
			loop_free(loop);
			return (EXIT_FAILED);
		}
		/* Another engine runs it: ask, then follow. */
		free(cause);
		cause = NULL;
		if (id == 0) {
			if ((rc = cli_submit(ctx, q, &r, 1)) != 0)
				goto out;
			id = r.workflow_id;
			printf("%lld\n", (long long)id);
			fflush(stdout);
		}
		if ((rc = cli_wait_follow(ctx, id)) != -1)
			goto out;
		if (store_is_readonly(ctx->store)) {
			cli_error("the engine went away: workflow %lld goes on "
			    "when it is back", (long long)id);
			rc = EXIT_FAILED;
			goto out;
		}
	}
	if (id == 0) {
		if (engine_request_apply(e, &ctx->actor, q, &r) != 0) {
			cli_error("%s", r.message != NULL ? r.message :
			    "refused");
			rc = r.code;
			goto out;
		}
		id = r.workflow_id;
		printf("%lld\n", (long long)id);
		fflush(stdout);
	}
	rc = cli_wait_drive(ctx, loop, e, id);
out:
	engine_reply_clear(&r);
	if (e != NULL)
		engine_close(e);
	loop_free(loop);
	return (rc);
}
