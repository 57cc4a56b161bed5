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
 * test-tree.c: the run view's layout of step rows (src/ui/tree.c), from
 * hand-built rows linked the way the engine links them: sequences,
 * branches, nested fan-outs and joins, retries, loops, steps not reached,
 * collapsed fan-outs, and a long loop laid out quickly.  Each layout is
 * drawn as text (ASCII tree glyphs, as the view draws them in LANG=C) and
 * compared whole.
 */

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui-int.h"
#include "tap.h"

static struct store_step	*rows;
static size_t			 nrows, srows;

static void		 rows_reset(void);
static void		 row_add(int64_t, const char *, const char *, int64_t,
			     int64_t, int, int);
static struct flow	*flow_of(const char *);
static struct tree	*layout(const struct flow *, int, const int64_t *,
			     size_t);
static char		*draw(const struct tree *, const struct flow *);

/* Forget the rows of the last case. */
static void
rows_reset(void)
{
	store_steps_free(rows, nrows);
	rows = NULL;
	nrows = srows = 0;
}

/* A row as the engine would write it (attempt 0 means 1). */
static void
row_add(int64_t id, const char *key, const char *status, int64_t parent,
    int64_t fanout, int branch, int attempt)
{
	struct store_step	*s;

	if (nrows == srows) {
		srows = srows * 2 + 16;
		rows = xreallocarray(rows, srows, sizeof *rows);
	}
	s = &rows[nrows++];
	memset(s, 0, sizeof *s);
	s->id = id;
	s->workflow_id = 1;
	s->name = xstrdup(key);
	s->step_key = xstrdup(key);
	if (status_step_parse(status, &s->status) != 0)
		abort();	/* a typo in this file */
	s->parent_id = parent;
	s->fanout_id = fanout;
	s->branch_no = branch;
	s->attempt = attempt > 0 ? attempt : 1;
	s->tool = xstrdup("noop");
	s->kind = KIND_TOOL;
}

/* Parse a flow or stop. */
static struct flow *
flow_of(const char *json)
{
	struct flow_diags	*d = flow_diags_create();
	struct flow		*f;

	f = flow_parse(json, strlen(json), d);
	if (f == NULL) {
		printf("Bail out! flow does not parse: %s\n", json);
		exit(1);
	}
	flow_diags_free(d);
	return (f);
}

/* Lay the current rows out. */
static struct tree *
layout(const struct flow *f, int ended, const int64_t *open, size_t nopen)
{
	struct tree_input	 in;

	memset(&in, 0, sizeof in);
	in.flow = f;
	in.steps = rows;
	in.nsteps = nrows;
	in.ended = ended;
	in.expanded = open;
	in.nexpanded = nopen;
	return (ui_tree_build(&in));
}

/*
 * The layout as lines: ASCII rails and corners, then the row: a step's
 * key and status (#N past the first attempt), "join" before a join,
 * "(not reached)", "[branch B of N status]", "{fan-out: counts}".
 */
static char *
draw(const struct tree *t, const struct flow *f)
{
	const struct tree_row	*r;
	const struct tree_fanout *fo;
	struct buf		 b;
	size_t			 i;
	int			 k, s;

	buf_init(&b);
	for (i = 0; i < t->n; i++) {
		r = &t->rows[i];
		for (k = 1; k < r->depth; k++)
			buf_puts(&b, k < 64 && (r->rails >> k) & 1 ? "|  " :
			    "   ");
		if (r->depth > 0)
			buf_puts(&b, r->last ? "\\- " : "|- ");
		switch (r->kind) {
		case TREE_JOIN:
			buf_puts(&b, "join ");
			/* FALLTHROUGH */
		case TREE_STEP:
			buf_printf(&b, "%s %s", r->row->step_key,
			    status_step_name(r->status));
			if (r->row->attempt > 1)
				buf_printf(&b, " #%d", r->row->attempt);
			break;
		case TREE_NOT_REACHED:
			buf_printf(&b, "%s (not reached)",
			    f->steps[r->spec].key);
			break;
		case TREE_BRANCH:
			fo = &t->fanouts[r->fanout];
			buf_printf(&b, "[branch %d of %d %s]", r->branch_no + 1,
			    fo->nbranches, status_step_name(r->status));
			break;
		case TREE_FANOUT:
			fo = &t->fanouts[r->fanout];
			buf_printf(&b, "{%d branches:", fo->nbranches);
			for (s = 0; s < STEP_NSTATUS; s++)
				if (fo->counts[s] > 0)
					buf_printf(&b, " %s %d",
					    status_step_name(s),
					    fo->counts[s]);
			buf_puts(&b, fo->expanded ? " open}" : "}");
			break;
		}
		buf_putc(&b, '\n');
	}
	return (buf_release(&b));
}

