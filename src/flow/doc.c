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
 * doc.c: template documents.  A document is a plain flow, or a wrapper
 * {"description", "inputs", "sla", "flow"} whose flow is parsed at "$.flow".
 * Parsing runs every check and places every diagnostic at a line and
 * column; flow_doc_input() applies declared inputs to a run's input,
 * checking each value given with flow_input_check (input.c).
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static const char *doc_wrapper_keys[] = {
	"description", "inputs", "sla", "flow", "output", "deadline",
	"operators", FLOW_ON_FAILURE, FLOW_FINALLY, "concurrency"
};
#define DOC_NWRAPPER (sizeof doc_wrapper_keys / sizeof doc_wrapper_keys[0])
#define DOC_MAX_INPUTS	1000

static int	doc_is_wrapper(const cJSON *);
static void	doc_wrapper(struct flow_doc *, const cJSON *,
		    struct flow_diags *);
static void	doc_inputs(struct flow_doc *, const cJSON *,
		    struct flow_diags *);
static char	*doc_declared(const struct flow_doc *);
static void	 doc_join(struct flow_doc *, const char *, const cJSON *);
static void	 doc_output(struct flow_doc *, const cJSON *, const cJSON *,
		    struct flow_diags *);
static void	 doc_operators(struct flow_doc *, const cJSON *, const char *,
		    struct flow_diags *);

/*
 * Is this object the template wrapper?  It has a "flow" member and no
 * "start" step (every plain flow has one), so a misspelt wrapper key is
 * reported as such instead of as a step.
 */
static int
doc_is_wrapper(const cJSON *v)
{
	return (cJSON_GetObjectItemCaseSensitive(v, "flow") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(v, "start") == NULL);
}

/* The "inputs" object of a template. */
static void
doc_inputs(struct flow_doc *doc, const cJSON *v, struct flow_diags *d)
{
	const cJSON		*c, *p;
	struct flow_input	*in;
	char			*path;
	int			 dup;

	if (!cJSON_IsObject(v)) {
		flow_diags_add(d, FLOW_ERROR, "$.inputs", "expected an object "
		    "of inputs, got %s", json_type_name(v));
		return;
	}
	doc->inputs_json = json_print(v);
	if (cJSON_GetArraySize(v) > DOC_MAX_INPUTS) {
		flow_diags_add(d, FLOW_ERROR, "$.inputs", "too many inputs "
		    "(max %d)", DOC_MAX_INPUTS);
		return;
	}
	for (c = v->child; c != NULL; c = c->next) {
		for (dup = 0, p = v->child; p != c; p = p->next) {
			if (strcmp(p->string, c->string) == 0)
				dup = 1;
		}
		if (dup)
			continue;
		path = flow_path_key("$.inputs", c->string);
		if (*c->string == '\0') {
			flow_diags_add(d, FLOW_ERROR, path,
			    "an input name must not be empty");
			free(path);
			continue;
		}
		doc->inputs = xreallocarray(doc->inputs, doc->ninputs + 1,
		    sizeof *doc->inputs);
		in = &doc->inputs[doc->ninputs++];
		memset(in, 0, sizeof *in);
		in->key = xstrdup(c->string);
		flow_input_declare(in, c, path, d);
		free(path);
	}
}

/*
 * The wrapper's "operators": user names and "@group" names who alone may
 * start and act on the template's runs (sluice(1) AUTHORITY).
 */
static void
doc_operators(struct flow_doc *doc, const cJSON *v, const char *path,
    struct flow_diags *d)
{
	char	*sub;
	size_t	 i;

	doc->operators = flow_json_strings(v, path, &doc->noperators, d);
	for (i = 0; i < doc->noperators; i++) {
		if (doc->operators[i][0] != '\0' &&
		    strcmp(doc->operators[i], "@") != 0)
			continue;
		sub = flow_path_index(path, i);
		flow_diags_add(d, FLOW_ERROR, sub, "an operator is a user name "
		    "or @group, not \"%s\"", doc->operators[i]);
		free(sub);
	}
}

/*
 * The wrapper's "output" joins the flow it describes, so a run (which
 * keeps only the flow) still has it when it completes.
 */
static void
doc_output(struct flow_doc *doc, const cJSON *flow, const cJSON *output,
    struct flow_diags *d)
{
	if (doc->flow == NULL || output == NULL)
		return;
	if (doc->flow->output_json != NULL) {
		flow_diags_add(d, FLOW_ERROR, "$.output", "\"output\" is given "
		    "both here and in the flow");
		return;
	}
	doc->flow->output_json = json_print(output);
	doc_join(doc, "output", output);
}

