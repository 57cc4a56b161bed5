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
 * test-dag.c: the DAG form's pure part (flow/dag.c, flow/nodes.c):
 * parsing depends_on and the note's nodes and edges, the refusals with
 * their paths (a cycle named member by member, a mix of forms, unknown
 * and repeated dependencies), the order steps are decided in, the rule
 * deciding a step from its dependencies' ends, and the retry plan.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

/* Parse text; every diagnostic as "path: message" lines in *diags. */
static struct flow *
parse(const char *text, char **diags)
{
	struct flow_diags	*d;
	struct flow_diag	*g;
	struct flow		*f;
	struct buf		 b;

	d = flow_diags_create();
	f = flow_parse(text, strlen(text), d);
	buf_init(&b);
	TAILQ_FOREACH(g, d, entry)
		buf_printf(&b, "%s%s: %s", b.len > 0 ? "\n" : "", g->path,
		    g->message);
	*diags = buf_release(&b);
	if (*diags == NULL)
		*diags = xstrdup("");
	flow_diags_free(d);
	return (f);
}

/* Parse text and check its diagnostics are exactly want. */
static void
diags_are(const char *text, const char *want, const char *what)
{
	struct flow	*f;
	char		*got;

	f = parse(text, &got);
	tap_is(got, want, what);
	free(got);
	flow_free(f);
}

/* The order a flow decides its steps in, as "a b c". */
static char *
order(const struct flow *f)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < f->norder; i++)
		buf_printf(&b, "%s%s", i > 0 ? " " : "",
		    f->steps[f->order[i]].key);
	return (buf_release(&b));
}

static void
test_parse(void)
{
	struct flow	*f;
	char		*diags, *o, *after;

	f = parse("{\"d\": {\"tool\": \"noop\", \"depends_on\": [\"b\", "
	    "{\"step\": \"c\", \"if\": \"result.ok == true\"}]},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"a\"]},"
	    " \"c\": {\"tool\": \"noop\", \"depends_on\": [\"a\"],"
	    "   \"trigger\": \"all_done\"},"
	    " \"a\": {\"tool\": \"noop\"}}", &diags);
	tap_is(diags, "", "a diamond parses");
	tap_is_int(f->form, FLOW_FORM_DEPENDS, "in the depends_on form");
	o = order(f);
	tap_is(o, "a b c d", "decided dependencies first");
	tap_is(f->steps[f->start].key, "a", "its start is its first root");
	tap_is_int(f->steps[0].ndeps, 2, "d has two dependencies");
	tap_is(f->steps[0].deps[1].cond_src, "result.ok == true",
	    "an entry's condition is kept");
	tap_is_int(f->steps[2].trigger, FLOW_TRIGGER_ALL_DONE,
	    "trigger all_done");
	after = flow_dag_after(f, 0);
	tap_is(after, "b, c", "d comes after b, c");
	free(after);
	free(o);
	free(diags);
	flow_free(f);

	f = parse("{\"start\": {\"tool\": \"noop\", \"next\": \"b\"},"
	    " \"b\": {\"tool\": \"noop\"}}", &diags);
	tap_is_int(f->form, FLOW_FORM_STEPS, "a flow without depends_on "
	    "keeps the steps form");
	tap_ok(f->order == NULL, "and has no DAG order");
	free(diags);
	flow_free(f);
}

