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
 * submit.c: how any process asks the engine for something.  First over
 * the engine's socket (DB.sock, see server.c): one request line, one
 * answer line, applied and answered at once.  When no engine listens and
 * the database is not ours to write (service mode), that is the answer.
 * When an engine holds the lock but has no socket, the command is posted
 * to the inbox and its answer awaited.  When none runs, this process
 * takes the lock, becomes the engine for one command without running
 * anything (steps stay ready for a real engine), applies it and lets go;
 * the reply says so, so the caller can tell people how to start one.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

#define SUBMIT_WAIT_MS	10000	/* how long to wait for an answer */
#define SUBMIT_ANSWER_MAX (64 * 1024)	/* an answer line, at most */

static int	 engine_submit_post(struct store *,
		     const struct store_actor *, const struct engine_request *,
		     struct engine_reply *, char **);

/* The engine socket's path for a database file (the caller frees). */
static char *
engine_sock_path_of(const char *dbpath)
{
	char	*db, *path;

	if ((db = realpath(dbpath, NULL)) == NULL)
		db = xstrdup(dbpath);
	path = sock_path(db);
	free(db);
	return (path);
}

/* The engine socket's path for a database (the caller frees). */
char *
engine_sock_path(struct store *s)
{
	return (engine_sock_path_of(store_path(s)));
}

/* Connect to the socket of the database at dbpath, as below. */
static int
engine_sock_connect_path(const char *dbpath)
{
	char	*path;
	int	 fd, saved;

	path = engine_sock_path_of(dbpath);
	fd = sock_connect(path);
	saved = errno;
	free(path);
	errno = saved;
	return (fd);
}

/*
 * Connect to the engine's socket: the descriptor, or -1 with errno
 * (ENOENT or ECONNREFUSED: no engine listens).
 */
int
engine_sock_connect(struct store *s)
{
	return (engine_sock_connect_path(store_path(s)));
}

/* Is an engine running on this database (it answers, or holds the lock)? */
int
engine_probe(struct store *s)
{
	char	*path;
	int	 fd, held;

	if ((fd = engine_sock_connect(s)) != -1) {
		close(fd);
		return (1);
	}
	if ((path = realpath(store_path(s), NULL)) == NULL)
		path = xstrdup(store_path(s));
	held = lock_probe(path) == 1;
	free(path);
	return (held);
}

/*
 * One request line for the socket: the command, its ids and arguments,
 * and the caller's report of its tty and host, and of how it came ("via":
 * "mcp" from sluice mcp); who it is, the engine asks the kernel.
 */
