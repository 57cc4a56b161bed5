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
 * test-interp.c: {{...}} interpolation: a whole-string placeholder keeps its
 * JSON type, embedded ones render as text, missing ones become "", and
 * hostile input (huge strings, deep nesting, unterminated braces) is safe.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static const char *scope_text =
    "{\"input\": {\"host\": \"web1\", \"port\": 8080, \"on\": true,"
    "   \"off\": false, \"none\": null, \"obj\": {\"a\": [1, 2]},"
    "   \"list\": [\"x\", \"y\"], \"a.b\": \"dotted\", \"pi\": 3.5},"
    " \"steps\": {\"check\": {\"result\": {\"status\": \"ok\","
    "   \"n\": 5}, \"exit_code\": 0},"
    "   \"deploy.eu\": {\"result\": \"done\", \"exit_code\": 1}},"
    " \"workflow\": {\"id\": 17, \"name\": \"nightly\"},"
    " \"args\": {\"message\": \"hi there\"}}";

static const struct {
	const char	*in;		/* JSON */
	const char	*out;		/* compact JSON */
} values[] = {
	{ "\"{{input.port}}\"", "8080" },
	{ "\"{{ input.port }}\"", "8080" },
	{ "\"{{input.on}}\"", "true" },
	{ "\"{{input.off}}\"", "false" },
	{ "\"{{input.none}}\"", "null" },
	{ "\"{{input.obj}}\"", "{\"a\":[1,2]}" },
	{ "\"{{input.list}}\"", "[\"x\",\"y\"]" },
	{ "\"{{input.host}}\"", "\"web1\"" },
	{ "\"{{input.missing}}\"", "\"\"" },
	{ "\"{{nothing.at.all}}\"", "\"\"" },
	{ "\"{{input.host}}:{{input.port}}\"", "\"web1:8080\"" },
	{ "\"port {{input.port}}\"", "\"port 8080\"" },
	{ "\"on={{input.on}} none={{input.none}}\"",
	  "\"on=true none=null\"" },
	{ "\"obj={{input.obj}}\"", "\"obj={\\\"a\\\":[1,2]}\"" },
	{ "\"[{{input.missing}}]\"", "\"[]\"" },
	{ "\"pi={{input.pi}}\"", "\"pi=3.5\"" },
	{ "\"{{steps.check.result.status}}\"", "\"ok\"" },
	{ "\"{{steps.check.result.n}}\"", "5" },
	{ "\"{{steps.check.result}}\"", "{\"status\":\"ok\",\"n\":5}" },
	{ "\"{{steps.check.exit_code}}\"", "0" },
	{ "\"{{steps.deploy.eu.result}}\"", "\"done\"" },
	{ "\"{{steps.deploy.eu.exit_code}}\"", "1" },
	{ "\"{{input.a.b}}\"", "\"dotted\"" },
	{ "\"{{input.list.1}}\"", "\"y\"" },
	{ "\"{{input.obj.a.0}}\"", "1" },
	{ "\"{{workflow.id}}\"", "17" },
	{ "\"run {{workflow.id}} of {{workflow.name}}\"",
	  "\"run 17 of nightly\"" },
	{ "\"{{args.message}}\"", "\"hi there\"" },
	{ "\"{{input.host\"", "\"{{input.host\"" },
	{ "\"{{\"", "\"{{\"" },
	{ "\"}}{{\"", "\"}}{{\"" },
	{ "\"a {{input.host}} {{input.port\"", "\"a web1 {{input.port\"" },
	{ "\"{{{input.host}}}\"", "\"{web1}\"" },
	{ "\"{{}}\"", "\"\"" },
	{ "\"{ {input.host} }\"", "\"{ {input.host} }\"" },
	{ "\"{{input..host}}\"", "\"\"" },
	{ "\"plain\"", "\"plain\"" },
	{ "42", "42" },
	{ "null", "null" },
	{ "[\"{{input.port}}\", \"x{{input.port}}\", [\"{{input.on}}\"]]",
	  "[8080,\"x8080\",[true]]" },
	{ "{\"{{input.host}}\": \"{{input.host}}\", \"n\": {\"m\": "
	  "\"{{input.list}}\"}}",
	  "{\"{{input.host}}\":\"web1\",\"n\":{\"m\":[\"x\",\"y\"]}}" },
};

static const struct {
	const char	*in;
	const char	*out;
} texts[] = {
	{ "{{input.port}}", "8080" },
	{ "{{input.obj}}", "{\"a\":[1,2]}" },
	{ "{{input.none}}", "null" },
	{ "{{input.missing}}", "" },
	{ "--host={{ input.host }}", "--host=web1" },
	{ "{{steps.check.result.status}}/{{workflow.name}}", "ok/nightly" },
	{ "no placeholders", "no placeholders" },
	{ "{{unterminated", "{{unterminated" },
	{ "", "" },
};