/* Check one layout against the lines it should draw. */
static void
expect(const struct flow *f, int ended, const int64_t *open, size_t nopen,
    const char *want, const char *what)
{
	struct tree	*t;
	char		*got;

	t = layout(f, ended, open, nopen);
	got = draw(t, f);
	if (!tap_is(got, want, what))
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
	ui_tree_free(t);
}

/* A sequence, running: rows in order, nothing marked not reached. */
static void
test_sequence(void)
{
	struct flow	*f;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"next\": \"b\"},"
	    "\"b\": {\"tool\": \"noop\", \"next\": \"c\"},"
	    "\"c\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "b", "running", 1, 0, 0, 1);
	expect(f, 0, NULL, 0, "start done\nb running\n",
	    "sequence: rows in order, no not-reached while running");
	expect(f, 1, NULL, 0, "start done\nb running\nc (not reached)\n",
	    "sequence: ended, the rest of the chain not reached in place");
	flow_free(f);
}

/* A branch with an else: the arm taken, the other not reached at the end. */
static void
test_branch(void)
{
	struct flow	*f;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"branch\": ["
	    "{\"if\": \"result == true\", \"then\": \"yes\"},"
	    "{\"else\": \"no\"}]},"
	    "\"yes\": {\"tool\": \"noop\", \"next\": \"after\"},"
	    "\"no\": {\"tool\": \"noop\", \"next\": \"after\"},"
	    "\"after\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "no", "done", 1, 0, 0, 1);
	row_add(3, "after", "done", 2, 0, 0, 1);
	expect(f, 1, NULL, 0,
	    "start done\nno done\nafter done\nyes (not reached)\n",
	    "branch/else: the arm taken in line, the other not reached last");
	flow_free(f);
	f = flow_of("{\"start\": {\"tool\": \"noop\", \"branch\": ["
	    "{\"if\": \"result == true\", \"then\": \"yes\"},"
	    "{\"else\": \"no\"}]},"
	    "\"yes\": {\"tool\": \"noop\", \"parallel\": [\"a\", \"b\"]},"
	    "\"a\": {\"tool\": \"noop\", \"join\": \"j\"},"
	    "\"b\": {\"tool\": \"noop\", \"next\": \"b2\"},"
	    "\"b2\": {\"tool\": \"noop\", \"join\": \"j\"},"
	    "\"j\": {\"tool\": \"noop\"},"
	    "\"no\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "no", "failed", 1, 0, 0, 1);
	expect(f, 1, NULL, 0,
	    "start done\n"
	    "no failed\n"
	    "yes (not reached)\n"
	    "|- a (not reached)\n"
	    "\\- [branch 2 of 2 skipped]\n"
	    "   |- b (not reached)\n"
	    "   \\- b2 (not reached)\n"
	    "j (not reached)\n",
	    "a fan-out never reached: its branches under it, as the flow has "
	    "them");
	flow_free(f);
}

/* The nested fan-out flow of test_nested and test_collapse. */
static const char *nested_flow =
    "{\"start\": {\"tool\": \"noop\", \"parallel\": [\"a\", \"p2\"]},"
    "\"a\": {\"tool\": \"noop\", \"next\": \"a2\"},"
    "\"a2\": {\"tool\": \"noop\", \"join\": \"j\"},"
    "\"p2\": {\"tool\": \"noop\", \"parallel\": [\"x\", \"y\"]},"
    "\"x\": {\"tool\": \"noop\", \"join\": \"j2\"},"
    "\"y\": {\"tool\": \"noop\", \"join\": \"j2\"},"
    "\"j2\": {\"tool\": \"noop\", \"join\": \"j\"},"
    "\"j\": {\"tool\": \"noop\", \"next\": \"end\"},"
    "\"end\": {\"tool\": \"noop\"}}";

/* Rows of the nested flow, linked as the engine links them. */
static void
nested_rows(int finished)
{
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "a", "done", 1, 1, 0, 1);
	row_add(3, "p2", "done", 1, 1, 1, 1);
	row_add(4, "a2", finished ? "done" : "running", 2, 1, 0, 1);
	row_add(5, "x", "done", 3, 3, 0, 1);
	row_add(6, "y", "done", 3, 3, 1, 1);
	row_add(7, "j2", "done", 3, 1, 1, 1);	/* p2's join, in p2's lane */
	if (!finished)
		return;
	row_add(8, "j", "done", 1, 0, 0, 1);	/* start's join */
	row_add(9, "end", "running", 8, 0, 0, 1);
}

