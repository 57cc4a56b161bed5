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
 * tools.c: the tools sluice mcp offers, one table: each row's schemas and
 * the function that calls the client API (client.h) for it, the same
 * operations the command line uses, and makes the answer from their
 * structured results (ids, versions, states), never from printed text.
 * A tool fails with the operation's own one-line reason, said to the
 * call's sink (mcp_call_say); its warnings come in the answer's
 * "warnings".
 * The reference engine's eight tools are here too, with its argument
 * names: workflow_create, _list, _get and _cancel are sluice's own (the
 * seed's names for their arguments translated in seed.c), and its
 * workflow_step_ready and template tools are rows below whose functions
 * (seed.c) call the native ones.  Wait steps are finished with
 * step_complete and step_fail.
 */

#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "client/client.h"
#include "mcp/mcp-int.h"

static int	 tool_workflow_create(struct mcp_call *, cJSON **);
static int	 tool_workflow_list(struct mcp_call *, cJSON **);
static int	 tool_workflow_get(struct mcp_call *, cJSON **);
static int	 tool_workflow_cancel(struct mcp_call *, cJSON **);
static int	 tool_gate_list(struct mcp_call *, cJSON **);
static int	 tool_gate_decide(struct mcp_call *, cJSON **);
static int	 tool_step_complete(struct mcp_call *, cJSON **);
static int	 tool_step_fail(struct mcp_call *, cJSON **);
static int	 tool_step_log(struct mcp_call *, cJSON **);
static int	 tool_flow_check(struct mcp_call *, cJSON **);
static int	 tool_template_list(struct mcp_call *, cJSON **);
static int	 tool_template_get(struct mcp_call *, cJSON **);
static int	 tool_template_save(struct mcp_call *, cJSON **);
static int	 tool_template_delete(struct mcp_call *, cJSON **);
static int	 tool_reply(struct mcp_call *, int, struct engine_reply *,
		     cJSON **);
static int	 tool_step_finish(struct mcp_call *, const char *,
		     const char *, cJSON **);
static int	 tool_template_name(struct mcp_call *, const char *);
static int64_t	 tool_id(const struct mcp_call *, const char *);
static char	*tool_document(struct mcp_call *, const char *, int,
		     size_t *, int *);

/* Schema fragments the tools share. */
#define S_ID(what) \
	"{\"type\":\"integer\",\"minimum\":1,\"description\":\"" what "\"}"
#define S_STR(what) \
	"{\"type\":\"string\",\"minLength\":1,\"description\":\"" what "\"}"
#define S_IN(props, req) \
	"{\"type\":\"object\",\"properties\":{" props "},\"required\":[" \
	req "],\"additionalProperties\":false}"
#define S_OUT(props, req) \
	"{\"type\":\"object\",\"properties\":{" props "},\"required\":[" \
	req "]}"
#define S_WARN \
	"\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
#define S_MSG \
	"\"message\":{\"type\":\"string\"}," S_WARN
#define S_LIST(key) \
	S_OUT("\"" key "\":{\"type\":\"array\",\"items\":" \
	"{\"type\":\"object\"}}", "\"" key "\"")
#define S_STEP \
	"{\"type\":[\"integer\",\"string\"],\"description\":\"the " \
	"wait step: its id, or WORKFLOW:STEP (its name or key)\"}"
#define S_DOC(what) \
	"{\"type\":[\"object\",\"string\"],\"description\":\"" what "\"}"