/* Count placeholders and remember the last path and reference. */
struct refs_seen {
	int	 n;
	char	 path[128];
	char	 ref[128];
	int	 stop_at;
};

static int
refs_cb(const char *path, const char *ref, void *arg)
{
	struct refs_seen	*rs = arg;

	rs->n++;
	snprintf(rs->path, sizeof rs->path, "%s", path);
	snprintf(rs->ref, sizeof rs->ref, "%s", ref);
	return (rs->stop_at != 0 && rs->n >= rs->stop_at);
}

/*
 * The scope the engine and the console both build (flow/scope.c): input,
 * workflow, each finished step by key and by name, the latest row
 * winning; and the branch a step's outcome takes.
 */
static void
test_scope(void)
{
	static const char	 text[] =
	    "{\"probe\": {\"name\": \"Probe it\", \"run\": [\"true\"],"
	    "  \"next\": \"ask\"},"
	    " \"ask\": {\"name\": \"Go on\", \"tool\": null,"
	    "  \"gate\": {\"message\": \"go?\"}, \"branch\": ["
	    "  {\"if\": \"steps.\\\"Go on\\\".result == 'approved' && "
	    "exit_code == null\", \"then\": \"yes\"},"
	    "  {\"else\": \"no\"}]},"
	    " \"yes\": {\"run\": [\"true\"]}, \"no\": {\"run\": [\"true\"]}}";
	struct flow_diags	*d;
	struct flow		*f;
	struct flow_scope_step	 ss;
	cJSON			*scope;
	char			*s;

	d = flow_diags_create();
	f = flow_parse(text, strlen(text), d);
	tap_ok(f != NULL && flow_diags_errors(d) == 0, "scope flow parses");
	flow_diags_free(d);
	if (f == NULL)
		return;
	scope = flow_scope_create(cJSON_Parse("{\"host\": \"web1\"}"), 0, 42,
	    "deploy");
	memset(&ss, 0, sizeof ss);
	ss.step_key = "probe";
	ss.result_json = "{\"up\": false}";
	ss.status = STEP_FAILED;
	ss.has_exit_code = 1;
	ss.exit_code = 3;
	flow_scope_add(scope, f, &ss);
	ss.result_json = "{\"up\": true}";
	ss.status = STEP_DONE;
	ss.exit_code = 0;
	flow_scope_add(scope, f, &ss);
	s = interp_text("{{input.host}} {{workflow.id}} {{workflow.name}} "
	    "{{steps.probe.result.up}} {{steps.Probe it.exit_code}} "
	    "{{steps.probe.status}}", scope);
	tap_is(s, "web1 42 deploy true 0 done",
	    "input, workflow, a step by key and by name, the latest row");
	free(s);
	tap_is_int(flow_branch_pick(&f->steps[1], scope, "\"approved\"", 0, 0),
	    1, "a gate's own outcome is not in steps until it is added");
	ss.step_key = "ask";
	ss.result_json = "\"approved\"";
	ss.has_exit_code = 0;
	flow_scope_add(scope, f, &ss);
	tap_is_int(flow_branch_pick(&f->steps[1], scope, "\"approved\"", 0, 0),
	    0, "then a condition finds it by its name, and exit_code null");
	tap_is_int(flow_branch_pick(&f->steps[1], scope, "\"approved\"", 1, 0),
	    1, "an exit code is seen by the condition");
	tap_ok(cJSON_GetObjectItemCaseSensitive(scope, "result") == NULL &&
	    cJSON_GetObjectItemCaseSensitive(scope, "exit_code") == NULL,
	    "the outcome leaves the scope again");
	cJSON_Delete(scope);
	scope = flow_scope_create(NULL, 0, 1, "x");
	s = interp_text("[{{input.host}}]", scope);
	tap_is(s, "[]", "no input: input.* is missing");
	free(s);
	cJSON_Delete(scope);
	flow_free(f);
}

