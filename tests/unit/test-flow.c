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
 * test-flow.c: parsing, checking and template documents.  Valid flows use
 * every field of SPEC section 3 and come out with the right structs;
 * malformed ones give an error at the expected path and line:col; template
 * inputs are applied by flow_doc_input; the files under tests/data are
 * run through the same code when TESTS_DATA names them.
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static const char *full_flow =
    "{\n"
    "  \"start\": {\n"
    "    \"name\": \"probe\", \"description\": \"look first\",\n"
    "    \"run\": [\"curl\", \"-s\", \"{{input.url}}\"],\n"
    "    \"host\": \"web1\", \"cwd\": \"/srv\",\n"
    "    \"env\": {\"A\": \"1\", \"B_2\": \"two\"},\n"
    "    \"timeout\": \"90s\", \"on_interrupt\": \"ask\", \"max_visits\": 7,\n"
    "    \"retry\": {\"max_attempts\": 4, \"backoff\": [\"1s\", 2, \"1m\"]},\n"
    "    \"attempt\": 1,\n"
    "    \"branch\": [\n"
    "      {\"if\": \"result.ok == true\", \"then\": \"fan\"},\n"
    "      {\"else\": \"approve\"}\n"
    "    ]\n"
    "  },\n"
    "  \"fan\": {\"shell\": \"true\", \"parallel\": [\"a\", \"b\"]},\n"
    "  \"a\": {\"tool\": \"echo\",\n"
    "    \"args\": {\"n\": 1, \"s\": \"{{steps.probe.result}}\"},\n"
    "    \"join\": \"j\"},\n"
    "  \"b\": {\"tool\": \"sleep\", \"args\": {\"seconds\": 0},\n"
    "        \"retry\": {\"base\": \"2s\", \"factor\": 3, \"max\": \"1m\",\n"
    "          \"jitter\": 0.5},\n"
    "        \"join\": \"j\"},\n"
    "  \"j\": {\"tool\": \"noop\", \"join_policy\": 2,\n"
    "    \"next\": \"approve\"},\n"
    "  \"approve\": {\"tool\": null, \"gate\": {\"message\": \"go?\",\n"
    "    \"approvers\": [\"alice\", \"@ops\"], \"quorum\": 2,\n"
    "    \"allow_self\": false,\n"
    "    \"timeout\": \"1h\", \"on_timeout\": \"end\"}, \"next\": \"end\"},\n"
    "  \"end\": {\"done\": true, \"join_policy\": \"all_success\"}\n"
    "}\n";

/* A malformed document and where its first error must be. */
static const struct {
	const char	*what;
	const char	*text;
	const char	*first;		/* substring of the first error */
} bad[] = {
	{ "syntax", "{\n  \"start\": {}\n  \"x\": 1\n}", "t.json:3:3: " },
	{ "not an object", "[1]", "t.json:1:1: a flow must be a JSON object" },
	{ "no steps", "{}", "t.json:1:1: a flow needs at least one step" },
	{ "two transitions", "{\"a\": {\"tool\": \"noop\",\n"
	  "\"next\": \"a\", \"done\": true}}",
	  "t.json:2:22: $.a.done: \"done\" cannot be used with \"next\"" },
	{ "unknown next", "{\n\"start\": {\"next\": \"deplyo\"},\n"
	  "\"deploy\": {}}",
	  "t.json:2:19: $.start.next: unknown step \"deplyo\" (did you mean "
	  "\"deploy\"?)" },
	{ "odd key path", "{\"start\": {\"next\": \"a.b\"}, \"a.b\": "
	  "{\"timeout\": \"x\"}}",
	  "t.json:1:47: $[\"a.b\"].timeout: expected a number" },
	{ "array element", "{\"start\": {\"parallel\": [\"x\", 5]}}",
	  "t.json:1:30: $.start.parallel[1]: expected a string, got a number" },
	{ "template path", "{\"inputs\": {}, \"flow\": {\"start\": "
	  "{\"next\": \"zz\"}}}",
	  "t.json:1:43: $.flow.start.next: unknown step \"zz\"" },
	{ "missing member places at parent", "{\"start\": {\"tool\": "
	  "\"nope\"}}", "t.json:1:20: $.start.tool: unknown tool \"nope\"" },
	{ "escaped key", "{\"start\": {\"next\": \"q\\\"k\"}, \"q\\\"k\": "
	  "{\"done\": 1}}",
	  "$[\"q\\\"k\"].done: expected true or false, got a number" },
	{ "unicode key", "{\"start\": {\"next\": \"\\u00e9\"}, \"\xc3\xa9\": "
	  "{\"done\": 1}}", "t.json:1:46: $[\"\xc3\xa9\"].done: expected" },
	{ "bad condition", "{\"start\": {\"branch\": [{\"if\": \"x\", "
	  "\"then\": \"start\"}]}}",
	  "t.json:1:30: $.start.branch[0].if: column 1: unknown name \"x\"" },
	{ "invalid utf-8", "{\"start\": {\"description\": \"\xff\"}}",
	  "t.json:1:28: invalid UTF-8" },
	{ "duplicate key", "{\"start\": {}, \"start\": {}}",
	  "t.json:1:11: $.start: duplicate key \"start\"" },
};

