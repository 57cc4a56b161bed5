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
 * command, its ids and arguments, the caller's report of its tty and
 * host and how it came), a reply one JSON object (its code, its line,
 * the ids and version it made), the same on the socket and on an inbox
 * row.  And a request applied in this process, when it is the engine.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

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
 * The reply as the engine sends it (socket) or stores it (inbox): code,
 * message, the ids, version and conflict it carries, prune's counts.
 */
cJSON *
engine_reply_json(const struct engine_reply *r)
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
	engine_reply_prune_json(o, r);
	return (o);
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