/* A fan-out inside a fan-out: branches indented, joins after them. */
static void
test_nested(void)
{
	struct flow	*f = flow_of(nested_flow);

	nested_rows(1);
	expect(f, 0, NULL, 0,
	    "start done\n"
	    "|- [branch 1 of 2 done]\n"
	    "|  |- a done\n"
	    "|  \\- a2 done\n"
	    "\\- [branch 2 of 2 done]\n"
	    "   |- p2 done\n"
	    "   |  |- x done\n"
	    "   |  \\- y done\n"
	    "   \\- join j2 done\n"
	    "join j done\n"
	    "end running\n",
	    "nested fan-out: branches under their fan-out, joins after");
	nested_rows(0);
	expect(f, 0, NULL, 0,
	    "start done\n"
	    "|- [branch 1 of 2 running]\n"
	    "|  |- a done\n"
	    "|  \\- a2 running\n"
	    "\\- [branch 2 of 2 done]\n"
	    "   |- p2 done\n"
	    "   |  |- x done\n"
	    "   |  \\- y done\n"
	    "   \\- join j2 done\n",
	    "nested fan-out in flight: a branch's status is its most active");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "a", "failed", 1, 1, 0, 1);
	row_add(3, "p2", "cancelled", 1, 1, 1, 1);
	expect(f, 1, NULL, 0,
	    "start done\n"
	    "|- [branch 1 of 2 failed]\n"
	    "|  |- a failed\n"
	    "|  \\- a2 (not reached)\n"
	    "\\- [branch 2 of 2 cancelled]\n"
	    "   |- p2 cancelled\n"
	    "   \\- j2 (not reached)\n"
	    "j (not reached)\n"
	    "end (not reached)\n"
	    "x (not reached)\n"
	    "y (not reached)\n",
	    "failed fan-out: the rest of each branch and the join not reached");
	flow_free(f);
}

/* Retries: each attempt its own row, in order. */
static void
test_retries(void)
{
	struct flow	*f;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"next\": \"b\"},"
	    "\"b\": {\"tool\": \"noop\", \"parallel\": [\"c\"]},"
	    "\"c\": {\"tool\": \"noop\", \"next\": \"d\"},"
	    "\"d\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "b", "failed", 1, 0, 0, 1);
	row_add(3, "b", "done", 2, 0, 0, 2);
	row_add(4, "c", "failed", 3, 3, 0, 1);
	row_add(5, "c", "failed", 4, 3, 0, 2);
	row_add(6, "c", "pending", 5, 3, 0, 3);
	expect(f, 0, NULL, 0,
	    "start done\n"
	    "b failed\n"
	    "b done #2\n"
	    "\\- [branch 1 of 1 pending]\n"
	    "   |- c failed\n"
	    "   |- c failed #2\n"
	    "   \\- c pending #3\n",
	    "retries: repeated rows with their attempts, in and out of a "
	    "fan-out");
	flow_free(f);
}

/* A loop: every pass its own rows. */
static void
test_loop(void)
{
	struct flow	*f;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"next\": \"check\"},"
	    "\"check\": {\"tool\": \"noop\", \"branch\": ["
	    "{\"if\": \"result == true\", \"then\": \"fin\"},"
	    "{\"else\": \"start\"}]},"
	    "\"fin\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "check", "done", 1, 0, 0, 1);
	row_add(3, "start", "done", 2, 0, 0, 1);
	row_add(4, "check", "done", 3, 0, 0, 1);
	row_add(5, "fin", "done", 4, 0, 0, 1);
	expect(f, 1, NULL, 0,
	    "start done\ncheck done\nstart done\ncheck done\nfin done\n",
	    "loop: passes as repeated rows, nothing left unreached");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "check", "failed", 1, 0, 0, 1);
	expect(f, 1, NULL, 0, "start done\ncheck failed\nfin (not reached)\n",
	    "loop ended early: the exit not reached");
	flow_free(f);
}

