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
 * test-rerun.c: the retry rules of flow/rerun.c and the joins of
 * flow/join.c, which both the engine and the console's preview call:
 * which rows run again on retry and retry --from, and why a retry is
 * refused.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "tap.h"

static const char fanout_flow[] =
    "{\"start\": {\"run\": [\"true\"], \"parallel\": [\"a\", \"b\", \"c\"]},"
    " \"a\": {\"run\": [\"true\"], \"join\": \"verify\"},"
    " \"b\": {\"run\": [\"true\"], \"join\": \"verify\"},"
    " \"c\": {\"run\": [\"true\"], \"next\": \"c2\"},"
    " \"c2\": {\"run\": [\"true\"], \"join\": \"verify\"},"
    " \"verify\": {\"run\": [\"true\"], \"next\": \"ask\"},"
    " \"ask\": {\"tool\": null, \"gate\": {\"message\": \"go?\"},"
    "   \"next\": \"end\"},"
    " \"end\": {\"run\": [\"true\"]}}";

/* One row: id, parent, fan-out, step, status. */
static struct flow_row
row(int64_t id, int64_t parent, int64_t fanout, const char *key,
    const char *status)
{
	struct flow_row	r;

	memset(&r, 0, sizeof r);
	r.id = id;
	r.parent_id = parent;
	r.fanout_id = fanout;
	r.step_key = key;
	if (status_step_parse(status, &r.status) != 0)
		abort();	/* a typo in this file */
	return (r);
}

/* The ids set in again, as "3,5". */
static char *
ids(const struct flow_row *rows, size_t n, const unsigned char *again)
{
	struct buf	b;
	size_t		i;

	buf_init(&b);
	for (i = 0; i < n; i++) {
		if (again[i])
			buf_printf(&b, "%s%lld", b.len > 0 ? "," : "",
			    (long long)rows[i].id);
	}
	return (buf_release(&b));
}

/* Plan a retry (from: an index, or n) and check the rows it picks. */
static void
plan_is(const struct flow *f, const int *join_of, const struct flow_row *rows,
    size_t n, size_t from, const char *want, const char *what)
{
	unsigned char	*again;
	char		*got;

	again = xcalloc(n, 1);
	flow_retry_plan(f, join_of, rows, n, from, again);
	got = ids(rows, n, again);
	tap_is(got, want, what);
	free(got);
	free(again);
}

/* Parse the fan-out flow used below. */
static struct flow *
fanout(void)
{
	struct flow_diags	*d;
	struct flow		*f;

	d = flow_diags_create();
	f = flow_parse(fanout_flow, strlen(fanout_flow), d);
	if (flow_diags_errors(d) != 0) {
		fprintf(stderr, "fanout_flow does not parse\n");
		exit(1);
	}
	flow_diags_free(d);
	return (f);
}

/* The join of each fan-out. */
static void
test_joins(void)
{
	struct flow	*f = fanout();
	int		*join_of;

	join_of = flow_joins(f);
	tap_is_int(join_of[flow_find(f, "start")], flow_find(f, "verify"),
	    "the fan-out's join is verify");
	tap_is_int(join_of[flow_find(f, "c")], -1, "a plain step has none");
	free(join_of);
	flow_free(f);
}

