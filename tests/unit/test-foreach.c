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
 * print.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static struct flow	*test_parse(const char *);
static char		*test_ends(const struct flow_foreach *, size_t);

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

int
main(void)
{
	test_batches();
	test_labels();
	test_limit();
	test_tally();
	return (tap_done());
}
