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
 * transport.c: how any client's request reaches the engine, decided here
 * and nowhere else.  First over the engine's socket (DB.sock, see
 * engine/server.c): one request line, one answer line, applied and
 * answered at once.  When no engine listens and the database is not ours
 * to write (service mode), that is the answer.  When an engine holds the
 * lock but has no socket, the request is posted to the inbox and its
 * answer awaited.  When none runs, this process takes the lock, becomes
 * the engine for one command without running anything (steps stay ready
 * for a real engine), applies it and lets go; the reply says so
 * (offline), so the client can tell people how to start one.  The lines
 * themselves are engine/protocol.c's.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "os/os.h"
#include "client/client.h"

#define CLIENT_WAIT_MS		10000		/* how long to wait for an answer */
#define CLIENT_ANSWER_MAX	(64 * 1024)	/* an answer line, at most */

static int	 client_post_wait(struct store *, const struct store_actor *,
		     const struct engine_request *, struct engine_reply *,
		     char **);
static int	 client_engine_runs(struct store *);

/* The engine socket's path for a database file (the caller frees). */
char *
client_sock_path(const char *dbpath)
{
	char	*db, *path;

	if ((db = realpath(dbpath, NULL)) == NULL)
		db = xstrdup(dbpath);
	path = sock_path(db);
	free(db);
	return (path);
}

/*
 * Connect to the engine's socket of the database at dbpath: the
 * descriptor, or -1 with errno (ENOENT or ECONNREFUSED: none listens).
 */
int
client_sock_connect(const char *dbpath)
{
	char	*path;
	int	 fd, saved;

	path = client_sock_path(dbpath);
	fd = sock_connect(path);
	saved = errno;
	free(path);
	errno = saved;
	return (fd);
}

