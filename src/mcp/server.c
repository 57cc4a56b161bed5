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
 * server.c: sluice mcp's protocol, MCP over stdio: one JSON-RPC message
 * per line on stdin, one per line on stdout, and nothing else on stdout
 * (messages go to stderr, the debug log to its file).  It answers
 * initialize (agreeing on a protocol revision), ping, tools/list and
 * tools/call; takes the initialized notification and ignores any other;
 * and answers a malformed line or an unknown method with JSON-RPC's
 * error codes.  A tool that fails (a refusal, an unknown id, bad
 * arguments) is an answer with isError set and the client's reason, so an
 * agent can read it and change course.  It ends at end of input.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "client/client.h"
#include "util/rpc.h"
#include "mcp/mcp-int.h"

/* Revisions this server speaks, newest first (as the npm SDK knows them). */
static const char *const mcp_versions[] = {
	MCP_PROTOCOL_LATEST, "2025-06-18", "2025-03-26", "2024-11-05"
};

struct mcp_server {
	struct client	*cl;
	int		 out;
	int		 initialized;	/* notifications/initialized came */
	int		 broken;	/* stdout is gone */
};

struct mcp_method {
	const char	*name;
	int		(*fn)(struct mcp_server *, const struct rpc_msg *,
			    cJSON **, char **);
};

static int	mcp_initialize(struct mcp_server *, const struct rpc_msg *,
		    cJSON **, char **);
static int	mcp_ping(struct mcp_server *, const struct rpc_msg *, cJSON **,
		    char **);
static int	mcp_tools_list(struct mcp_server *, const struct rpc_msg *,
		    cJSON **, char **);
static int	mcp_tools_call(struct mcp_server *, const struct rpc_msg *,
		    cJSON **, char **);
static void	mcp_send(struct mcp_server *, char *);
static void	mcp_line(struct mcp_server *, const char *, size_t);

/* Methods that return 0 with a result, or a JSON-RPC code and a reason. */
static const struct mcp_method mcp_methods[] = {
	{ "initialize", mcp_initialize },
	{ "ping", mcp_ping },
	{ "tools/list", mcp_tools_list },
	{ "tools/call", mcp_tools_call },
};

/* Write one line to the client (line is freed); a gone client ends it. */
static void
mcp_send(struct mcp_server *srv, char *line)
{
	size_t	len = strlen(line);

	line = xrealloc(line, len + 2);
	line[len++] = '\n';
	line[len] = '\0';
	if (!srv->broken && file_write_all(srv->out, line, len) != 0) {
		log_debug("%s: %s", __func__, strerror(errno));
		srv->broken = 1;
	}
	free(line);
}

/* initialize: agree on a revision and say what this server offers. */
static int
mcp_initialize(struct mcp_server *srv, const struct rpc_msg *m,
    cJSON **result, char **why)
{
	const cJSON	*v;
	const char	*version = MCP_PROTOCOL_LATEST;
	cJSON		*o, *caps, *info;
	size_t		 i;

	(void)srv;
	v = cJSON_GetObjectItemCaseSensitive(m->params, "protocolVersion");
	if (!cJSON_IsObject(m->params) || !cJSON_IsString(v)) {
		*why = xstrdup("initialize: params.protocolVersion: expected "
		    "a string");
		return (RPC_INVALID_PARAMS);
	}
	/* The client's revision if this server speaks it, else its own. */
	for (i = 0; i < nitems(mcp_versions); i++) {
		if (strcmp(v->valuestring, mcp_versions[i]) == 0)
			version = mcp_versions[i];
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "protocolVersion", version);
	caps = cJSON_AddObjectToObject(o, "capabilities");
	cJSON_AddFalseToObject(cJSON_AddObjectToObject(caps, "tools"),
	    "listChanged");
	info = cJSON_AddObjectToObject(o, "serverInfo");
	cJSON_AddStringToObject(info, "name", "sluice");
	cJSON_AddStringToObject(info, "title", "sluice workflow console");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	cJSON_AddStringToObject(o, "instructions", "sluice runs durable "
	    "workflows for operations staff.  Start runs from templates or "
	    "flows, follow them, read step logs, manage templates.  Every "
	    "action is audited as the user running this server, via mcp.  "
	    "Gates are for people: deciding one is refused unless the gate "
	    "allows agents.");
	log_debug("%s: client asked for %s, speaking %s", __func__,
	    v->valuestring, version);
	*result = o;
	return (0);
}

/* ping: an empty result. */
static int
mcp_ping(struct mcp_server *srv, const struct rpc_msg *m, cJSON **result,
    char **why)
{
	(void)srv;
	(void)m;
	(void)why;
	*result = cJSON_CreateObject();
	return (0);
}

/* tools/list: every tool with its schemas (one page: there are few). */
static int
mcp_tools_list(struct mcp_server *srv, const struct rpc_msg *m,
    cJSON **result, char **why)
{
	const struct mcp_tool	*t;
	cJSON			*o, *list, *e, *ann;
	size_t			 i;

	(void)srv;
	(void)m;
	(void)why;
	o = cJSON_CreateObject();
	list = cJSON_AddArrayToObject(o, "tools");
	for (i = 0; i < mcp_ntools; i++) {
		t = &mcp_tools[i];
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", t->name);
		cJSON_AddStringToObject(e, "title", t->title);
		cJSON_AddStringToObject(e, "description", t->description);
		cJSON_AddItemToObject(e, "inputSchema",
		    json_parse_or_null(t->input_schema));
		cJSON_AddItemToObject(e, "outputSchema",
		    json_parse_or_null(t->output_schema));
		ann = cJSON_AddObjectToObject(e, "annotations");
		cJSON_AddStringToObject(ann, "title", t->title);
		cJSON_AddBoolToObject(ann, "readOnlyHint", t->readonly);
		cJSON_AddBoolToObject(ann, "destructiveHint", t->destructive);
		cJSON_AddBoolToObject(ann, "openWorldHint", 0);
		cJSON_AddItemToArray(list, e);
	}
	*result = o;
	return (0);
}