/* Parse a document and return its diagnostics formatted, one a line. */
static char *
diags_text(const char *text, const struct flow_tools *tools,
    struct flow_doc **docp)
{
	struct flow_diags	*d;
	struct flow_diag	*fd;
	struct flow_doc		*doc;
	struct buf		 b;
	char			*s;

	d = flow_diags_create();
	doc = flow_doc_parse(text, strlen(text), tools, d);
	buf_init(&b);
	TAILQ_FOREACH(fd, d, entry) {
		s = flow_diag_format(fd, "t.json");
		buf_printf(&b, "%s\n", s);
		free(s);
	}
	flow_diags_free(d);
	if (docp != NULL)
		*docp = doc;
	else
		flow_doc_free(doc);
	return (buf_release(&b));
}

/* Check the structs built from full_flow. */
static void
test_full(void)
{
	struct flow_doc		*doc;
	struct flow		*f;
	struct flow_step	*st;
	char			*out;
	int			 i;

	out = diags_text(full_flow, NULL, &doc);
	tap_is(out, "", "the full flow has no diagnostics");
	free(out);
	if (!tap_ok(doc != NULL && doc->flow != NULL, "full flow parsed"))
		return;
	f = doc->flow;
	tap_ok(!doc->is_template && doc->inputs_json == NULL, "not a template");
	tap_is_int((long long)f->nsteps, 7, "seven steps");
	tap_is_int(f->start, 0, "start is the first step");
	st = &f->steps[0];
	tap_is(st->key, "start", "key");
	tap_is(st->name, "probe", "name");
	tap_is(st->description, "look first", "description");
	tap_is_int(st->exec, KIND_RUN, "run step");
	tap_ok(st->nrun == 3 && strcmp(st->run[2], "{{input.url}}") == 0,
	    "run argv");
	tap_is(st->host, "web1", "host");
	tap_is(st->cwd, "/srv", "cwd");
	tap_ok(st->nenv == 2 && strcmp(st->env[1].key, "B_2") == 0 &&
	    strcmp(st->env[1].value, "two") == 0, "env");
	tap_is_int(st->timeout, 90000, "timeout");
	tap_is_int(st->on_interrupt, FLOW_INTERRUPT_ASK, "on_interrupt");
	tap_is_int(st->max_visits, 7, "max_visits");
	tap_ok(st->retry.set && st->retry.max_attempts == 4 &&
	    st->retry.nbackoff == 3 && st->retry.backoff[1] == 2000 &&
	    st->retry.backoff[2] == 60000, "retry list form");
	tap_ok(st->nbranch == 2 && st->branch[0].cond != NULL &&
	    st->branch[0].target == 1 && st->branch[1].cond_src == NULL &&
	    st->branch[1].target == flow_find(f, "approve"), "branch");
	tap_is(st->args_json, "{}", "args default to {}");
	st = &f->steps[1];
	tap_is_int(st->exec, KIND_SHELL, "shell step");
	tap_ok(st->nparallel == 2 && st->parallel_targets[0] == 2 &&
	    st->parallel_targets[1] == 3, "parallel");
	st = &f->steps[2];
	tap_is_int(st->exec, KIND_TOOL, "tool step");
	tap_is(st->tool, "echo", "tool name");
	tap_is(st->args_json, "{\"n\":1,\"s\":\"{{steps.probe.result}}\"}",
	    "args kept as compact JSON");
	tap_is_int(st->join_target, 4, "join target");
	st = &f->steps[3];
	tap_ok(st->retry.set && st->retry.base == 2000 &&
	    st->retry.factor == 3 && st->retry.max == 60000 &&
	    st->retry.jitter == 0.5 && st->retry.nbackoff == 0,
	    "retry exponential form");
	st = &f->steps[4];
	tap_ok(st->join_policy == FLOW_JOIN_COUNT && st->join_count == 2,
	    "join_policy count");
	st = &f->steps[5];
	tap_is_int(st->exec, KIND_GATE, "tool null is a gate");
	tap_is(st->gate.message, "go?", "gate message");
	tap_ok(st->gate.napprovers == 2 &&
	    strcmp(st->gate.approvers[1], "@ops") == 0, "gate approvers");
	tap_ok(st->gate.quorum == 2 && st->gate.allow_self == 0 &&
	    st->gate.timeout == 3600000, "gate quorum, allow_self, timeout");
	i = flow_find(f, "end");
	tap_ok(st->gate.on_timeout_target == i && i == 6, "on_timeout step");
	st = &f->steps[6];
	tap_ok(st->done && st->exec == KIND_GATE &&
	    st->retry.set == 0 && st->timeout == -1 &&
	    st->gate.quorum == 1 && st->gate.allow_self == -1 &&
	    st->max_visits == FLOW_DEFAULT_MAX_VISITS &&
	    st->on_interrupt == FLOW_INTERRUPT_RETRY, "defaults");
	tap_is_int(flow_find(f, "probe"), 0, "find by name");
	tap_is_int(flow_find(f, "start"), 0, "find by key");
	tap_is_int(flow_find(f, "nothing"), -1, "find nothing");
	flow_doc_free(doc);
}

