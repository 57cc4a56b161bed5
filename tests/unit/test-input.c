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
 * test-input.c: typed inputs (flow/input.c).  A table of declarations,
 * values given as JSON or as text, and what flow_doc_input_text makes
 * of them: the typed input, or the refusal naming the input and the
 * keyword broken.  A second table of declarations that cannot hold and
 * the error sluice check gives at its JSON path; and the JSON Schema
 * MCP's template_get answers.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

/* One value for one declaration, and what becomes of it. */
static const struct {
	const char	*decl;		/* the input "x"'s declaration */
	const char	*given;		/* JSON of x, or text with as_text */
	int		 as_text;
	const char	*want;		/* the input's JSON, or NULL */
	const char	*cause;		/* else the refusal */
} values[] = {
	/* type */
	{ "{\"type\": \"integer\"}", "3", 1, "{\"x\":3}", NULL },
	{ "{\"type\": \"integer\"}", "-12", 1, "{\"x\":-12}", NULL },
	{ "{\"type\": \"integer\"}", "3.5", 1, NULL,
	  "input \"x\" breaks type: expected an integer, got \"3.5\"" },
	{ "{\"type\": \"integer\"}", "3.5", 0, NULL,
	  "input \"x\" breaks type: expected an integer, got 3.5" },
	{ "{\"type\": \"integer\"}", "\"3\"", 0, NULL,
	  "input \"x\" breaks type: expected an integer, got \"3\"" },
	{ "{\"type\": \"number\"}", "0.25", 1, "{\"x\":0.25}", NULL },
	{ "{\"type\": \"number\"}", "1e", 1, NULL,
	  "input \"x\" breaks type: expected a number, got \"1e\"" },
	{ "{\"type\": \"boolean\"}", "true", 1, "{\"x\":true}", NULL },
	{ "{\"type\": \"boolean\"}", "yes", 1, NULL, "input \"x\" breaks "
	  "type: expected a boolean (true or false), got \"yes\"" },
	{ "{\"type\": \"string\"}", "42", 1, "{\"x\":\"42\"}", NULL },
	{ "{\"type\": \"string\"}", "42", 0, NULL,
	  "input \"x\" breaks type: expected a string, got 42" },
	{ "{\"type\": \"array\"}", "[1,2]", 1, "{\"x\":[1,2]}", NULL },
	{ "{\"type\": \"array\"}", "{}", 1, NULL,
	  "input \"x\" breaks type: expected an array, got \"{}\"" },
	{ "{\"type\": \"object\"}", "{\"a\":1}", 1, "{\"x\":{\"a\":1}}",
	  NULL },
	{ "{\"type\": \"object\"}", "[]", 0, NULL,
	  "input \"x\" breaks type: expected an object, got []" },
	{ "{}", "3", 1, "{\"x\":\"3\"}", NULL },
	/* enum */
	{ "{\"enum\": [\"prod\", \"staging\"]}", "prod", 1,
	  "{\"x\":\"prod\"}", NULL },
	{ "{\"enum\": [\"prod\", \"staging\"]}", "prdo", 1, NULL,
	  "input \"x\" breaks enum: \"prdo\" is not one of \"prod\", "
	  "\"staging\"" },
	{ "{\"type\": \"integer\", \"enum\": [1, 2]}", "2", 1, "{\"x\":2}",
	  NULL },
	{ "{\"type\": \"integer\", \"enum\": [1, 2]}", "3", 1, NULL,
	  "input \"x\" breaks enum: 3 is not one of 1, 2" },
	/* pattern: POSIX extended, matched whole */
	{ "{\"pattern\": \"[a-z]+\"}", "shop", 1, "{\"x\":\"shop\"}", NULL },
	{ "{\"pattern\": \"[a-z]+\"}", "shop1", 1, NULL,
	  "input \"x\" breaks pattern: \"shop1\" does not match [a-z]+" },
	{ "{\"pattern\": \"a|b\"}", "ab", 1, NULL,
	  "input \"x\" breaks pattern: \"ab\" does not match a|b" },
	{ "{\"pattern\": \"a|b\"}", "b", 1, "{\"x\":\"b\"}", NULL },
	/* minimum, maximum */
	{ "{\"type\": \"integer\", \"minimum\": 1}", "0", 1, NULL,
	  "input \"x\" breaks minimum: 0 is below the minimum 1" },
	{ "{\"type\": \"number\", \"maximum\": 1.5}", "1.5", 1,
	  "{\"x\":1.5}", NULL },
	{ "{\"type\": \"number\", \"maximum\": 1.5}", "1.75", 1, NULL,
	  "input \"x\" breaks maximum: 1.75 is above the maximum 1.5" },
	/* minLength, maxLength: characters, not bytes */
	{ "{\"minLength\": 2}", "\xc3\xa9", 1, NULL, "input \"x\" breaks "
	  "minLength: \"\xc3\xa9\" is shorter than 2 characters" },
	{ "{\"maxLength\": 2}", "\xc3\xa9\xc3\xa9", 1,
	  "{\"x\":\"\xc3\xa9\xc3\xa9\"}", NULL },
	{ "{\"maxLength\": 2}", "abc", 1, NULL,
	  "input \"x\" breaks maxLength: \"abc\" is longer than 2 characters" },
	/* items */
	{ "{\"type\": \"array\", \"items\": {\"type\": \"string\", "
	  "\"pattern\": \"[a-z0-9]+\"}}", "[\"web1\",\"Web2\"]", 1, NULL,
	  "input \"x\" breaks items.pattern: [1] \"Web2\" does not match "
	  "[a-z0-9]+" },
	{ "{\"type\": \"array\", \"items\": {\"type\": \"array\", "
	  "\"items\": {\"type\": \"integer\"}}}", "[[1],[2,\"3\"]]", 0, NULL,
	  "input \"x\" breaks items.items.type: [1][1] expected an integer, "
	  "got \"3\"" },
	{ "{\"type\": \"array\", \"items\": {\"enum\": [\"a\"]}}",
	  "[\"a\",\"a\"]", 0, "{\"x\":[\"a\",\"a\"]}", NULL },
};