static void
test_refusals(void)
{
	diags_are("{\"a\": {\"tool\": \"noop\", \"depends_on\": [\"c\"]},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"a\"]},"
	    " \"c\": {\"tool\": \"noop\", \"depends_on\": [\"b\"]}}",
	    "$.a.depends_on[0]: cycle: a \xe2\x86\x92 b \xe2\x86\x92 c "
	    "\xe2\x86\x92 a", "a cycle is named in running order");
	diags_are("{\"x\": {\"tool\": \"noop\"},"
	    " \"c\": {\"tool\": \"noop\", \"depends_on\": [\"b\", \"x\"]},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"c\"]}}",
	    "$.c.depends_on[0]: cycle: c \xe2\x86\x92 b \xe2\x86\x92 c",
	    "from the member written first");
	diags_are("{\"a\": {\"tool\": \"noop\", \"depends_on\": [\"a\"]}}",
	    "$.a.depends_on[0]: cycle: a \xe2\x86\x92 a",
	    "a step depending on itself");
	diags_are("{\"a\": {\"tool\": \"noop\", \"parallel\": [\"b\"]},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"a\"],"
	    "   \"join\": \"a\"}}",
	    "$.a.parallel: \"parallel\" cannot be used in a DAG flow "
	    "(depends_on, first at $.b.depends_on): a flow uses one form, "
	    "depends_on or next/branch/parallel/join\n"
	    "$.b.join: \"join\" cannot be used in a DAG flow (depends_on, "
	    "first at $.b.depends_on): a flow uses one form, depends_on or "
	    "next/branch/parallel/join", "each field of the other form");
	diags_are("{\"a\": {\"tool\": \"noop\"},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"z\", 3,"
	    "   {\"if\": \"result == 1\"}]}}",
	    "$.b.depends_on[1]: expected a step name or {\"step\": ..., "
	    "\"if\": ...}, got a number\n"
	    "$.b.depends_on[2]: missing \"step\"\n"
	    "$.b.depends_on[0]: unknown step \"z\"",
	    "bad entries, each at its path");
	diags_are("{\"nodes\": [{\"step_name\": \"a\", \"tool\": \"noop\"},"
	    " {\"step_name\": \"a\", \"tool\": \"noop\"},"
	    " {\"step_name\": \"b\", \"tool\": \"noop\", \"max_retries\": -1}],"
	    " \"edges\": [{\"from\": \"a\", \"to\": \"bb\"},"
	    "  {\"from\": \"a\", \"to\": \"a\", \"condition\": 3}],"
	    " \"edgs\": []}",
	    "$.edgs: unknown field \"edgs\" in a nodes and edges flow "
	    "(did you mean \"edges\"?)\n"
	    "$.nodes[1].step_name: duplicate step_name \"a\" "
	    "(also $.nodes[0])\n"
	    "$.nodes[2].max_retries: expected an integer from 0 to 99, "
	    "got -1\n"
	    "$.edges[0].to: unknown node \"bb\"\n"
	    "$.edges[1].condition: expected the branch a result names (a "
	    "string) or null, got a number",
	    "the note's document, refused at its own paths");
}

/* Decide step spec of f with these dependency ends. */
static void
decide_is(const struct flow *f, int spec, const struct flow_dag_end *ends,
    enum flow_dag_verdict want, const char *why_want, const char *what)
{
	enum flow_dag_verdict	 v;
	cJSON			*scope;
	char			*why;

	scope = cJSON_CreateObject();
	v = flow_dag_decide(f, spec, ends, scope, &why);
	tap_is_int(v, want, what);
	tap_is(why, why_want, what);
	free(why);
	cJSON_Delete(scope);
}