/* Every error of a document, not just the first, with warnings. */
static void
test_every_error(void)
{
	char	*out;

	out = diags_text("{\n"
	    "  \"start\": {\"tool\": \"echo\", \"nxet\": \"a\", \"timeout\": "
	    "\"5q\"},\n"
	    "  \"a\": {\"run\": \"x\", \"join\": \"b\", \"attempt\": 3},\n"
	    "  \"b\": {\"args\": {\"x\": \"{{bogus}}\"}}\n"
	    "}\n", NULL, NULL);
	tap_is(out,
	    "t.json:2:37: $.start.nxet: unknown field \"nxet\" (did "
	    "you mean \"next\"?)\n"
	    "t.json:2:53: $.start.timeout: unknown unit \"q\" (use ms, s, m, "
	    "h, d)\n"
	    "t.json:3:16: $.a.run: expected an array of strings, got a "
	    "string\n"
	    "t.json:3:8: warning: $.a: unreachable step (nothing leads here "
	    "from \"start\")\n"
	    "t.json:4:8: warning: $.b: unreachable step (nothing leads here "
	    "from \"start\")\n"
	    "t.json:3:29: $.a.join: join with no enclosing parallel fan-out\n"
	    "t.json:4:23: $.b.args.x: unknown reference \"{{bogus}}\" (use "
	    "input, steps, workflow or args)\n",
	    "every problem, in order, with places");
	free(out);
}

/* Malformed documents: the first error names the place. */
static void
test_bad(void)
{
	struct flow_diags	*d;
	struct flow_doc		*doc;
	char			*first;
	size_t			 i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d = flow_diags_create();
		doc = flow_doc_parse(bad[i].text, strlen(bad[i].text), NULL, d);
		first = flow_diags_first_error(d, "t.json");
		if (!tap_ok(first != NULL && strstr(first, bad[i].first) !=
		    NULL, "bad: %s", bad[i].what))
			printf("#   got:  %s\n#   want: %s\n",
			    first ? first : "(null)", bad[i].first);
		free(first);
		flow_doc_free(doc);
		flow_diags_free(d);
	}
}