/* A declaration that cannot hold, and the diagnostic at its path. */
static const struct {
	const char	*decl;
	const char	*diag;
} unsound[] = {
	{ "{\"enum\": [\"a\"], \"default\": \"b\"}",
	  "$.inputs.x.default: the default breaks enum: \"b\" is not one of "
	  "\"a\"" },
	{ "{\"pattern\": \"a(b\"}", "$.inputs.x.pattern: pattern a(b does "
	  "not compile" },
	{ "{\"minimum\": 5, \"maximum\": 3}", "$.inputs.x: minimum 5 is above "
	  "maximum 3: no value can hold" },
	{ "{\"minLength\": 5, \"maxLength\": 3}", "$.inputs.x: minLength 5 is "
	  "above maxLength 3" },
	{ "{\"type\": \"strnig\"}", "$.inputs.x.type: unknown type \"strnig\" "
	  "(did you mean \"string\"?)" },
	{ "{\"type\": \"integer\", \"enum\": [1, \"2\"]}",
	  "$.inputs.x.enum[1]: this value breaks type: expected an integer, "
	  "got \"2\"" },
	{ "{\"enum\": []}", "$.inputs.x.enum: expected a non-empty array" },
	{ "{\"minLength\": -1}", "$.inputs.x.minLength: expected an integer "
	  "of at least 0" },
	{ "{\"items\": {\"required\": true}}", "$.inputs.x.items.required: "
	  "unknown field \"required\" in items" },
	{ "{\"emun\": [1]}", "$.inputs.x.emun: unknown field \"emun\" in an "
	  "input (did you mean \"enum\"?)" },
	{ "{\"type\": \"integer\", \"default\": 1.5}", "$.inputs.x.default: "
	  "the default breaks type" },
	{ "{\"type\": \"integer\", \"pattern\": \"1\"}", "warning: "
	  "$.inputs.x.pattern: pattern does not apply to type integer" },
};

/* A template declaring one input "x" so. */
static char *
doc_text(const char *decl)
{
	char	*text;

	xasprintf(&text, "{\"inputs\": {\"x\": %s}, \"flow\": {\"start\": "
	    "{\"tool\": \"noop\"}}}", decl);
	return (text);
}

/* Every diagnostic of a document, one a line. */
static char *
doc_diags(const char *text, struct flow_doc **docp)
{
	struct flow_diags	*d;
	struct flow_diag	*fd;
	struct buf		 b;
	char			*s;

	d = flow_diags_create();
	*docp = flow_doc_parse(text, strlen(text), NULL, d);
	buf_init(&b);
	TAILQ_FOREACH(fd, d, entry) {
		s = flow_diag_format(fd, NULL);
		buf_printf(&b, "%s\n", s);
		free(s);
	}
	flow_diags_free(d);
	return (buf_release(&b));
}

/* Each value of the table through the one check. */
static void
test_values(void)
{
	struct flow_doc	*doc;
	cJSON		*given, *texts;
	char		*text, *diags, *out, *cause, what[160];
	size_t		 i;

	for (i = 0; i < sizeof values / sizeof values[0]; i++) {
		text = doc_text(values[i].decl);
		diags = doc_diags(text, &doc);
		snprintf(what, sizeof what, "%s %s %s", values[i].decl,
		    values[i].as_text ? "text" : "json", values[i].given);
		if (!tap_ok(doc != NULL && *diags == '\0', "%s: sound (%s)",
		    what, diags)) {
			free(diags);
			free(text);
			flow_doc_free(doc);
			continue;
		}
		given = cJSON_CreateObject();
		texts = cJSON_CreateObject();
		if (values[i].as_text) {
			cJSON_AddStringToObject(given, "x", values[i].given);
			cJSON_AddTrueToObject(texts, "x");
		} else
			cJSON_AddItemToObject(given, "x",
			    cJSON_Parse(values[i].given));
		cause = NULL;
		out = flow_doc_input_text(doc, given, texts, &cause);
		if (values[i].want != NULL)
			tap_is(out != NULL ? out : cause, values[i].want, what);
		else
			tap_is(cause != NULL ? cause : out, values[i].cause,
			    what);
		free(out);
		free(cause);
		cJSON_Delete(given);
		cJSON_Delete(texts);
		flow_doc_free(doc);
		free(diags);
		free(text);
	}
}

