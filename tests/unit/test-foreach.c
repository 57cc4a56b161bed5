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
 * test-foreach.c: the for-each arithmetic of src/flow/foreach.c: batches
 * (counts, percentages, lists whose last size repeats), the failure
 * budget, labels, the checks on items, and the tally show and the console
 * print; the retry at a spent failure budget (its gate, the items it
 * runs again), which the engine and the console's preview share; the walk
 * over items in place in JSON text (util/jsonscan.c) and
 * the input members a flow reads (flow/scope.c), which keep the engine's
 * memory flat over 10,000 items.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static struct flow	*test_parse(const char *);
static struct flow_row	 test_row(int64_t, int64_t, int64_t, int,
			     enum step_status);
static char		*test_ends(const struct flow_foreach *, size_t);
static char		*test_scan(const char *, const char *);

/* Parse a flow that must be valid. */
static struct flow *
test_parse(const char *text)
{
	struct flow_diags	*d;
	struct flow		*f;
	char			*first;

	d = flow_diags_create();
	f = flow_parse(text, strlen(text), d);
	if ((first = flow_diags_first_error(d, "t")) != NULL) {
		printf("# %s\n", first);
		free(first);
	}
	flow_diags_free(d);
	return (f);
}

/* The batch ends over n items as "1 6 20". */
static char *
test_ends(const struct flow_foreach *fe, size_t n)
{
	struct buf	 b;
	size_t		*ends, k, nends;

	nends = flow_foreach_batches(fe, n, &ends);
	buf_init(&b);
	for (k = 0; k < nends; k++)
		buf_printf(&b, "%s%zu", k > 0 ? " " : "", ends[k]);
	free(ends);
	if (b.data == NULL)
		buf_puts(&b, "");
	return (buf_release(&b));
}

/* Batches and budgets from the options as written. */
static void
test_batches(void)
{
	static const struct {
		const char	*opts;
		size_t		 n;
		const char	*ends;
		int		 budget;
	} cases[] = {
		{ "\"batch\": [1, \"25%\", \"100%\"]", 20, "1 6 20", 0 },
		{ "\"batch\": [1, 5]", 20, "1 6 11 16 20", 0 },
		{ "\"batch\": \"10%\"", 5, "1 2 3 4 5", 0 },
		{ "\"batch\": 3", 7, "3 6 7", 0 },
		{ "\"max_failures\": 2", 4, "4", 2 },
		{ "\"max_failures\": \"10%\"", 25, "25", 2 },
		{ "\"max_failures\": \"0%\"", 25, "25", 0 },
		{ "\"batch\": [2, \"50%\"], \"max_failures\": \"100%\"", 3,
		  "2 3", 3 },
		{ "\"batch\": 4", 0, "", 0 },
	};
	struct flow	*f;
	char		 text[512], *got;
	size_t		 i;

	for (i = 0; i < nitems(cases); i++) {
		snprintf(text, sizeof text, "{\"start\": {\"foreach\": [], "
		    "\"do\": {\"tool\": \"noop\"}, %s}}", cases[i].opts);
		if ((f = test_parse(text)) == NULL ||
		    f->steps[0].foreach == NULL) {
			tap_ok(0, "%s parses", cases[i].opts);
			flow_free(f);
			continue;
		}
		got = test_ends(f->steps[0].foreach, cases[i].n);
		tap_is(got, cases[i].ends, cases[i].opts);
		tap_is_int(flow_foreach_budget(f->steps[0].foreach,
		    cases[i].n), cases[i].budget, "its budget");
		free(got);
		flow_free(f);
	}
}