/* Template documents and their inputs. */
static void
test_template(void)
{
	static const char	*text = "{\n"
	    "  \"description\": \"restart\",\n"
	    "  \"sla\": \"2h\",\n"
	    "  \"inputs\": {\n"
	    "    \"host\": {\"required\": true, \"description\": \"where\"},\n"
	    "    \"service\": {\"default\": \"nginx\"},\n"
	    "    \"opts\": {\"default\": {\"n\": [1, 2]}}\n"
	    "  },\n"
	    "  \"flow\": {\"start\": {\"tool\": \"echo\", \"args\": "
	    "{\"h\": \"{{input.host}}\"}}}\n"
	    "}\n";
	static const struct {
		const char	*given;
		const char	*want;		/* JSON, or NULL */
		const char	*cause;
	} runs[] = {
		{ "{\"host\": \"web1\"}", "{\"host\":\"web1\",\"service\":"
		  "\"nginx\",\"opts\":{\"n\":[1,2]}}", NULL },
		{ "{\"host\": \"web1\", \"service\": \"db\"}", "{\"host\":"
		  "\"web1\",\"service\":\"db\",\"opts\":{\"n\":[1,2]}}", NULL },
		{ "{\"service\": \"db\"}", NULL, "missing required input "
		  "\"host\": where (give it with -i host=VALUE)" },
		{ NULL, NULL, "missing required input \"host\": where (give "
		  "it with -i host=VALUE)" },
		{ "{\"hots\": \"web1\"}", NULL, "unknown input \"hots\" "
		  "(declared: host, service, opts)" },
		{ "[1]", NULL, "input must be a JSON object, not an array" },
	};
	struct flow_doc	*doc;
	cJSON		*given;
	char		*out, *cause, *s, what[128];
	size_t		 i;

	out = diags_text(text, NULL, &doc);
	tap_is(out, "", "template without diagnostics");
	free(out);
	if (!tap_ok(doc != NULL && doc->is_template, "is a template"))
		return;
	tap_is(doc->description, "restart", "template description");
	tap_is_int((long long)doc->ninputs, 3, "three inputs");
	tap_ok(doc->inputs[0].required && doc->inputs[0].default_json == NULL &&
	    strcmp(doc->inputs[0].description, "where") == 0, "host input");
	tap_is(doc->inputs[1].default_json, "\"nginx\"", "service default");
	tap_is(doc->flow_json, "{\"start\":{\"tool\":\"echo\",\"args\":"
	    "{\"h\":\"{{input.host}}\"}}}", "flow_json is the inner flow");
	tap_ok(doc->inputs_json != NULL &&
	    strncmp(doc->inputs_json, "{\"host\":", 8) == 0, "inputs_json");
	for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		given = runs[i].given ? cJSON_Parse(runs[i].given) : NULL;
		cause = NULL;
		s = flow_doc_input(doc, given, &cause);
		snprintf(what, sizeof what, "input %s", runs[i].given ?
		    runs[i].given : "NULL");
		if (runs[i].want != NULL)
			tap_is(s, runs[i].want, what);
		else
			tap_is(cause, runs[i].cause, what);
		free(s);
		free(cause);
		cJSON_Delete(given);
	}
	flow_doc_free(doc);

	/* A plain flow takes any input. */
	out = diags_text("{\"start\": {}}", NULL, &doc);
	free(out);
	given = cJSON_Parse("{\"anything\": 1}");
	s = flow_doc_input(doc, given, &cause);
	tap_is(s, "{\"anything\":1}", "a plain flow accepts any keys");
	free(s);
	cJSON_Delete(given);
	given = cJSON_CreateObject();
	out = xmalloc(300 * 1024);
	memset(out, 'x', 300 * 1024 - 1);
	out[300 * 1024 - 1] = '\0';
	cJSON_AddStringToObject(given, "big", out);
	free(out);
	cause = NULL;
	s = flow_doc_input(doc, given, &cause);
	tap_ok(s == NULL && cause != NULL &&
	    strcmp(cause, "input larger than 256 KiB") == 0, "input limit");
	free(cause);
	cJSON_Delete(given);
	flow_doc_free(doc);

	out = diags_text("{\"inputs\": {\"a\": {\"required\": true, "
	    "\"default\": 1, \"bogus\": 2}}, \"flow\": {\"start\": {}}}",
	    NULL, NULL);
	tap_ok(strstr(out, "t.json:1:60: $.inputs.a.bogus: unknown field "
	    "\"bogus\" in an input") != NULL &&
	    strstr(out, "warning: $.inputs.a: a required input with a "
	    "default") != NULL, "input field errors and warnings");
	free(out);
}