/* Add a run-level member of the wrapper to the flow's text the run keeps. */
static void
doc_join(struct flow_doc *doc, const char *key, const cJSON *v)
{
	cJSON	*copy;

	if (doc->flow_json == NULL)
		return;
	if ((copy = cJSON_Parse(doc->flow_json)) == NULL ||
	    !cJSON_AddItemToObject(copy, key, cJSON_Duplicate(v, 1)))
		fatalx("%s: out of memory", __func__);
	free(doc->flow_json);
	doc->flow_json = json_print(copy);
	cJSON_Delete(copy);
}

/* The wrapper form: description, inputs, sla and the flow at "$.flow". */
static void
doc_wrapper(struct flow_doc *doc, const cJSON *v, struct flow_diags *d)
{
	const cJSON	*c, *flow = NULL, *output = NULL, *deadline = NULL;
	const cJSON	*conc = NULL;
	const cJSON	*handlers[2] = { NULL, NULL };
	size_t		 n;
	const char	*hint;
	char		*path, seen[DOC_NWRAPPER];
	int64_t		 ms;
	size_t		 i;

	memset(seen, 0, sizeof seen);
	for (c = v->child; c != NULL; c = c->next) {
		for (i = 0; i < DOC_NWRAPPER; i++) {
			if (strcmp(c->string, doc_wrapper_keys[i]) == 0)
				break;
		}
		path = flow_path_key("$", c->string);
		if (i == DOC_NWRAPPER) {
			hint = flow_suggest(c->string, doc_wrapper_keys,
			    DOC_NWRAPPER);
			flow_diags_add(d, FLOW_ERROR, path, "unknown template "
			    "field \"%s\"%s%s%s", c->string,
			    hint != NULL ? " (did you mean \"" : "",
			    hint != NULL ? hint : "", hint != NULL ? "\"?)" : "");
		} else if (seen[i]++) {
			flow_diags_add(d, FLOW_ERROR, path,
			    "duplicate key \"%s\"", c->string);
		} else if (strcmp(c->string, "description") == 0) {
			free(doc->description);
			doc->description = flow_json_string(c, path, 0, d);
		} else if (strcmp(c->string, "inputs") == 0)
			doc_inputs(doc, c, d);
		else if (strcmp(c->string, "sla") == 0) {
			if (parse_span(c, path, "sla", &ms, d) == 0)
				doc->sla_ms = ms;
		} else if (strcmp(c->string, "output") == 0)
			output = c;
		else if (strcmp(c->string, "operators") == 0)
			doc_operators(doc, c, path, d);
		else if (strcmp(c->string, "deadline") == 0)
			deadline = c;
		else if (flow_handler_key(c->string))
			handlers[strcmp(c->string, FLOW_FINALLY) == 0] = c;
		else if (strcmp(c->string, "concurrency") == 0)
			conc = c;
		else {
			flow = c;
			doc->flow = flow_from_json(c, "$.flow", d);
			if (doc->flow != NULL)
				doc->flow_json = json_print(c);
		}
		free(path);
	}
	doc_output(doc, flow, output, d);
	if (doc->flow != NULL && deadline != NULL) {
		if (doc->flow->deadline_ms > 0)
			flow_diags_add(d, FLOW_ERROR, "$.deadline",
			    "\"deadline\" is given both here and in the flow");
		else {
			parse_deadline(doc->flow, deadline, "$.deadline", d);
			doc_join(doc, "deadline", deadline);
		}
	}
	if (doc->flow != NULL && conc != NULL) {
		if (doc->flow->concurrency.key != NULL)
			flow_diags_add(d, FLOW_ERROR, "$.concurrency",
			    "\"concurrency\" is given both here and in the "
			    "flow");
		else {
			flow_concurrency_parse(&doc->flow->concurrency, conc,
			    "$.concurrency", d);
			doc_join(doc, "concurrency", conc);
		}
	}
	for (i = 0; i < 2 && doc->flow != NULL; i++) {
		if (handlers[i] == NULL)
			continue;
		path = flow_path_key("$", handlers[i]->string);
		n = doc->flow->nsteps;
		flow_handler_parse(doc->flow, handlers[i], path,
		    handlers[i]->string, d);
		free(path);
		if (doc->flow->nsteps > n)	/* added: at "$.KEY" */
			doc->flow->steps[n].beside = 1;
		doc_join(doc, handlers[i]->string, handlers[i]);
	}
}

/*
 * Parse and check a document, placing every diagnostic.  NULL only when
 * it is not JSON or not an object.
 */
struct flow_doc *
flow_doc_parse(const char *text, size_t len, const struct flow_tools *tools,
    struct flow_diags *d)
{
	struct flow_doc	*doc;
	cJSON		*v;