char *
engine_request_line(const struct store_actor *actor,
    const struct engine_request *q)
{
	const struct user_info	*self = user_self();
	cJSON			*o, *a;
	char			*text, *line;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "command", q->command);
	if (q->workflow_id != 0)
		cJSON_AddNumberToObject(o, "workflow_id",
		    (double)q->workflow_id);
	if (q->step_id != 0)
		cJSON_AddNumberToObject(o, "step_id", (double)q->step_id);
	if (q->args_json != NULL && (a = cJSON_Parse(q->args_json)) != NULL)
		cJSON_AddItemToObject(o, "args", a);
	cJSON_AddStringToObject(o, "tty", actor != NULL && actor->tty != NULL ?
	    actor->tty : self->tty);
	cJSON_AddStringToObject(o, "host", actor != NULL &&
	    actor->host != NULL ? actor->host : self->host);
	if (actor != NULL && actor->via != NULL)
		cJSON_AddStringToObject(o, "via", actor->via);
	if ((text = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("%s: out of memory", __func__);
	cJSON_Delete(o);
	xasprintf(&line, "%s\n", text);
	cJSON_free(text);
	return (line);
}

/*
 * Ask over the socket.  Returns 0 with the answer in r, 1 when no engine
 * listens (nothing was sent), -1 with *cause when the exchange failed.
 */
int
engine_submit_sock(struct store *s, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	return (engine_submit_sock_path(store_path(s), actor, q, r, cause));
}

/*
 * The same, for the database at dbpath, before (or without) opening it:
 * a command that only asks the engine need not read the database.
 */
int
engine_submit_sock_path(const char *dbpath, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	char	*line, *path;
	int64_t	 deadline;
	int	 fd, rc = 0;

	if ((fd = engine_sock_connect_path(dbpath)) == -1) {
		if (errno == ENOENT || errno == ECONNREFUSED ||
		    errno == ENAMETOOLONG || errno == ENOTDIR)
			return (1);
		path = engine_sock_path_of(dbpath);
		xasprintf(cause, "cannot reach the engine at %s: %s", path,
		    strerror(errno));
		free(path);
		return (-1);
	}
	deadline = time_mono_ms() + SUBMIT_WAIT_MS;
	line = engine_request_line(actor, q);
	if (sock_write_all(fd, line, strlen(line), deadline) != 0) {
		/*
		 * An engine that refuses the connection (too many of ours)
		 * says why and closes it, maybe before we could write: read
		 * its line before blaming the write.
		 */
		xasprintf(cause, "cannot send to the engine: %s",
		    strerror(errno));
		rc = -1;
	}
	free(line);
	if (rc == -1 && (line = sock_read_line(fd, SUBMIT_ANSWER_MAX,
	    deadline)) != NULL) {
		if (engine_reply_read(line, r) == 0) {
			free(*cause);
			*cause = NULL;
			rc = 0;
		}
		free(line);
		close(fd);
		return (rc);
	}
	/*
	 * A patient request waits as long as the engine holds the
	 * connection open: it is at work on it (a dead engine's end closes).
	 */
	while (rc == 0 && (line = sock_read_line(fd, SUBMIT_ANSWER_MAX,
	    deadline)) == NULL && errno == ETIMEDOUT && q->patient)
		deadline = time_mono_ms() + SUBMIT_WAIT_MS;
	if (rc == 0 && line == NULL) {
		if (errno == ETIMEDOUT)
			xasprintf(cause, "the engine did not answer within "
			    "%d s", SUBMIT_WAIT_MS / 1000);
		else
			xasprintf(cause, "the engine's answer was lost: %s",
			    strerror(errno));
		rc = -1;
	} else if (rc == 0) {
		if (engine_reply_read(line, r) != 0) {
			xasprintf(cause, "the engine's answer is unreadable");
			rc = -1;
		}
		free(line);
	}
	close(fd);
	return (rc);
}

/* Free what a reply owns. */
void
engine_reply_clear(struct engine_reply *r)
{
	free(r->message);
	free(r->waiting);
	memset(r, 0, sizeof *r);
}

/* Read the engine's JSON answer (an inbox row's reply) into a reply. */
int
engine_reply_read(const char *text, struct engine_reply *r)
{
	cJSON	*o, *v;

	if (text == NULL || (o = cJSON_Parse(text)) == NULL)
		return (-1);
	v = cJSON_GetObjectItemCaseSensitive(o, "code");
	r->code = cJSON_IsNumber(v) ? v->valueint : 1;
	v = cJSON_GetObjectItemCaseSensitive(o, "message");
	if (cJSON_IsString(v))
		r->message = xstrdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(o, "workflow_id");
	if (cJSON_IsNumber(v))
		r->workflow_id = (int64_t)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(o, "step_id");
	if (cJSON_IsNumber(v))
		r->step_id = (int64_t)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(o, "version");
	if (cJSON_IsNumber(v))
		r->version = (int64_t)v->valuedouble;
	r->conflict = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "conflict"));
	v = cJSON_GetObjectItemCaseSensitive(o, "waiting");
	if (cJSON_IsString(v))
		r->waiting = xstrdup(v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(o, "waiting_since");
	if (cJSON_IsNumber(v))
		r->waiting_since = (int64_t)v->valuedouble;
	engine_reply_prune_read(o, r);
	cJSON_Delete(o);
	return (0);
}

/*
 * Post a request to the inbox of the engine that runs, without waiting;
 * the inbox row's id in *id (its reply comes on that row).
 */
int
engine_request_post(struct store *s, const struct store_actor *actor,
    const struct engine_request *q, int64_t *id, char **cause)
{
	struct store_inbox	 m;

	memset(&m, 0, sizeof m);
	m.command = (char *)q->command;
	m.workflow_id = q->workflow_id;
	m.step_id = q->step_id;
	m.args_json = (char *)q->args_json;
	return (store_inbox_post(s, actor, &m, id, cause));
}