/* Tools catalogs. */
static void
test_tools(void)
{
	static const char	*cat = "{\n"
	    "  \"greet\": {\"run\": [\"echo\", \"{{args.name}}\"], "
	    "\"timeout\": \"10s\", \"description\": \"hi\"},\n"
	    "  \"script\": {\"shell\": \"echo $SLUICE_ARG_X\", \"host\": "
	    "\"db1\", \"env\": {\"K\": \"v\"}, \"retry\": {\"max_attempts\": "
	    "2}},\n"
	    "  \"echo\": {\"run\": [\"true\"]},\n"
	    "  \"both\": {\"run\": [\"a\"], \"shell\": \"b\"},\n"
	    "  \"none\": {\"description\": \"x\"}\n"
	    "}\n";
	struct flow_diags	*d;
	struct flow_tools	*t;
	const struct flow_tool	*tl;
	char			*first;
	char			*out;

	d = flow_diags_create();
	t = flow_tools_parse(NULL, 0, d);
	tap_ok(t != NULL && t->ntools == 4 && flow_diags_errors(d) == 0,
	    "built-ins alone");
	tap_ok(flow_tools_find(t, "sleep") != NULL &&
	    flow_tools_find(t, "sleep")->builtin, "sleep is built in");
	tap_ok(flow_tools_find(NULL, "noop") != NULL &&
	    flow_tools_find(NULL, "greet") == NULL, "find without catalog");
	flow_tools_free(t);
	flow_diags_free(d);

	d = flow_diags_create();
	t = flow_tools_parse(cat, strlen(cat), d);
	tap_is_int(flow_diags_errors(d), 3, "three catalog errors");
	first = flow_diags_first_error(d, "tools.json");
	tap_is(first, "tools.json:4:11: $.echo: \"echo\" is a built-in tool "
	    "and cannot be redefined", "built-in clash");
	free(first);
	tl = flow_tools_find(t, "greet");
	tap_ok(tl != NULL && !tl->builtin && tl->nrun == 2 &&
	    tl->timeout == 10000 && strcmp(tl->description, "hi") == 0,
	    "run tool");
	tl = flow_tools_find(t, "script");
	tap_ok(tl != NULL && tl->shell != NULL && tl->nenv == 1 &&
	    strcmp(tl->host, "db1") == 0 && tl->retry.max_attempts == 2,
	    "shell tool");
	tl = flow_tools_find(t, "echo");
	tap_ok(tl != NULL && tl->builtin, "echo stays built in");

	out = diags_text("{\"start\": {\"tool\": \"greet\", \"next\": \"b\"}, "
	    "\"b\": {\"tool\": \"gret\"}}", t, NULL);
	tap_is(out, "t.json:1:57: $.b.tool: unknown tool \"gret\" (did you "
	    "mean \"greet\"?)\n", "catalog tools are known");
	free(out);
	flow_tools_free(t);
	flow_diags_free(d);
}

