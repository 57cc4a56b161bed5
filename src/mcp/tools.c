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
 * (call.c runs it in this process), so a tool asks the engine exactly as
 * the command does and fails with the command's own one-line reason.  A
 * flow or template given as a JSON object is written to a private
 * temporary file for the command to read, as a person would save one.
 * The reference engine's eight tools map onto these: workflow_create,
 * _list, _get, _cancel; step_ready is gate_decide; template list, save
 * and delete.  Wait steps are finished with step_complete and step_fail.
 */

#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "cli/cli.h"
#include "mcp/mcp-int.h"

/* A private directory for documents handed to a command as files. */
struct mcp_tmp {
	char	*dir;
	char	*paths[3];
	int	 n;
};

static const char	*mcp_tmp_write(struct mcp_tmp *, const char *,
			    const cJSON *, char **);
static void		 mcp_tmp_free(struct mcp_tmp *);
static void		 mcp_fail(struct mcp_answer *, const char *, ...)
			    printflike(2, 3);
static int		 mcp_exec(struct cli_ctx *, struct mcp_argv *,
			    struct mcp_tmp *, struct mcp_answer *, cJSON **);
static void		 mcp_done(struct mcp_answer *, cJSON *);
static void		 mcp_argv_id(struct mcp_argv *, const cJSON *,
			    const char *);
static const char	*mcp_str(const cJSON *, const char *);
static const char	*mcp_document(struct mcp_tmp *, const cJSON *,
			    const char *, const char *, struct mcp_answer *);
static void		 mcp_argv_step(struct mcp_argv *, const cJSON *);
static char		*mcp_untemp(const char *, const char *);
static void		 mcp_warnings(struct mcp_answer *, cJSON *);
static void		 mcp_exec_line(struct cli_ctx *, struct mcp_argv *,
			    struct mcp_tmp *, struct mcp_answer *, cJSON *);
static void		 mcp_exec_json(struct cli_ctx *, struct mcp_argv *,
			    const char *, struct mcp_answer *);

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

/* A failed call: isError with the reason as its text. */
static void
mcp_fail(struct mcp_answer *ans, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	free(ans->text);
	xvasprintf(&ans->text, fmt, ap);
	va_end(ap);
	cJSON_Delete(ans->structured);
	ans->structured = NULL;
	ans->error = 1;
}

/* A call that worked: the structured content, and its JSON as the text. */
static void
mcp_done(struct mcp_answer *ans, cJSON *o)
{
	ans->structured = o;
	free(ans->text);
	ans->text = json_print(o);
	ans->error = 0;
}

/*
 * Write a document into the call's private directory as name; its path,
 * or NULL with *cause.
 */
static const char *
mcp_tmp_write(struct mcp_tmp *t, const char *name, const cJSON *doc,
    char **cause)
{
	const char	*tmp;
	char		*path, *text;
	FILE		*f;
	int		 bad;

	if (t->dir == NULL) {
		if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
			tmp = "/tmp";
		xasprintf(&t->dir, "%s/sluice-mcp.XXXXXX", tmp);
		if (mkdtemp(t->dir) == NULL) {
			xasprintf(cause, "cannot make a temporary directory "
			    "in %s: %s", tmp, strerror(errno));
			free(t->dir);
			t->dir = NULL;
			return (NULL);
		}
	}
	xasprintf(&path, "%s/%s", t->dir, name);
	if (cJSON_IsString(doc))
		text = xstrdup(doc->valuestring);
	else
		text = json_print_pretty(doc);
	if ((f = fopen(path, "w")) == NULL) {
		xasprintf(cause, "cannot write %s: %s", path, strerror(errno));
		free(text);
		free(path);
		return (NULL);
	}
	bad = fputs(text, f) == EOF;
	bad |= fputc('\n', f) == EOF;
	bad |= fclose(f) != 0;
	free(text);
	if (bad) {
		xasprintf(cause, "cannot write %s", path);
		unlink(path);
		free(path);
		return (NULL);
	}
	t->paths[t->n++] = path;
	return (path);
}

/* Remove the call's temporary files and directory. */
static void
mcp_tmp_free(struct mcp_tmp *t)
{
	int	i;

	for (i = 0; i < t->n; i++) {
		unlink(t->paths[i]);
		free(t->paths[i]);
	}
	if (t->dir != NULL)
		rmdir(t->dir);
	free(t->dir);
	memset(t, 0, sizeof *t);
}

/* A string argument, or NULL. */
static const char *
mcp_str(const cJSON *args, const char *key)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/* Add an integer argument (checked by the schema) to argv. */
static void
mcp_argv_id(struct mcp_argv *a, const cJSON *args, const char *key)
{
	const cJSON	*v;
	char		 n[32];

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	snprintf(n, sizeof n, "%" PRId64, cJSON_IsNumber(v) ?
	    (int64_t)v->valuedouble : (int64_t)0);
	mcp_argv_add(a, n);
}

/*
 * A document argument as a file path: a string is a path (flow) or JSON
 * text (template), an object is written out as name.  NULL after failing.
 */