/* Labels: the item, or the label template; what is refused. */
static void
test_labels(void)
{
	struct flow_diags	*d;
	struct flow		*f;
	cJSON			*items;
	int			 errors;

	f = test_parse("{\"start\": {\"foreach\": [], \"label\": "
	    "\"{{item.host}}-{{index}}\", \"do\": {\"tool\": \"noop\"}}}");
	items = cJSON_Parse("[{\"host\": \"a\"}, {\"host\": \"b\"}]");
	d = flow_diags_create();
	errors = flow_foreach_items(f->steps[0].foreach, items, "$", d);
	tap_is_int(errors, 0, "labels from a template are usable");
	flow_diags_free(d);
	cJSON_Delete(items);

	items = cJSON_Parse("[{\"host\": \"a\"}, {\"host\": \"\"}]");
	d = flow_diags_create();
	errors = flow_foreach_items(f->steps[0].foreach, items, "$", d);
	tap_is_int(errors, 0, "the index keeps \"-1\" a usable label");
	flow_diags_free(d);
	cJSON_Delete(items);
	flow_free(f);

	f = test_parse("{\"start\": {\"foreach\": [], \"do\": "
	    "{\"tool\": \"noop\"}}}");
	items = cJSON_Parse("[\"a\", \"b\", \"a\"]");
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 1,
	    "two items with one label are refused");
	flow_diags_free(d);
	cJSON_Delete(items);
	items = cJSON_Parse("[\"a\", 3]");
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 1,
	    "a number with no label template is refused");
	flow_diags_free(d);
	cJSON_Delete(items);
	items = cJSON_Parse("[\"a\\u0007\"]");
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 1,
	    "a label with a control character is refused");
	flow_diags_free(d);
	cJSON_Delete(items);
	items = cJSON_Parse("{\"a\": 1}");
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 1,
	    "an object is not items");
	flow_diags_free(d);
	cJSON_Delete(items);
	flow_free(f);
}

/* More than FLOW_FOREACH_MAX items are refused; that many are not. */
static void
test_limit(void)
{
	struct flow_diags	*d;
	struct flow		*f;
	cJSON			*items;
	char			 name[32];
	int			 i;

	f = test_parse("{\"start\": {\"foreach\": [], \"do\": "
	    "{\"tool\": \"noop\"}}}");
	items = cJSON_CreateArray();
	for (i = 0; i < FLOW_FOREACH_MAX; i++) {
		snprintf(name, sizeof name, "h%d", i);
		cJSON_AddItemToArray(items, cJSON_CreateString(name));
	}
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 0,
	    "10000 items are allowed");
	flow_diags_free(d);
	cJSON_AddItemToArray(items, cJSON_CreateString("one-more"));
	d = flow_diags_create();
	tap_is_int(flow_foreach_items(f->steps[0].foreach, items, "$", d), 1,
	    "10001 items are refused");
	flow_diags_free(d);
	cJSON_Delete(items);
	flow_free(f);
}

/* Look a dotted path up in JSON text; the value's text, or "-" or "!". */
static char *
test_scan(const char *text, const char *path)
{
	const char	*vp, *ve;
	char		*copy, *segs[16], *p, *seg;
	size_t		 n = 0;
	int		 rc;

	copy = xstrdup(path);
	for (p = copy; (seg = strsep(&p, ".")) != NULL && n < 16; )
		segs[n++] = seg;
	rc = json_scan_lookup(text, text + strlen(text), segs, n, &vp, &ve);
	free(copy);
	if (rc < 0)
		return (xstrdup("!"));
	if (rc == 0)
		return (xstrdup("-"));
	return (xstrndup(vp, (size_t)(ve - vp)));
}

/* Check one lookup against what the text should give. */
static void
test_scan_is(const char *text, const char *path, const char *want)
{
	char	*got;

	got = test_scan(text, path);
	tap_is(got, want, path);
	free(got);
}