/* Catalog entries naming an MCP server's tool, and their errors. */
static void
test_tools_mcp(void)
{
	static const char	*good = "{\"m\": {\"mcp\": {\"run\": "
	    "[\"node\", \"s.js\", \"{{args.mode}}\"], \"env\": {\"B\": "
	    "\"2\"}}, \"tool\": \"echo\", \"env\": {\"A\": \"1\"}, "
	    "\"timeout\": \"30s\"}}";
	static const struct {
		const char	*text;
		const char	*want;
	} wrong[] = {
		{ "{\"m\": {\"mcp\": {\"run\": [\"s\"]}}}",
		  "$.m: an MCP tool needs \"tool\": the name of the server's "
		  "tool to call" },
		{ "{\"m\": {\"run\": [\"s\"], \"tool\": \"t\"}}",
		  "$.m.tool: \"tool\" names an MCP server's tool: it needs "
		  "\"mcp\"" },
		{ "{\"m\": {\"run\": [\"s\"], \"mcp\": {\"run\": "
		  "[\"s\"]}, \"tool\": \"t\"}}",
		  "$.m: a tool has \"run\" or \"mcp\", not both" },
		{ "{\"m\": {\"mcp\": {\"env\": {}}, \"tool\": \"t\"}}",
		  "$.m.mcp: an MCP server needs \"run\": the command that "
		  "starts it" },
		{ "{\"m\": {\"mcp\": [\"s\"], \"tool\": \"t\"}}",
		  "$.m.mcp: expected an object with \"run\" (the server's "
		  "command), got an array" },
		{ "{\"m\": {\"mcp\": {\"run\": []}, \"tool\": \"t\"}}",
		  "$.m.mcp.run: expected a non-empty array of strings" },
		{ "{\"m\": {\"mcp\": {\"run\": [\"s\"]}, \"tool\": \"t\", "
		  "\"host\": \"db1\"}}",
		  "$.m.host: an MCP server runs on the engine's machine: "
		  "\"host\" is not supported with \"mcp\"" },
		{ "{\"m\": {\"mcp\": {\"run\": [\"s\"]}, \"tool\": 3}}",
		  "$.m.tool: expected a string, got a number" },
	};
	struct flow_diags	*d;
	struct flow_diag	*fd;
	struct flow_tools	*t;
	const struct flow_tool	*tl;
	char			*s, *out;
	size_t			 i;

	d = flow_diags_create();
	t = flow_tools_parse(good, strlen(good), d);
	tl = flow_tools_find(t, "m");
	tap_ok(t != NULL && flow_diags_errors(d) == 0 &&
	    flow_diags_warnings(d) == 0, "an MCP entry parses clean");
	tap_ok(tl != NULL && tl->mcp && strcmp(tl->mcp_tool, "echo") == 0 &&
	    tl->nrun == 3 && strcmp(tl->run[2], "{{args.mode}}") == 0 &&
	    tl->shell == NULL && tl->timeout == 30000,
	    "its server's command and tool");
	tap_ok(tl != NULL && tl->nenv == 2 && strcmp(tl->env[0].key, "A") == 0 &&
	    strcmp(tl->env[1].key, "B") == 0, "the server's env after the "
	    "entry's own");
	out = diags_text("{\"start\": {\"tool\": \"m\", \"host\": "
	    "\"db1\"}}", t, NULL);
	tap_is(out, "t.json:1:33: $.start.host: tool \"m\" is an MCP "
	    "server's, which runs on the engine's machine: \"host\" is not "
	    "supported\n", "a step cannot send an MCP tool to a host");
	free(out);
	flow_tools_free(t);
	flow_diags_free(d);

	for (i = 0; i < nitems(wrong); i++) {
		d = flow_diags_create();
		t = flow_tools_parse(wrong[i].text, strlen(wrong[i].text), d);
		fd = TAILQ_FIRST(d);
		s = fd != NULL ? flow_diag_format(fd, NULL) : xstrdup("");
		if (!tap_ok(t != NULL && flow_diags_errors(d) == 1 &&
		    strstr(s, wrong[i].want) != NULL, "mcp catalog error %zu",
		    i))
			printf("#   got:  %s\n#   want: %s\n", s, wrong[i].want);
		free(s);
		flow_tools_free(t);
		flow_diags_free(d);
	}
}