static void
test_decide(void)
{
	struct flow		*f;
	struct flow_dag_end	 e[2];
	char			*diags;

	f = parse("{\"nodes\": [{\"step_name\": \"v\", \"tool\": \"noop\"},"
	    " {\"step_name\": \"w\", \"tool\": \"noop\"},"
	    " {\"step_name\": \"p\", \"tool\": \"noop\"},"
	    " {\"step_name\": \"n\", \"tool\": \"noop\","
	    "   \"trigger\": \"all_done\"}],"
	    " \"edges\": [{\"from\": \"v\", \"to\": \"p\","
	    "   \"condition\": \"premium\"}, {\"from\": \"w\", \"to\": \"p\"},"
	    "  {\"from\": \"v\", \"to\": \"n\", \"condition\": \"premium\"},"
	    "  {\"from\": \"w\", \"to\": \"n\"}]}", &diags);
	tap_is(diags, "", "the note's form with conditions parses");
	tap_is_int(f->form, FLOW_FORM_NODES, "in the nodes form");
	tap_is(f->steps[2].deps[0].cond_src, "result.branch == \"premium\"",
	    "a condition C means result.branch == C");
	memset(e, 0, sizeof e);
	e[0].ended = 1;
	e[0].status = STEP_DONE;
	e[0].result_json = "{\"branch\": \"premium\"}";
	decide_is(f, 2, e, FLOW_DAG_WAIT, NULL, "waits for every dependency");
	e[1].ended = 1;
	e[1].status = STEP_DONE;
	decide_is(f, 2, e, FLOW_DAG_START, NULL, "starts when all hold");
	e[0].result_json = "{\"branch\": \"standard\"}";
	decide_is(f, 2, e, FLOW_DAG_SKIP, "skipped: the condition on v was "
	    "false (result.branch == \"premium\")", "a false condition skips");
	e[0].result_json = "{\"branch\": \"premium\"}";
	e[1].status = STEP_SKIPPED;
	decide_is(f, 2, e, FLOW_DAG_SKIP,
	    "skipped: dependency w was skipped", "a skipped one skips");
	e[1].status = STEP_FAILED;
	decide_is(f, 2, e, FLOW_DAG_FAIL,
	    "step p: its dependency w failed", "a failed one fails the run");
	decide_is(f, 3, e, FLOW_DAG_START, NULL,
	    "all_done starts whatever its dependencies' ends");
	e[0].result_json = "{\"branch\": \"gold\"}";
	decide_is(f, 3, e, FLOW_DAG_SKIP, "skipped: the condition on v was "
	    "false (result.branch == \"premium\")",
	    "all_done still asks the completed dependencies' conditions");
	tap_ok(!flow_dag_tolerated(f, 1), "w's failure fails the run (p "
	    "needs it)");
	tap_ok(flow_dag_judged(f, 0), "v's dependants judge its result");
	free(diags);
	flow_free(f);
}

/* One row of a run: id, step, status. */
static struct flow_row
row(int64_t id, const char *key, enum step_status status)
{
	struct flow_row	r;

	memset(&r, 0, sizeof r);
	r.id = id;
	r.step_key = key;
	r.status = status;
	r.item_index = -1;
	return (r);
}

static void
test_retry(void)
{
	struct flow	*f;
	struct flow_row	 rows[5];
	unsigned char	 again[5];
	char		*diags;

	f = parse("{\"a\": {\"tool\": \"noop\"},"
	    " \"b\": {\"tool\": \"noop\", \"depends_on\": [\"a\"]},"
	    " \"c\": {\"tool\": \"noop\", \"depends_on\": [\"b\"]},"
	    " \"x\": {\"tool\": \"noop\", \"depends_on\": [\"a\"]},"
	    " \"y\": {\"tool\": \"noop\", \"depends_on\": [\"x\"]}}", &diags);
	rows[0] = row(1, "a", STEP_DONE);
	rows[1] = row(2, "b", STEP_FAILED);
	rows[2] = row(3, "x", STEP_DONE);
	rows[3] = row(4, "y", STEP_CANCELLED);
	rows[4] = row(5, "b", STEP_FAILED);
	tap_is_int(flow_retry_plan(f, NULL, rows, 5, 5, again), 2,
	    "a plain retry runs two rows again");
	tap_ok(again[4] && again[3] && !again[1] && !again[0],
	    "each failed or cancelled step's latest row");
	tap_is_int(flow_retry_plan(f, NULL, rows, 5, 0, again), 0,
	    "retry --from a: everything else depends on it");
	tap_is_int(flow_retry_plan(f, NULL, rows, 5, 2, again), 1,
	    "retry --from x: b, elsewhere, runs again with it");
	tap_ok(again[4], "b's latest row");
	free(diags);
	flow_free(f);
}

int
main(void)
{
	test_parse();
	test_refusals();
	test_decide();
	test_retry();
	return (tap_done());
}
