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
 * protocol.c: what a request and its reply look like on the wire, the
 * one codec every transport shares: a request is one JSON line (the
 * command, its ids and arguments, the client's id for the request, the
 * caller's report of its tty and host and how it came), a reply one JSON
 * object (its code, its line, the ids and version it made, or what became
 * of an earlier request), the same on the socket and on an inbox row.
 * Nothing here touches the engine or the database: the fuzz targets
 * (tests/fuzz) feed both decoders whatever they like.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

#define PROTOCOL_REPORT_MAX	256	/* a client's tty or host */
#define PROTOCOL_ID_MAX		9007199254740992.0	/* 2^53: exact */

static const char *protocol_outcomes[] = {
	[ENGINE_OUTCOME_APPLIED] = "applied",
	[ENGINE_OUTCOME_NOT_APPLIED] = "not applied",
	[ENGINE_OUTCOME_QUEUED] = "queued",
};

/*
 * A new request id: 128 random bits in hex, so no two clients ever pick
 * the same one and nobody can guess another's.
 */
void
engine_request_id_new(char *out)
{
	static const char	 hex[] = "0123456789abcdef";
	unsigned char		 b[ENGINE_REQUEST_ID_LEN / 2];
	size_t			 i;

	arc4random_buf(b, sizeof b);
	for (i = 0; i < sizeof b; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 0xf];
	}
	out[ENGINE_REQUEST_ID_LEN] = '\0';
}

/*
 * Is this a request id a client may choose: 1 to 64 letters, digits,
 * '.', '_' or '-' (ours are 32 hex digits; other clients may have theirs).
 */
int
engine_request_id_valid(const char *id)
{
	size_t	 i;

	for (i = 0; id[i] != '\0'; i++) {
		if (i == ENGINE_REQUEST_ID_MAX)
			return (0);
		if ((id[i] < '0' || id[i] > '9') &&
		    (id[i] < 'a' || id[i] > 'z') &&
		    (id[i] < 'A' || id[i] > 'Z') &&
		    id[i] != '.' && id[i] != '_' && id[i] != '-')
			return (0);
	}
	return (i > 0);
}

/*
 * One request line for the socket: the command, its ids and arguments,
 * the request's id, and the caller's report of its tty and host, and of
 * how it came ("via": "mcp" from sluice mcp); who it is, the engine asks
 * the kernel.
 */
char *
engine_request_line(const struct store_actor *actor,
    const struct engine_request *q)
{
	const struct user_info	*self = user_where();	/* no name: see above */
	cJSON			*o, *a;
	char			*text, *line;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "command", q->command);
	if (q->request != NULL)
		cJSON_AddStringToObject(o, "request", q->request);
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

/* The client's report of its tty or host: a short string, else "-". */
static char *
protocol_report(const cJSON *req, const char *key)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(req, key);
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
	    strlen(v->valuestring) > PROTOCOL_REPORT_MAX)
		return (xstrdup("-"));
	return (xstrdup(v->valuestring));
}

/*
 * How the client says the command came: "mcp" from an agent's MCP client,
 * else NULL (a person).  Only a report, like tty: it can make a command
 * less trusted (gates refuse agents), never more.
 */
static char *
protocol_via(const cJSON *req)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(req, "via");
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return (NULL);
	if (strcmp(v->valuestring, "mcp") != 0)
		return (xstrdup("other"));
	return (xstrdup(v->valuestring));
}

/* An id member: a positive integer, or 0 when absent. */
static int
protocol_id(const cJSON *req, const char *key, int64_t *id)
{
	const cJSON	*v;

	*id = 0;
	v = cJSON_GetObjectItemCaseSensitive(req, key);
	if (v == NULL || cJSON_IsNull(v))
		return (0);
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble > PROTOCOL_ID_MAX ||
	    v->valuedouble != (double)(int64_t)v->valuedouble)
		return (-1);
	*id = (int64_t)v->valuedouble;
	return (0);
}

/*
 * Read one request line as the engine receives it.  0 with w filled, or
 * -1 with why in *why (the line to answer with, code 2); w is then empty.
 */
