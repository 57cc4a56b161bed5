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
 * tool-mcp.c: one attempt of an MCP tool step, the client half of MCP's
 * stdio transport.  The server is the step's process (exec.c spawns it
 * like any other, in its own group, with the step's environment); this
 * file talks to it through the loop, never waiting: initialize, then
 * notifications/initialized and tools/call with the step's args, one
 * JSON-RPC message per line.  The answer decides the attempt; then stdin
 * is closed and the server's group is ended as a cancel ends any step,
 * and the step finishes once the server is reaped.  The step's log keeps
 * the server's notifications as it wrote them (stream out), its stderr
 * (err), and a line of sluice's own per step of the exchange ("[mcp]",
 * stream sluice).
 */

#include <sys/types.h>
#include <sys/wait.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"
#include "util/rpc.h"

/* What the client asks for; a server may answer any of the known ones. */
#define MCP_PROTOCOL	"2025-06-18"
static const char *mcp_protocols[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};

#define MCP_ID_INIT	1
#define MCP_ID_CALL	2

enum mcp_state {
	MCP_INIT,		/* initialize sent */
	MCP_CALL,		/* tools/call sent */
	MCP_DECIDED		/* answered (or broken): ending the server */
};

struct engine_mcp {
	char		*tool;		/* the server's tool */
	char		*args;		/* the step's args, a JSON object */
	enum mcp_state	 state;
	struct buf	 line;		/* stdout not yet ended by a newline */
	int		 ok;		/* decided: the attempt succeeded */
	char		*result;	/* ok: the step's result, JSON */
	char		*why;		/* not ok: the step's error */
};

static void	 mcp_send(struct estep *, char *);
static void	 mcp_note(struct engine *, struct estep *, const char *, ...)
		     printflike(3, 4);
static void	 mcp_decide(struct engine *, struct estep *, char *, char *);
static void	 mcp_fail(struct engine *, struct estep *, const char *, ...)
		     printflike(3, 4);
static void	 mcp_line(struct engine *, struct estep *, const char *,
		     size_t);
static void	 mcp_request(struct engine *, struct estep *,
		     const struct rpc_msg *);
static void	 mcp_progress(struct engine *, struct estep *,
		     const cJSON *);
static void	 mcp_initialized(struct engine *, struct estep *,
		     const cJSON *);
static void	 mcp_called(struct engine *, struct estep *, const cJSON *);
static char	*mcp_text(const cJSON *, const char *);

/* The client state of one attempt of an MCP tool with these args. */
struct engine_mcp *
engine_mcp_create(const struct flow_tool *t, const char *args)
{
	struct engine_mcp	*m;

	m = xcalloc(1, sizeof *m);
	m->tool = xstrdup(t->mcp_tool != NULL ? t->mcp_tool : "");
	m->args = xstrdup(args != NULL ? args : "{}");
	buf_init(&m->line);
	return (m);
}

/* Free an attempt's client state. */
void
engine_mcp_free(struct engine_mcp *m)
{
	if (m == NULL)
		return;
	free(m->tool);
	free(m->args);
	buf_free(&m->line);
	free(m->result);
	free(m->why);
	free(m);
}

/* Write one message (a line we own) to the server's stdin. */
static void
mcp_send(struct estep *es, char *line)
{
	if (es->proc != NULL) {
		(void)proc_write(es->proc, line, strlen(line));
		(void)proc_write(es->proc, "\n", 1);
	}
	free(line);
}

/* A line of sluice's own about the exchange, in the step's log. */
static void
mcp_note(struct engine *e, struct estep *es, const char *fmt, ...)
{
	va_list	 ap;
	char	*s, *line;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	xasprintf(&line, "[mcp] %s\n", s);
	engine_exec_log(e, es, "sluice", line, strlen(line));
	free(line);
	free(s);
}

/*
 * The server has just been spawned: ask it to initialize.  Its answer
 * comes through engine_mcp_output.
 */
void
engine_mcp_start(struct engine *e, struct estep *es)
{
	cJSON	*params, *info;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", MCP_PROTOCOL);
	cJSON_AddObjectToObject(params, "capabilities");
	info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", "sluice");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	mcp_note(e, es, "-> initialize (protocol %s)", MCP_PROTOCOL);
	mcp_send(es, rpc_request(MCP_ID_INIT, "initialize", params));
}

/*
 * The attempt is decided (result or why, owned): close the server's
 * stdin, which tells a well-behaved server to exit, and end its group as
 * a cancel would (SIGTERM, SIGKILL after the grace).  The step ends when
 * the server is reaped.
 */