static const char *
mcp_document(struct mcp_tmp *t, const cJSON *args, const char *key,
    const char *name, struct mcp_answer *ans)
{
	const cJSON	*v;
	const char	*path;
	char		*cause = NULL;
	struct stat	 sb;

	v = cJSON_GetObjectItemCaseSensitive(args, key);
	if (cJSON_IsString(v) && strcmp(name, "flow.json") == 0) {
		if (stat(v->valuestring, &sb) != 0) {
			mcp_fail(ans, "arguments.%s: %s: %s", key,
			    v->valuestring, strerror(errno));
			return (NULL);
		}
		return (v->valuestring);
	}
	if ((path = mcp_tmp_write(t, name, v, &cause)) == NULL) {
		mcp_fail(ans, "%s", cause);
		free(cause);
	}
	return (path);
}

/* Replace every "DIR/" in s with nothing: temporary paths read as names. */
static char *
mcp_untemp(const char *s, const char *dir)
{
	struct buf	 b;
	const char	*p;
	size_t		 dl;

	if (dir == NULL)
		return (xstrdup(s));
	buf_init(&b);
	dl = strlen(dir);
	while ((p = strstr(s, dir)) != NULL && p[dl] == '/') {
		buf_add(&b, s, (size_t)(p - s));
		s = p + dl + 1;
	}
	buf_puts(&b, s);
	return (buf_release(&b));
}

/*
 * Run a command for a tool.  On failure the answer says why and this
 * returns -1; else 0 with the command's stdout parsed as JSON in *json
 * when json is given (NULL when it is not JSON), its warnings kept.
 */
static int
mcp_exec(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_tmp *t,
    struct mcp_answer *ans, cJSON **json)
{
	struct mcp_run	 r;
	char		*why;

	mcp_run_cli(ctx, a, &r);
	mcp_argv_free(a);
	why = mcp_untemp(r.err, t != NULL ? t->dir : NULL);
	if (json != NULL && (*json = json_parse_or_null(r.out)) != NULL &&
	    cJSON_IsNull(*json)) {
		/* No output (or not JSON) reads as null: none. */
		cJSON_Delete(*json);
		*json = NULL;
	}
	if (r.rc != 0 && (json == NULL || *json == NULL)) {
		if (*why == '\0')
			mcp_fail(ans, "the command failed (exit %d)", r.rc);
		else
			mcp_fail(ans, "%s", why);
		free(why);
		mcp_run_free(&r);
		return (-1);
	}
	free(ans->text);
	ans->text = why;	/* warnings, for mcp_warnings */
	if (json == NULL) {
		/* The command's one line, e.g. "approved step 7 (deploy)". */
		ans->structured = cJSON_CreateObject();
		r.out[strcspn(r.out, "\n")] = '\0';
		cJSON_AddStringToObject(ans->structured, "message", r.out);
	}
	mcp_run_free(&r);
	return (0);
}

/* Move a command's warnings (held in the answer's text) into o. */
static void
mcp_warnings(struct mcp_answer *ans, cJSON *o)
{
	cJSON	*w;
	char	*line, *p, *next;

	if (ans->text == NULL || ans->text[0] == '\0')
		return;
	w = cJSON_AddArrayToObject(o, "warnings");
	for (p = ans->text; p != NULL; p = next) {
		if ((next = strchr(p, '\n')) != NULL)
			*next++ = '\0';
		line = p;
		if (strncmp(line, "warning: ", 9) == 0)
			line += 9;
		cJSON_AddItemToArray(w, cJSON_CreateString(line));
	}
}

/* A command whose answer is one line: {"message", ...} plus extras. */
static void
mcp_exec_line(struct cli_ctx *ctx, struct mcp_argv *a, struct mcp_tmp *t,
    struct mcp_answer *ans, cJSON *extra)
{
	cJSON	*o, *e;

	if (mcp_exec(ctx, a, t, ans, NULL) != 0) {
		cJSON_Delete(extra);
		return;
	}
	o = ans->structured;
	ans->structured = NULL;
	while (extra != NULL && (e = extra->child) != NULL)
		cJSON_AddItemToObject(o, e->string,
		    cJSON_DetachItemViaPointer(extra, e));
	cJSON_Delete(extra);
	mcp_warnings(ans, o);
	mcp_done(ans, o);
}

/* A command printing JSON; an array is answered as {key: array}. */
static void
mcp_exec_json(struct cli_ctx *ctx, struct mcp_argv *a, const char *key,
    struct mcp_answer *ans)
{
	cJSON	*j, *o;

	if (mcp_exec(ctx, a, NULL, ans, &j) != 0)
		return;
	if (j == NULL) {
		mcp_fail(ans, "the command's answer is not JSON");
		return;
	}
	if (key != NULL) {
		o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, key, j);
	} else
		o = j;
	mcp_warnings(ans, o);
	mcp_done(ans, o);
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

/* A wait step's id or WORKFLOW:STEP, as the command takes it. */
static void
mcp_argv_step(struct mcp_argv *a, const cJSON *args)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(args, "step");
	if (cJSON_IsString(v))
		mcp_argv_add(a, v->valuestring);
	else
		mcp_argv_id(a, args, "step");
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