const struct mcp_tool mcp_tools[] = {
	{
		.name = "workflow_create",
		.title = "Start a workflow",
		.description = "Start a workflow run from a stored template "
		    "or from a flow (a JSON object, or the path of a flow "
		    "file), with an input, now or later (at: \"in 30 "
		    "minutes\", \"tomorrow 9am\", ISO 8601, @UNIXTIME).  "
		    "Give exactly one of template and flow.  Answers the "
		    "new run's id and status.",
		.input_schema = S_IN(
		    "\"template\":" S_STR("a template's name") ","
		    "\"flow\":" S_DOC("a flow: a JSON object, or a path") ","
		    "\"input\":{\"type\":[\"object\",\"null\"],"
		    "\"description\":\"the run's input (template inputs)\"},"
		    "\"name\":" S_STR("the run's name") ","
		    "\"at\":" S_STR("start later: when") ","
		    "\"schedule\":{\"type\":[\"string\",\"integer\"],"
		    "\"description\":\"the seed engine's name for at: a "
		    "phrase, or a Unix time in seconds\"}", ""),
		.output_schema = S_OUT(
		    "\"workflow_id\":{\"type\":\"integer\"},"
		    "\"id\":{\"type\":\"integer\"},"
		    "\"name\":{\"type\":\"string\"},"
		    "\"status\":{\"type\":\"string\"}," S_MSG,
		    "\"workflow_id\",\"status\""),
		.call = tool_workflow_create
	},
	{
		.name = "workflow_list",
		.title = "List workflows",
		.description = "List workflow runs, newest first, optionally "
		    "only those in one state (running, waiting, paused, "
		    "scheduled, late, completed, failed, cancelled; all is "
		    "every state).",
		.input_schema = S_IN(
		    "\"status\":" S_STR("only runs in this state") ","
		    "\"limit\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":100000,\"description\":\"at most this many "
		    "(default 50)\"}", ""),
		.output_schema = S_LIST("workflows"),
		.readonly = 1,
		.call = tool_workflow_list
	},
	{
		.name = "workflow_get",
		.title = "Show a workflow",
		.description = "A workflow run with its input, output, who "
		    "started it and how, and every step: status, attempt, "
		    "tool, result, times, and gates with their approvals.",
		.input_schema = S_IN("\"workflow_id\":" S_ID("the run's id") ","
		    "\"id\":" S_ID("the seed engine's name for workflow_id"),
		    ""),
		.output_schema = S_OUT(
		    "\"id\":{\"type\":\"integer\"},"
		    "\"name\":{\"type\":\"string\"},"
		    "\"status\":{\"type\":\"string\"},"
		    "\"steps\":{\"type\":\"array\"}",
		    "\"id\",\"name\",\"status\",\"steps\""),
		.readonly = 1,
		.call = tool_workflow_get
	},
	{
		.name = "workflow_cancel",
		.title = "Cancel a workflow",
		.description = "Cancel a workflow run: its running steps are "
		    "stopped and the rest cancelled.  The comment goes to the "
		    "audit trail.",
		.input_schema = S_IN(
		    "\"workflow_id\":" S_ID("the run's id") ","
		    "\"id\":" S_ID("the seed engine's name for workflow_id") ","
		    "\"comment\":" S_STR("why, for the audit trail"), ""),
		.output_schema = S_OUT("\"workflow_id\":{\"type\":\"integer\"},"
		    S_MSG, "\"workflow_id\",\"message\""),
		.destructive = 1,
		.call = tool_workflow_cancel
	},
	{
		.name = "gate_list",
		.title = "List waiting gates",
		.description = "Every gate waiting for a decision, oldest "
		    "first: its step id, workflow, message, who started the "
		    "run, approvals so far and quorum.",
		.input_schema = S_IN("", ""),
		.output_schema = S_LIST("gates"),
		.readonly = 1,
		.call = tool_gate_list
	},
	{
		.name = "gate_decide",
		.title = "Approve or reject a gate",
		.description = "Approve or reject a waiting gate (its step "
		    "id, from gate_list).  A reject needs a comment.  Gates "
		    "are for people: a decision through MCP is refused unless "
		    "the gate allows agents (\"agents\": true).",
		.input_schema = S_IN(
		    "\"step_id\":" S_ID("the gate's step id") ","
		    "\"decision\":{\"type\":\"string\",\"enum\":[\"approve\","
		    "\"reject\"]},"
		    "\"comment\":" S_STR("why (required to reject)"),
		    "\"step_id\",\"decision\""),
		.output_schema = S_OUT("\"step_id\":{\"type\":\"integer\"},"
		    "\"decision\":{\"type\":\"string\"}," S_MSG,
		    "\"step_id\",\"decision\",\"message\""),
		.call = tool_gate_decide
	},
	{
		.name = "step_complete",
		.title = "Complete a wait step",
		.description = "Finish a wait step from outside with a result "
		    "(any JSON value, default null): the run goes on as if "
		    "the step had run.  Who may is the step's \"by\".",
		.input_schema = S_IN(
		    "\"step\":" S_STEP ","
		    "\"result\":{\"description\":\"the step's result\"},"
		    "\"comment\":" S_STR("for the audit trail"), "\"step\""),
		.output_schema = S_OUT(S_MSG, "\"message\""),
		.call = tool_step_complete
	},
	{
		.name = "step_fail",
		.title = "Fail a wait step",
		.description = "Finish a wait step from outside as failed, "
		    "with the reason (its error, and the audit trail's).",
		.input_schema = S_IN(
		    "\"step\":" S_STEP ","
		    "\"message\":" S_STR("why it failed"),
		    "\"step\",\"message\""),
		.output_schema = S_OUT(S_MSG, "\"message\""),
		.destructive = 1,
		.call = tool_step_fail
	},
	{
		.name = "step_log",
		.title = "Read a step's log",
		.description = "A step's output (stdout and stderr as the "
		    "engine kept them).",
		.input_schema = S_IN("\"step_id\":" S_ID("the step's id"),
		    "\"step_id\""),
		.output_schema = S_OUT("\"step_id\":{\"type\":\"integer\"},"
		    "\"log\":{\"type\":\"string\"}", "\"step_id\",\"log\""),
		.readonly = 1,
		.call = tool_step_log
	},
	{
		.name = "flow_check",
		.title = "Check a flow",
		.description = "Validate a flow or template document without "
		    "running it: every problem with its JSON path, line and "
		    "column.",
		.input_schema = S_IN(
		    "\"flow\":" S_DOC("a flow or template: a JSON object, or "
		    "a path"), "\"flow\""),
		.output_schema = S_OUT("\"valid\":{\"type\":\"boolean\"},"
		    "\"problems\":{\"type\":\"array\"}", "\"valid\",\"problems\""),
		.readonly = 1,
		.call = tool_flow_check
	},
	{
		.name = "template_list",
		.title = "List templates",
		.description = "The stored templates: name, version, "
		    "description, declared inputs.",
		.input_schema = S_IN("", ""),
		.output_schema = S_LIST("templates"),
		.readonly = 1,
		.call = tool_template_list
	},
	{
		.name = "template_get",
		.title = "Show a template",
		.description = "A template's document, declared inputs and "
		    "version (the newest, or the one asked for), with "
		    "input_schema: the JSON Schema a run's input (for "
		    "workflow_create) must meet.",
		.input_schema = S_IN(
		    "\"name\":" S_STR("the template's name") ","
		    "\"version\":" S_ID("an older version"), "\"name\""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"},"
		    "\"version\":{\"type\":\"integer\"},"
		    "\"input_schema\":{\"type\":\"object\"}",
		    "\"name\",\"version\""),
		.readonly = 1,
		.call = tool_template_get
	},
	{
		.name = "template_save",
		.title = "Save a template",
		.description = "Save a template: a flow, or {\"description\", "
		    "\"inputs\", \"flow\"}, as a JSON object or JSON text.  "
		    "It is checked first; each save makes a new version.",
		.input_schema = S_IN(
		    "\"name\":" S_STR("the template's name") ","
		    "\"document\":" S_DOC("the template: a JSON object, or "
		    "its JSON text"), "\"name\",\"document\""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"},"
		    "\"version\":{\"type\":\"integer\"}," S_MSG,
		    "\"name\",\"version\""),
		.call = tool_template_save
	},
	{
		.name = "template_delete",
		.title = "Remove a template",
		.description = "Remove a template (a soft delete: its old "
		    "versions and the runs made from it are kept).",
		.input_schema = S_IN("\"name\":" S_STR("the template's name"),
		    "\"name\""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"}," S_MSG,
		    "\"name\",\"message\""),
		.destructive = 1,
		.call = tool_template_delete
	},
	{
		.name = "workflow_step_ready",
		.title = "Unblock a step (the seed's name)",
		.description = "The reference engine's step_ready: approve a "
		    "waiting gate (refused unless the gate allows agents, "
		    "\"agents\": true) or complete a wait step with an "
		    "optional result.  The same as gate_decide with approve, "
		    "or step_complete.",
		.input_schema = S_IN(
		    "\"id\":" S_ID("the step's id") ","
		    "\"step_id\":" S_ID("the step's id (sluice's name)") ","
		    "\"result\":{\"description\":\"a wait step's result\"},"
		    "\"comment\":" S_STR("for the audit trail"), ""),
		.output_schema = S_OUT("\"step_id\":{\"type\":\"integer\"},"
		    S_MSG, "\"step_id\",\"message\""),
		.call = mcp_seed_step_ready
	},
	{
		.name = "workflow_template_list",
		.title = "List templates (the seed's name)",
		.description = "template_list, each template with an id (its "
		    "name) for workflow_template_delete.",
		.input_schema = S_IN("", ""),
		.output_schema = S_LIST("templates"),
		.readonly = 1,
		.call = mcp_seed_template_list
	},
	{
		.name = "workflow_template_save",
		.title = "Save a template (the seed's name)",
		.description = "template_save with the reference engine's "
		    "arguments: a flow (flow_json, an object or its JSON "
		    "text), default input values (input_json) and a "
		    "description.  Each save makes a new version.",
		.input_schema = S_IN(
		    "\"name\":" S_STR("the template's name") ","
		    "\"flow_json\":{\"type\":[\"object\",\"string\"],"
		    "\"description\":\"the flow\"},"
		    "\"input_json\":{\"type\":[\"object\",\"string\","
		    "\"null\"],\"description\":\"default input values\"},"
		    "\"description\":{\"type\":[\"string\",\"null\"]}",
		    "\"name\",\"flow_json\""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"},"
		    "\"id\":{\"type\":\"string\"},"
		    "\"version\":{\"type\":\"integer\"}," S_MSG,
		    "\"name\",\"id\",\"version\""),
		.call = mcp_seed_template_save
	},
	{
		.name = "workflow_template_delete",
		.title = "Remove a template (the seed's name)",
		.description = "template_delete by the template's id (its "
		    "name, as workflow_template_list gives it).",
		.input_schema = S_IN(
		    "\"id\":" S_STR("the template's id: its name") ","
		    "\"name\":" S_STR("the template's name"), ""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"}," S_MSG,
		    "\"name\",\"message\""),
		.destructive = 1,
		.call = mcp_seed_template_delete
	},
};
const size_t mcp_ntools = nitems(mcp_tools);