int
engine_request_decode(const char *line, struct engine_wire *w, char **why)
{
	cJSON		*req;
	const cJSON	*cmd, *args, *id;

	memset(w, 0, sizeof *w);
	*why = NULL;
	if ((req = cJSON_Parse(line)) == NULL || !cJSON_IsObject(req)) {
		cJSON_Delete(req);
		*why = xstrdup("request is not a JSON object");
		return (-1);
	}
	cmd = cJSON_GetObjectItemCaseSensitive(req, "command");
	args = cJSON_GetObjectItemCaseSensitive(req, "args");
	id = cJSON_GetObjectItemCaseSensitive(req, "request");
	if (!cJSON_IsString(cmd))
		*why = xstrdup("request: $.command is not a string");
	else if (protocol_id(req, "workflow_id", &w->workflow_id) != 0 ||
	    protocol_id(req, "step_id", &w->step_id) != 0)
		*why = xstrdup("request: an id is not a positive integer");
	else if (args != NULL && !cJSON_IsObject(args) && !cJSON_IsNull(args))
		*why = xstrdup("request: $.args is not an object");
	else if (id != NULL && (!cJSON_IsString(id) ||
	    !engine_request_id_valid(id->valuestring))) {
		xasprintf(why, "request: $.request is not a request id (1 to "
		    "%d letters, digits, '.', '_' or '-')",
		    ENGINE_REQUEST_ID_MAX);
	}
	if (*why != NULL) {
		cJSON_Delete(req);
		memset(w, 0, sizeof *w);
		return (-1);
	}
	w->command = xstrdup(cmd->valuestring);
	if (id != NULL)
		w->request = xstrdup(id->valuestring);
	if (cJSON_IsObject(args))
		w->args_json = json_print(args);
	w->tty = protocol_report(req, "tty");
	w->host = protocol_report(req, "host");
	w->via = protocol_via(req);
	cJSON_Delete(req);
	return (0);
}

/* Free what a decoded request owns. */
void
engine_wire_clear(struct engine_wire *w)
{
	free(w->command);
	free(w->request);
	free(w->args_json);
	free(w->tty);
	free(w->host);
	free(w->via);
	memset(w, 0, sizeof *w);
}

/* Free what a reply owns. */
void
engine_reply_clear(struct engine_reply *r)
{
	free(r->message);
	free(r->waiting);
	memset(r, 0, sizeof *r);
}

/*
 * A number member as an int64_t, when it is one that fits (a double
 * outside the range has no int64_t: converting it is undefined).
 */
static int
protocol_int(const cJSON *o, const char *key, int64_t *v)
{
	const cJSON	*n;

	n = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(n) || !(n->valuedouble >= -PROTOCOL_ID_MAX &&
	    n->valuedouble <= PROTOCOL_ID_MAX))
		return (0);
	*v = (int64_t)n->valuedouble;
	return (1);
}

/* A reply's prune counts, on the JSON answer (socket or inbox). */
static void
protocol_prune_json(cJSON *o, const struct engine_reply *r)
{
	cJSON	*p;

	if (r->pruned_runs == 0 && r->next == 0)
		return;
	p = cJSON_AddObjectToObject(o, "pruned");
	cJSON_AddNumberToObject(p, "runs", (double)r->pruned_runs);
	cJSON_AddNumberToObject(p, "steps", (double)r->pruned_steps);
	cJSON_AddNumberToObject(p, "logs", (double)r->pruned_logs);
	cJSON_AddNumberToObject(p, "next", (double)r->next);
}

/* Read them back. */
static void
protocol_prune_read(const cJSON *o, struct engine_reply *r)
{
	const cJSON	*p;

	p = cJSON_GetObjectItemCaseSensitive(o, "pruned");
	if (!cJSON_IsObject(p))
		return;
	protocol_int(p, "runs", &r->pruned_runs);
	protocol_int(p, "steps", &r->pruned_steps);
	protocol_int(p, "logs", &r->pruned_logs);
	protocol_int(p, "next", &r->next);
}