static void
mcp_decide(struct engine *e, struct estep *es, char *result, char *why)
{
	struct engine_mcp	*m = es->mcp;

	m->state = MCP_DECIDED;
	m->ok = why == NULL;
	m->result = result;
	m->why = why;
	buf_reset(&m->line);
	if (es->proc != NULL) {
		proc_write_close(es->proc);
		proc_kill(es->proc, e->opts.kill_grace);
	}
}

/* The attempt failed, for this reason. */
static void
mcp_fail(struct engine *e, struct estep *es, const char *fmt, ...)
{
	va_list	 ap;
	char	*why;

	va_start(ap, fmt);
	xvasprintf(&why, fmt, ap);
	va_end(ap);
	mcp_note(e, es, "%s", why);
	mcp_decide(e, es, NULL, why);
}

/*
 * Output on the server's stdout: split it into lines, each one message.
 * A line longer than a message may be breaks the protocol.
 */
void
engine_mcp_output(struct engine *e, struct estep *es, const char *data,
    size_t len)
{
	struct engine_mcp	*m = es->mcp;
	const char		*nl;
	size_t			 n;

	while (len > 0 && m->state != MCP_DECIDED) {
		nl = memchr(data, '\n', len);
		n = nl != NULL ? (size_t)(nl - data) : len;
		if (m->line.len + n > RPC_LINE_MAX) {
			mcp_fail(e, es, "malformed JSON-RPC from the MCP "
			    "server: a message longer than %d bytes",
			    RPC_LINE_MAX);
			return;
		}
		buf_add(&m->line, data, n);
		if (nl == NULL)
			return;
		data += n + 1;
		len -= n + 1;
		n = m->line.len;
		if (n > 0 && m->line.data[n - 1] == '\r')
			n--;
		mcp_line(e, es, m->line.data, n);
		buf_reset(&m->line);
	}
}

/* One message from the server. */
static void
mcp_line(struct engine *e, struct estep *es, const char *text, size_t len)
{
	struct engine_mcp	*m = es->mcp;
	struct rpc_msg		 msg;
	char			*idtext;
	int64_t			 id;
	size_t			 i;
	int			 want;

	for (i = 0; i < len && strchr(" \t\r", text[i]) != NULL; i++)
		;
	if (i == len)
		return;		/* a blank line says nothing */
	want = m->state == MCP_INIT ? MCP_ID_INIT : MCP_ID_CALL;
	switch (rpc_parse(text, len, &msg)) {
	case RPC_INVALID:
		mcp_fail(e, es, "malformed JSON-RPC from the MCP server: %s",
		    msg.why);
		break;
	case RPC_NOTIFICATION:
		/* Logging, progress, list changes: the log keeps them. */
		engine_exec_log(e, es, "out", text, len);
		engine_exec_log(e, es, "out", "\n", 1);
		if (strcmp(msg.method, "notifications/progress") == 0)
			mcp_progress(e, es, msg.params);
		break;
	case RPC_REQUEST:
		mcp_request(e, es, &msg);
		break;
	case RPC_RESULT:
	case RPC_ERROR:
		if (msg.id == NULL || rpc_id_int(msg.id, &id) != 0 ||
		    id != want) {
			idtext = msg.id != NULL ? json_print(msg.id) :
			    xstrdup("null");
			mcp_fail(e, es, "malformed JSON-RPC from the MCP "
			    "server: an answer to id %.64s, which sluice never "
			    "sent (it awaits %d)", idtext, want);
			free(idtext);
			break;
		}
		if (msg.kind == RPC_ERROR)
			mcp_fail(e, es, "MCP server answered %s with error %d: "
			    "%s", m->state == MCP_INIT ? "initialize" :
			    "tools/call", msg.code, msg.message);
		else if (m->state == MCP_INIT)
			mcp_initialized(e, es, msg.result);
		else
			mcp_called(e, es, msg.result);
		break;
	}
	rpc_msg_clear(&msg);
}

/*
 * A request from the server (ping, or sampling, roots and the like, which
 * a step cannot answer): ping gets its empty result, the rest "method not
 * found", so the server is never left waiting.
 */
static void
mcp_request(struct engine *e, struct estep *es, const struct rpc_msg *msg)
{
	if (strcmp(msg->method, "ping") == 0) {
		mcp_send(es, rpc_result(msg->id, NULL));
		return;
	}
	mcp_note(e, es, "<- request %s: not supported by a step",
	    msg->method);
	mcp_send(es, rpc_error(msg->id, RPC_METHOD_NOT_FOUND,
	    "sluice runs this tool as a workflow step and answers no "
	    "requests", NULL));
}