/* Find a tool by name. */
const struct mcp_tool *
mcp_tool_find(const char *name)
{
	size_t	i;

	for (i = 0; i < mcp_ntools; i++) {
		if (strcmp(mcp_tools[i].name, name) == 0)
			return (&mcp_tools[i]);
	}
	return (NULL);
}

/* An integer argument (the schema checked it), or 0. */
static int64_t
tool_id(const struct mcp_call *c, const char *key)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(c->args, key);
	return (cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0);
}

/*
 * A document argument's text: a string is a file's path (ispath) or the
 * JSON text itself, an object its JSON (as a person would save it).
 * NULL after saying why; *isfile says which it was.
 */
static char *
tool_document(struct mcp_call *c, const char *key, int ispath,
    size_t *lenp, int *isfile)
{
	const cJSON	*v;
	struct stat	 sb;
	char		*text, *cause = NULL;

	*isfile = 0;
	v = cJSON_GetObjectItemCaseSensitive(c->args, key);
	if (cJSON_IsString(v) && ispath) {
		if (stat(v->valuestring, &sb) != 0) {
			client_error(c->cl, "arguments.%s: %s: %s", key,
			    v->valuestring, strerror(errno));
			return (NULL);
		}
		*isfile = 1;
		if ((text = file_read(v->valuestring, SLUICE_MAX_DOCUMENT,
		    lenp, &cause)) == NULL) {
			client_error(c->cl, "%s", cause);
			free(cause);
		}
		return (text);
	}
	if (cJSON_IsString(v))
		xasprintf(&text, "%s\n", v->valuestring);
	else {
		text = json_print_pretty(v);
		text = xrealloc(text, strlen(text) + 2);
		strcat(text, "\n");
	}
	*lenp = strlen(text);
	return (text);
}

