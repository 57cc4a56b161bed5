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
 * tools.c: the tools catalog (tools.json) and the built-in tools.  The
 * catalog maps a tool name to {"run": [...]}, {"shell": "..."} or an MCP
 * server's tool, {"mcp": {"run": [...], "env": {...}}, "tool": "NAME"},
 * with optional description, timeout, retry, host (not for MCP) and env;
 * built-ins are always there and cannot be redefined.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

/* Writable arrays because struct flow_tool holds char *, not const. */
static char tools_noop[] = "noop";
static char tools_noop_d[] = "do nothing; the result is null";
static char tools_echo[] = "echo";
static char tools_echo_d[] = "the result is the step's args";
static char tools_sleep[] = "sleep";
static char tools_sleep_d[] = "wait {\"seconds\": N}";
static char tools_fail[] = "fail";
static char tools_fail_d[] = "fail with {\"message\": \"...\"}";

static const struct flow_tool tools_builtin[] = {
	{ .name = tools_noop, .description = tools_noop_d, .builtin = 1,
	  .timeout = -1 },
	{ .name = tools_echo, .description = tools_echo_d, .builtin = 1,
	  .timeout = -1 },
	{ .name = tools_sleep, .description = tools_sleep_d, .builtin = 1,
	  .timeout = -1 },
	{ .name = tools_fail, .description = tools_fail_d, .builtin = 1,
	  .timeout = -1 },
};
#define TOOLS_NBUILTIN (sizeof tools_builtin / sizeof tools_builtin[0])

static const char *tools_known[] = {
	"run", "shell", "description", "timeout", "retry", "host", "env",
	"mcp", "tool", "heartbeat"
};
#define TOOLS_NKNOWN (sizeof tools_known / sizeof tools_known[0])

static const char *tools_mcp_known[] = { "run", "env" };
#define TOOLS_MCP_NKNOWN (sizeof tools_mcp_known / sizeof tools_mcp_known[0])

static void	tools_add_builtins(struct flow_tools *);
static void	tools_entry(struct flow_tools *, const cJSON *, const char *,
		    struct flow_diags *);
static void	tools_field(struct flow_tool *, const cJSON *, const char *,
		    struct flow_diags *);
static void	tools_mcp(struct flow_tool *, const cJSON *, const char *,
		    struct flow_diags *);
static void	tools_check(struct flow_tool *, const char *,
		    struct flow_diags *);
static void	tools_tool_free(struct flow_tool *);

/* Copy the built-ins to the front of the list. */
static void
tools_add_builtins(struct flow_tools *t)
{
	size_t	i;

	t->tools = xcalloc(TOOLS_NBUILTIN, sizeof *t->tools);
	for (i = 0; i < TOOLS_NBUILTIN; i++) {
		t->tools[i].name = xstrdup(tools_builtin[i].name);
		t->tools[i].description =
		    xstrdup(tools_builtin[i].description);
		t->tools[i].builtin = 1;
		t->tools[i].timeout = -1;
	}
	t->ntools = TOOLS_NBUILTIN;
}

/* One member of a catalog entry. */
static void
tools_field(struct flow_tool *tl, const cJSON *c, const char *path,
    struct flow_diags *d)
{
	const char	*why, *hint;
	char		*s;

	if (strcmp(c->string, "run") == 0) {
		flow_strings_free(tl->run, tl->nrun);
		tl->run = flow_json_strings(c, path, &tl->nrun, d);
		if (tl->run == NULL)
			tl->run = xcalloc(1, sizeof *tl->run);
	} else if (strcmp(c->string, "shell") == 0) {
		if ((tl->shell = flow_json_string(c, path, 1, d)) == NULL)
			tl->shell = xstrdup("");
	} else if (strcmp(c->string, "description") == 0) {
		if ((s = flow_json_string(c, path, 0, d)) != NULL) {
			free(tl->description);
			tl->description = s;
		}
	} else if (strcmp(c->string, "host") == 0) {
		if ((s = flow_json_string(c, path, 1, d)) != NULL) {
			free(tl->host);
			tl->host = s;
		}
	} else if (strcmp(c->string, "timeout") == 0) {
		if (flow_duration_json(c, &tl->timeout, &why) != 0) {
			flow_diags_add(d, FLOW_ERROR, path, "%s", why);
			tl->timeout = -1;
		} else if (tl->timeout <= 0) {
			flow_diags_add(d, FLOW_ERROR, path,
			    "timeout must be above zero");
			tl->timeout = -1;
		}
	} else if (strcmp(c->string, "heartbeat") == 0) {
		if (flow_duration_json(c, &tl->heartbeat, &why) != 0) {
			flow_diags_add(d, FLOW_ERROR, path, "%s", why);
			tl->heartbeat = 0;
		} else if (tl->heartbeat <= 0) {
			flow_diags_add(d, FLOW_ERROR, path,
			    "heartbeat must be above zero");
			tl->heartbeat = 0;
		}
	} else if (strcmp(c->string, "retry") == 0)
		flow_retry_parse(c, path, &tl->retry, d);
	else if (strcmp(c->string, "mcp") == 0)
		tools_mcp(tl, c, path, d);
	else if (strcmp(c->string, "tool") == 0) {
		/* A bad one is reported here, and "" keeps it from twice. */
		if ((s = flow_json_string(c, path, 1, d)) == NULL)
			s = xstrdup("");
		free(tl->mcp_tool);
		tl->mcp_tool = s;
	}
	else if (strcmp(c->string, "env") == 0)
		flow_env_parse(c, path, &tl->env, &tl->nenv, d);
	else {
		hint = flow_suggest(c->string, tools_known, TOOLS_NKNOWN);
		flow_diags_add(d, FLOW_WARNING, path,
		    "unknown field \"%s\"%s%s%s", c->string,
		    hint ? " (did you mean \"" : "", hint ? hint : "",
		    hint ? "\"?)" : "");
	}
}