int
main(void)
{
	struct refs_seen	 rs;
	struct buf		 b;
	cJSON			*scope, *in, *out, *v;
	char			*s, what[256];
	size_t			 i;

	scope = cJSON_Parse(scope_text);
	tap_ok(scope != NULL, "test scope parses");
	for (i = 0; i < sizeof values / sizeof values[0]; i++) {
		in = cJSON_Parse(values[i].in);
		out = interp_value(in, scope);
		s = json_print(out);
		snprintf(what, sizeof what, "value %s", values[i].in);
		tap_is(s, values[i].out, what);
		free(s);
		cJSON_Delete(out);
		cJSON_Delete(in);
	}
	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		s = interp_text(texts[i].in, scope);
		snprintf(what, sizeof what, "text \"%s\"", texts[i].in);
		tap_is(s, texts[i].out, what);
		free(s);
	}
	s = interp_text("{{input.host}}", NULL);
	tap_is(s, "", "NULL scope: everything is missing");
	free(s);

	s = interp_json("{\"h\": \"{{input.host}}\", "
	    "\"p\": \"{{input.port}}\"}", scope);
	tap_is(s, "{\"h\":\"web1\",\"p\":8080}", "interp_json");
	free(s);
	tap_ok(interp_json("{bad", scope) == NULL, "interp_json: bad JSON");

	/* One whole placeholder, borrowed: the scope's own node. */
	tap_ok(interp_ref("{{input.list}}", scope) ==
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(
	    scope, "input"), "list"), "interp_ref: the node itself, no copy");
	tap_ok(interp_ref("{{ steps.check.result }}", scope) != NULL &&
	    cJSON_IsObject(interp_ref("{{ steps.check.result }}", scope)),
	    "interp_ref: spaces trimmed, a step's result");
	tap_ok(interp_ref("{{input.nope}}", scope) == NULL,
	    "interp_ref: a missing reference is NULL");
	tap_ok(interp_ref("x{{input.list}}", scope) == NULL &&
	    interp_ref("{{input.list}} ", scope) == NULL &&
	    interp_ref("{{input.host}}{{input.port}}", scope) == NULL,
	    "interp_ref: NULL unless the placeholder is the whole string");
	tap_ok(interp_ref("input.list", scope) == NULL &&
	    interp_ref(NULL, scope) == NULL, "interp_ref: no placeholder");

	/* References, with their paths. */
	in = cJSON_Parse("{\"a\": \"{{input.x}}\", \"b\": [1, \"{{ steps.s."
	    "result }} and {{workflow.id}}\"], \"odd key\": {\"c\": "
	    "\"{{args.y}}\"}}");
	memset(&rs, 0, sizeof rs);
	tap_is_int(interp_refs(in, "$.start.args", refs_cb, &rs), 0,
	    "interp_refs walks everything");
	tap_is_int(rs.n, 4, "four placeholders");
	tap_is(rs.path, "$.start.args[\"odd key\"].c", "last path");
	tap_is(rs.ref, "args.y", "last reference");
	memset(&rs, 0, sizeof rs);
	rs.stop_at = 2;
	tap_is_int(interp_refs(in, "$", refs_cb, &rs), 1,
	    "a non-zero callback stops the walk");
	tap_is(rs.path, "$.b[1]", "stopped at the second placeholder");
	tap_is(rs.ref, "steps.s.result", "trimmed reference");
	cJSON_Delete(in);

	/* Huge strings: linear, no blow-up. */
	buf_init(&b);
	for (i = 0; i < 100000; i++)
		buf_puts(&b, "{{input.host}}-");
	s = interp_text(b.data, scope);
	tap_is_int((long long)strlen(s), 100000 * 5, "100,000 placeholders");
	free(s);
	buf_reset(&b);
	for (i = 0; i < 200000; i++)
		buf_puts(&b, "{{");
	s = interp_text(b.data, scope);
	tap_is_int((long long)strlen(s), 400000,
	    "200,000 unterminated openings stay literal");
	free(s);
	buf_puts(&b, "input.host}}");
	s = interp_text(b.data, scope);
	tap_is_int((long long)strlen(s), 399998 + 4,
	    "the innermost {{ pairs with the }}");
	free(s);
	buf_reset(&b);
	buf_puts(&b, "\"");
	for (i = 0; i < 1000000; i++)
		buf_putc(&b, 'x');
	buf_puts(&b, "{{input.port}}\"");
	in = cJSON_Parse(b.data);
	out = interp_value(in, scope);
	tap_ok(cJSON_IsString(out) && strlen(out->valuestring) == 1000004,
	    "a 1 MB string with a placeholder at the end");
	cJSON_Delete(out);
	cJSON_Delete(in);
	buf_free(&b);

	/* Deep nesting, built by hand past cJSON's parse limit. */
	in = cJSON_CreateString("{{input.port}}");
	for (i = 0; i < 5000; i++) {
		v = cJSON_CreateArray();
		cJSON_AddItemToArray(v, in);
		in = v;
	}
	out = interp_value(in, scope);
	tap_ok(out != NULL && cJSON_IsArray(out),
	    "5,000 levels of nesting do not crash");
	for (v = out, i = 0; v != NULL && cJSON_IsArray(v); i++)
		v = v->child;
	tap_ok(i <= 1001, "nesting is cut at cJSON's limit (%zu levels)", i);
	memset(&rs, 0, sizeof rs);
	interp_refs(in, "$", refs_cb, &rs);
	tap_is_int(rs.n, 0, "interp_refs stops at the limit too");
	cJSON_Delete(out);
	cJSON_Delete(in);
	in = cJSON_Parse("[[[[[[[[[[\"{{input.on}}\"]]]]]]]]]]");
	out = interp_value(in, scope);
	s = json_print(out);
	tap_is(s, "[[[[[[[[[[true]]]]]]]]]]", "ten levels keep the type");
	free(s);
	cJSON_Delete(out);
	cJSON_Delete(in);

	cJSON_Delete(scope);
	test_scope();
	return (tap_done());
}
