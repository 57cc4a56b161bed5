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
 * outcome.c: what became of a request whose answer never came.  Every
 * request a client sends carries an id of its own; the engine records it
 * with its answer in the transaction that applies it (engine/request.c).
 * When the engine goes away between the request and its answer, the
 * client asks: the engine that answers the socket next, or, while none
 * does, the record itself where the database is readable to us (the
 * engine that took the request is gone, so what it committed is all it
 * ever will).  A member of a service, who cannot read the database,
 * waits for the service's engine to come back, for CLIENT_OUTCOME_WAIT_MS
 * at most.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"

#define CLIENT_OUTCOME_POLL_MS	100	/* how often to look again */

/*
 * Read the record ourselves, on a database we may read: 0 with r, or -1
 * (not readable to us, or an older database with no records).
 */
static int
client_outcome_read(struct client *cl, const char *path, const char *id,
    struct engine_reply *r)
{
	struct store	*s = cl->store;
	char		*cause = NULL;
	int		 rc;

	if (s == NULL && store_open(path, STORE_F_READONLY, &s, &cause) != 0) {
		free(cause);
		return (-1);
	}
	rc = engine_request_outcome(s, (int64_t)cl->actor.uid, id, r, &cause);
	free(cause);
	if (s != cl->store)
		store_close(s);
	return (rc);
}

/*
 * What became of request id: ask the engine, else read the record, and
 * while neither can tell, look again for up to wait_ms.  0 with the
 * outcome in r (applied: the request's own answer), or -1 with why not
 * in *cause (CLIENT_DENIED: neither is open to us).
 */
int
client_outcome(struct client *cl, const char *id, int64_t wait_ms,
    struct engine_reply *r, char **cause)
{
	struct timespec		 ts = { 0, CLIENT_OUTCOME_POLL_MS * 1000000L };
	struct engine_request	 q;
	char			*path, *why = NULL;
	int64_t			 deadline;
	int			 rc;

	memset(&q, 0, sizeof q);
	q.command = "outcome";
	q.request = id;
	path = client_db_path(cl);
	deadline = time_mono_ms() + wait_ms;
	for (;;) {
		memset(r, 0, sizeof *r);
		rc = client_ask_sock(path, &cl->actor, &q, r, &why);
		if (rc == 0 && r->outcome != ENGINE_OUTCOME_NONE)
			break;
		if (rc == 0) {		/* it cannot say (an older engine) */
			xasprintf(cause, "the engine cannot say what became "
			    "of request %s: %s", id, r->message != NULL ?
			    r->message : "no outcome in its answer");
			engine_reply_clear(r);
			break;
		}
		free(why);
		why = NULL;
		if (client_outcome_read(cl, path, id, r) == 0) {
			rc = 0;
			break;
		}
		if (rc == CLIENT_DENIED) {	/* no waiting changes that */
			xasprintf(cause, "neither %s nor its engine's socket "
			    "is open to you", path);
			rc = CLIENT_DENIED;
			break;
		}
		if (time_mono_ms() >= deadline) {
			xasprintf(cause, "no engine answered within %lld s to "
			    "say whether it applied request %s: ask with "
			    "'sluice request %s' once it runs",
			    (long long)(wait_ms / 1000), id, id);
			rc = -1;
			break;
		}
		nanosleep(&ts, NULL);
	}
	free(why);
	free(path);
	if (rc == CLIENT_DENIED)
		return (rc);
	return (rc == 0 && *cause == NULL ? 0 : -1);
}

/*
 * What became of request id, for people, from the outcome in r: "request
 * ID: applied", or why it was not ("not applied (nothing changed; give
 * the command again)", queued, or refused, the engine's answer to
 * follow).  The command line and the console say the same.
 */
char *
client_outcome_words(const char *id, const struct engine_reply *r)
{
	char	*s;

	switch (r->outcome) {
	case ENGINE_OUTCOME_APPLIED:
		if (r->code == 0)
			xasprintf(&s, "request %s: applied", id);
		else
			xasprintf(&s, "request %s: not applied, the engine "
			    "answered:", id);
		break;
	case ENGINE_OUTCOME_QUEUED:
		xasprintf(&s, "request %s: not applied yet: it is queued as "
		    "command %lld, which the engine applies when it runs", id,
		    (long long)r->queued);
		break;
	default:
		xasprintf(&s, "request %s: not applied (nothing changed; give "
		    "the command again)", id);
		break;
	}
	return (s);
}

/*
 * The engine went away before it answered request id (why says how):
 * learn what became of it and say so.  Applied: its answer in r and the
 * exit status it has, as if it had come; else exit 1 with the reason.
 */
int
client_lost(struct client *cl, const char *id, char *why,
    struct engine_reply *r)
{
	char	*cause = NULL, *words;

	if (client_outcome(cl, id, CLIENT_OUTCOME_WAIT_MS, r, &cause) != 0) {
		client_error(cl, "%s; %s", why, cause);
		free(cause);
		free(why);
		return (EXIT_FAILED);
	}
	words = client_outcome_words(id, r);
	if (r->outcome == ENGINE_OUTCOME_APPLIED) {
		/* Its answer follows, as if it had come: a refusal too. */
		client_warn(cl, "%s; %s", why, words);
		r->outcome = ENGINE_OUTCOME_NONE;
		free(words);
		free(why);
		return (EXIT_OK);
	}
	client_error(cl, "%s; %s", why, words);
	engine_reply_clear(r);
	free(words);
	free(why);
	return (EXIT_FAILED);
}