/* Values found in JSON text as the scope's lookup finds them in a tree. */
static void
test_jsonscan(void)
{
	const char	*doc = "{ \"a\" : {\"b\": [1, {\"c\": \"x]}\\\"\"}, 3]},"
	    " \"a.b\": 7, \"h\": [\"w1\", \"w2\"], \"e\\u0021\": true,"
	    " \"d\": null, \"n\": -1.5e3 }";
	const char	*p, *vp, *ve;
	int		 n, rc;

	test_scan_is(doc, "h", "[\"w1\", \"w2\"]");
	test_scan_is(doc, "a.b", "7");
	test_scan_is(doc, "a.b.1.c", "-");
	test_scan_is(doc, "a", "{\"b\": [1, {\"c\": \"x]}\\\"\"}, 3]}");
	test_scan_is(doc, "e!", "true");
	test_scan_is(doc, "d", "null");
	test_scan_is(doc, "n", "-1.5e3");
	test_scan_is(doc, "h.1", "\"w2\"");
	test_scan_is(doc, "h.2", "-");
	test_scan_is(doc, "h.x", "-");
	test_scan_is(doc, "zz", "-");
	test_scan_is("{\"a\": [1, 2", "a", "!");
	test_scan_is("{\"a\" 1}", "a", "!");
	test_scan_is("{\"x\": {\"y\": 1}, \"x\": 2}", "x.y", "1");

	p = "[ \"a\" , [1,2] ,{\"k\":\"]\"} ]";
	for (n = 0; (rc = json_scan_next(&p, p + strlen(p), &vp, &ve)) == 1; )
		n++;
	tap_ok(rc == 0 && n == 3, "three elements walked (rc %d, n %d)", rc,
	    n);
	p = "[]";
	tap_is_int(json_scan_next(&p, p + 2, &vp, &ve), 0, "[] is empty");
	p = "[1,]";
	n = 0;
	while ((rc = json_scan_next(&p, p + strlen(p), &vp, &ve)) == 1)
		n++;
	tap_is_int(rc, -1, "a trailing comma is malformed");
	p = "[1 2]";
	tap_is_int(json_scan_next(&p, p + strlen(p), &vp, &ve), -1,
	    "a missing comma is malformed");
	p = "[\"abc";
	tap_is_int(json_scan_next(&p, p + strlen(p), &vp, &ve), -1,
	    "an unterminated string is malformed, not read past");
}

/* Items walked in place in JSON text are checked as parsed ones are. */
static void
test_walk(void)
{
	struct flow_diags	*d;
	struct flow_items	 it;
	struct flow		*f;
	const cJSON		*c;
	const char		*text;
	char			*first;
	int			 n;

	f = test_parse("{\"start\": {\"foreach\": [], \"do\": "
	    "{\"tool\": \"noop\"}}}");
	text = "[\"a\", \"b\", {\"x\": 1}, \"c\"]";
	flow_items_text(&it, text, text + strlen(text));
	tap_is_int((int)flow_items_count(&it), 4, "four items counted");
	d = flow_diags_create();
	tap_is_int(flow_foreach_walk(f->steps[0].foreach, &it, "$", d), 1,
	    "an object item with no label template is refused in text");
	first = flow_diags_first_error(d, NULL);
	tap_ok(first != NULL && strstr(first, "[2]") != NULL &&
	    strstr(first, "item 2 ") != NULL, "the error names the item: %s",
	    first != NULL ? first : "none");
	free(first);
	flow_diags_free(d);
	flow_items_free(&it);

	text = "[\"a\", \"b\", \"c\", \"b\"]";
	flow_items_text(&it, text, text + strlen(text));
	d = flow_diags_create();
	tap_is_int(flow_foreach_walk(f->steps[0].foreach, &it, "$", d), 1,
	    "two items of one label are refused in text");
	first = flow_diags_first_error(d, NULL);
	tap_ok(first != NULL && strstr(first, "label \"b\"") != NULL,
	    "the error names the label used twice: %s",
	    first != NULL ? first : "none");
	free(first);
	flow_diags_free(d);
	for (n = 0; (c = flow_items_next(&it)) != NULL; n++)
		;
	tap_is_int(n, 4, "the walk starts again after the check");
	flow_items_free(&it);

	text = "[\"a\", \"b\" \"c\"]";
	flow_items_text(&it, text, text + strlen(text));
	d = flow_diags_create();
	tap_ok(flow_foreach_walk(f->steps[0].foreach, &it, "$", d) > 0,
	    "malformed item text is refused");
	flow_diags_free(d);
	flow_items_free(&it);
	flow_free(f);
}

