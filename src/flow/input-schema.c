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
 * input-schema.c: declared inputs told to others.  To an agent as the
 * JSON Schema of a run's input (MCP template_get, template show --json),
 * so a client can check a value before it asks; to a person as a short
 * line beside a field of the console's form ("integer 1..10", "one of
 * prod, staging").  The checking itself is input.c's alone.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static cJSON	*input_rule_schema(const struct flow_input_rule *);
static void	 input_rule_words(struct buf *, const struct flow_input_rule *);

/* One rule as a JSON Schema object. */
static cJSON *
input_rule_schema(const struct flow_input_rule *r)
{
	cJSON	*o;
	char	*anchored;

	o = cJSON_CreateObject();
	if (r->type != FLOW_INPUT_ANY)
		cJSON_AddStringToObject(o, "type",
		    flow_input_type_name(r->type));
	if (r->enum_json != NULL)
		cJSON_AddItemToObject(o, "enum",
		    json_parse_or_null(r->enum_json));
	if (r->pattern != NULL) {
		/* JSON Schema's patterns search; ours match whole. */
		xasprintf(&anchored, "^(%s)$", r->pattern);
		cJSON_AddStringToObject(o, "pattern", anchored);
		free(anchored);
	}
	if (r->has_minimum)
		cJSON_AddNumberToObject(o, "minimum", r->minimum);
	if (r->has_maximum)
		cJSON_AddNumberToObject(o, "maximum", r->maximum);
	if (r->min_length >= 0)
		cJSON_AddNumberToObject(o, "minLength", (double)r->min_length);
	if (r->max_length >= 0)
		cJSON_AddNumberToObject(o, "maxLength", (double)r->max_length);
	if (r->items != NULL)
		cJSON_AddItemToObject(o, "items", input_rule_schema(r->items));
	return (o);
}

/*
 * A document's declared inputs as the JSON Schema of a run's input: an
 * object of those properties and no others.  A flow that declares none
 * takes any object.
 */
cJSON *
flow_doc_input_schema(const struct flow_doc *doc)
{
	const struct flow_input	*in;
	cJSON			*o, *props, *req, *p;
	size_t			 i;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "object");
	if (doc->inputs_json == NULL)
		return (o);
	props = cJSON_AddObjectToObject(o, "properties");
	req = cJSON_CreateArray();
	for (i = 0; i < doc->ninputs; i++) {
		in = &doc->inputs[i];
		p = input_rule_schema(&in->rule);
		if (in->description != NULL)
			cJSON_AddStringToObject(p, "description",
			    in->description);
		if (in->default_json != NULL)
			cJSON_AddItemToObject(p, "default",
			    json_parse_or_null(in->default_json));
		/* Given, never shown back (SPEC §13): JSON Schema's mark. */
		if (in->secret)
			cJSON_AddTrueToObject(p, "writeOnly");
		cJSON_AddItemToObject(props, in->key, p);
		if (in->required)
			cJSON_AddItemToArray(req, cJSON_CreateString(in->key));
	}
	cJSON_AddItemToObject(o, "required", req);
	cJSON_AddFalseToObject(o, "additionalProperties");
	return (o);
}

/* One rule in words: "integer 1..10", "string /^[a-z]+$/, 3..8 chars". */
static void
input_rule_words(struct buf *b, const struct flow_input_rule *r)
{
	cJSON		*list;
	const cJSON	*e;
	char		*s;
	size_t		 start = b->len;

	if (r->type != FLOW_INPUT_ANY)
		buf_puts(b, flow_input_type_name(r->type));
	if (r->enum_json != NULL &&
	    (list = json_parse_or_null(r->enum_json)) != NULL) {
		buf_puts(b, b->len > start ? ", one of " : "one of ");
		cJSON_ArrayForEach(e, list) {
			if (e != list->child)
				buf_puts(b, " ");
			if (cJSON_IsString(e))
				buf_puts(b, e->valuestring);
			else {
				s = json_print(e);
				buf_puts(b, s);
				free(s);
			}
		}
		cJSON_Delete(list);
	}
	if (r->has_minimum || r->has_maximum) {
		buf_puts(b, b->len > start ? " " : "");
		if (r->has_minimum)
			flow_input_number(b, r->minimum);
		buf_puts(b, "..");
		if (r->has_maximum)
			flow_input_number(b, r->maximum);
	}
	if (r->pattern != NULL)
		buf_printf(b, "%s/%s/", b->len > start ? " " : "", r->pattern);
	if (r->min_length >= 0 || r->max_length >= 0) {
		buf_puts(b, b->len > start ? ", " : "");
		if (r->min_length >= 0)
			buf_printf(b, "%lld", (long long)r->min_length);
		buf_puts(b, "..");
		if (r->max_length >= 0)
			buf_printf(b, "%lld", (long long)r->max_length);
		buf_puts(b, " chars");
	}
	if (r->items != NULL) {
		buf_puts(b, b->len > start ? " of (" : "items (");
		input_rule_words(b, r->items);
		buf_puts(b, ")");
	}
}

/* What an input accepts, in a few words; "" when it says nothing. */
char *
flow_input_rule_text(const struct flow_input *in)
{
	struct buf	b;

	buf_init(&b);
	input_rule_words(&b, &in->rule);
	return (buf_release(&b));
}