/* One reply object's members into r (what it lacks stays as it is). */
static void
protocol_reply_fill(const cJSON *o, struct engine_reply *r)
{
	const cJSON	*v;
	int64_t		 n;

	if (protocol_int(o, "code", &n))
		r->code = n >= 0 && n <= 255 ? (int)n : 1;
	else
		r->code = 1;
	v = cJSON_GetObjectItemCaseSensitive(o, "message");
	if (cJSON_IsString(v)) {
		free(r->message);
		r->message = xstrdup(v->valuestring);
	}
	protocol_int(o, "workflow_id", &r->workflow_id);
	protocol_int(o, "step_id", &r->step_id);
	protocol_int(o, "version", &r->version);
	r->conflict = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "conflict"));
	v = cJSON_GetObjectItemCaseSensitive(o, "waiting");
	if (cJSON_IsString(v)) {
		free(r->waiting);
		r->waiting = xstrdup(v->valuestring);
	}
	protocol_int(o, "waiting_since", &r->waiting_since);
	protocol_prune_read(o, r);
}

/*
 * Read the engine's JSON answer (a socket's line, an inbox row's reply)
 * into a reply.  An answer to "outcome" says what became of an earlier
 * request: when it was applied, r is that request's own answer, with
 * r->outcome set.
 */
int
engine_reply_read(const char *text, struct engine_reply *r)
{
	const cJSON	*v, *inner;
	cJSON		*o;
	size_t		 i;

	memset(r, 0, sizeof *r);
	if (text == NULL || (o = cJSON_Parse(text)) == NULL)
		return (-1);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return (-1);
	}
	protocol_reply_fill(o, r);
	v = cJSON_GetObjectItemCaseSensitive(o, "outcome");
	for (i = 1; cJSON_IsString(v) && i < nitems(protocol_outcomes); i++) {
		if (strcmp(v->valuestring, protocol_outcomes[i]) == 0)
			r->outcome = (int)i;
	}
	if (cJSON_IsString(v) && r->outcome == ENGINE_OUTCOME_NONE)
		r->code = 1;	/* an outcome we do not know is none */
	protocol_int(o, "queued", &r->queued);
	inner = cJSON_GetObjectItemCaseSensitive(o, "reply");
	if (r->outcome == ENGINE_OUTCOME_APPLIED) {
		if (!cJSON_IsObject(inner)) {
			cJSON_Delete(o);
			engine_reply_clear(r);
			return (-1);
		}
		protocol_reply_fill(inner, r);
	}
	cJSON_Delete(o);
	return (0);
}

/* The members of one reply object (no outcome). */
static cJSON *
protocol_reply_json(const struct engine_reply *r)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", r->code);
	if (r->message != NULL)
		cJSON_AddStringToObject(o, "message", r->message);
	if (r->workflow_id != 0)
		cJSON_AddNumberToObject(o, "workflow_id",
		    (double)r->workflow_id);
	if (r->step_id != 0)
		cJSON_AddNumberToObject(o, "step_id", (double)r->step_id);
	if (r->version != 0)
		cJSON_AddNumberToObject(o, "version", (double)r->version);
	if (r->conflict)
		cJSON_AddTrueToObject(o, "conflict");
	protocol_prune_json(o, r);
	return (o);
}

/*
 * The reply as the engine sends it (socket) or stores it (inbox, the
 * requests table): code, message, the ids, version and conflict it
 * carries, prune's counts.  An outcome is {"code": 0, "outcome": ...}
 * with the request's own answer as "reply" when it was applied.
 */
cJSON *
engine_reply_json(const struct engine_reply *r)
{
	cJSON	*o;

	if (r->outcome == ENGINE_OUTCOME_NONE ||
	    r->outcome >= (int)nitems(protocol_outcomes))
		return (protocol_reply_json(r));
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", 0);
	cJSON_AddStringToObject(o, "outcome", protocol_outcomes[r->outcome]);
	if (r->outcome == ENGINE_OUTCOME_APPLIED)
		cJSON_AddItemToObject(o, "reply", protocol_reply_json(r));
	if (r->queued != 0)
		cJSON_AddNumberToObject(o, "queued", (double)r->queued);
	return (o);
}

/* The name of an outcome, for people. */
const char *
engine_outcome_name(int outcome)
{
	if (outcome <= 0 || outcome >= (int)nitems(protocol_outcomes))
		return ("unknown");
	return (protocol_outcomes[outcome]);
}