/* The input members a flow reads, and the input parsed to only those. */
static void
test_input_use(void)
{
	struct flow_input_use	*u;
	struct flow		*f;
	cJSON			*in;
	char			*s;
	const char		*flow = "{\"start\": {\"foreach\": "
	    "\"{{input.hosts}}\", \"label\": \"{{item}}\", \"do\": {\"run\": "
	    "[\"ssh\", \"{{item}}\", \"{{input.svc}}\"]}, \"next\": \"b\"},"
	    " \"b\": {\"tool\": \"noop\", \"branch\": [{\"if\": "
	    "\"input.mode.x == 1\", \"then\": \"c\"}]},"
	    " \"c\": {\"tool\": \"echo\", \"args\": {\"m\": "
	    "\"done {{ input.a.b }}\"}},"
	    " \"output\": {\"o\": \"{{input.out}}\"}}";
	const char		*input = "{\"hosts\": [\"h1\", \"h2\"], "
	    "\"svc\": \"nginx\", \"mode\": {\"x\": 1}, \"a.b\": 2, "
	    "\"a\": {\"b\": 3}, \"out\": [1], \"unread\": \"z\"}";

	f = test_parse(flow);
	u = flow_input_use(f, flow, NULL);
	tap_ok(!u->all, "a flow naming members does not read it all");
	in = flow_input_parse(input, u);
	s = json_print(in);
	tap_is(s, "{\"svc\":\"nginx\",\"a\":{\"b\":3},\"a.b\":2,"
	    "\"out\":[1],\"mode\":{\"x\":1}}", "only what steps, conditions and the "
	    "output read is parsed; the for-each's hosts are not");
	free(s);
	cJSON_Delete(in);
	flow_input_use_free(u);
	flow_free(f);

	flow = "{\"start\": {\"tool\": \"echo\", \"args\": "
	    "{\"all\": \"{{input}}\"}}}";
	f = test_parse(flow);
	u = flow_input_use(f, flow, NULL);
	tap_ok(u->all, "{{input}} reads it all");
	in = flow_input_parse(input, u);
	tap_ok(cJSON_GetObjectItem(in, "unread") != NULL,
	    "so all of it is parsed");
	cJSON_Delete(in);
	flow_input_use_free(u);
	flow_free(f);

	flow = "{\"start\": {\"tool\": \"later-field\", \"anything\": "
	    "[{\"x\": \"{{input.deep}}\"}]}}";
	f = test_parse("{\"start\": {\"tool\": \"noop\"}}");
	u = flow_input_use(f, flow, NULL);
	in = flow_input_parse("{\"deep\": 1, \"z\": 2}", u);
	s = json_print(in);
	tap_is(s, "{\"deep\":1}", "a placeholder in any field counts");
	free(s);
	cJSON_Delete(in);
	flow_input_use_free(u);
	flow_free(f);
}

/* The tally: an item counts by its latest row; the batch under way. */
static void
test_tally(void)
{
	static const struct flow_foreach_row rows[] = {
		{ 0, 1, STEP_DONE }, { 1, 1, STEP_FAILED }, { 2, 1, STEP_DONE },
		{ 1, 2, STEP_RUNNING }, { 3, 1, STEP_FAILED }, { 4, 1, STEP_PENDING },
		{ 5, 1, STEP_CANCELLED },
	};
	struct flow_foreach_tally	 t;
	struct flow			*f;

	f = test_parse("{\"start\": {\"foreach\": [], \"batch\": [1, 2], "
	    "\"max_failures\": 1, \"do\": {\"tool\": \"noop\"}}}");
	flow_foreach_tally(f->steps[0].foreach, 7, rows, nitems(rows), &t);
	tap_is_int(t.done, 2, "tally: done");
	tap_is_int(t.failed, 1, "tally: a retried item no longer counts failed");
	tap_is_int(t.running, 1, "tally: running");
	tap_is_int(t.waiting, 2, "tally: waiting (an item with no row too)");
	tap_is_int(t.cancelled, 1, "tally: cancelled");
	tap_is_int(t.nbatches, 4, "tally: batches 1, 2, 2, 2");
	tap_is_int(t.batch, 2, "tally: the batch of the first item not ended");
	tap_is_int(t.budget, 1, "tally: the budget");
	flow_free(f);
}

/* A row: id, its for-each row (item_of), items, item index, status. */
static struct flow_row
test_row(int64_t id, int64_t item_of, int64_t items, int index,
    enum step_status status)
{
	struct flow_row	r;

	memset(&r, 0, sizeof r);
	r.id = id;
	r.item_of = item_of;
	r.items = items;
	r.item_index = index;
	r.status = status;
	r.step_key = "s";
	return (r);
}