/*
 * The engine's answer to a command: its line as "message", or its
 * refusal said; a note when no engine runs.  0 or an exit status.
 */
static int
tool_reply(struct mcp_call *c, int rc, struct engine_reply *r, cJSON **out)
{
	if (rc != 0)
		return (rc);
	if (r->code != 0) {
		client_error(c->cl, "%s", r->message != NULL ? r->message :
		    "refused");
		return (r->code);
	}
	*out = cJSON_CreateObject();
	cJSON_AddStringToObject(*out, "message", r->message != NULL ?
	    r->message : "");
	if (r->offline)
		client_offline_note(c->cl);
	return (EXIT_OK);
}

/* workflow_create: start a run from a template or a flow. */
static int
tool_workflow_create(struct mcp_call *c, cJSON **out)
{
	struct client		*cl = c->cl;
	struct client_start	 st;
	struct engine_request	 q;
	struct engine_reply	 r;
	const char		*template, *s;
	const cJSON		*flow;
	cJSON			*show = NULL;
	char			*text = NULL;
	int			 rc, isfile;

	memset(&st, 0, sizeof st);
	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	template = mcp_str(c->args, "template");
	flow = cJSON_GetObjectItemCaseSensitive(c->args, "flow");
	if ((template == NULL) == (flow == NULL)) {
		client_error(cl, "arguments: give exactly one of template and "
		    "flow");
		return (EXIT_USAGE);
	}
	st.name = mcp_str(c->args, "name");
	st.at = mcp_str(c->args, "at");
	st.input = cJSON_GetObjectItemCaseSensitive(c->args, "input");
	st.where = "flow.json";
	if (template != NULL)
		st.what = template;
	else if (cJSON_IsString(flow)) {
		/* A path: said missing as the argument it came from. */
		if ((text = tool_document(c, "flow", 1, &st.len,
		    &isfile)) == NULL)
			return (EXIT_USAGE);
		free(text);
		text = NULL;
		st.what = flow->valuestring;
	} else {
		text = tool_document(c, "flow", 0, &st.len, &isfile);
		st.text = text;
	}
	rc = client_start(cl, &st, &q);
	free(text);
	if (rc == 0 && (rc = client_ask(cl, &q, &r)) == 0 && r.code != 0) {
		client_error(cl, "%s", r.message != NULL ? r.message :
		    "refused");
		rc = r.code;
	}
	if (rc != 0)
		goto out;
	if (r.offline)
		client_offline_note(cl);
	*out = cJSON_CreateObject();
	cJSON_AddNumberToObject(*out, "workflow_id", (double)r.workflow_id);
	cJSON_AddNumberToObject(*out, "id", (double)r.workflow_id);
	/* Its name and status as the database has them now. */
	if (client_read_workflow(cl, r.workflow_id, &show) == 0 &&
	    (s = mcp_str(show, "name")) != NULL)
		cJSON_AddStringToObject(*out, "name", s);
	s = mcp_str(show, "status");
	cJSON_AddStringToObject(*out, "status", s != NULL ? s : "unknown");
	cJSON_Delete(show);
	xasprintf(&text, "started workflow %lld", (long long)r.workflow_id);
	cJSON_AddStringToObject(*out, "message", text);
	free(text);
out:
	engine_reply_clear(&r);
	client_start_clear(&q);
	return (rc);
}

