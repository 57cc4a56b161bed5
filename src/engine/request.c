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
 * request.c: request ids, the engine's side.  A command that comes with
 * the client's id for it is recorded, with its answer, in the same
 * transaction that applies it (store/request.c): if the engine dies
 * before that commits, neither the command nor the record exists; after,
 * both do.  So a client whose answer was lost asks "outcome" of the next
 * engine (or reads the record itself, where it may) and learns for sure
 * whether it was applied.  The same id sent again is not applied twice:
 * its recorded answer is the answer.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static int	 engine_request_applied(struct store *, int64_t,
		     const char *, struct engine_reply *, char **);

/*
 * Was uid's request id applied?  1 with its recorded answer in r, 0 if
 * not, or -1 with the store's complaint in *cause.
 */
static int
engine_request_applied(struct store *s, int64_t uid, const char *id,
    struct engine_reply *r, char **cause)
{
	char	*reply = NULL;
	int	 rc;

	memset(r, 0, sizeof *r);
	rc = store_request_get(s, uid, id, &reply, cause);
	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		return (0);
	}
	if (rc != 0)
		return (-1);
	rc = engine_request_answer(reply, id, r, cause);
	free(reply);
	return (rc == 0 ? 1 : -1);
}

/*
 * The answer recorded for request id (reply, its JSON) into r: 0, or -1
 * with why in *cause.
 */
int
engine_request_answer(const char *reply, const char *id,
    struct engine_reply *r, char **cause)
{
	if (engine_reply_read(reply, r) != 0) {
		xasprintf(cause, "the answer recorded for request %s is "
		    "unreadable", id);
		return (-1);
	}
	return (0);
}

/*
 * Was uid's request id applied?  Its recorded answer in r with
 * r->outcome APPLIED; QUEUED with the inbox row where it waits; else
 * NOT_APPLIED.  Returns 0, or -1 with the store's complaint in *cause.
 */
int
engine_request_outcome(struct store *s, int64_t uid, const char *id,
    struct engine_reply *r, char **cause)
{
	int64_t	 row;
	int	 rc;

	if ((rc = engine_request_applied(s, uid, id, r, cause)) != 0) {
		if (rc == 1)
			r->outcome = ENGINE_OUTCOME_APPLIED;
		return (rc == 1 ? 0 : -1);
	}
	if (store_request_queued(s, uid, id, &row) != 0) {
		xasprintf(cause, "%s", store_last_error(s));
		return (-1);
	}
	r->outcome = row != 0 ? ENGINE_OUTCOME_QUEUED :
	    ENGINE_OUTCOME_NOT_APPLIED;
	r->queued = row;
	return (0);
}

/* The "outcome" request: what became of the caller's request id. */
void
engine_outcome(struct engine *e, int64_t uid, const char *id,
    struct engine_reply *r)
{
	char	*cause = NULL;

	memset(r, 0, sizeof *r);
	if (id == NULL) {
		r->code = 2;
		r->message = xstrdup("outcome: which request? ($.request is "
		    "missing)");
		return;
	}
	if (engine_request_outcome(e->store, uid, id, r, &cause) != 0)
		engine_store_fatal(e, cause);
}

/*
 * Has this command's request id been applied already (the client sent it
 * again)?  1 with the answer it had in r, else 0.  Whether it waits in
 * the inbox does not matter here: a statement less in the command's
 * turn (on a server, a round trip: issue 23's approve -> start).
 */
int
engine_request_seen(struct engine *e, const struct store_inbox *m,
    struct engine_reply *r)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = engine_request_applied(e->store, m->uid, m->request, r,
	    &cause)) < 0)
		engine_store_fatal(e, cause);
	if (rc == 0)
		engine_reply_clear(r);
	return (rc);
}

/* Record a command's request id and answer, in the turn's transaction. */
void
engine_request_record(struct engine *e, const struct store_inbox *m,
    const struct engine_reply *r)
{
	cJSON	*o;
	char	*text;

	engine_txn(e);
	o = engine_reply_json(r);
	text = json_print(o);
	cJSON_Delete(o);
	if (store_request_add(e->store, m->uid, m->request, m->command, text,
	    time_now_ms()) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(text);
}