/* A wide fan-out collapses to its counts; Enter's set opens it. */
static void
test_collapse(void)
{
	static const char	*st[] = { "done", "done", "done", "done",
	    "done", "done", "done", "done", "running", "running", "failed",
	    "waiting" };
	struct flow		*f;
	struct tree		*t;
	int64_t			 open = 1;
	size_t			 i;
	char			*got;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"parallel\": [\"w\","
	    "\"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\", \"w\","
	    "\"w\", \"w\"]}, \"w\": {\"tool\": \"noop\", \"join\": \"j\"},"
	    "\"j\": {\"tool\": \"noop\"}}");
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	for (i = 0; i < nitems(st); i++)
		row_add(2 + (int64_t)i, "w", st[i], 1, 1, (int)i, 1);
	expect(f, 0, NULL, 0,
	    "start done\n"
	    "\\- {12 branches: running 2 waiting 1 done 8 failed 1}\n",
	    "12 branches collapse to one row of counts by status");
	t = layout(f, 0, &open, 1);
	got = draw(t, f);
	tap_ok(t->n == 14 && t->rows[1].kind == TREE_FANOUT &&
	    !t->rows[1].last && t->rows[13].kind == TREE_STEP &&
	    t->rows[13].last && t->rows[13].row->id == 13 &&
	    t->rows[10].status == STEP_RUNNING,
	    "expanded: the counts row stays (to collapse again), then each "
	    "branch");
	tap_is_int(ui_tree_find_step(t, 13), 13, "a step row is found by id");
	free(got);
	ui_tree_free(t);
	flow_free(f);
	/* Few branches but many rows collapse too. */
	f = flow_of(nested_flow);
	rows_reset();
	row_add(1, "start", "done", 0, 0, 0, 1);
	row_add(2, "a", "done", 1, 1, 0, 1);
	for (i = 0; i < 40; i++)
		row_add(3 + (int64_t)i, "a2", "failed", 2 + (int64_t)i, 1, 0,
		    (int)i + 1);
	row_add(43, "p2", "running", 1, 1, 1, 1);
	expect(f, 0, NULL, 0,
	    "start done\n"
	    "\\- {2 branches: running 1 failed 1}\n",
	    "a fan-out of 42 rows collapses (branch statuses: newest row, "
	    "or the most active)");
	flow_free(f);
}

/* A long loop lays out quickly; a deep nesting does not overflow. */
static void
test_scale(void)
{
	struct tree_input in;
	struct flow	*f;
	struct tree	*t;
	int64_t		 t0, ms;
	size_t		 i;

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"next\": \"check\"},"
	    "\"check\": {\"tool\": \"noop\", \"branch\": ["
	    "{\"if\": \"result == true\", \"then\": \"fin\"},"
	    "{\"else\": \"start\"}]},"
	    "\"fin\": {\"tool\": \"noop\"}}");
	rows_reset();
	for (i = 0; i < 60000; i++)
		row_add(1 + (int64_t)i, i % 2 ? "check" : "start",
		    i == 59999 ? "running" : "done", (int64_t)i, 0, 0, 1);
	t0 = time_mono_ms();
	t = layout(f, 0, NULL, 0);
	ms = time_mono_ms() - t0;
	tap_ok(t->n == 60000 && t->rows[59999].status == STEP_RUNNING &&
	    t->rows[30000].row->id == 30001, "60,000-row loop: every row, "
	    "in order");
	tap_ok(ms < 1000, "60,000-row loop laid out in %lld ms", (long long)ms);
	ui_tree_free(t);
	flow_free(f);

	f = flow_of("{\"start\": {\"tool\": \"noop\", \"parallel\": "
	    "[\"start\"]}}");
	rows_reset();
	for (i = 0; i < 20000; i++)
		row_add(1 + (int64_t)i, "start", "done", (int64_t)i,
		    (int64_t)i, 0, 1);
	memset(&in, 0, sizeof in);
	in.flow = f;
	in.steps = rows;
	in.nsteps = nrows;
	in.ended = 1;
	in.max_rows = INT_MAX;
	t = ui_tree_build(&in);
	tap_ok(t->n == 20000 && t->rows[19999].depth == 19999 &&
	    t->rows[19999].last, "20,000 nested fan-outs: laid out without "
	    "recursion");
	ui_tree_free(t);
	flow_free(f);
}

/* No flow (it did not parse): the rows as they come, none lost. */
static void
test_no_flow(void)
{
	struct tree	*t;

	rows_reset();
	row_add(1, "a", "done", 0, 0, 0, 1);
	row_add(3, "c", "done", 1, 1, 0, 1);
	row_add(2, "b", "done", 99, 77, 0, 1);	/* a fan-out row not there */
	t = layout(NULL, 1, NULL, 0);
	tap_ok(t->n == 3 && t->rows[0].row->id == 1 &&
	    t->rows[1].row->id == 3 && t->rows[1].depth == 1 &&
	    t->rows[2].row->id == 2, "no flow: rows by link, orphans last");
	ui_tree_free(t);
}

int
main(void)
{
	test_sequence();
	test_branch();
	test_nested();
	test_retries();
	test_loop();
	test_collapse();
	test_scale();
	test_no_flow();
	rows_reset();
	return (tap_done());
}