/* Paths, formatting and locating. */
static void
test_diags(void)
{
	struct flow_diags	*d;
	struct flow_diag	*fd;
	char			*s;
	const char		*text = "{\"a\": [1, {\"b c\": {\"d\": 2}}]}";

	d = flow_diags_create();
	flow_diags_add(d, FLOW_ERROR, "$.a[1][\"b c\"].d", "deep %d", 1);
	flow_diags_add(d, FLOW_WARNING, "$.a[1].missing", "parent");
	flow_diags_add(d, FLOW_ERROR, "$.a[7]", "past the end");
	flow_diags_add(d, FLOW_ERROR, "$", "root");
	flow_diags_add_at(d, 3, 9, "expected '%c'", ',');
	flow_diags_add(d, FLOW_ERROR, "$.x", "unplaced");
	tap_is_int(flow_diags_errors(d), 5, "five errors");
	tap_is_int(flow_diags_warnings(d), 1, "one warning");
	fd = TAILQ_LAST(d, flow_diags);
	s = flow_diag_format(fd, "f");
	tap_is(s, "f: $.x: unplaced", "unplaced format");
	free(s);
	s = flow_diag_format(fd, NULL);
	tap_is(s, "$.x: unplaced", "unplaced format without file");
	free(s);
	flow_diags_locate(d, text, strlen(text));
	fd = TAILQ_FIRST(d);
	s = flow_diag_format(fd, "f");
	tap_is(s, "f:1:25: $.a[1][\"b c\"].d: deep 1", "odd key located");
	free(s);
	fd = TAILQ_NEXT(fd, entry);
	s = flow_diag_format(fd, "f");
	tap_is(s, "f:1:11: warning: $.a[1].missing: parent",
	    "missing member: its parent");
	free(s);
	s = flow_diag_format(fd, NULL);
	tap_is(s, "1:11: warning: $.a[1].missing: parent", "no file name");
	free(s);
	fd = TAILQ_NEXT(fd, entry);
	tap_ok(fd->line == 1 && fd->col == 7, "index past the end: array");
	fd = TAILQ_NEXT(fd, entry);
	s = flow_diag_format(fd, "f");
	tap_is(s, "f:1:1: root", "root located");
	free(s);
	fd = TAILQ_NEXT(fd, entry);
	s = flow_diag_format(fd, "f");
	tap_is(s, "f:3:9: expected ','", "syntax error format");
	free(s);
	s = flow_diags_first_error(d, "f");
	tap_is(s, "f:1:25: $.a[1][\"b c\"].d: deep 1", "first error");
	free(s);
	flow_diags_free(d);
	d = flow_diags_create();
	flow_diags_add(d, FLOW_WARNING, "$", "only a warning");
	tap_ok(flow_diags_first_error(d, "f") == NULL, "no first error");
	flow_diags_free(d);
}

/* Limits and hostile documents. */
static void
test_limits(void)
{
	struct flow_diags	*d;
	struct flow_doc		*doc;
	struct flow		*f;
	struct buf		 b;
	char			*first;
	size_t			 i;

	buf_init(&b);
	buf_puts(&b, "{\"start\": {}");
	for (i = 0; i < SLUICE_MAX_STEPS + 5; i++)
		buf_printf(&b, ", \"s%zu\": {}", i);
	buf_puts(&b, "}");
	d = flow_diags_create();
	f = flow_parse(b.data, b.len, d);
	first = flow_diags_first_error(d, NULL);
	tap_ok(first != NULL && strstr(first, "too many steps (max 1000)"),
	    "too many steps");
	free(first);
	flow_free(f);
	flow_diags_free(d);

	buf_reset(&b);
	buf_puts(&b, "{\"start\": {\"description\": \"");
	for (i = 0; i < SLUICE_MAX_DOCUMENT; i++)
		buf_putc(&b, 'x');
	buf_puts(&b, "\"}}");
	d = flow_diags_create();
	doc = flow_doc_parse(b.data, b.len, NULL, d);
	first = flow_diags_first_error(d, "f");
	tap_ok(doc == NULL && first != NULL &&
	    strcmp(first, "f:1:1: document larger than 1 MiB") == 0,
	    "document limit");
	free(first);
	flow_diags_free(d);

	buf_reset(&b);
	buf_puts(&b, "{\"start\": {\"args\": {\"x\": ");
	for (i = 0; i < 900; i++)
		buf_puts(&b, "{\"k\": ");
	buf_puts(&b, "\"{{steps.zz.result}}\"");
	for (i = 0; i < 900; i++)
		buf_putc(&b, '}');
	buf_puts(&b, "}}}");
	d = flow_diags_create();
	doc = flow_doc_parse(b.data, b.len, NULL, d);
	first = flow_diags_first_error(d, NULL);
	tap_ok(first != NULL && strstr(first, "unknown step \"zz\"") != NULL &&
	    strncmp(first, "1:", 2) == 0, "a reference 900 levels deep");
	free(first);
	flow_doc_free(doc);
	flow_diags_free(d);
	buf_free(&b);

	d = flow_diags_create();
	tap_ok(flow_parse("\"x\"", 3, d) == NULL && flow_diags_errors(d) == 1,
	    "flow_parse: a string is not a flow");
	flow_diags_free(d);
	d = flow_diags_create();
	tap_ok(flow_from_json(NULL, "$", d) == NULL, "flow_from_json: NULL");
	flow_diags_free(d);
}