/* Post to the running engine and wait for its answer. */
static int
engine_submit_post(struct store *s, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	struct store_inbox	*got;
	struct timespec		 ts = { 0, 5 * 1000 * 1000 };
	int64_t			 id, deadline, v, seen = -1;
	int			 rc;

	if ((rc = engine_request_post(s, actor, q, &id, cause)) != 0)
		return (rc);
	deadline = time_mono_ms() + SUBMIT_WAIT_MS;
	for (;;) {
		/* A patient request waits while an engine runs to answer. */
		if (time_mono_ms() >= deadline) {
			if (!q->patient || !engine_probe(s))
				break;
			deadline = time_mono_ms() + SUBMIT_WAIT_MS;
		}
		if ((v = store_data_version(s)) != seen) {
			seen = v;
			if ((rc = store_inbox_get(s, id, &got, cause)) != 0)
				return (rc);
			if (strcmp(got->state, "new") != 0) {
				rc = engine_reply_read(got->reply, r);
				store_inbox_free(got);
				if (rc != 0) {
					xasprintf(cause, "the engine's answer "
					    "to command %lld is unreadable",
					    (long long)id);
				}
				return (rc);
			}
			store_inbox_free(got);
		}
		nanosleep(&ts, NULL);
	}
	if (q->patient)
		xasprintf(cause, "the engine stopped before it answered; "
		    "command %lld stays queued", (long long)id);
	else
		xasprintf(cause, "the engine did not answer within %d s; "
		    "command %lld stays queued", SUBMIT_WAIT_MS / 1000,
		    (long long)id);
	return (-1);
}

/*
 * Is the lock held by a running engine (one that reads the inbox)?  A
 * command applying itself holds it too, briefly, recorded as no engine.
 */
static int
engine_submit_engine_runs(struct store *s)
{
	struct store_lease	 l;
	char			*cause = NULL;
	int			 runs;

	if (store_lease_get(s, &l, &cause) != 0) {
		free(cause);
		return (1);
	}
	runs = l.pid != 0;
	store_lease_clear(&l);
	return (runs);
}

/*
 * Ask the engine: over its socket; through the inbox when one runs with
 * no socket; else as the engine for one command, waiting (up to
 * SUBMIT_WAIT_MS) while another command does the same.
 */
int
engine_submit(struct store *s, const struct flow_tools *tools,
    const struct engine_opts *opts, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	struct engine	*e;
	int64_t		 deadline;
	int		 rc;

	memset(r, 0, sizeof *r);
	deadline = time_mono_ms() + SUBMIT_WAIT_MS;
	for (;;) {
		if ((rc = engine_submit_sock(s, actor, q, r, cause)) != 1)
			return (rc);
		if (store_is_readonly(s)) {
			xasprintf(cause, "database %s is read-only to you and "
			    "no engine answers on %s.sock: start its engine "
			    "(systemctl start sluice-engine) or ask whoever "
			    "runs it", store_path(s), store_path(s));
			return (STORE_READONLY);
		}
		if (engine_probe(s) && engine_submit_engine_runs(s))
			return (engine_submit_post(s, actor, q, r, cause));
		rc = engine_open(NULL, s, tools, opts, &e, cause);
		if (rc == 0)
			break;
		if (rc != LOCK_HELD)
			return (-1);
		if (time_mono_ms() >= deadline)
			return (-1);
		free(*cause);
		*cause = NULL;
		nanosleep(&ts, NULL);
	}
	engine_request_apply(e, actor, q, r);
	engine_close(e);
	r->offline = 1;
	return (0);
}

/* Apply a request in this process, which is the engine (run --wait). */
int
engine_request_apply(struct engine *e, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r)
{
	struct store_inbox	 m;
	const struct user_info	*self = user_self();

	memset(&m, 0, sizeof m);
	m.uid = actor != NULL ? (int64_t)actor->uid : (int64_t)self->uid;
	m.who = (char *)(actor != NULL && actor->user != NULL ? actor->user :
	    self->name);
	m.tty = (char *)(actor != NULL ? actor->tty : self->tty);
	m.host = (char *)(actor != NULL ? actor->host : self->host);
	m.via = (char *)(actor != NULL ? actor->via : NULL);
	m.command = (char *)q->command;
	m.workflow_id = q->workflow_id;
	m.step_id = q->step_id;
	m.args_json = (char *)q->args_json;
	return (engine_apply(e, &m, r));
}