/*
 * notifications/progress for our call's token: the step's progress, as a
 * "::progress" line gives it.  A percentage only with a total; a message
 * when the server sends one, else the progress as "N of TOTAL".
 */
static void
mcp_progress(struct engine *e, struct estep *es, const cJSON *params)
{
	const cJSON	*token, *done, *total, *message;
	char		 want[64], *text = NULL, *c;
	double		 pct;
	int		 percent = -1;

	snprintf(want, sizeof want, "sluice-step-%lld", (long long)es->id);
	token = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
	done = cJSON_GetObjectItemCaseSensitive(params, "progress");
	total = cJSON_GetObjectItemCaseSensitive(params, "total");
	message = cJSON_GetObjectItemCaseSensitive(params, "message");
	if (!cJSON_IsString(token) || strcmp(token->valuestring, want) != 0 ||
	    !cJSON_IsNumber(done))
		return;
	if (cJSON_IsNumber(total) && total->valuedouble > 0) {
		pct = 100.0 * done->valuedouble / total->valuedouble;
		percent = pct < 0 ? 0 : pct > 100 ? 100 : (int)pct;
	}
	if (cJSON_IsString(message) && *message->valuestring != '\0')
		text = str_utf8_repair(message->valuestring,
		    strnlen(message->valuestring, ENGINE_PROGRESS_MAX));
	else if (cJSON_IsNumber(total))
		xasprintf(&text, "%g of %g", done->valuedouble,
		    total->valuedouble);
	for (c = text; c != NULL && *c != '\0'; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	}
	engine_txn(e);
	if (store_step_set_progress(e->store, es->id, percent, text) != 0)
		engine_store_fatal(e, store_last_error(e->store));
	free(text);
}

/*
 * The answer to initialize: a protocol version we speak, then say we
 * are initialized and call the tool.
 */
static void
mcp_initialized(struct engine *e, struct estep *es, const cJSON *result)
{
	struct engine_mcp	*m = es->mcp;
	const cJSON		*v, *info, *name, *version;
	cJSON			*params, *args, *meta;
	char			*token;
	size_t			 i;

	v = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (!cJSON_IsString(v)) {
		mcp_fail(e, es, "malformed JSON-RPC from the MCP server: "
		    "the answer to initialize has no protocolVersion");
		return;
	}
	for (i = 0; i < nitems(mcp_protocols); i++) {
		if (strcmp(v->valuestring, mcp_protocols[i]) == 0)
			break;
	}
	if (i == nitems(mcp_protocols)) {
		mcp_fail(e, es, "MCP server speaks protocol version \"%.64s\", "
		    "which sluice does not (it speaks %s, %s, %s and %s)",
		    v->valuestring, mcp_protocols[0], mcp_protocols[1],
		    mcp_protocols[2], mcp_protocols[3]);
		return;
	}
	info = cJSON_GetObjectItemCaseSensitive(result, "serverInfo");
	name = cJSON_GetObjectItemCaseSensitive(info, "name");
	version = cJSON_GetObjectItemCaseSensitive(info, "version");
	mcp_note(e, es, "<- initialize: %.128s %.64s, protocol %s",
	    cJSON_IsString(name) ? name->valuestring : "(unnamed server)",
	    cJSON_IsString(version) ? version->valuestring : "",
	    v->valuestring);
	mcp_send(es, rpc_notification("notifications/initialized", NULL));

	if ((args = cJSON_Parse(m->args)) == NULL)
		args = cJSON_CreateObject();
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", m->tool);
	cJSON_AddItemToObject(params, "arguments", args);
	/* Asks for notifications/progress, which the log then shows. */
	meta = cJSON_AddObjectToObject(params, "_meta");
	xasprintf(&token, "sluice-step-%lld", (long long)es->id);
	cJSON_AddStringToObject(meta, "progressToken", token);
	free(token);
	mcp_note(e, es, "-> tools/call %s", m->tool);
	mcp_send(es, rpc_request(MCP_ID_CALL, "tools/call", params));
	m->state = MCP_CALL;
}

/*
 * The answer to tools/call.  isError fails the attempt with the tool's
 * text; otherwise the result is structuredContent when there is one,
 * else the text content, parsed as JSON when it parses (like stdout).
 */
