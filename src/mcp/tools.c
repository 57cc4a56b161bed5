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
 * command's own one-line reason.  A flow or template given as a JSON
 * object is written to a private temporary file for the command to read,
 * as a person would save one.
 * The reference engine's eight tools map onto these: workflow_create,
 * _list, _get, _cancel; step_ready is gate_decide; template list, save
 * and delete.  Wait steps are finished with step_complete and step_fail.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp-int.h"

static void	tool_workflow_create(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_workflow_list(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_workflow_get(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_workflow_cancel(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_gate_list(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_gate_decide(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_step_log(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_flow_check(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_template_list(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_template_get(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_template_save(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_template_delete(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_step_complete(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);
static void	tool_step_fail(struct cli_ctx *, const cJSON *,
		    struct mcp_answer *);

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
		    "\"input\":{\"type\":\"object\",\"description\":"
		    "\"the run's input (template inputs)\"},"
		    "\"name\":" S_STR("the run's name") ","
		    "\"at\":" S_STR("start later: when"), ""),
		.output_schema = S_OUT(
		    "\"workflow_id\":{\"type\":\"integer\"},"
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
		    "scheduled, late, completed, failed, cancelled).",
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
		.input_schema = S_IN("\"workflow_id\":" S_ID("the run's id"),
		    "\"workflow_id\""),
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
		    "\"comment\":" S_STR("why, for the audit trail"),
		    "\"workflow_id\""),
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
		    "version (the newest, or the one asked for).",
		.input_schema = S_IN(
		    "\"name\":" S_STR("the template's name") ","
		    "\"version\":" S_ID("an older version"), "\"name\""),
		.output_schema = S_OUT("\"name\":{\"type\":\"string\"},"
		    "\"version\":{\"type\":\"integer\"}", "\"name\",\"version\""),
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

/* workflow_create: run FLOW, or template run NAME. */
static void
tool_workflow_create(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	struct mcp_tmp	 t;
	const cJSON	*input;
	const char	*tmpl, *path = NULL, *s;
	struct mcp_run	 r;
	cJSON		*o, *show;
	char		*cause = NULL, *end, *why;
	long long	 id;

	memset(&t, 0, sizeof t);
	tmpl = mcp_str(args, "template");
	if ((tmpl != NULL) == (cJSON_GetObjectItem(args, "flow") != NULL)) {
		mcp_fail(ans, "arguments: give exactly one of template and "
		    "flow");
		return;
	}
	if (tmpl == NULL && (path = mcp_document(&t, args, "flow",
	    "flow.json", ans)) == NULL)
		goto out;
	if (tmpl != NULL) {
		mcp_argv_add(&a, "template");
		mcp_argv_add(&a, "run");
	} else
		mcp_argv_add(&a, "run");
	if ((input = cJSON_GetObjectItem(args, "input")) != NULL) {
		if ((s = mcp_tmp_write(&t, "input.json", input,
		    &cause)) == NULL) {
			mcp_fail(ans, "%s", cause);
			free(cause);
			goto out;
		}
		mcp_argv_add(&a, "--input");
		mcp_argv_add(&a, s);
	}
	if ((s = mcp_str(args, "name")) != NULL) {
		mcp_argv_add(&a, "--name");
		mcp_argv_add(&a, s);
	}
	if ((s = mcp_str(args, "at")) != NULL) {
		mcp_argv_add(&a, "--at");
		mcp_argv_add(&a, s);
	}
	mcp_argv_add(&a, "--");
	mcp_argv_add(&a, tmpl != NULL ? tmpl : path);
	mcp_run_cli(ctx, &a, &r);
	mcp_argv_free(&a);
	why = mcp_untemp(r.err, t.dir);
	id = strtoll(r.out, &end, 10);
	if (r.rc != 0 || id <= 0) {
		mcp_fail(ans, "%s", *why != '\0' ? why : "the run did not "
		    "start");
		free(why);
		mcp_run_free(&r);
		goto out;
	}
	mcp_run_free(&r);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "workflow_id", (double)id);
	/* Its name and status as the database has them now. */
	show = NULL;
	mcp_argv_add(&a, "show");
	mcp_argv_add(&a, "--json");
	mcp_argv_add(&a, "--");
	xasprintf(&cause, "%lld", id);
	mcp_argv_add(&a, cause);
	free(cause);
	mcp_run_cli(ctx, &a, &r);
	mcp_argv_free(&a);
	if (r.rc == 0)
		show = json_parse_or_null(r.out);
	mcp_run_free(&r);
	if ((s = mcp_str(show, "name")) != NULL)
		cJSON_AddStringToObject(o, "name", s);
	s = mcp_str(show, "status");
	cJSON_AddStringToObject(o, "status", s != NULL ? s : "unknown");
	cJSON_Delete(show);
	xasprintf(&cause, "started workflow %lld", id);
	cJSON_AddStringToObject(o, "message", cause);
	free(cause);
	free(ans->text);
	ans->text = why;
	mcp_warnings(ans, o);
	mcp_done(ans, o);
out:
	mcp_argv_free(&a);
	mcp_tmp_free(&t);
}

/* workflow_list: list --json [--status S] [--limit N]. */
static void
tool_workflow_list(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	const char	*s;

	mcp_argv_add(&a, "list");
	mcp_argv_add(&a, "--json");
	if ((s = mcp_str(args, "status")) != NULL) {
		mcp_argv_add(&a, "--status");
		mcp_argv_add(&a, s);
	}
	if (cJSON_GetObjectItem(args, "limit") != NULL) {
		mcp_argv_add(&a, "--limit");
		mcp_argv_id(&a, args, "limit");
	}
	mcp_exec_json(ctx, &a, "workflows", ans);
}

/* workflow_get: show --json ID. */
static void
tool_workflow_get(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };

	mcp_argv_add(&a, "show");
	mcp_argv_add(&a, "--json");
	mcp_argv_add(&a, "--");
	mcp_argv_id(&a, args, "workflow_id");
	mcp_exec_json(ctx, &a, NULL, ans);
}

/* workflow_cancel: cancel [-m TEXT] ID. */
static void
tool_workflow_cancel(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	const char	*s;
	cJSON		*extra;

	mcp_argv_add(&a, "cancel");
	if ((s = mcp_str(args, "comment")) != NULL) {
		mcp_argv_add(&a, "-m");
		mcp_argv_add(&a, s);
	}
	mcp_argv_add(&a, "--");
	mcp_argv_id(&a, args, "workflow_id");
	extra = cJSON_CreateObject();
	cJSON_AddItemToObject(extra, "workflow_id", cJSON_Duplicate(
	    cJSON_GetObjectItem(args, "workflow_id"), 1));
	mcp_exec_line(ctx, &a, NULL, ans, extra);
}

/* gate_list: gates --json. */
static void
tool_gate_list(struct cli_ctx *ctx, const cJSON *args, struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };

	(void)args;
	mcp_argv_add(&a, "gates");
	mcp_argv_add(&a, "--json");
	mcp_exec_json(ctx, &a, "gates", ans);
}

/* gate_decide: approve|reject [-m TEXT] STEP. */
static void
tool_gate_decide(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	const char	*s, *decision;
	cJSON		*extra;

	decision = mcp_str(args, "decision");
	mcp_argv_add(&a, decision);
	if ((s = mcp_str(args, "comment")) != NULL) {
		mcp_argv_add(&a, "-m");
		mcp_argv_add(&a, s);
	}
	mcp_argv_add(&a, "--");
	mcp_argv_id(&a, args, "step_id");
	extra = cJSON_CreateObject();
	cJSON_AddItemToObject(extra, "step_id", cJSON_Duplicate(
	    cJSON_GetObjectItem(args, "step_id"), 1));
	cJSON_AddStringToObject(extra, "decision", decision);
	mcp_exec_line(ctx, &a, NULL, ans, extra);
}

/* step_log: log STEP, the whole text. */
static void
tool_step_log(struct cli_ctx *ctx, const cJSON *args, struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	struct mcp_run	 r;
	cJSON		*o;

	mcp_argv_add(&a, "log");
	mcp_argv_add(&a, "--");
	mcp_argv_id(&a, args, "step_id");
	mcp_run_cli(ctx, &a, &r);
	mcp_argv_free(&a);
	if (r.rc != 0) {
		mcp_fail(ans, "%s", r.err[0] != '\0' ? r.err : "log failed");
		mcp_run_free(&r);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "step_id", cJSON_Duplicate(
	    cJSON_GetObjectItem(args, "step_id"), 1));
	cJSON_AddStringToObject(o, "log", r.out);
	mcp_run_free(&r);
	mcp_done(ans, o);
}

/* flow_check: check --json FILE; a flow with problems is an answer. */
static void
tool_flow_check(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	struct mcp_tmp	 t;
	const char	*path;
	cJSON		*j;

	memset(&t, 0, sizeof t);
	if ((path = mcp_document(&t, args, "flow", "flow.json", ans)) != NULL) {
		mcp_argv_add(&a, "check");
		mcp_argv_add(&a, "--json");
		mcp_argv_add(&a, "--");
		mcp_argv_add(&a, path);
		if (mcp_exec(ctx, &a, &t, ans, &j) == 0) {
			if (j == NULL || !cJSON_IsObject(j)) {
				cJSON_Delete(j);
				mcp_fail(ans, "the check's answer is not "
				    "JSON");
			} else {
				free(ans->text);
				ans->text = NULL;
				mcp_done(ans, j);
			}
		}
	}
	mcp_tmp_free(&t);
}

/* template_list: template list --json. */
static void
tool_template_list(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };

	(void)args;
	mcp_argv_add(&a, "template");
	mcp_argv_add(&a, "list");
	mcp_argv_add(&a, "--json");
	mcp_exec_json(ctx, &a, "templates", ans);
}

/* template_get: template show --json [--version N] NAME. */
static void
tool_template_get(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };

	mcp_argv_add(&a, "template");
	mcp_argv_add(&a, "show");
	mcp_argv_add(&a, "--json");
	if (cJSON_GetObjectItem(args, "version") != NULL) {
		mcp_argv_add(&a, "--version");
		mcp_argv_id(&a, args, "version");
	}
	mcp_argv_add(&a, "--");
	mcp_argv_add(&a, mcp_str(args, "name"));
	mcp_exec_json(ctx, &a, NULL, ans);
}

/* template_save: template save NAME FILE. */
static void
tool_template_save(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	struct mcp_tmp	 t;
	const char	*path, *msg, *v;
	cJSON		*extra;

	memset(&t, 0, sizeof t);
	path = mcp_document(&t, args, "document", "template.json", ans);
	if (path != NULL) {
		mcp_argv_add(&a, "template");
		mcp_argv_add(&a, "save");
		mcp_argv_add(&a, mcp_str(args, "name"));
		mcp_argv_add(&a, path);
		extra = cJSON_CreateObject();
		cJSON_AddStringToObject(extra, "name", mcp_str(args, "name"));
		mcp_exec_line(ctx, &a, &t, ans, extra);
		/* "saved template NAME version N" */
		msg = mcp_str(ans->structured, "message");
		if (msg != NULL && (v = strrchr(msg, ' ')) != NULL) {
			cJSON_AddNumberToObject(ans->structured, "version",
			    strtod(v + 1, NULL));
			free(ans->text);
			ans->text = json_print(ans->structured);
		}
	}
	mcp_tmp_free(&t);
}

/* template_delete: template rm NAME. */
static void
tool_template_delete(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	cJSON		*extra;

	mcp_argv_add(&a, "template");
	mcp_argv_add(&a, "rm");
	mcp_argv_add(&a, mcp_str(args, "name"));
	extra = cJSON_CreateObject();
	cJSON_AddStringToObject(extra, "name", mcp_str(args, "name"));
	mcp_exec_line(ctx, &a, NULL, ans, extra);
}

/* step_complete: complete [--result JSON] [-m TEXT] STEP. */
static void
tool_step_complete(struct cli_ctx *ctx, const cJSON *args,
    struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };
	const cJSON	*result;
	const char	*s;
	char		*text;

	mcp_argv_add(&a, "complete");
	if ((result = cJSON_GetObjectItem(args, "result")) != NULL) {
		text = json_print(result);
		mcp_argv_add(&a, "--result");
		mcp_argv_add(&a, text);
		free(text);
	}
	if ((s = mcp_str(args, "comment")) != NULL) {
		mcp_argv_add(&a, "-m");
		mcp_argv_add(&a, s);
	}
	mcp_argv_add(&a, "--");
	mcp_argv_step(&a, args);
	mcp_exec_line(ctx, &a, NULL, ans, NULL);
}

/* step_fail: fail -m TEXT STEP. */
static void
tool_step_fail(struct cli_ctx *ctx, const cJSON *args, struct mcp_answer *ans)
{
	struct mcp_argv	 a = { NULL, 0 };

	mcp_argv_add(&a, "fail");
	mcp_argv_add(&a, "-m");
	mcp_argv_add(&a, mcp_str(args, "message"));
	mcp_argv_add(&a, "--");
	mcp_argv_step(&a, args);
	mcp_exec_line(ctx, &a, NULL, ans, NULL);
}