/*
 * "mcp": the server's command (its run, interpolated like a tool's) and
 * environment, which tools_check puts after the entry's own env.
 */
static void
tools_mcp(struct flow_tool *tl, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	const cJSON	*c;
	const char	*hint;
	char		*sub;

	tl->mcp = 1;
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "expected an object with "
		    "\"run\" (the server's command), got %s",
		    json_type_name(v));
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		if (strcmp(c->string, "run") == 0) {
			flow_strings_free(tl->run, tl->nrun);
			tl->run = flow_json_strings(c, sub, &tl->nrun, d);
		} else if (strcmp(c->string, "env") == 0)
			flow_env_parse(c, sub, &tl->mcp_env, &tl->nmcp_env, d);
		else {
			hint = flow_suggest(c->string, tools_mcp_known,
			    TOOLS_MCP_NKNOWN);
			flow_diags_add(d, FLOW_WARNING, sub,
			    "unknown field \"%s\"%s%s%s", c->string,
			    hint ? " (did you mean \"" : "", hint ? hint : "",
			    hint ? "\"?)" : "");
		}
		free(sub);
	}
	if (cJSON_GetObjectItemCaseSensitive(v, "run") == NULL)
		flow_diags_add(d, FLOW_ERROR, path, "an MCP server needs "
		    "\"run\": the command that starts it");
	if (tl->run == NULL)
		tl->run = xcalloc(1, sizeof *tl->run);
}

/*
 * What a parsed entry must hold, in one of its three forms.  An MCP
 * server's env joins the entry's own here, after it, so it wins.
 */
static void
tools_check(struct flow_tool *tl, const char *path, struct flow_diags *d)
{
	char	*sub;
	size_t	 i;

	if (tl->nmcp_env > 0) {
		tl->env = xreallocarray(tl->env, tl->nenv + tl->nmcp_env,
		    sizeof *tl->env);
		for (i = 0; i < tl->nmcp_env; i++)
			tl->env[tl->nenv++] = tl->mcp_env[i];
		tl->nmcp_env = 0;
	}
	free(tl->mcp_env);
	tl->mcp_env = NULL;
	if (tl->mcp) {
		if (tl->shell != NULL)
			flow_diags_add(d, FLOW_ERROR, path, "a tool has "
			    "\"mcp\" or \"shell\", not both");
		if (tl->mcp_tool == NULL)
			flow_diags_add(d, FLOW_ERROR, path, "an MCP tool needs "
			    "\"tool\": the name of the server's tool to call");
		if (tl->host != NULL) {
			sub = flow_path_key(path, "host");
			flow_diags_add(d, FLOW_ERROR, sub, "an MCP server runs "
			    "on the engine's machine: \"host\" is not "
			    "supported with \"mcp\"");
			free(sub);
		}
		return;
	}
	if (tl->mcp_tool != NULL && *tl->mcp_tool != '\0') {
		sub = flow_path_key(path, "tool");
		flow_diags_add(d, FLOW_ERROR, sub, "\"tool\" names an MCP "
		    "server's tool: it needs \"mcp\"");
		free(sub);
	}
	if (tl->run != NULL && tl->shell != NULL)
		flow_diags_add(d, FLOW_ERROR, path, "a tool has \"run\" or "
		    "\"shell\", not both");
	else if (tl->run == NULL && tl->shell == NULL)
		flow_diags_add(d, FLOW_ERROR, path,
		    "a tool needs \"run\", \"shell\" or \"mcp\"");
}