/* workflow_list: runs, newest first, maybe in one state. */
static int
tool_workflow_list(struct mcp_call *c, cJSON **out)
{
	struct store_workflow_filter	 f;
	enum run_state			 state;
	const char			*s;
	cJSON				*a;
	int				 rc;

	memset(&f, 0, sizeof f);
	if ((s = mcp_str(c->args, "status")) != NULL) {
		if (state_parse(s, &state) != 0) {
			client_error(c->cl, "--status: unknown status \"%s\" "
			    "(use one of %s)", s, state_words());
			return (EXIT_USAGE);
		}
		f.by_state = 1;
		f.state = state;
	}
	f.limit = tool_id(c, "limit");
	if ((rc = client_read_workflows(c->cl, &f, &a)) != 0)
		return (rc);
	*out = cJSON_CreateObject();
	cJSON_AddItemToObject(*out, "workflows", a);
	return (EXIT_OK);
}

/* workflow_get: a run and its steps. */
static int
tool_workflow_get(struct mcp_call *c, cJSON **out)
{
	return (client_read_workflow(c->cl, tool_id(c, "workflow_id"), out));
}

/* workflow_cancel: stop a run. */
static int
tool_workflow_cancel(struct mcp_call *c, cJSON **out)
{
	struct engine_reply	 r;
	int64_t			 id = tool_id(c, "workflow_id");
	int			 rc;

	rc = client_command(c->cl, "cancel", id, 0,
	    mcp_str(c->args, "comment"), NULL, &r);
	if ((rc = tool_reply(c, rc, &r, out)) == 0)
		cJSON_AddNumberToObject(*out, "workflow_id", (double)id);
	engine_reply_clear(&r);
	return (rc);
}