	v = flow_json_document(text, len, "flow", "steps", d);
	if (v == NULL)
		return (NULL);
	doc = xcalloc(1, sizeof *doc);
	if (doc_is_wrapper(v)) {
		doc->is_template = 1;
		doc_wrapper(doc, v, d);
		flow_check(doc, tools, "$.flow", d);
	} else {
		doc->flow = flow_from_json(v, "$", d);
		doc->flow_json = json_print(v);
		flow_check(doc, tools, "$", d);
	}
	flow_secret_check(v, doc, d);
	cJSON_Delete(v);
	flow_diags_locate(d, text, len);
	return (doc);
}

/* "a, b, c": the declared input names, for messages. */
static char *
doc_declared(const struct flow_doc *doc)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < doc->ninputs; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : ", ", doc->inputs[i].key);
	if (doc->ninputs == 0)
		buf_puts(&b, "none");
	return (buf_release(&b));
}

/*
 * Apply a document's declared inputs to a run's input: refuse unknown and
 * missing required keys and values a declaration refuses, fill defaults.
 * The members of as_text (may be NULL) name values given as text (-i
 * KEY=VAL, the console's form), read as their declared type first.
 * Returns compact JSON text, or NULL with cause.
 */
char *
flow_doc_input_text(const struct flow_doc *doc, const cJSON *given,
    const cJSON *as_text, char **cause)
{
	const struct flow_input	*in;
	const cJSON		*c;
	cJSON			*out, *def, *v;
	char			*s, *names;
	size_t			 i;
	int			 text;

	if (given != NULL && !cJSON_IsNull(given) && !cJSON_IsObject(given)) {
		xasprintf(cause, "input must be a JSON object, not %s",
		    json_type_name(given));
		return (NULL);
	}
	if (given != NULL && cJSON_IsObject(given))
		out = cJSON_Duplicate(given, 1);
	else
		out = cJSON_CreateObject();
	if (out == NULL)
		fatalx("%s: out of memory", __func__);
	for (c = out->child; doc->inputs_json != NULL && c != NULL;
	    c = c->next) {
		for (i = 0; i < doc->ninputs; i++) {
			if (strcmp(doc->inputs[i].key, c->string) == 0)
				break;
		}
		if (i < doc->ninputs)
			continue;
		names = doc_declared(doc);
		xasprintf(cause, "unknown input \"%s\" (declared: %s)",
		    c->string, names);
		free(names);
		goto fail;
	}
	for (i = 0; i < doc->ninputs; i++) {
		in = &doc->inputs[i];
		if ((c = cJSON_GetObjectItemCaseSensitive(out,
		    in->key)) != NULL) {
			/* A secret's value is checked where it is read. */
			if (in->secret && cJSON_IsString(c) &&
			    strcmp(c->valuestring, MASK_TEXT) == 0)
				continue;
			/* Checked (and typed) in place: the order is kept. */
			if ((v = cJSON_Duplicate(c, 1)) == NULL)
				fatalx("%s: out of memory", __func__);
			text = as_text != NULL &&
			    cJSON_GetObjectItemCaseSensitive(as_text,
			    in->key) != NULL;
			if (flow_input_check(in, &v, text, cause) != 0) {
				cJSON_Delete(v);
				goto fail;
			}
			cJSON_ReplaceItemInObjectCaseSensitive(out, in->key, v);
			continue;
		}
		if (in->required) {
			xasprintf(cause, "missing required input \"%s\"%s%s "
			    "(give it with -i %s=%s)", in->key,
			    in->description != NULL ? ": " : "",
			    in->description != NULL ? in->description : "",
			    in->key, in->secret ? "@-" : "VALUE");
			goto fail;
		}
		if (in->default_json == NULL ||
		    (def = cJSON_Parse(in->default_json)) == NULL)
			continue;
		cJSON_AddItemToObject(out, in->key, def);
	}
	s = json_print(out);
	cJSON_Delete(out);
	if (strlen(s) > SLUICE_MAX_INPUT) {
		free(s);
		xasprintf(cause, "input larger than 256 KiB");
		return (NULL);
	}
	return (s);
fail:
	cJSON_Delete(out);
	return (NULL);
}

/* The same, with every value given as JSON (a file, MCP, a step). */
char *
flow_doc_input(const struct flow_doc *doc, const cJSON *given, char **cause)
{
	return (flow_doc_input_text(doc, given, NULL, cause));
}

/* Free a document. */
void
flow_doc_free(struct flow_doc *doc)
{
	size_t	i;

	if (doc == NULL)
		return;
	for (i = 0; i < doc->ninputs; i++)
		flow_input_free(&doc->inputs[i]);
	free(doc->inputs);
	flow_strings_free(doc->operators, doc->noperators);
	free(doc->description);
	flow_free(doc->flow);
	free(doc->flow_json);
	free(doc->inputs_json);
	free(doc);
}
