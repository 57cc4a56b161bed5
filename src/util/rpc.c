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
 * rpc.c: JSON-RPC 2.0 messages, as MCP's stdio transport carries them
 * (one JSON object per line, no batches since the 2025-06-18 revision).
 * A line parses into one message classified as a request, notification,
 * result or error, or as invalid with the error code and one-line reason
 * its answer carries.  The builders make the lines sluice writes.
 */

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "util/rpc.h"

#define RPC_ID_MAX	9007199254740992.0	/* 2^53: exact in a double */

static enum rpc_kind	rpc_invalid(struct rpc_msg *, int, const char *, ...)
			    printflike(3, 4);
static int		rpc_id_valid(const cJSON *);
static enum rpc_kind	rpc_parse_call(struct rpc_msg *, const cJSON *);
static enum rpc_kind	rpc_parse_answer(struct rpc_msg *);
static char		*rpc_finish(cJSON *);

/* A kind's name, for logs and tests. */
const char *
rpc_kind_name(enum rpc_kind kind)
{
	switch (kind) {
	case RPC_REQUEST:
		return ("request");
	case RPC_NOTIFICATION:
		return ("notification");
	case RPC_RESULT:
		return ("result");
	case RPC_ERROR:
		return ("error");
	default:
		return ("invalid");
	}
}

/* Classify the message as invalid, answered with code and a reason. */
static enum rpc_kind
rpc_invalid(struct rpc_msg *m, int code, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	free(m->why);
	xvasprintf(&m->why, fmt, ap);
	va_end(ap);
	m->kind = RPC_INVALID;
	m->code = code;
	return (m->kind);
}

/* Is this a request id JSON-RPC allows: a string or an integer? */
static int
rpc_id_valid(const cJSON *id)
{
	double	d;

	if (cJSON_IsString(id))
		return (1);
	if (!cJSON_IsNumber(id))
		return (0);
	d = id->valuedouble;
	return (d >= -RPC_ID_MAX && d <= RPC_ID_MAX && d == (double)(int64_t)d);
}

/* An integer id's value (0 and -1 when the id is not an integer). */
int
rpc_id_int(const cJSON *id, int64_t *out)
{
	*out = 0;
	if (id == NULL || !cJSON_IsNumber(id) || !rpc_id_valid(id))
		return (-1);
	*out = (int64_t)id->valuedouble;
	return (0);
}

/* A message with a method: a request (with an id) or a notification. */
static enum rpc_kind
rpc_parse_call(struct rpc_msg *m, const cJSON *method)
{
	const cJSON	*id, *params;

	id = cJSON_GetObjectItemCaseSensitive(m->root, "id");
	if (id != NULL && !rpc_id_valid(id))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.id: expected a "
		    "string or an integer, not %s", json_type_name(id)));
	m->id = id;
	if (!cJSON_IsString(method) || method->valuestring[0] == '\0')
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.method: "
		    "expected a non-empty string, not %s",
		    json_type_name(method)));
	m->method = method->valuestring;
	params = cJSON_GetObjectItemCaseSensitive(m->root, "params");
	if (params != NULL && !cJSON_IsObject(params) &&
	    !cJSON_IsArray(params))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.params: "
		    "expected an object or an array, not %s",
		    json_type_name(params)));
	m->params = params;
	m->kind = id != NULL ? RPC_REQUEST : RPC_NOTIFICATION;
	return (m->kind);
}