/* Plain retry and retry --from inside a fan-out. */
static void
test_plan(void)
{
	struct flow	*f = fanout();
	struct flow_row	 rows[8];
	int		*join_of;
	size_t		 n = 0;

	join_of = flow_joins(f);
	rows[n++] = row(1, 0, 0, "start", "done");
	rows[n++] = row(2, 1, 1, "a", "done");
	rows[n++] = row(3, 1, 1, "b", "failed");
	rows[n++] = row(4, 1, 1, "c", "done");
	rows[n++] = row(5, 4, 1, "c2", "cancelled");
	plan_is(f, join_of, rows, n, n, "3,5",
	    "retry: the failed and the cancelled branch end");
	plan_is(f, join_of, rows, n, 2, "5",
	    "retry --from b: the other unfinished branch too, for the join");
	plan_is(f, join_of, rows, n, 4, "3",
	    "retry --from c2: b, not c2 itself");
	plan_is(f, join_of, rows, n, 0, "",
	    "retry --from start: everything is after it");

	/* The join ran (all_done would let it) and failed. */
	rows[n++] = row(6, 1, 0, "verify", "failed");
	plan_is(f, join_of, rows, n, n, "3,5,6", "retry: every leaf");
	plan_is(f, join_of, rows, n, 2, "",
	    "retry --from b: the join ran, so no sibling runs again");

	/* A done row whose step goes on, with nothing after it. */
	n = 0;
	rows[n++] = row(1, 0, 0, "verify", "done");
	rows[n++] = row(2, 1, 0, "ask", "done");
	plan_is(f, join_of, rows, n, n, "2",
	    "a rejected gate (done, its next never came) runs again");
	rows[n++] = row(3, 2, 0, "end", "done");
	plan_is(f, join_of, rows, n, n, "",
	    "a done last step is no leaf: nothing runs again");
	rows[1].branch_end = 1;
	rows[2].status = STEP_SKIPPED;
	plan_is(f, join_of, rows, n, n, "3",
	    "a skipped last row goes on; a branch end is not a leaf");

	/* A for-each's items go with its own row. */
	n = 0;
	rows[n++] = row(1, 0, 0, "a", "failed");
	rows[0].items = 2;
	rows[n++] = row(2, 0, 0, "a", "done");
	rows[1].item_of = 1;
	rows[n++] = row(3, 0, 0, "a", "failed");
	rows[2].item_of = 1;
	plan_is(f, join_of, rows, n, n, "1",
	    "a failed for-each runs again as one row, not its items");
	free(join_of);
	flow_free(f);
}

/* retry --from: the row it starts from, or why not. */
static void
test_from(void)
{
	struct flow	*f = fanout();
	struct flow_row	 rows[4];
	size_t		 n = 0, last = 99;
	char		*why = NULL;

	rows[n++] = row(1, 0, 0, "a", "failed");
	rows[0].items = 2;
	rows[n++] = row(2, 0, 0, "a", "done");
	rows[1].item_of = 1;
	rows[n++] = row(3, 0, 0, "a", "failed");
	rows[2].item_of = 1;
	tap_ok(flow_retry_from(f, rows, n, 7, "a", &last, &why) == 0 &&
	    last == 0 && why == NULL,
	    "--from a for-each: its own row, not its last item");
	tap_is_int(flow_retry_from(f, rows, n, 7, "nope", &last, &why), 2,
	    "--from an unknown step: 2");
	tap_is(why, "workflow 7 has no step \"nope\"", "says which");
	free(why);
	why = NULL;
	tap_is_int(flow_retry_from(NULL, rows, n, 7, "a", &last, &why), 2,
	    "no flow: 2");
	free(why);
	why = NULL;
	tap_is_int(flow_retry_from(f, rows, n, 7, "verify", &last, &why), 4,
	    "--from a step that never ran: 4");
	tap_is(why, "step verify of workflow 7 never ran; retry --from a step "
	    "that did", "says so");
	free(why);
	flow_free(f);
}

/* Which workflows may be retried, and the words of a refusal. */
static void
test_refusal(void)
{
	char	*why = NULL;

	tap_is_int(flow_retry_refusal(3, RUN_FAILED, 1, &why), 0, "failed: yes");
	tap_is_int(flow_retry_refusal(3, RUN_CANCELLED, 1, &why), 0,
	    "cancelled: yes");
	tap_ok(why == NULL, "no reason then");
	tap_is_int(flow_retry_refusal(3, RUN_RUNNING, 1, &why), 4,
	    "running: 4");
	tap_is(why, "workflow 3 is running: only a failed or cancelled "
	    "workflow can be retried", "says why");
	free(why);
	why = NULL;
	tap_is_int(flow_retry_refusal(3, RUN_CANCELLED, 0, &why), 4,
	    "cancelled before its start: 4");
	tap_is(why, "workflow 3 was cancelled before its start time; start it "
	    "again with sluice run", "says why");
	free(why);
}

/* The leaf test alone, as skip asks it (no flow: done rows never are). */
static void
test_leaf(void)
{
	struct flow_row	rows[3];

	rows[0] = row(1, 0, 0, "a", "failed");
	rows[1] = row(2, 0, 0, "b", "failed");
	rows[2] = row(3, 2, 0, "c", "done");
	tap_ok(flow_rerun_leaf(NULL, rows, 3, 0), "a childless failed row");
	tap_ok(!flow_rerun_leaf(NULL, rows, 3, 1), "not one with a child");
	tap_ok(!flow_rerun_leaf(NULL, rows, 3, 2), "not a done row");
}

int
main(void)
{
	test_joins();
	test_plan();
	test_from();
	test_refusal();
	test_leaf();
	return (tap_done());
}
