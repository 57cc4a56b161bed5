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
 * tools.c: the tools sluice mcp offers, one table.  Each is a CLI command
 * (call.c runs it in this process, answer.c makes its answer), so a tool
 * asks the engine exactly as the command does and fails with the
 * command's own one-line reason.  A row says which command a tool is,
 * which of its arguments become which options and positionals, and
 * which of a few answer shapes its output takes; mcp_tool_call reads a
 * row, so a new tool is a new row.  A flow or template given as a JSON
 * object is written to a private temporary file for the command to read,
 * as a person would save one.
 * The reference engine's eight tools map onto these: workflow_create,
 * _list, _get, _cancel; step_ready is gate_decide; template list, save
 * and delete.  Wait steps are finished with step_complete and step_fail.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp-int.h"

/* One call of a tool, from its arguments to its answer. */
struct mcp_call {
	struct cli_ctx		*ctx;
	const struct mcp_tool	*tool;
	const cJSON		*args;
	struct mcp_argv		 argv;	/* the command line */
	struct mcp_tmp		 tmp;	/* documents handed over as files */
	struct mcp_answer	*ans;
};

static char	*tool_arg_value(struct mcp_call *, const struct mcp_arg *,
		    const cJSON *);
static int	 tool_argv(struct mcp_call *);
static void	 tool_argv_words(struct mcp_argv *, const char *);
static cJSON	*tool_echo(const struct mcp_call *);
static void	 tool_answer_json(struct mcp_call *);
static void	 tool_answer_line(struct mcp_call *);
static void	 tool_answer_saved(struct mcp_call *);
static void	 tool_answer_text(struct mcp_call *);
static void	 tool_answer_check(struct mcp_call *);
static void	 tool_answer_started(struct mcp_call *);

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
/* How an argument goes on the line: an option's value, a positional. */
#define OPT(key, opt, kind) { key, opt, MCP_ARG_ ## kind, NULL, NULL }
#define POS(key, kind) { key, NULL, MCP_ARG_ ## kind, NULL, NULL }
#define OPT_FILE(key, opt, kind, file) \
	{ key, opt, MCP_ARG_ ## kind, file, NULL }
#define POS_FILE(key, kind, file) { key, NULL, MCP_ARG_ ## kind, file, NULL }
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
		    "\"input\":{\"type\":\"object\",\"description\":"
		    "\"the run's input (template inputs)\"},"
		    "\"name\":" S_STR("the run's name") ","
		    "\"at\":" S_STR("start later: when"), ""),
		.output_schema = S_OUT(
		    "\"workflow_id\":{\"type\":\"integer\"},"
		    "\"name\":{\"type\":\"string\"},"
		    "\"status\":{\"type\":\"string\"}," S_MSG,
		    "\"workflow_id\",\"status\""),
		.cmd = "run",
		.args = {
			/* From a template, the command is template run. */
			{ "template", NULL, MCP_ARG_STR, NULL,
			    "template run" },
			POS_FILE("flow", FILE, "flow.json"),
			OPT_FILE("input", "--input", DOC, "input.json"),
			OPT("name", "--name", STR),
			OPT("at", "--at", STR)
		},
		.either = { "template", "flow" },
		.answer = tool_answer_started
	},
	{
		.name = "workflow_list",
		.title = "List workflows",
		.description = "List workflow runs, newest first, optionally "
		    "only those in one state (running, waiting, paused, "
		    "scheduled, late, completed, failed, cancelled).",
		.input_schema = S_IN(
		    "\"status\":" S_STR("only runs in this state") ","
		    "\"limit\":{\"type\":\"integer\",\"minimum\":1,"
		    "\"maximum\":100000,\"description\":\"at most this many "
		    "(default 50)\"}", ""),
		.output_schema = S_LIST("workflows"),
		.readonly = 1,
		.cmd = "list --json",
		.args = {
			OPT("status", "--status", STR),
			OPT("limit", "--limit", ID)
		},
		.answer = tool_answer_json,
		.key = "workflows"
	},
	{
		.name = "workflow_get",
		.title = "Show a workflow",
		.description = "A workflow run with its input, output, who "
		    "started it and how, and every step: status, attempt, "
		    "tool, result, times, and gates with their approvals.",
		.input_schema = S_IN("\"workflow_id\":" S_ID("the run's id"),
		    "\"workflow_id\""),
		.output_schema = S_OUT(
		    "\"id\":{\"type\":\"integer\"},"
		    "\"name\":{\"type\":\"string\"},"
		    "\"status\":{\"type\":\"string\"},"
		    "\"steps\":{\"type\":\"array\"}",
		    "\"id\",\"name\",\"status\",\"steps\""),
		.readonly = 1,
		.cmd = "show --json",
		.args = {
			POS("workflow_id", ID)
		},
		.answer = tool_answer_json
	},
	{
		.name = "workflow_cancel",
		.title = "Cancel a workflow",
		.description = "Cancel a workflow run: its running steps are "
		    "stopped and the rest cancelled.  The comment goes to the "
		    "audit trail.",
		.input_schema = S_IN(
		    "\"workflow_id\":" S_ID("the run's id") ","
		    "\"comment\":" S_STR("why, for the audit trail"),
		    "\"workflow_id\""),
		.output_schema = S_OUT("\"workflow_id\":{\"type\":\"integer\"},"
		    S_MSG, "\"workflow_id\",\"message\""),
		.destructive = 1,
		.cmd = "cancel",
		.args = {
			OPT("comment", "-m", STR),
			POS("workflow_id", ID)
		},
		.answer = tool_answer_line,
		.echo = { "workflow_id" }
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
		.cmd = "gates --json",
		.answer = tool_answer_json,
		.key = "gates"
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
		.args = {
			POS("decision", VERB),
			OPT("comment", "-m", STR),
			POS("step_id", ID)
		},
		.answer = tool_answer_line,
		.echo = { "step_id", "decision" }
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
		.cmd = "complete",
		.args = {
			OPT("result", "--result", JSON),
			OPT("comment", "-m", STR),
			POS("step", STEP)
		},
		.answer = tool_answer_line
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
		.cmd = "fail",
		.args = {
			OPT("message", "-m", STR),
			POS("step", STEP)
		},
		.answer = tool_answer_line
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
		.cmd = "log",
		.args = {
			POS("step_id", ID)
		},
		.answer = tool_answer_text,
		.key = "log",
		.echo = { "step_id" }
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
		.cmd = "check --json",
		.args = {
			POS_FILE("flow", FILE, "flow.json")
		},
		.answer = tool_answer_check
	},
	{
		.name = "template_list",
		.title = "List templates",
		.description = "The stored templates: name, version, "
		    "description, declared inputs.",
		.input_schema = S_IN("", ""),
		.output_schema = S_LIST("templates"),
		.readonly = 1,
		.cmd = "template list --json",
		.answer = tool_answer_json,
		.key = "templates"
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
		.cmd = "template show --json",
		.args = {
			OPT("version", "--version", ID),
			POS("name", STR)
		},
		.answer = tool_answer_json
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
		.cmd = "template save",
		.args = {
			POS("name", STR),
			POS_FILE("document", DOC, "template.json")
		},
		.answer = tool_answer_saved,
		.echo = { "name" }
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
		.cmd = "template rm",
		.args = {
			POS("name", STR)
		},
		.answer = tool_answer_line,
		.echo = { "name" }
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

/*
 * Call a tool whose arguments fit its schema: its row's command line,
 * run, and the answer in the row's shape.
 */
void
mcp_tool_call(struct cli_ctx *ctx, const struct mcp_tool *t,
    const cJSON *args, struct mcp_answer *ans)
{
	struct mcp_call	 c;
	int		 one, two;

	memset(&c, 0, sizeof c);
	c.ctx = ctx;
	c.tool = t;
	c.args = args;
	c.ans = ans;
	if (t->either[0] != NULL) {
		/* A choice the schema cannot say. */
		one = cJSON_GetObjectItemCaseSensitive(args,
		    t->either[0]) != NULL;
		two = cJSON_GetObjectItemCaseSensitive(args,
		    t->either[1]) != NULL;
		if (one == two) {
			mcp_fail(ans, "arguments: give exactly one of %s and "
			    "%s", t->either[0], t->either[1]);
			return;
		}
	}
	if (tool_argv(&c) == 0)
		t->answer(&c);
	mcp_argv_free(&c.argv);
	mcp_tmp_free(&c.tmp);
}

/*
 * The command line of a call: the command's words, the options given,
 * then "--" and the positionals, so no argument can read as an option.
 * Arguments are read in the row's order; -1 when a document could not
 * be handed over (the answer says why).
 */
static int
tool_argv(struct mcp_call *c)
{
	const struct mcp_tool	*t = c->tool;
	const struct mcp_arg	*ar;
	const cJSON		*v;
	const char		*cmd = t->cmd;
	char			*val[MCP_MAXARGS];
	int			 i, n, npos = 0, rc = -1;

	memset(val, 0, sizeof val);
	for (n = 0; n < MCP_MAXARGS && t->args[n].key != NULL; n++) {
		ar = &t->args[n];
		if (ar->opt == NULL && ar->kind != MCP_ARG_VERB)
			npos++;
		v = cJSON_GetObjectItemCaseSensitive(c->args, ar->key);
		if (v == NULL)
			continue;
		if ((val[n] = tool_arg_value(c, ar, v)) == NULL)
			goto out;
		if (ar->cmd != NULL)
			cmd = ar->cmd;
	}
	tool_argv_words(&c->argv, cmd);
	for (i = 0; i < n; i++) {
		if (t->args[i].kind == MCP_ARG_VERB && val[i] != NULL)
			mcp_argv_add(&c->argv, val[i]);
	}
	for (i = 0; i < n; i++) {
		if (t->args[i].opt != NULL && val[i] != NULL) {
			mcp_argv_add(&c->argv, t->args[i].opt);
			mcp_argv_add(&c->argv, val[i]);
		}
	}
	if (npos > 0)
		mcp_argv_add(&c->argv, "--");
	for (i = 0; i < n; i++) {
		ar = &t->args[i];
		if (ar->opt == NULL && ar->kind != MCP_ARG_VERB &&
		    val[i] != NULL)
			mcp_argv_add(&c->argv, val[i]);
	}
	rc = 0;
out:
	for (i = 0; i < MCP_MAXARGS; i++)
		free(val[i]);
	return (rc);
}

/* Add a row's command ("template show --json") word by word. */
static void
tool_argv_words(struct mcp_argv *a, const char *words)
{
	char	*copy, *p, *w;

	if (words == NULL)
		return;
	p = copy = xstrdup(words);
	while ((w = strsep(&p, " ")) != NULL) {
		if (*w != '\0')
			mcp_argv_add(a, w);
	}
	free(copy);
}

/*
 * One argument (its type checked by the schema) as the text the command
 * takes; NULL after failing to hand a document over.
 */
static char *
tool_arg_value(struct mcp_call *c, const struct mcp_arg *ar, const cJSON *v)
{
	const char	*path;
	char		*s;

	switch (ar->kind) {
	case MCP_ARG_STEP:
		if (cJSON_IsString(v))
			return (xstrdup(v->valuestring));
		/* FALLTHROUGH */
	case MCP_ARG_ID:
		xasprintf(&s, "%" PRId64, cJSON_IsNumber(v) ?
		    (int64_t)v->valuedouble : (int64_t)0);
		return (s);
	case MCP_ARG_JSON:
		return (json_print(v));
	case MCP_ARG_FILE:
	case MCP_ARG_DOC:
		path = mcp_document(&c->tmp, c->args, ar->key, ar->file,
		    ar->kind == MCP_ARG_FILE, c->ans);
		return (path != NULL ? xstrdup(path) : NULL);
	case MCP_ARG_STR:
	case MCP_ARG_VERB:
		break;
	}
	return (xstrdup(cJSON_IsString(v) ? v->valuestring : ""));
}

/* The arguments a row's answer repeats, as given. */
static cJSON *
tool_echo(const struct mcp_call *c)
{
	const cJSON	*v;
	cJSON		*o;
	int		 i;

	o = cJSON_CreateObject();
	for (i = 0; i < MCP_MAXECHO && c->tool->echo[i] != NULL; i++) {
		v = cJSON_GetObjectItemCaseSensitive(c->args,
		    c->tool->echo[i]);
		if (v != NULL)
			cJSON_AddItemToObject(o, c->tool->echo[i],
			    cJSON_Duplicate(v, 1));
	}
	return (o);
}

/* A command printing JSON; an array is answered as {key: array}. */
static void
tool_answer_json(struct mcp_call *c)
{
	mcp_exec_json(c->ctx, &c->argv, &c->tmp, c->tool->key, c->ans);
}

/* A command printing one line: {"message"}, the echoed arguments. */
static void
tool_answer_line(struct mcp_call *c)
{
	mcp_exec_line(c->ctx, &c->argv, &c->tmp, c->ans, tool_echo(c));
}

/* A save: its line, and the version the line ends with. */
static void
tool_answer_saved(struct mcp_call *c)
{
	struct mcp_answer	*ans = c->ans;
	const char		*msg, *v;

	tool_answer_line(c);
	/* "saved template NAME version N" */
	msg = mcp_str(ans->structured, "message");
	if (msg != NULL && (v = strrchr(msg, ' ')) != NULL) {
		cJSON_AddNumberToObject(ans->structured, "version",
		    strtod(v + 1, NULL));
		free(ans->text);
		ans->text = json_print(ans->structured);
	}
}

/* A command whose whole output is the answer, as the string key. */
static void
tool_answer_text(struct mcp_call *c)
{
	struct mcp_run	 r;
	cJSON		*o;

	mcp_run_cli(c->ctx, &c->argv, &r);
	if (r.rc != 0) {
		if (r.err[0] != '\0')
			mcp_fail(c->ans, "%s", r.err);
		else
			mcp_fail(c->ans, "%s failed", c->tool->cmd);
		mcp_run_free(&r);
		return;
	}
	o = tool_echo(c);
	cJSON_AddStringToObject(o, c->tool->key, r.out);
	mcp_run_free(&r);
	mcp_done(c->ans, o);
}

/* check --json: a flow with problems is an answer, not a failure. */
static void
tool_answer_check(struct mcp_call *c)
{
	cJSON	*j;

	if (mcp_exec(c->ctx, &c->argv, &c->tmp, c->ans, &j) != 0)
		return;
	if (j == NULL || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		mcp_fail(c->ans, "the check's answer is not JSON");
		return;
	}
	free(c->ans->text);
	c->ans->text = NULL;
	mcp_done(c->ans, j);
}

/* A run started: its id, and its name and status as show has them. */
static void
tool_answer_started(struct mcp_call *c)
{
	struct mcp_answer	*ans = c->ans;
	struct mcp_argv		 a = { NULL, 0 };
	struct mcp_run		 r;
	const char		*s;
	cJSON			*o, *show = NULL;
	char			*why, *msg;
	long long		 id;
	int			 rc;

	mcp_run_cli(c->ctx, &c->argv, &r);
	why = mcp_untemp(r.err, c->tmp.dir);
	id = strtoll(r.out, NULL, 10);
	rc = r.rc;
	mcp_run_free(&r);
	if (rc != 0 || id <= 0) {
		mcp_fail(ans, "%s", *why != '\0' ? why : "the run did not "
		    "start");
		free(why);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "workflow_id", (double)id);
	xasprintf(&msg, "%lld", id);
	mcp_argv_add(&a, "show");
	mcp_argv_add(&a, "--json");
	mcp_argv_add(&a, "--");
	mcp_argv_add(&a, msg);
	free(msg);
	mcp_run_cli(c->ctx, &a, &r);
	mcp_argv_free(&a);
	if (r.rc == 0)
		show = json_parse_or_null(r.out);
	mcp_run_free(&r);
	if ((s = mcp_str(show, "name")) != NULL)
		cJSON_AddStringToObject(o, "name", s);
	s = mcp_str(show, "status");
	cJSON_AddStringToObject(o, "status", s != NULL ? s : "unknown");
	cJSON_Delete(show);
	xasprintf(&msg, "started workflow %lld", id);
	cJSON_AddStringToObject(o, "message", msg);
	free(msg);
	free(ans->text);
	ans->text = why;
	mcp_warnings(ans, o);
	mcp_done(ans, o);
}