/* Parse one catalog entry. */
static void
tools_entry(struct flow_tools *t, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	struct flow_tool	*tl;
	const cJSON		*c;
	char			*sub;
	size_t			 i;

	for (i = 0; i < t->ntools; i++) {
		if (strcmp(t->tools[i].name, v->string) != 0)
			continue;
		if (t->tools[i].builtin)
			flow_diags_add(d, FLOW_ERROR, path, "\"%s\" is a "
			    "built-in tool and cannot be redefined",
			    v->string);
		return;		/* a duplicate key is reported elsewhere */
	}
	if (*v->string == '\0') {
		flow_diags_add(d, FLOW_ERROR, path,
		    "a tool name must not be empty");
		return;
	}
	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, path, "a tool must be an object "
		    "with \"run\", \"shell\" or \"mcp\", got %s", json_type_name(v));
		return;
	}
	t->tools = xreallocarray(t->tools, t->ntools + 1, sizeof *t->tools);
	tl = &t->tools[t->ntools++];
	memset(tl, 0, sizeof *tl);
	tl->name = xstrdup(v->string);
	tl->timeout = -1;
	/* "run" and "mcp" both set run: a tool with both is refused. */
	if (cJSON_GetObjectItemCaseSensitive(v, "run") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(v, "mcp") != NULL) {
		flow_diags_add(d, FLOW_ERROR, path, "a tool has \"run\" or "
		    "\"mcp\", not both (an MCP server's command goes in "
		    "mcp.run)");
	}
	for (c = v->child; c != NULL; c = c->next) {
		sub = flow_path_key(path, c->string);
		tools_field(tl, c, sub, d);
		free(sub);
	}
	tools_check(tl, path, d);
}

/*
 * Parse a catalog; NULL text gives the built-ins alone.  NULL when the
 * text is not JSON or not an object; otherwise problems are in diags.
 */
struct flow_tools *
flow_tools_parse(const char *text, size_t len, struct flow_diags *d)
{
	struct flow_tools	*t;
	const cJSON		*c;
	cJSON			*v;
	char			*path;

	v = NULL;
	if (text != NULL && (v = flow_json_document(text, len,
	    "tools catalog", "tools", d)) == NULL)
		return (NULL);
	t = xcalloc(1, sizeof *t);
	tools_add_builtins(t);
	if (v == NULL)
		return (t);
	for (c = v->child; c != NULL; c = c->next) {
		path = flow_path_key("$", c->string);
		tools_entry(t, c, path, d);
		free(path);
	}
	flow_secret_check(v, NULL, d);
	cJSON_Delete(v);
	flow_diags_locate(d, text, len);
	return (t);
}

/* Find a tool; with no catalog, the built-ins are still found. */
const struct flow_tool *
flow_tools_find(const struct flow_tools *t, const char *name)
{
	size_t	i;

	if (name == NULL)
		return (NULL);
	if (t == NULL) {
		for (i = 0; i < TOOLS_NBUILTIN; i++) {
			if (strcmp(tools_builtin[i].name, name) == 0)
				return (&tools_builtin[i]);
		}
		return (NULL);
	}
	for (i = 0; i < t->ntools; i++) {
		if (strcmp(t->tools[i].name, name) == 0)
			return (&t->tools[i]);
	}
	return (NULL);
}

/* Free what one tool holds. */
static void
tools_tool_free(struct flow_tool *tl)
{
	free(tl->name);
	free(tl->description);
	flow_strings_free(tl->run, tl->nrun);
	free(tl->shell);
	free(tl->host);
	flow_env_free(tl->env, tl->nenv);
	flow_retry_free(&tl->retry);
	free(tl->mcp_tool);
}

/* Free a catalog. */
void
flow_tools_free(struct flow_tools *t)
{
	size_t	i;

	if (t == NULL)
		return;
	for (i = 0; i < t->ntools; i++)
		tools_tool_free(&t->tools[i]);
	free(t->tools);
	free(t);
}

/*
 * The first tool a step (a for-each's "do" included) names that the
 * catalog does not have, with that step's name in *step; or NULL.  For
 * refusing a run before anything is recorded rather than failing its step
 * later.
 */
const char *
flow_tools_missing(const struct flow *f, const struct flow_tools *t,
    const char **step)
{
	const struct flow_step	*st;
	size_t			 i;

	for (i = 0; i < f->nsteps; i++) {
		st = &f->steps[i];
		if (st->foreach != NULL && st->foreach->body != NULL)
			st = st->foreach->body;
		if (st->exec == KIND_TOOL &&
		    flow_tools_find(t, st->tool) == NULL) {
			*step = f->steps[i].name;
			return (st->tool);
		}
	}
	return (NULL);
}