/* A message without a method: a result or an error answering an id. */
static enum rpc_kind
rpc_parse_answer(struct rpc_msg *m)
{
	const cJSON	*id, *result, *error, *code, *message;

	id = cJSON_GetObjectItemCaseSensitive(m->root, "id");
	result = cJSON_GetObjectItemCaseSensitive(m->root, "result");
	error = cJSON_GetObjectItemCaseSensitive(m->root, "error");
	if (result == NULL && error == NULL)
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "neither $.method, "
		    "$.result nor $.error"));
	if (result != NULL && error != NULL)
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "both $.result and "
		    "$.error"));
	if (id == NULL || (!rpc_id_valid(id) && !(error != NULL &&
	    cJSON_IsNull(id))))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.id: expected a "
		    "string or an integer, not %s", id == NULL ? "nothing" :
		    json_type_name(id)));
	m->id = cJSON_IsNull(id) ? NULL : id;
	if (result != NULL) {
		m->result = result;
		m->kind = RPC_RESULT;
		return (m->kind);
	}
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	message = cJSON_GetObjectItemCaseSensitive(error, "message");
	if (!cJSON_IsObject(error) || !rpc_id_valid(code) ||
	    !cJSON_IsNumber(code) || !cJSON_IsString(message))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.error: expected "
		    "an object with an integer code and a string message"));
	m->code = code->valueint;
	m->message = message->valuestring;
	m->data = cJSON_GetObjectItemCaseSensitive(error, "data");
	m->kind = RPC_ERROR;
	return (m->kind);
}

/*
 * Parse one line (without its newline) into m, which the caller clears
 * with rpc_msg_clear whatever the kind.
 */
enum rpc_kind
rpc_parse(const char *text, size_t len, struct rpc_msg *m)
{
	const cJSON	*version, *method;
	char		*cause = NULL;

	memset(m, 0, sizeof *m);
	if (len > RPC_LINE_MAX)
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "message longer "
		    "than %d bytes", RPC_LINE_MAX));
	if ((m->root = json_parse(text, len, &cause)) == NULL) {
		rpc_invalid(m, RPC_PARSE_ERROR, "parse error: %s", cause);
		free(cause);
		return (m->kind);
	}
	if (cJSON_IsArray(m->root))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "batches are not "
		    "supported: send one message per line"));
	if (!cJSON_IsObject(m->root))
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "expected a JSON "
		    "object, not %s", json_type_name(m->root)));
	version = cJSON_GetObjectItemCaseSensitive(m->root, "jsonrpc");
	if (!cJSON_IsString(version) || strcmp(version->valuestring,
	    "2.0") != 0)
		return (rpc_invalid(m, RPC_INVALID_REQUEST, "$.jsonrpc: "
		    "expected \"2.0\""));
	method = cJSON_GetObjectItemCaseSensitive(m->root, "method");
	if (method != NULL)
		return (rpc_parse_call(m, method));
	return (rpc_parse_answer(m));
}

/* Free what a parsed message owns. */
void
rpc_msg_clear(struct rpc_msg *m)
{
	cJSON_Delete(m->root);
	free(m->why);
	memset(m, 0, sizeof *m);
}

/* Print a message as one line and free its tree. */
static char *
rpc_finish(cJSON *o)
{
	char	*line;

	line = json_print(o);
	cJSON_Delete(o);
	return (line);
}

/* A request line: method with params (consumed; NULL for none). */
char *
rpc_request(int64_t id, const char *method, cJSON *params)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(o, "id", (double)id);
	cJSON_AddStringToObject(o, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(o, "params", params);
	return (rpc_finish(o));
}

/* A notification line: no id, never answered. */
char *
rpc_notification(const char *method, cJSON *params)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddStringToObject(o, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(o, "params", params);
	return (rpc_finish(o));
}

/* A result line answering id (copied) with result (consumed). */
char *
rpc_result(const cJSON *id, cJSON *result)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id != NULL ?
	    cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "result", result != NULL ? result :
	    cJSON_CreateObject());
	return (rpc_finish(o));
}

/* An error line answering id (NULL: null), with optional data (consumed). */
char *
rpc_error(const cJSON *id, int code, const char *message, cJSON *data)
{
	cJSON	*o, *e;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id != NULL ?
	    cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	e = cJSON_AddObjectToObject(o, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	if (data != NULL)
		cJSON_AddItemToObject(e, "data", data);
	return (rpc_finish(o));
}