/*
 * tools/call: check the arguments against the tool's input schema, run
 * it, answer its structured content and text, or isError and the reason.
 */
static int
mcp_tools_call(struct mcp_server *srv, const struct rpc_msg *m,
    cJSON **result, char **why)
{
	const struct mcp_tool	*t;
	const cJSON		*name, *args;
	struct mcp_answer	 ans;
	cJSON			*schema, *o, *content, *c;
	char			*bad;

	name = cJSON_GetObjectItemCaseSensitive(m->params, "name");
	args = cJSON_GetObjectItemCaseSensitive(m->params, "arguments");
	if (!cJSON_IsObject(m->params) || !cJSON_IsString(name)) {
		*why = xstrdup("tools/call: params.name: expected a string");
		return (RPC_INVALID_PARAMS);
	}
	if (args != NULL && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		xasprintf(why, "tools/call: params.arguments: expected an "
		    "object, not %s", json_type_name(args));
		return (RPC_INVALID_PARAMS);
	}
	if (cJSON_IsNull(args))
		args = NULL;
	if ((t = mcp_tool_find(name->valuestring)) == NULL) {
		xasprintf(why, "tools/call: unknown tool \"%s\" (see "
		    "tools/list)", name->valuestring);
		return (RPC_INVALID_PARAMS);
	}
	memset(&ans, 0, sizeof ans);
	schema = json_parse_or_null(t->input_schema);
	if ((bad = mcp_schema_check(schema, args, "arguments")) != NULL) {
		ans.error = 1;
		xasprintf(&ans.text, "%s: %s", t->name, bad);
		free(bad);
	} else
		mcp_tool_call(srv->cl, t, args, &ans);
	cJSON_Delete(schema);
	log_debug("%s: %s: %s", __func__, t->name, ans.error ? ans.text :
	    "ok");

	o = cJSON_CreateObject();
	content = cJSON_AddArrayToObject(o, "content");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", ans.text != NULL ? ans.text : "");
	cJSON_AddItemToArray(content, c);
	if (!ans.error && ans.structured != NULL) {
		cJSON_AddItemToObject(o, "structuredContent", ans.structured);
		ans.structured = NULL;
	}
	cJSON_AddBoolToObject(o, "isError", ans.error);
	cJSON_Delete(ans.structured);
	free(ans.text);
	*result = o;
	return (0);
}

/* One line from the client: answer it if it is a request. */
static void
mcp_line(struct mcp_server *srv, const char *line, size_t len)
{
	struct rpc_msg	 m;
	cJSON		*result = NULL;
	char		*why = NULL;
	size_t		 i;
	int		 code;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' ||
	    line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return;		/* a blank line is not a message */
	switch (rpc_parse(line, len, &m)) {
	case RPC_INVALID:
		mcp_send(srv, rpc_error(m.id, m.code, m.why, NULL));
		break;
	case RPC_NOTIFICATION:
		if (strcmp(m.method, "notifications/initialized") == 0)
			srv->initialized = 1;
		log_debug("%s: notification %s", __func__, m.method);
		break;
	case RPC_RESULT:
	case RPC_ERROR:
		/* This server asks nothing; a stray answer is ignored. */
		log_debug("%s: unexpected %s", __func__, rpc_kind_name(m.kind));
		break;
	case RPC_REQUEST:
		code = RPC_METHOD_NOT_FOUND;
		for (i = 0; i < nitems(mcp_methods); i++) {
			if (strcmp(mcp_methods[i].name, m.method) == 0)
				break;
		}
		if (i == nitems(mcp_methods))
			xasprintf(&why, "method not found: %s", m.method);
		else
			code = mcp_methods[i].fn(srv, &m, &result, &why);
		if (code == 0)
			mcp_send(srv, rpc_result(m.id, result));
		else
			mcp_send(srv, rpc_error(m.id, code, why, NULL));
		free(why);
		break;
	}
	rpc_msg_clear(&m);
}

/*
 * Serve until end of input: read lines from in, answer on out.  A line
 * longer than RPC_LINE_MAX is refused and skipped to its end.
 */
int
mcp_serve(struct client *cl, int in, int out)
{
	struct mcp_server	 srv;
	struct buf		 b;
	char			 chunk[65536], *nl;
	size_t			 used;
	ssize_t			 n = 0;
	int			 skipping = 0;

	memset(&srv, 0, sizeof srv);
	srv.cl = cl;
	srv.out = out;
	buf_init(&b);
	while (!srv.broken) {
		n = read(in, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_add(&b, chunk, (size_t)n);
		used = 0;
		while ((nl = memchr(b.data + used, '\n', b.len - used)) !=
		    NULL) {
			if (!skipping)
				mcp_line(&srv, b.data + used,
				    (size_t)(nl - (b.data + used)));
			skipping = 0;
			used = (size_t)(nl - b.data) + 1;
		}
		memmove(b.data, b.data + used, b.len - used);
		b.len -= used;
		if (!skipping && b.len > RPC_LINE_MAX) {
			mcp_send(&srv, rpc_error(NULL, RPC_INVALID_REQUEST,
			    "message longer than 4 MiB: skipped", NULL));
			skipping = 1;
		}
		if (skipping)
			b.len = 0;
	}
	/* A last line without its newline is still a message. */
	if (n == 0 && b.len > 0 && !skipping && !srv.broken)
		mcp_line(&srv, b.data, b.len);
	buf_free(&b);
	return (srv.broken ? EXIT_FAILED : EXIT_OK);
}
