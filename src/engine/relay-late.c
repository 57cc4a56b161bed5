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
 * relay-late.c: what a standby tells a caller whose relayed command no
 * leader answered within RELAY_WAIT_MS (the leader froze or died and no
 * standby has taken over yet).  An operator must never hear "not done"
 * of a command that is done later, when a frozen leader wakes: so the
 * standby withdraws the command (store_inbox_withdraw: refused on its
 * row, in a write transaction, which cannot overlap a turn applying it,
 * since the leader reads the inbox again under that lock) and only then
 * says it was not applied.  A leader that answered first is answered
 * with.  When the row cannot be withdrawn (a turn holds the write lock
 * all the while: a leader frozen in the middle of one; or the database
 * cannot be reached), the outcome is unknown, and the line says so and
 * how to learn it.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/* How long a standby's loop may stand behind a turn to withdraw. */
#define RELAY_WITHDRAW_MS	1000

/* The request id of inbox row id, or NULL (none, or unreadable). */
static char *
relay_late_request(struct engine *e, int64_t id)
{
	struct store_inbox	*m;
	char			*cause = NULL, *request = NULL;

	if (store_inbox_get(e->store, id, &m, &cause) == 0) {
		request = m->request;
		m->request = NULL;
		store_inbox_free(m);
	}
	free(cause);
	return (request);
}

/*
 * The answer to relayed command id (inbox row) that no leader answered in
 * time, in r: withdrawn and "not applied", the leader's own answer if it
 * came meanwhile, or "unknown" with how to find out.
 */
void
engine_relay_late(struct engine *e, int64_t id, struct engine_reply *r)
{
	struct engine_reply	 w;
	cJSON			*o;
	char			*request, *name, *how, *text, *cause = NULL;
	int			 withdrawn = 0, rc = STORE_ERR;

	memset(r, 0, sizeof *r);
	request = relay_late_request(e, id);
	if (request != NULL) {
		xasprintf(&name, "request %s", request);
		xasprintf(&how, "'sluice request %s' on any node", request);
	} else {
		xasprintf(&name, "command %lld", (long long)id);
		how = xstrdup("'sluice show' or 'sluice audit'");
	}
	memset(&w, 0, sizeof w);
	w.code = 1;
	xasprintf(&w.message, "not applied: no leader answered within %d s, "
	    "so %s was withdrawn and no leader will apply it; give it again "
	    "once a node leads ('sluice status' names it)",
	    RELAY_WAIT_MS / 1000, name);
	if (e->standby) {
		o = engine_reply_json(&w);
		text = json_print(o);
		cJSON_Delete(o);
		rc = store_inbox_withdraw(e->store, id, text,
		    RELAY_WITHDRAW_MS, &withdrawn, &cause);
		free(text);
	}
	if (rc == 0 && withdrawn)
		*r = w;
	else {
		engine_reply_clear(&w);
		/* A leader answered first: its answer. */
		if (rc != 0 || engine_relay_answer(e, id, r) == 0) {
			engine_reply_clear(r);
			r->code = 1;
			xasprintf(&r->message, "no leader answered within %d "
			    "s and %s could not be withdrawn (%s): whether it "
			    "is applied is unknown until a leader answers; "
			    "%s tells", RELAY_WAIT_MS / 1000, name,
			    rc == STORE_BUSY ? "a leader's turn held the "
			    "database, and may be applying it" : rc == 0 ?
			    "it is taken, not yet answered" : cause != NULL ?
			    cause : "this node leads now", how);
		}
	}
	free(cause);
	free(request);
	free(name);
	free(how);
}