/* gate_list: the gates waiting for a decision. */
static int
tool_gate_list(struct mcp_call *c, cJSON **out)
{
	cJSON	*a;
	int	 rc;

	if ((rc = client_read_gates(c->cl, &a)) != 0)
		return (rc);
	*out = cJSON_CreateObject();
	cJSON_AddItemToObject(*out, "gates", a);
	return (EXIT_OK);
}

/* gate_decide: approve or reject (the engine refuses agents unless...). */
static int
tool_gate_decide(struct mcp_call *c, cJSON **out)
{
	struct engine_reply	 r;
	const char		*decision = mcp_str(c->args, "decision");
	int64_t			 id = tool_id(c, "step_id");
	int			 rc;

	rc = client_command(c->cl, decision, 0, id,
	    mcp_str(c->args, "comment"), NULL, &r);
	if ((rc = tool_reply(c, rc, &r, out)) == 0) {
		cJSON_AddNumberToObject(*out, "step_id", (double)id);
		cJSON_AddStringToObject(*out, "decision", decision);
	}
	engine_reply_clear(&r);
	return (rc);
}

/* step_complete, step_fail: finish a wait step from outside. */
static int
tool_step_finish(struct mcp_call *c, const char *command, const char *why,
    cJSON **out)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	const cJSON		*step, *v;
	cJSON			*args;
	char			*target;
	int			 rc;

	memset(&q, 0, sizeof q);
	memset(&r, 0, sizeof r);
	q.command = command;
	step = cJSON_GetObjectItemCaseSensitive(c->args, "step");
	if (cJSON_IsString(step))
		target = xstrdup(step->valuestring);
	else
		xasprintf(&target, "%" PRId64, tool_id(c, "step"));
	args = cJSON_CreateObject();
	if (client_step_target(c->cl, target, &q, args) != 0) {
		free(target);
		cJSON_Delete(args);
		return (EXIT_USAGE);
	}
	free(target);
	if ((v = cJSON_GetObjectItemCaseSensitive(c->args, "result")) != NULL)
		cJSON_AddItemToObject(args, "result", cJSON_Duplicate(v, 1));
	if (mcp_str(c->args, why) != NULL)
		cJSON_AddStringToObject(args, "comment", mcp_str(c->args, why));
	q.args_json = json_print(args);
	cJSON_Delete(args);
	rc = tool_reply(c, client_ask(c->cl, &q, &r), &r, out);
	free((char *)q.args_json);
	engine_reply_clear(&r);
	return (rc);
}

/* step_complete: a wait step done, with a result. */
static int
tool_step_complete(struct mcp_call *c, cJSON **out)
{
	return (tool_step_finish(c, "complete", "comment", out));
}

/* step_fail: a wait step failed, with why. */
static int
tool_step_fail(struct mcp_call *c, cJSON **out)
{
	return (tool_step_finish(c, "fail", "message", out));
}

/* step_log: a step's output. */
static int
tool_step_log(struct mcp_call *c, cJSON **out)
{
	struct buf	 b;
	int64_t		 id = tool_id(c, "step_id");
	int		 rc;

	buf_init(&b);
	if ((rc = client_read_log(c->cl, id, &b)) == 0) {
		*out = cJSON_CreateObject();
		cJSON_AddNumberToObject(*out, "step_id", (double)id);
		cJSON_AddStringToObject(*out, "log", b.len > 0 ? b.data : "");
	}
	buf_free(&b);
	return (rc);
}