/* Is an engine running on this database (it answers, or holds the lock)? */
int
client_probe(struct store *s)
{
	char	*path;
	int	 fd, held;

	if ((fd = client_sock_connect(store_path(s))) != -1) {
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
 * Ask over the socket of the database at dbpath, before (or without)
 * opening it: a command that only asks the engine need not read the
 * database.  Returns 0 with the answer in r, 1 when no engine listens
 * (nothing was sent), CLIENT_LOST when the engine went away after the
 * request was sent (whether it was applied, client_outcome tells), -1
 * with *cause when the exchange failed.
 */
int
client_ask_sock(const char *dbpath, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	char	*line, *path;
	int64_t	 deadline;
	int	 fd, rc = 0, saved;

	if ((fd = client_sock_connect(dbpath)) == -1) {
		if (errno == ENOENT || errno == ECONNREFUSED ||
		    errno == ENAMETOOLONG || errno == ENOTDIR)
			return (1);
		saved = errno;
		path = client_sock_path(dbpath);
		xasprintf(cause, "cannot reach the engine at %s: %s", path,
		    strerror(saved));
		free(path);
		return (client_denied_errno(saved) ? CLIENT_DENIED : -1);
	}
	deadline = time_mono_ms() + CLIENT_WAIT_MS;
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
	if (rc == -1 && (line = sock_read_line(fd, CLIENT_ANSWER_MAX,
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
	while (rc == 0 && (line = sock_read_line(fd, CLIENT_ANSWER_MAX,
	    deadline)) == NULL && errno == ETIMEDOUT && q->patient)
		deadline = time_mono_ms() + CLIENT_WAIT_MS;
	if (rc == 0 && line == NULL) {
		if (errno != ETIMEDOUT) {
			xasprintf(cause, "the engine went away before it "
			    "answered (%s)", errno == 0 ? "connection closed" :
			    strerror(errno));
			rc = CLIENT_LOST;
		} else if (q->request != NULL) {
			xasprintf(cause, "the engine did not answer within "
			    "%d s; 'sluice request %s' tells later whether it "
			    "applied the command", CLIENT_WAIT_MS / 1000,
			    q->request);
			rc = -1;
		} else {
			xasprintf(cause, "the engine did not answer within "
			    "%d s", CLIENT_WAIT_MS / 1000);
			rc = -1;
		}
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

/*
 * Post a request to the inbox of the engine that runs, without waiting;
 * the inbox row's id in *id (its reply comes on that row).
 */
int
client_post(struct store *s, const struct store_actor *actor,
    const struct engine_request *q, int64_t *id, char **cause)
{
	struct store_inbox	 m;
	struct store_actor	 a;

	/* Cluster mode: the audit row names the node it was given on. */
	if (store_is_server(s)) {
		if (actor != NULL)
			a = *actor;
		else {
			memset(&a, 0, sizeof a);
			a.uid = user_self()->uid;
			a.user = user_self()->name;
			a.tty = user_self()->tty;
			a.host = user_self()->host;
		}
		a.node = engine_node_name();
		actor = &a;
	}
	memset(&m, 0, sizeof m);
	m.command = (char *)q->command;
	m.workflow_id = q->workflow_id;
	m.step_id = q->step_id;
	m.args_json = (char *)q->args_json;
	m.request = (char *)q->request;
	return (store_inbox_post(s, actor, &m, id, cause));
}

/* Post to the running engine and wait for its answer. */
static int
client_post_wait(struct store *s, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	struct store_inbox	*got;
	struct timespec		 ts = { 0, 5 * 1000 * 1000 };
	int64_t			 id, deadline, v, seen = -1;
	int			 rc;

	if ((rc = client_post(s, actor, q, &id, cause)) != 0)
		return (rc);
	deadline = time_mono_ms() + CLIENT_WAIT_MS;
	for (;;) {
		/* A patient request waits while an engine runs to answer. */
		if (time_mono_ms() >= deadline) {
			if (!q->patient || !client_probe(s))
				break;
			deadline = time_mono_ms() + CLIENT_WAIT_MS;
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
		    "command %lld stays queued", CLIENT_WAIT_MS / 1000,
		    (long long)id);
	return (-1);
}

/*
 * Is the lock held by a running engine (one that reads the inbox)?  A
 * command applying itself holds it too, briefly, recorded as no engine.
 */
static int
client_engine_runs(struct store *s)
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
 * Ask the engine of an open database: over its socket; through the inbox
 * when one runs with no socket; else as the engine for one command,
 * waiting (up to CLIENT_WAIT_MS) while another command does the same.
 * 0, -1, or STORE_READONLY: not ours to write and no engine answers.
 */
int
client_submit(struct store *s, const struct flow_tools *tools,
    const struct engine_opts *opts, const struct store_actor *actor,
    const struct engine_request *q, struct engine_reply *r, char **cause)
{
	struct timespec	 ts = { 0, 20 * 1000 * 1000 };
	struct engine	*e;
	int64_t		 deadline;
	int		 rc;

	memset(r, 0, sizeof *r);
	deadline = time_mono_ms() + CLIENT_WAIT_MS;
	for (;;) {
		rc = client_ask_sock(store_path(s), actor, q, r, cause);
		if (rc != 1)
			return (rc);
		if (store_is_readonly(s)) {
			xasprintf(cause, "database %s is read-only to you and "
			    "no engine answers on %s.sock: start its engine "
			    "(systemctl start sluice-engine) or ask whoever "
			    "runs it", store_path(s), store_path(s));
			return (STORE_READONLY);
		}
		if (client_probe(s) && client_engine_runs(s) && q->secret) {
			/* The inbox is the shared database: never there. */
			xasprintf(cause, "secret inputs reach the engine only "
			    "over its socket, %s.sock, which does not answer",
			    store_path(s));
			return (-1);
		}
		if (client_probe(s) && client_engine_runs(s))
			return (client_post_wait(s, actor, q, r, cause));
		/*
		 * Cluster mode: only the leader writes.  Applying it here
		 * would take the lease from it, so it goes by the inbox.
		 */
		if (store_is_server(s) && q->secret) {
			xasprintf(cause, "%s", ENGINE_CLUSTER_SECRETS);
			return (-1);
		}
		if (store_is_server(s))
			return (client_post_wait(s, actor, q, r, cause));
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

/*
 * Give a request an id of its own, in id (ENGINE_REQUEST_ID_LEN + 1
 * bytes), unless its client chose one: every client (the command line,
 * the console, sluice mcp) sends each request with one, so an answer
 * that is lost can be asked about (outcome.c).
 */
void
client_request_id(struct engine_request *q, char *id)
{
	if (q->request != NULL)
		return;
	engine_request_id_new(id);
	q->request = id;
}

/*
 * A client's request, by whichever way reaches the engine, with an id of
 * its own (engine/request.c); nothing is printed but why the exchange
 * failed (said to the client), and what became of a request whose answer
 * was lost.  Returns its exit status, the engine's answer in r.
 */
int
client_ask(struct client *cl, const struct engine_request *q0,
    struct engine_reply *r)
{
	const struct flow_tools	*tools;
	struct engine_request	 qid = *q0, *q = &qid;
	struct engine_opts	 opts;
	char			*cause = NULL, *path, id[ENGINE_REQUEST_ID_LEN + 1];
	int			 rc;

	memset(r, 0, sizeof *r);
	memset(&opts, 0, sizeof opts);
	client_request_id(q, id);
	/* An engine answering its socket: ask it first, opening nothing. */
	if (cl->store == NULL) {
		path = client_db_path(cl);
		rc = client_ask_sock(path, &cl->actor, q, r, &cause);
		if (rc == 0) {
			free(path);
			return (EXIT_OK);
		}
		if (rc == CLIENT_LOST) {
			free(path);
			return (client_lost(cl, q->request, cause, r));
		}
		if (rc == CLIENT_DENIED && access(path, R_OK) != 0 &&
		    client_denied_errno(errno) &&
		    client_no_access(cl, path) != -1) {
			free(cause);
			free(path);
			return (EXIT_REFUSED);
		}
		free(path);
		if (rc != 1) {
			client_error(cl, "%s", cause);
			free(cause);
			return (rc == CLIENT_DENIED ? EXIT_REFUSED :
			    EXIT_FAILED);
		}
	}
	/* Read-only is fine: the engine's socket does the writing. */
	if ((rc = client_store(cl, CLIENT_STORE_ANY)) != 0)
		return (rc);
	if ((rc = client_tools(cl, &tools)) != 0)
		return (rc);
	if ((rc = client_engine_opts(cl, &opts)) != 0)
		return (rc);
	if ((rc = client_submit(cl->store, tools, &opts, &cl->actor, q, r,
	    &cause)) == CLIENT_LOST)
		return (client_lost(cl, q->request, cause, r));
	if (rc != 0) {
		client_error(cl, "%s", cause);
		free(cause);
		return (rc == STORE_READONLY || rc == CLIENT_DENIED ?
		    EXIT_REFUSED : EXIT_FAILED);
	}
	return (EXIT_OK);
}

/*
 * An operator command on a workflow or step (approve, reject, cancel,
 * retry, skip, pause, resume, complete, fail) with an optional comment
 * and --from: its request, asked.  The exit status of the exchange; the
 * engine's answer (its code, line and ids) in r.
 */
int
client_command(struct client *cl, const char *command, int64_t wf,
    int64_t step, const char *comment, const char *from,
    struct engine_reply *r)
{
	struct engine_request	 q;
	cJSON			*args;
	int			 rc;

	args = cJSON_CreateObject();
	if (comment != NULL)
		cJSON_AddStringToObject(args, "comment", comment);
	if (from != NULL)
		cJSON_AddStringToObject(args, "from", from);
	memset(&q, 0, sizeof q);
	q.command = command;
	q.workflow_id = wf;
	q.step_id = step;
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = client_ask(cl, &q, r);
	free((char *)q.args_json);
	return (rc);
}

/* No engine runs: say what that means and how to start one. */
void
client_offline_note(struct client *cl)
{
	client_warn(cl, "no engine is running on %s: this is recorded, but "
	    "no step runs until one starts (sluice engine, or run --wait)",
	    store_path(cl->store));
}