static void
mcp_called(struct engine *e, struct estep *es, const cJSON *result)
{
	const cJSON	*v;
	struct buf	 b;
	char		*text, *out;

	if (!cJSON_IsObject(result)) {
		mcp_fail(e, es, "malformed JSON-RPC from the MCP server: the "
		    "answer to tools/call is %s, not an object",
		    json_type_name(result));
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(result, "isError");
	if (cJSON_IsTrue(v)) {
		/* The step's error is one line. */
		text = mcp_text(result, "; ");
		text[strcspn(text, "\r\n")] = '\0';
		mcp_note(e, es, "<- tools/call: isError");
		if (*text == '\0') {
			free(text);
			text = xstrdup("the MCP tool reported an error");
		}
		mcp_decide(e, es, NULL, text);
		return;
	}
	text = mcp_text(result, "\n");
	v = cJSON_GetObjectItemCaseSensitive(result, "structuredContent");
	if (v != NULL && !cJSON_IsNull(v))
		out = json_print(v);
	else {
		buf_init(&b);
		buf_puts(&b, text);
		out = engine_exec_result(&b);
		buf_free(&b);
	}
	free(text);
	if (strlen(out) > ENGINE_RESULT_MAX) {
		free(out);
		mcp_fail(e, es, "the MCP tool's result is longer than %d "
		    "bytes", ENGINE_RESULT_MAX);
		return;
	}
	mcp_note(e, es, "<- tools/call: %s", v != NULL && !cJSON_IsNull(v) ?
	    "structured result" : "text result");
	mcp_decide(e, es, out, NULL);
}

/* The text blocks of a tool's content, joined by sep; "" when none. */
static char *
mcp_text(const cJSON *result, const char *sep)
{
	const cJSON	*content, *c, *type, *text;
	struct buf	 b;
	int		 n = 0;

	buf_init(&b);
	content = cJSON_GetObjectItemCaseSensitive(result, "content");
	cJSON_ArrayForEach(c, content) {
		type = cJSON_GetObjectItemCaseSensitive(c, "type");
		text = cJSON_GetObjectItemCaseSensitive(c, "text");
		if (!cJSON_IsString(type) ||
		    strcmp(type->valuestring, "text") != 0 ||
		    !cJSON_IsString(text))
			continue;
		if (n++ > 0)
			buf_puts(&b, sep);
		buf_puts(&b, text->valuestring);
	}
	if (b.data == NULL)
		return (xstrdup(""));
	return (buf_release(&b));
}

/*
 * The server is reaped and its pipes are at EOF: end the step as the
 * exchange decided, or, undecided, as a server gone too soon (or timed
 * out, or silent past its heartbeat).  A cancelled or interrupted step never comes here.
 */
void
engine_mcp_exit(struct engine *e, struct estep *es, int status)
{
	struct engine_mcp	*m = es->mcp;
	const char		*when;
	char			*why;
	int			 code;

	if (m->state == MCP_DECIDED) {
		if (m->ok)
			engine_step_done(e, es, m->result, 1, 0);
		else
			engine_step_failed(e, es, m->why, 0, 0, NULL);
		return;
	}
	if (es->timed_out || es->no_heartbeat) {
		engine_step_failed(e, es, es->timed_out ? "timeout" :
		    "no heartbeat", 0, 0, NULL);
		return;
	}
	when = m->state == MCP_INIT ? "initialize" : "tools/call";
	if (WIFEXITED(status)) {
		code = WEXITSTATUS(status);
		xasprintf(&why, "MCP server exited with status %d before "
		    "answering %s", code, when);
	} else {
		code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		xasprintf(&why, "MCP server killed by signal %d before "
		    "answering %s", code, when);
		code += 128;
	}
	mcp_note(e, es, "%s", why);
	engine_step_failed(e, es, why, 1, code, NULL);
	free(why);
}

/*
 * An MCP tool's server: a process like any other (exec.c), whose stdin
 * carries requests and whose stdout carries the answers.
 */
static void
engine_mcp_run(struct engine *e, struct estep *es, const struct flow_tool *t,
    const char *args, struct cJSON *scope)
{
	es->mcp = engine_mcp_create(t, args);
	engine_exec_process(e, es, t, args, scope);
}

/* Its stdout is the exchange; its stderr is logged as any process's. */
static void
engine_mcp_stream(struct engine *e, struct estep *es, int stream,
    const char *data, size_t len)
{
	if (stream == 1)
		engine_mcp_output(e, es, data, len);
	else
		engine_exec_stream(e, es, stream, data, len);
}

const struct engine_runner engine_runner_mcp = {
	.name = "MCP server",
	.flags = ENGINE_RUNNER_PROCESS | ENGINE_RUNNER_TALK |
	    ENGINE_RUNNER_LOG_LATER,
	.start = engine_mcp_run,
	.spawned = engine_mcp_start,
	.output = engine_mcp_stream,
	.exit = engine_mcp_exit,
	.kill = engine_exec_stop
};