/* The budget's gate and which items a retry at it runs again. */
static void
test_budget_retry(void)
{
	struct flow_row	rows[14];
	unsigned char	again[nitems(rows)];
	char		got[64];
	size_t		i, n = 0, count;

	tap_ok(flow_foreach_budget_gate(STEP_WAITING, 7, -1,
	    "{\"message\":\"m\",\"foreach\":\"budget\"}"),
	    "budget gate: a waiting for-each gate marked budget");
	tap_ok(!flow_foreach_budget_gate(STEP_WAITING, 7, -1,
	    "{\"foreach\":\"batch\",\"batch\":2}"),
	    "budget gate: not a batch gate");
	tap_ok(!flow_foreach_budget_gate(STEP_DONE, 7, -1,
	    "{\"foreach\":\"budget\"}"),
	    "budget gate: not once decided");
	tap_ok(!flow_foreach_budget_gate(STEP_WAITING, 0, -1,
	    "{\"foreach\":\"budget\"}"),
	    "budget gate: not a gate of no for-each");
	tap_ok(!flow_foreach_budget_gate(STEP_WAITING, 7, 0,
	    "{\"foreach\":\"budget\"}"),
	    "budget gate: not an item");
	tap_ok(!flow_foreach_budget_gate(STEP_WAITING, 7, -1, "not json") &&
	    !flow_foreach_budget_gate(STEP_WAITING, 7, -1, NULL),
	    "budget gate: not without gate options");

	tap_ok(flow_foreach_budget_again(STEP_FAILED) &&
	    flow_foreach_budget_again(STEP_CANCELLED),
	    "again: a failed item, and one an operator cancelled");
	tap_ok(!flow_foreach_budget_again(STEP_DONE) &&
	    !flow_foreach_budget_again(STEP_SKIPPED) &&
	    !flow_foreach_budget_again(STEP_PENDING) &&
	    !flow_foreach_budget_again(STEP_RUNNING),
	    "again: not one done, skipped, waiting its turn or running");

	/*
	 * An earlier for-each (1) whose item failed within its budget; the
	 * for-each 4, taken over by row 9 after a retry of the workflow,
	 * waits at its budget gate 13.
	 */
	rows[n++] = test_row(1, 0, 2, -1, STEP_DONE);
	rows[n++] = test_row(2, 1, 0, 0, STEP_FAILED);
	rows[n++] = test_row(3, 1, 0, 1, STEP_DONE);
	rows[n++] = test_row(4, 0, 4, -1, STEP_FAILED);
	rows[n++] = test_row(5, 4, 0, 0, STEP_FAILED);	/* run again: 10 */
	rows[n++] = test_row(6, 4, 0, 1, STEP_DONE);
	rows[n++] = test_row(7, 4, 0, 2, STEP_FAILED);	/* ...: 11 */
	rows[n++] = test_row(8, 4, 0, 3, STEP_CANCELLED);	/* ...: 12 */
	rows[n++] = test_row(9, 4, 4, -1, STEP_RUNNING);
	rows[n++] = test_row(10, 4, 0, 0, STEP_DONE);
	rows[n++] = test_row(11, 4, 0, 2, STEP_FAILED);
	rows[n++] = test_row(12, 4, 0, 3, STEP_CANCELLED);
	rows[n++] = test_row(13, 9, 0, -1, STEP_WAITING);
	rows[n++] = test_row(14, 0, 0, -1, STEP_FAILED);
	count = flow_foreach_budget_plan(rows, n, 12, again);
	got[0] = '\0';
	for (i = 0; i < n; i++) {
		if (again[i])
			snprintf(got + strlen(got), sizeof got - strlen(got),
			    "%s%lld", got[0] != '\0' ? "," : "",
			    (long long)rows[i].id);
	}
	tap_is(got, "11,12", "plan: each item's latest row that failed or "
	    "was cancelled, of the gate's for-each only");
	tap_is_int((int)count, 2, "plan: how many");
	count = flow_foreach_budget_plan(rows, n, n, again);
	tap_ok(count == 0 && memchr(again, 1, n) == NULL,
	    "plan: no gate, nothing");
}

int
main(void)
{
	test_batches();
	test_labels();
	test_limit();
	test_tally();
	test_budget_retry();
	test_jsonscan();
	test_walk();
	test_input_use();
	return (tap_done());
}