/* flow_check: a flow with problems is an answer, not a failure. */
static int
tool_flow_check(struct mcp_call *c, cJSON **out)
{
	const struct flow_tools	*tools;
	struct flow_diags	*diags;
	struct flow_doc		*doc;
	char			*text;
	size_t			 len;
	int			 rc, valid, isfile;

	if ((rc = client_tools(c->cl, &tools)) != 0)
		return (rc);
	if ((text = tool_document(c, "flow", 1, &len, &isfile)) == NULL)
		return (EXIT_USAGE);
	valid = client_check(c->cl, text, len, tools, &doc, &diags);
	*out = client_json_check(diags, valid);
	if (doc != NULL)
		flow_doc_free(doc);
	flow_diags_free(diags);
	free(text);
	return (EXIT_OK);
}

/* template_list: the stored templates. */
static int
tool_template_list(struct mcp_call *c, cJSON **out)
{
	cJSON	*a;
	int	 rc;

	if ((rc = client_read_templates(c->cl, &a)) != 0)
		return (rc);
	*out = cJSON_CreateObject();
	cJSON_AddItemToObject(*out, "templates", a);
	return (EXIT_OK);
}

/* A template name argument: 0, or EXIT_USAGE after saying why. */
static int
tool_template_name(struct mcp_call *c, const char *name)
{
	char	*cause;

	if (str_check_template_name(name, &cause) == 0)
		return (0);
	client_error(c->cl, "%s", cause);
	free(cause);
	return (EXIT_USAGE);
}

/* template_get: a template, its document and version. */
static int
tool_template_get(struct mcp_call *c, cJSON **out)
{
	const char	*name = mcp_str(c->args, "name");
	int		 rc;

	if ((rc = tool_template_name(c, name)) != 0)
		return (rc);
	return (client_read_template(c->cl, name, tool_id(c, "version"),
	    out));
}

/* template_save: the version is the engine's answer, a number. */
static int
tool_template_save(struct mcp_call *c, cJSON **out)
{
	const char	*name = mcp_str(c->args, "name");
	char		*text, *msg;
	size_t		 len;
	int64_t		 version;
	int		 rc, isfile;

	if ((rc = tool_template_name(c, name)) != 0)
		return (rc);
	text = tool_document(c, "document", 0, &len, &isfile);
	rc = client_template_save(c->cl, name, text, len, "template.json",
	    &version);
	free(text);
	if (rc != 0)
		return (rc);
	*out = cJSON_CreateObject();
	cJSON_AddStringToObject(*out, "name", name);
	cJSON_AddNumberToObject(*out, "version", (double)version);
	xasprintf(&msg, "saved template %s version %lld", name,
	    (long long)version);
	cJSON_AddStringToObject(*out, "message", msg);
	free(msg);
	return (EXIT_OK);
}

/* template_delete: a soft delete. */
static int
tool_template_delete(struct mcp_call *c, cJSON **out)
{
	struct engine_reply	 r;
	const char		*name = mcp_str(c->args, "name");
	char			*msg;
	int			 rc;

	if ((rc = tool_template_name(c, name)) != 0)
		return (rc);
	if ((rc = client_template_request(c->cl, name, NULL, 0, &r)) == 0) {
		if (r.code == EXIT_NOTFOUND && r.message != NULL)
			rc = client_name_fail(c->cl, STORE_NOTFOUND,
			    xstrdup(r.message), CLIENT_NAME_TEMPLATE, name);
		else if (r.code != 0) {
			client_error(c->cl, "%s", r.message != NULL ?
			    r.message : "refused");
			rc = r.code;
		} else {
			*out = cJSON_CreateObject();
			cJSON_AddStringToObject(*out, "name", name);
			xasprintf(&msg, "removed template %s", name);
			cJSON_AddStringToObject(*out, "message", msg);
			free(msg);
		}
	}
	engine_reply_clear(&r);
	return (rc);
}