/* The default waits have one definition, which a bare retry object takes. */
static void
test_default_backoff(void)
{
	struct flow_diags	*d;
	struct flow		*f;
	const char		*text =
	    "{\"a\": {\"run\": [\"true\"], "
	    "\"retry\": {\"max_attempts\": 2}}}";

	tap_ok(FLOW_DEFAULT_NBACKOFF == 3 && flow_default_backoff[0] == 5000 &&
	    flow_default_backoff[1] == 30000 &&
	    flow_default_backoff[2] == 60000, "default backoff 5s, 30s, 60s");
	d = flow_diags_create();
	f = flow_parse(text, strlen(text), d);
	tap_ok(f != NULL && f->steps[0].retry.set &&
	    f->steps[0].retry.max_attempts == 2 &&
	    f->steps[0].retry.nbackoff == FLOW_DEFAULT_NBACKOFF &&
	    memcmp(f->steps[0].retry.backoff, flow_default_backoff,
	    sizeof flow_default_backoff) == 0,
	    "a retry without backoff takes the default waits");
	flow_free(f);
	flow_diags_free(d);
}

/* Run a directory of documents; bad ones against their .expect line. */
static void
test_dir(const char *data, const char *sub, const char *tools_file)
{
	struct flow_diags	*d, *td;
	struct flow_tools	*tools = NULL;
	struct flow_doc		*doc;
	struct dirent		*de;
	DIR			*dir;
	char			*path, *text, *expect, *first, *cause, *nl;
	size_t			 len, n;
	int			 count = 0;

	td = flow_diags_create();
	if (tools_file != NULL) {
		xasprintf(&path, "%s/%s", data, tools_file);
		text = file_read(path, SLUICE_MAX_DOCUMENT, &len, &cause);
		tools = flow_tools_parse(text, len, td);
		tap_ok(tools != NULL && flow_diags_errors(td) == 0 &&
		    flow_diags_warnings(td) == 0, "%s parses", tools_file);
		free(text);
		free(path);
	}
	xasprintf(&path, "%s/%s", data, sub);
	dir = opendir(path);
	free(path);
	if (dir == NULL) {
		tap_ok(0, "open %s/%s", data, sub);
		flow_diags_free(td);
		return;
	}
	while ((de = readdir(dir)) != NULL) {
		n = strlen(de->d_name);
		if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0 ||
		    strcmp(de->d_name, "tools.json") == 0)
			continue;
		xasprintf(&path, "%s/%s/%s", data, sub, de->d_name);
		cause = NULL;
		text = file_read(path, 4 * SLUICE_MAX_DOCUMENT, &len, &cause);
		free(cause);
		d = flow_diags_create();
		doc = flow_doc_parse(text != NULL ? text : "", len, tools, d);
		first = flow_diags_first_error(d, de->d_name);
		if (strcmp(sub, "bad") == 0) {
			path[strlen(path) - 5] = '\0';
			xasprintf(&cause, "%s.expect", path);
			expect = file_read(cause, 4096, &n, &cause);
			if (expect != NULL &&
			    (nl = strchr(expect, '\n')) != NULL)
				*nl = '\0';
			if (!tap_ok(expect != NULL && first != NULL &&
			    strstr(first, expect) != NULL, "%s/%s", sub,
			    de->d_name))
				printf("#   got:  %s\n#   want: %s\n",
				    first ? first : "(null)",
				    expect ? expect : "(no .expect)");
			free(expect);
			free(cause);
		} else if (!tap_ok(first == NULL &&
		    (strcmp(sub, "seeds") == 0 ||
		    flow_diags_warnings(d) == 0), "%s/%s is valid", sub,
		    de->d_name))
			printf("#   got: %s\n", first);
		count++;
		free(first);
		flow_doc_free(doc);
		flow_diags_free(d);
		free(text);
		free(path);
	}
	closedir(dir);
	tap_ok(count > 0, "%s: %d documents", sub, count);
	flow_tools_free(tools);
	flow_diags_free(td);
}

int
main(void)
{
	const char	*data;

	test_full();
	test_every_error();
	test_bad();
	test_template();
	test_tools();
	test_tools_mcp();
	test_diags();
	test_limits();
	test_default_backoff();
	if ((data = getenv("TESTS_DATA")) != NULL) {
		test_dir(data, "seeds", "seeds/tools.json");
		test_dir(data, "good", NULL);
		test_dir(data, "bad", NULL);
	} else
		tap_ok(1, "# SKIP TESTS_DATA is not set");
	return (tap_done());
}