/* Declarations that cannot hold are refused where they are. */
static void
test_unsound(void)
{
	struct flow_doc	*doc;
	char		*text, *diags;
	size_t		 i;

	for (i = 0; i < sizeof unsound / sizeof unsound[0]; i++) {
		text = doc_text(unsound[i].decl);
		diags = doc_diags(text, &doc);
		if (!tap_ok(strstr(diags, unsound[i].diag) != NULL, "%s",
		    unsound[i].decl))
			printf("#   got:  %s#   want: %s\n", diags,
			    unsound[i].diag);
		flow_doc_free(doc);
		free(diags);
		free(text);
	}
}

/* Text given for a JSON value is not read as text; defaults still fill. */
static void
test_mixed(void)
{
	struct flow_doc	*doc;
	cJSON		*given;
	char		*diags, *out, *cause = NULL;

	diags = doc_diags("{\"inputs\": {\"n\": {\"type\": \"integer\"}, "
	    "\"d\": {\"type\": \"integer\", \"default\": 7}}, \"flow\": "
	    "{\"start\": {}}}", &doc);
	tap_is(diags, "", "two integer inputs");
	given = cJSON_Parse("{\"n\": \"3\"}");
	out = flow_doc_input(doc, given, &cause);
	tap_is(cause, "input \"n\" breaks type: expected an integer, got "
	    "\"3\"", "a JSON string is not text");
	free(out);
	free(cause);
	cJSON_Delete(given);
	given = cJSON_Parse("{\"n\": 3}");
	cause = NULL;
	out = flow_doc_input(doc, given, &cause);
	tap_is(out, "{\"n\":3,\"d\":7}", "a JSON integer, and the default");
	free(out);
	free(cause);
	cJSON_Delete(given);
	flow_doc_free(doc);
	free(diags);
}

/* The JSON Schema of a template's input, and the words beside a field. */
static void
test_schema(void)
{
	struct flow_doc	*doc;
	cJSON		*schema;
	char		*diags, *s;

	diags = doc_diags("{\"inputs\": {\"env\": {\"enum\": [\"prod\", "
	    "\"staging\"], \"required\": true, \"description\": \"where\"}, "
	    "\"n\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 9, "
	    "\"default\": 2}, \"hosts\": {\"type\": \"array\", \"items\": "
	    "{\"pattern\": \"[a-z]+\", \"maxLength\": 8}}}, \"flow\": "
	    "{\"start\": {}}}", &doc);
	tap_is(diags, "", "schema template");
	schema = flow_doc_input_schema(doc);
	s = json_print(schema);
	tap_is(s, "{\"type\":\"object\",\"properties\":{\"env\":{\"enum\":"
	    "[\"prod\",\"staging\"],\"description\":\"where\"},\"n\":{\"type\":"
	    "\"integer\",\"minimum\":1,\"maximum\":9,\"default\":2},\"hosts\":"
	    "{\"type\":\"array\",\"items\":{\"pattern\":\"^([a-z]+)$\","
	    "\"maxLength\":8}}},\"required\":[\"env\"],"
	    "\"additionalProperties\":false}", "input schema");
	free(s);
	cJSON_Delete(schema);
	s = flow_input_rule_text(&doc->inputs[0]);
	tap_is(s, "one of prod staging", "enum in words");
	free(s);
	s = flow_input_rule_text(&doc->inputs[1]);
	tap_is(s, "integer 1..9", "range in words");
	free(s);
	s = flow_input_rule_text(&doc->inputs[2]);
	tap_is(s, "array of (/[a-z]+/, ..8 chars)", "items in words");
	free(s);
	flow_doc_free(doc);
	free(diags);

	diags = doc_diags("{\"inputs\": {\"pw\": {\"secret\": true}}, "
	    "\"flow\": {\"start\": {}}}", &doc);
	tap_is(diags, "", "a template with a secret input");
	schema = flow_doc_input_schema(doc);
	s = json_print(schema);
	tap_is(s, "{\"type\":\"object\",\"properties\":{\"pw\":"
	    "{\"writeOnly\":true}},\"required\":[],"
	    "\"additionalProperties\":false}",
	    "a secret input is writeOnly in the schema");
	free(s);
	cJSON_Delete(schema);
	flow_doc_free(doc);
	free(diags);
}

int
main(void)
{
	json_init();
	test_values();
	test_unsound();
	test_mixed();
	test_schema();
	return (tap_done());
}
