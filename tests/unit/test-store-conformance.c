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
 * test-store-conformance.c: what any store driver must give, asked
 * through store.h alone: open and create, runs and their steps, the state
 * changes the engine writes, transactions and savepoints, gates with
 * their audited approvals (and what a decision reads, in one statement),
 * the audit chain verified (also with the head kept through a
 * transaction while another connection writes between them), templates and their
 * history, schedules, timers, the inbox (and a command relayed, on a
 * server), the engine lease, step logs, pruning, the counts a person sees
 * and the refusals (read-only, missing, unknown driver).  No SQL and no driver call appears here, so the same
 * program checks another driver: SLUICE_STORE_DRIVER names the driver
 * (default "sqlite"), SLUICE_STORE_TARGET where its database is (default
 * a file in a temporary directory).
 */

#include <sys/types.h>

#include <ftw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "store/store.h"
#include "tap.h"

static char			 tmpdir[] = "/tmp/test-conformance.XXXXXX";
static const struct store_actor	 alice = { 1000, "alice", "pts/1", "h1", NULL, NULL };
static const struct store_actor	 bob = { 1001, "bob", "pts/2", "h2", NULL, NULL };

static int	 conf_rm(const char *, const struct stat *, int, struct FTW *);
static int64_t	 conf_run(struct store *, const char *, const char *);
static void	 conf_driver(void);
static void	 conf_runs(struct store *);
static void	 conf_transitions(struct store *);
static void	 conf_transactions(struct store *);
static void	 conf_gates(struct store *);
static void	 conf_gate_read(struct store *);
static void	 conf_audit_head(struct store *, const char *);
static int	 conf_note(struct store *, const struct store_actor *,
		     const char *);
static void	 conf_templates(struct store *);
static void	 conf_schedules(struct store *);
static void	 conf_timers(struct store *);
static void	 conf_inbox(struct store *);
static void	 conf_relay(const char *);
static void	 conf_heard(void *, const char *);
static void	 conf_lease(struct store *);
static void	 conf_logs(struct store *);
static void	 conf_prune(struct store *);
static void	 conf_status(struct store *);
static void	 conf_audit(struct store *);
static void	 conf_refusals(const char *);

/* Remove one file of the temporary directory. */
static int
conf_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return (remove(path));
}

/* Start a run whose first step runs tool, or waits at a gate (NULL). */
static int64_t
conf_run(struct store *s, const char *name, const char *tool)
{
	struct store_workflow	 wf;
	struct store_step	 first;
	char			*cause = NULL;

	memset(&wf, 0, sizeof wf);
	memset(&first, 0, sizeof first);
	wf.name = (char *)name;
	wf.flow_json = (char *)"{\"start\":{\"name\":\"one\"}}";
	wf.input_json = (char *)"{\"k\":1}";
	wf.status = RUN_RUNNING;
	first.name = (char *)"one";
	first.status = tool != NULL ? STEP_READY : STEP_WAITING;
	first.tool = (char *)tool;
	first.kind = tool != NULL ? KIND_TOOL : KIND_GATE;
	first.gate_json = tool != NULL ? NULL : (char *)"{\"quorum\":1}";
	first.args_json = (char *)"{}";
	if (store_run_create(s, &wf, &first, &alice, &cause) != 0) {
		printf("# run_create: %s\n", cause);
		free(cause);
		return (0);
	}
	return (first.workflow_id == wf.id && first.id > 0 ? wf.id : 0);
}

/* The driver is chosen by name; an unknown name is refused with why. */
static void
conf_driver(void)
{
	const char	*name = getenv("SLUICE_STORE_DRIVER");
	char		*cause = NULL;

	if (name == NULL || *name == '\0')
		name = "sqlite";
	tap_is_int(store_set_driver("no-such-driver", &cause), STORE_ERR,
	    "an unknown driver is refused");
	tap_ok(cause != NULL && strstr(cause, "no-such-driver") != NULL,
	    "  naming it");
	free(cause);
	cause = NULL;
	tap_is(store_driver_name(), "sqlite", "  and the default stays");
	if (store_set_driver(name, &cause) != 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	tap_is(store_driver_name(), name, "the driver asked for is used");
}

/* Runs: created, read back, listed, found by their steps. */
static void
conf_runs(struct store *s)
{
	struct store_workflow	*wf, *list;
	struct store_step	*steps;
	size_t			 n;
	int64_t			 a, b;
	char			*cause = NULL;

	a = conf_run(s, "alpha", "echo");
	b = conf_run(s, "beta", "echo");
	tap_ok(a > 0 && b > a, "runs get increasing ids");
	tap_is_int(store_workflow_get(s, a, &wf, &cause), 0, "get a run");
	tap_is(wf->name, "alpha", "  its name");
	tap_is(wf->input_json, "{\"k\":1}", "  its input");
	tap_is(wf->created_by, "alice", "  who started it");
	tap_ok(wf->status == RUN_RUNNING && wf->started_at > 0,
	    "  running, with a start time");
	store_workflow_free(wf);
	tap_is_int(store_workflow_get(s, 999999, &wf, &cause), STORE_NOTFOUND,
	    "an unknown run is not found");
	tap_ok(cause != NULL, "  with a reason");
	free(cause);
	cause = NULL;
	tap_is_int(store_workflow_list(s, NULL, &list, &n, &cause), 0,
	    "list runs");
	tap_is_int(n, 2, "  both");
	tap_ok(n == 2 && list[0].id == b, "  newest first");
	store_workflows_free(list, n);
	tap_is_int(store_step_list(s, a, &steps, &n, &cause), 0, "its steps");
	tap_ok(n == 1 && steps[0].status == STEP_READY &&
	    strcmp(steps[0].tool, "echo") == 0 && steps[0].kind == KIND_TOOL,
	    "  the first, ready, with its tool");
	store_steps_free(steps, n);
}

/* The engine's writes: a step started, ended, the next added, the end. */
static void
conf_transitions(struct store *s)
{
	struct store_step	*steps, *step, next, one;
	struct store_workflow	*wf;
	size_t			 n;
	int64_t			 id, now = time_now_ms();
	char			*cause = NULL;

	id = conf_run(s, "moving", "echo");
	store_step_list(s, id, &steps, &n, &cause);
	one = steps[0];		/* strings borrowed, never freed here */
	tap_is_int(store_begin(s, &cause), 0, "a turn begins");
	one.args_json = (char *)"{\"x\":2}";
	one.pid = 4242;
	tap_is_int(store_step_start(s, &one, now), 0, "step started");
	one.status = STEP_DONE;
	one.result_json = (char *)"{\"ok\":true}";
	one.has_exit_code = 1;
	one.exit_code = 0;
	tap_is_int(store_step_end(s, &one, now + 1), 0, "step ended");
	memset(&next, 0, sizeof next);
	next.workflow_id = id;
	next.name = (char *)"two";
	next.tool = (char *)"noop";
	next.kind = KIND_TOOL;
	next.status = STEP_READY;
	next.args_json = (char *)"{}";
	next.parent_id = steps[0].id;
	tap_is_int(store_step_add(s, &next, now + 1), 0, "next step added");
	tap_ok(next.id > steps[0].id, "  with its id");
	tap_is_int(store_workflow_end(s, id, RUN_COMPLETED, NULL, now + 2), 0,
	    "run ended");
	tap_is_int(store_commit(s, &cause), 0, "the turn commits");

	tap_is_int(store_step_get(s, steps[0].id, &step, &cause), 0,
	    "read the step back");
	tap_ok(step->status == STEP_DONE && step->has_exit_code &&
	    step->exit_code == 0 && step->pid == 4242, "  done, exit 0, pid");
	tap_is(step->result_json, "{\"ok\":true}", "  its result");
	tap_is(step->args_json, "{\"x\":2}", "  its args as resolved");
	tap_ok(step->progress_pct == -1 && step->item_index == -1,
	    "  NULL columns read as none");
	store_step_free(step);
	store_steps_free(steps, n);
	store_workflow_get(s, id, &wf, &cause);
	tap_ok(wf->status == RUN_COMPLETED && wf->completed_at == now + 2,
	    "the run is completed, at its time");
	store_workflow_free(wf);
}

/* A rolled back transaction leaves nothing; a savepoint undoes its part. */
static void
conf_transactions(struct store *s)
{
	struct store_workflow	 wf, *got;
	int64_t			 kept, n;
	char			*cause = NULL;

	memset(&wf, 0, sizeof wf);
	wf.name = (char *)"undone";
	wf.flow_json = (char *)"{}";
	wf.created_by = (char *)"alice";
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_workflow_add(s, &wf, 10), 0, "a run added");
	store_rollback(s);
	tap_is_int(store_workflow_get(s, wf.id, &got, &cause), STORE_NOTFOUND,
	    "rolled back: it is gone");
	free(cause);
	cause = NULL;

	tap_is_int(store_begin(s, &cause), 0, "begin again");
	tap_is_int(store_workflow_add(s, &wf, 10), 0, "a run added");
	kept = wf.id;
	tap_is_int(store_begin(s, &cause), 0, "a savepoint inside");
	tap_is_int(store_workflow_add(s, &wf, 11), 0, "  another run");
	store_rollback(s);
	tap_is_int(store_commit(s, &cause), 0, "the outer level commits");
	tap_is_int(store_workflow_get(s, kept, &got, &cause), 0,
	    "the outer run is kept");
	store_workflow_free(got);
	tap_is_int(store_workflow_get(s, wf.id, &got, &cause), STORE_NOTFOUND,
	    "the savepoint's is not");
	free(cause);
	cause = NULL;
	tap_is_int(store_commit(s, &cause), STORE_ERR,
	    "a commit with no transaction is an error");
	free(cause);
	n = store_data_version(s);
	tap_ok(n >= 0, "the data version reads");
}

/* A gate waits for people; a decision counts beside its audit row. */
static void
conf_gates(struct store *s)
{
	struct store_gate		*gates;
	struct store_step		*steps;
	struct store_audit_entry	 ae;
	size_t				 n, ns, i;
	int64_t				 id, count;
	char				*cause = NULL;
	int				 found = 0;

	id = conf_run(s, "deploy", NULL);
	tap_ok(id > 0, "a run waiting at a gate");
	tap_is_int(store_gate_list(s, &gates, &n, &cause), 0, "list gates");
	for (i = 0; i < n; i++)
		found |= gates[i].workflow_id == id;
	tap_ok(found, "  the gate is listed");
	store_gates_free(gates, n);
	store_step_list(s, id, &steps, &ns, &cause);
	tap_ok(ns == 1 && steps[0].status == STEP_WAITING &&
	    steps[0].kind == KIND_GATE, "  its step waits");

	memset(&ae, 0, sizeof ae);
	ae.action = "approve";
	ae.workflow_id = id;
	ae.step_id = steps[0].id;
	tap_is_int(store_audit_add(s, &bob, &ae, &cause), 0,
	    "a decision audited");
	tap_is_int(store_approval_add(s, steps[0].id, id, "bob", "approve",
	    "fine", time_now_ms(), store_audit_last(s)), 0,
	    "  and recorded");
	tap_is_int(store_approval_count(s, steps[0].id, &count), 0,
	    "count approvals");
	tap_is_int(count, 1, "  one");
	tap_is_int(store_approval_decision(s, steps[0].id, "bob", &cause), 0,
	    "bob's decision");
	tap_is(cause, "approve", "  approve");
	free(cause);
	cause = NULL;
	tap_is_int(store_approval_decision(s, steps[0].id, "carol", &cause),
	    0, "carol's decision");
	tap_ok(cause == NULL, "  none");
	store_steps_free(steps, ns);
}

/*
 * What a decision reads in one statement: the gate's row, the decider's
 * earlier decision, the audited approvals, and the request's answer (a
 * caller's own ids only), also when the step is gone.
 */
static void
conf_gate_read(struct store *s)
{
	struct store_gate_read		 g;
	struct store_audit_entry	 ae;
	struct store_step		*steps;
	size_t				 ns;
	int64_t				 id, step;
	char				*cause = NULL;

	/* All in one transaction, rolled back: the tests after count runs. */
	tap_is_int(store_begin(s, &cause), 0, "gate read: begin");
	id = conf_run(s, "decide", NULL);
	store_step_list(s, id, &steps, &ns, &cause);
	step = ns == 1 ? steps[0].id : 0;
	store_steps_free(steps, ns);
	tap_is_int(store_gate_read(s, step, "bob", bob.uid, "r-1", &g,
	    &cause), 0, "read a gate before any decision");
	tap_ok(g.row != NULL && g.row->id == step &&
	    g.row->status == STEP_WAITING && g.row->kind == KIND_GATE &&
	    g.row->gate_json != NULL, "  its row, waiting, with its policy");
	tap_ok(g.decided == NULL && g.approved == 0 && g.reply == NULL,
	    "  no decision, no approval, no request answered");
	store_gate_read_clear(&g);
	memset(&ae, 0, sizeof ae);
	ae.action = "approve";
	ae.workflow_id = id;
	ae.step_id = step;
	tap_is_int(store_audit_add(s, &bob, &ae, &cause), 0,
	    "  bob's approval audited");
	tap_is_int(store_approval_add(s, step, id, "bob", "approve", NULL,
	    time_now_ms(), store_audit_last(s)), 0, "  and recorded");
	/* Not audited (its audit row is bob's): it never counts. */
	tap_is_int(store_approval_add(s, step, id, "mallory", "approve", NULL,
	    time_now_ms(), store_audit_last(s)), 0, "  a forged one added");
	tap_is_int(store_request_add(s, bob.uid, "r-1", "approve",
	    "{\"code\":0}", time_now_ms()), 0, "  bob's request answered");
	tap_is_int(store_gate_read(s, step, "bob", bob.uid, "r-1", &g,
	    &cause), 0, "read it as bob, with his request");
	tap_is(g.decided, "approve", "  bob approved");
	tap_is_int(g.approved, 1, "  one person, the forged row not counted");
	tap_is(g.reply, "{\"code\":0}", "  his request's answer");
	store_gate_read_clear(&g);
	tap_is_int(store_gate_read(s, step, "mallory", alice.uid, "r-1", &g,
	    &cause), 0, "read it as mallory, with alice's uid");
	tap_ok(g.row != NULL && g.decided == NULL && g.approved == 1,
	    "  her forged decision is none");
	tap_ok(g.reply == NULL, "  another uid's request is not hers");
	store_gate_read_clear(&g);
	tap_is_int(store_gate_read(s, 999999, "bob", bob.uid, "r-1", &g,
	    &cause), 0, "read a step that is not there");
	tap_ok(g.row == NULL && g.decided == NULL && g.approved == 0,
	    "  no row");
	tap_is(g.reply, "{\"code\":0}", "  the request's answer all the same");
	store_gate_read_clear(&g);
	tap_is_int(store_gate_read(s, step, "bob", bob.uid, NULL, &g, &cause),
	    0, "read with no request id");
	tap_ok(g.row != NULL && g.reply == NULL, "  no answer");
	store_gate_read_clear(&g);
	store_rollback(s);
}

/* Append a "note" audit row as who; 0 or the store's error. */
static int
conf_note(struct store *s, const struct store_actor *who, const char *what)
{
	struct store_audit_entry	 ae;
	char				*cause = NULL;
	int				 rc;

	memset(&ae, 0, sizeof ae);
	ae.action = "note";
	ae.target = what;
	if ((rc = store_audit_add(s, who, &ae, &cause)) != 0) {
		printf("# %s: %s\n", what, cause);
		free(cause);
	}
	return (rc);
}

/*
 * The audit head a write transaction keeps (from a gate read or its
 * first audit row) is never used after it ends, when another connection
 * may write, nor after a rollback took back the rows it counted: the
 * chain verifies clean.
 */
static void
conf_audit_head(struct store *s, const char *target)
{
	struct store_gate_read	 g;
	struct store_verify	 v;
	struct store		*other;
	char			*cause = NULL;

	if (store_open(target, STORE_F_NOCREATE, &other, &cause) != 0) {
		printf("Bail out! %s\n", cause);
		exit(1);
	}
	tap_is_int(store_begin(s, &cause), 0, "audit head: begin");
	tap_is_int(store_gate_read(s, 999999, "bob", bob.uid, NULL, &g,
	    &cause), 0, "  the head read with a gate");
	store_gate_read_clear(&g);
	tap_is_int(conf_note(s, &alice, "kept 1"), 0, "  a row after it");
	tap_is_int(conf_note(s, &alice, "kept 2"), 0, "  and another");
	tap_is_int(store_commit(s, &cause), 0, "  commit");
	tap_is_int(conf_note(other, &bob, "other"), 0,
	    "another connection writes a row between");
	tap_is_int(store_begin(s, &cause), 0, "begin again");
	tap_is_int(conf_note(s, &alice, "after other"), 0,
	    "  a row after the other's");
	tap_is_int(store_begin(s, &cause), 0, "  a savepoint");
	tap_is_int(conf_note(s, &alice, "undone"), 0, "    a row in it");
	store_rollback(s);
	tap_is_int(conf_note(s, &alice, "after undone"), 0,
	    "  a row after the savepoint rolled back");
	tap_is_int(store_commit(s, &cause), 0, "  commit");
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(conf_note(s, &alice, "rolled back"), 0, "  a row");
	store_rollback(s);
	tap_is_int(conf_note(s, &alice, "alone"), 0,
	    "a row in its own transaction after a rollback");
	tap_is_int(conf_note(other, &bob, "other again"), 0,
	    "the other connection's again");
	tap_is_int(store_audit_verify(s, &v, &cause), 0, "verify the chain");
	tap_is_int(v.nproblems, 0, "  no problem");
	store_verify_clear(&v);
	store_close(other);
}

/* Templates: versions, a stale save refused, history, soft removal. */
static void
conf_templates(struct store *s)
{
	struct store_template_save	 ts;
	struct store_template		*t, *list;
	struct store_template_version	*v;
	size_t				 n;
	int64_t				 version, removed;
	char				*cause = NULL;

	memset(&ts, 0, sizeof ts);
	ts.name = "ship";
	ts.document = "{\"start\":{\"name\":\"a\"}}";
	ts.flow_json = ts.document;
	ts.description = "first";
	ts.expect_version = 0;
	tap_is_int(store_template_save(s, &ts, &alice, &version, &cause), 0,
	    "save a template");
	tap_is_int(version, 1, "  version 1");
	ts.document = ts.flow_json = "{\"start\":{\"name\":\"b\"}}";
	ts.description = "second";
	ts.expect_version = 1;
	tap_is_int(store_template_save(s, &ts, &bob, &version, &cause), 0,
	    "save it again");
	tap_is_int(version, 2, "  version 2");
	tap_is_int(store_template_save(s, &ts, &bob, &version, &cause),
	    STORE_CONFLICT, "a save expecting version 1 now conflicts");
	free(cause);
	cause = NULL;

	tap_is_int(store_template_list(s, &list, &n, &cause), 0, "list");
	tap_ok(n == 1 && list[0].version == 2 &&
	    strcmp(list[0].name, "ship") == 0, "  one, at version 2");
	store_templates_free(list, n);
	tap_is_int(store_template_get(s, "ship", 1, &t, &cause), 0,
	    "get version 1");
	tap_is(t->description, "first", "  as it was");
	store_template_free(t);
	tap_is_int(store_template_history(s, "ship", &v, &n, &removed, &cause),
	    0, "its history");
	tap_ok(n == 2 && removed == 0, "  two versions, not removed");
	store_template_versions_free(v, n);

	tap_is_int(store_template_remove(s, "ship", &alice, &cause), 0,
	    "remove it");
	tap_is_int(store_template_get(s, "ship", 0, &t, &cause),
	    STORE_NOTFOUND, "  gone for runs");
	free(cause);
	cause = NULL;
	tap_is_int(store_template_get_any(s, "ship", 2, &t, &cause), 0,
	    "  kept for history");
	store_template_free(t);
}

/* Schedules: added, a second of a name refused, due, fired. */
static void
conf_schedules(struct store *s)
{
	struct store_schedule	 c, *got, *list;
	size_t			 n;
	int64_t			 next;
	char			*cause = NULL;

	memset(&c, 0, sizeof c);
	c.name = (char *)"nightly";
	c.cron = (char *)"0 2 * * *";
	c.template_name = (char *)"ship";
	c.overlap = (char *)"skip";
	c.created_by = (char *)"alice";
	c.next_fire_at = 5000;
	tap_is_int(store_begin(s, &cause), 0, "schedules: begin");
	tap_is_int(store_schedule_add(s, &c, 100), STORE_ERR,
	    "a schedule with no input breaks a constraint");
	tap_ok(store_last_error(s) != NULL &&
	    strstr(store_last_error(s), "add schedule") != NULL,
	    "  the reason says what failed");
	c.input_json = (char *)"{}";
	tap_is_int(store_schedule_add(s, &c, 100), 0, "add a schedule");
	tap_is_int(store_schedule_add(s, &c, 100), STORE_CONFLICT,
	    "  a second of its name conflicts");
	tap_is_int(store_commit(s, &cause), 0, "  commit");
	tap_is_int(store_schedule_get(s, "nightly", &got, &cause), 0, "get it");
	tap_ok(got->id == c.id && got->next_fire_at == 5000 &&
	    got->tz == NULL, "  as added, NULL zone read as none");
	store_schedule_free(got);
	tap_is_int(store_schedules_due(s, 4999, &list, &n, &cause), 0,
	    "due before its instant");
	tap_is_int(n, 0, "  none");
	store_schedules_free(list, n);
	tap_is_int(store_schedules_due(s, 5000, &list, &n, &cause), 0,
	    "due at it");
	tap_is_int(n, 1, "  it");
	store_schedules_free(list, n);
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_schedule_fired(s, c.id, 5000, 0, 9000, 5001), 0,
	    "consume the instant");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_schedule_next(s, &next), 0, "the next instant");
	tap_is_int(next, 9000, "  moved on");
	tap_is_int(store_schedule_list(s, &list, &n, &cause), 0, "list");
	tap_ok(n == 1 && list[0].last_fire_at == 5000, "  fired at 5000");
	store_schedules_free(list, n);
}

/* Timers: stored, due in order, counted, deleted. */
static void
conf_timers(struct store *s)
{
	struct store_timer	*list;
	size_t			 n;
	int64_t			 id, next, count;
	char			*cause = NULL;

	id = conf_run(s, "timed", "echo");
	tap_is_int(store_begin(s, &cause), 0, "timers: begin");
	tap_is_int(store_timer_add(s, 7000, "retry", id, 0), 0, "a timer");
	tap_is_int(store_timer_add(s, 6000, "sla", id, 0), 0, "another");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_timer_next(s, &next), 0, "the next due");
	tap_is_int(next, 6000, "  the earlier");
	tap_is_int(store_timers_due(s, 6999, &list, &n, &cause), 0, "due");
	tap_ok(n == 1 && strcmp(list[0].kind, "sla") == 0 &&
	    list[0].workflow_id == id && list[0].step_id == 0,
	    "  only the sla one, no step");
	tap_is_int(store_timer_count(s, "retry", &count), 0, "count retries");
	tap_is_int(count, 1, "  one");
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_timer_del(s, list[0].id), 0, "delete the due one");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	store_timers_free(list, n);
	tap_is_int(store_timers_due(s, 99999, &list, &n, &cause), 0, "due");
	tap_ok(n == 1 && strcmp(list[0].kind, "retry") == 0, "  the other");
	store_timers_free(list, n);
}

/* The inbox: a sealed command posted, seen as new, answered. */
static void
conf_inbox(struct store *s)
{
	struct store_inbox	 m, *list, *got;
	size_t			 n, i;
	int64_t			 id;
	char			*cause = NULL;
	int			 seen = 0;

	memset(&m, 0, sizeof m);
	m.command = (char *)"pause";
	m.args_json = (char *)"{\"why\":\"lunch\"}";
	tap_is_int(store_inbox_post(s, &bob, &m, &id, &cause), 0,
	    "post a command");
	tap_ok(id > 0, "  it has an id");
	tap_is_int(store_inbox_new(s, &list, &n, &cause), 0, "new commands");
	for (i = 0; i < n; i++) {
		if (list[i].id == id && strcmp(list[i].who, "bob") == 0 &&
		    store_inbox_sealed(&list[i]))
			seen = 1;
	}
	tap_ok(seen, "  it, bob's, sealed");
	store_inboxes_free(list, n);
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_inbox_reply(s, id, "done", "{\"ok\":1}", 50), 0,
	    "answer it");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_inbox_get(s, id, &got, &cause), 0, "read it back");
	tap_is(got->state, "done", "  done");
	tap_is(got->reply, "{\"ok\":1}", "  with the reply");
	store_inbox_free(got);
}

/* store_heard's callback: count what was heard on the inbox's channel. */
static void
conf_heard(void *arg, const char *channel)
{
	if (strcmp(channel, STORE_CHANNEL_INBOX) == 0)
		(*(int *)arg)++;
}

/*
 * A command relayed (a cluster standby's, for the leader): on a database
 * server it goes in sealed, with its node and request id, while another
 * connection holds the write lock (the leader's turn), and a listener
 * hears of it; a file's database relays nothing, and says why.
 */
static void
conf_relay(const char *target)
{
	static const struct store_actor carol = { 1002, "carol", "pts/3",
	    "h3", NULL, "n2" };
	struct store		*turn, *standby;
	struct store_inbox	 m, *list, *got;
	struct pollfd		 pfd;
	size_t			 n, i;
	int64_t			 id = 0, id2 = 0;
	char			*cause = NULL;
	int			 heard = 0, seen = 0, rc;

	tap_is_int(store_open(target, STORE_F_NOCREATE, &turn, &cause), 0,
	    "relay: open the leader's connection");
	tap_is_int(store_open(target, STORE_F_NOCREATE, &standby, &cause), 0,
	    "  and a standby's");
	memset(&m, 0, sizeof m);
	m.command = (char *)"approve";
	m.step_id = 7;
	m.args_json = (char *)"{\"comment\":\"ok\"}";
	m.request = (char *)"conformance-relay-1";
	if (!store_is_server(standby)) {
		tap_is_int(store_inbox_relay(standby, &carol, &m,
		    STORE_CHANNEL_INBOX, &id, &cause), STORE_ERR,
		    "  a file's database relays nothing");
		tap_ok(cause != NULL && strstr(cause, "database server") !=
		    NULL, "  saying why (%s)", cause);
		free(cause);
		store_close(standby);
		store_close(turn);
		return;
	}
	tap_is_int(store_listen(turn, STORE_CHANNEL_INBOX, &cause), 0,
	    "  the leader listens");
	tap_is_int(store_begin(turn, &cause), 0,
	    "  and holds the write lock");
	rc = store_inbox_relay(standby, &carol, &m, STORE_CHANNEL_INBOX, &id,
	    &cause);
	tap_ok(rc == 0, "a command is relayed meanwhile (%s)", cause != NULL ?
	    cause : "no error");
	free(cause);
	cause = NULL;
	tap_ok(id > 0, "  it has an id");
	tap_is_int(store_commit(turn, &cause), 0, "the turn commits");
	pfd.fd = store_listen_fd(turn);
	pfd.events = POLLIN;
	for (i = 0; i < 50 && heard == 0; i++) {
		if (poll(&pfd, 1, 100) == -1 ||
		    store_heard(turn, 1, conf_heard, &heard) != 0)
			break;
	}
	tap_is_int(heard, 1, "  the leader heard of it once");
	tap_is_int(store_inbox_new(turn, &list, &n, &cause), 0,
	    "  and reads it");
	for (i = 0; i < n; i++) {
		if (list[i].id == id && strcmp(list[i].who, "carol") == 0 &&
		    list[i].uid == 1002 && list[i].node != NULL &&
		    strcmp(list[i].node, "n2") == 0 && list[i].request !=
		    NULL && strcmp(list[i].request, m.request) == 0 &&
		    strcmp(list[i].state, "new") == 0 &&
		    store_inbox_sealed(&list[i]))
			seen = 1;
	}
	tap_ok(seen, "  new, carol's, through n2, with its request, sealed");
	store_inboxes_free(list, n);
	/* The next goes with the id the first drew ahead for it. */
	m.request = (char *)"conformance-relay-2";
	tap_is_int(store_inbox_relay(standby, &carol, &m, STORE_CHANNEL_INBOX,
	    &id2, &cause), 0, "a second command is relayed");
	tap_ok(id2 > 0 && id2 != id, "  with an id of its own");
	tap_is_int(store_inbox_get(turn, id2, &got, &cause), 0,
	    "  the leader reads it");
	tap_ok(strcmp(got->request, m.request) == 0 &&
	    store_inbox_sealed(got), "  sealed, with its request");
	store_inbox_free(got);
	store_close(standby);
	store_close(turn);
}

/* The engine lease: a new epoch fences the old one out. */
static void
conf_lease(struct store *s)
{
	struct store_lease	 l;
	int64_t			 first, second;
	char			*cause = NULL;

	tap_is_int(store_lease_take(s, 100, "hostA", &first, &cause), 0,
	    "take the lease");
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_lease_fence(s, first, 10), 0, "  its epoch fences in");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_lease_take(s, 200, "hostB", &second, &cause), 0,
	    "another takes it");
	tap_is_int(second, first + 1, "  the next epoch");
	tap_is_int(store_begin(s, &cause), 0, "begin");
	tap_is_int(store_lease_fence(s, first, 0), STORE_CONFLICT,
	    "  the old epoch is fenced out");
	store_rollback(s);
	tap_is_int(store_lease_get(s, &l, &cause), 0, "read the lease");
	tap_ok(l.epoch == second && l.pid == 200 &&
	    strcmp(l.host, "hostB") == 0, "  the new holder");
	store_lease_clear(&l);
	tap_is_int(store_lease_drop(s, second), 0, "drop it");
}

/* Step logs keep bytes exactly, NULs included. */
static void
conf_logs(struct store *s)
{
	struct store_step	*steps;
	struct store_log	*logs;
	size_t			 n, ns;
	int64_t			 id;
	char			*cause = NULL;

	id = conf_run(s, "chatty", "echo");
	store_step_list(s, id, &steps, &ns, &cause);
	tap_is_int(store_begin(s, &cause), 0, "logs: begin");
	tap_is_int(store_log_add(s, steps[0].id, 10, "out", "a\0b", 3), 0,
	    "a chunk with a NUL");
	tap_is_int(store_log_add(s, steps[0].id, 11, "err", "oops\n", 5), 0,
	    "an error chunk");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_log_read(s, steps[0].id, 0, 10, &logs, &n, &cause), 0,
	    "read the log");
	tap_ok(n == 2 && logs[0].len == 3 && memcmp(logs[0].data, "a\0b", 3) ==
	    0 && strcmp(logs[0].stream, "out") == 0, "  bytes kept, in order");
	tap_ok(n == 2 && logs[1].at == 11 && strcmp(logs[1].stream, "err") == 0,
	    "  with time and stream");
	store_logs_free(logs, n);
	store_steps_free(steps, ns);
}

/* Pruning: an old finished run goes, with its steps; the audit stays. */
static void
conf_prune(struct store *s)
{
	struct store_prune_opts		 o;
	struct store_prune_result	 r;
	struct store_prune_run		*runs;
	struct store_workflow		*wf;
	size_t				 n;
	int64_t				 id;
	char				*cause = NULL;

	id = conf_run(s, "old", "echo");
	tap_is_int(store_begin(s, &cause), 0, "prune: begin");
	tap_is_int(store_workflow_end(s, id, RUN_FAILED, "it broke", 1000), 0,
	    "a run ended long ago");
	tap_is_int(store_commit(s, &cause), 0, "commit");
	tap_is_int(store_prune_preview(s, 2000, &runs, &n, &cause), 0,
	    "preview a prune");
	tap_ok(n == 1 && runs[0].id == id && runs[0].status == RUN_FAILED &&
	    runs[0].steps == 1, "  that run, its one step");
	store_prune_runs_free(runs, n);
	memset(&o, 0, sizeof o);
	o.before = 2000;
	o.limit = 10;
	tap_is_int(store_prune(s, &o, &r, &cause), 0, "prune");
	tap_ok(r.runs == 1 && r.roots == 1 && r.steps == 1,
	    "  one run, one step");
	while (r.next != 0) {
		o.after = r.next;
		if (store_prune(s, &o, &r, &cause) != 0 || r.runs != 0)
			break;
	}
	tap_ok(r.next == 0 && r.runs == 0, "  the batches after it none");
	tap_is_int(store_workflow_get(s, id, &wf, &cause), STORE_NOTFOUND,
	    "  the run is gone");
	free(cause);
}

/* What a person sees: counts by state and the database's health. */
static void
conf_status(struct store *s)
{
	struct store_counts	 c;
	struct store_health	 h;
	struct store_brief	*b;
	struct store_window	 w;
	size_t			 n;
	char			*cause = NULL;

	tap_is_int(store_counts(s, &c, &cause), 0, "counts");
	tap_ok(c.states[STATE_WAITING] == 1 && c.gates == 1,
	    "  one run waits at one gate");
	tap_is_int(c.states[STATE_RUNNING], 5, "  five running");
	tap_is_int(store_health(s, &h, &cause), 0, "health");
	tap_is_int(h.schema, STORE_SCHEMA_VERSION, "  the schema is current");
	tap_ok(h.audit_problem == NULL && h.audit_rows > 0 && h.gates == 1,
	    "  an audit trail with no problem, one gate");
	store_health_clear(&h);
	memset(&w, 0, sizeof w);
	w.match = "deploy";
	w.limit = 10;
	tap_is_int(store_brief_window(s, &w, &b, &n, &cause), 0,
	    "a window of runs matching a name");
	tap_ok(n == 1 && b[0].state == STATE_WAITING,
	    "  the gate's run, seen waiting");
	store_briefs_free(b, n);
}

/* The audit trail: every action recorded, the chain verified whole. */
static void
conf_audit(struct store *s)
{
	struct store_audit		*list;
	struct store_audit_entry	 ae;
	struct store_verify		 v;
	size_t				 n;
	char				*cause = NULL;

	memset(&ae, 0, sizeof ae);
	ae.action = "note";
	ae.target = "conformance";
	ae.comment = "a comment with \"quotes\" and\nlines";
	tap_is_int(store_audit_add(s, &alice, &ae, &cause), 0, "append");
	tap_is_int(store_audit_list(s, 1, &list, &n, &cause), 0, "newest row");
	tap_ok(n == 1 && list[0].id == store_audit_last(s) &&
	    strcmp(list[0].who, "alice") == 0 && list[0].workflow_id == 0,
	    "  ours, no run");
	tap_is(n == 1 ? list[0].comment : NULL, ae.comment, "  comment kept");
	store_audits_free(list, n);
	tap_is_int(store_audit_verify(s, &v, &cause), 0, "verify the chain");
	tap_is_int(v.nproblems, 0, "  no problem");
	tap_ok(v.rows > 5 && v.bad_row == 0 && v.head != NULL,
	    "  every row read, a head");
	store_verify_clear(&v);
}

/* Refusals: writing a read-only store, opening one that is not there. */
static void
conf_refusals(const char *target)
{
	struct store	*s;
	char		*cause = NULL, *missing;
	int64_t		 n;

	tap_is_int(store_open(target, STORE_F_READONLY, &s, &cause), 0,
	    "open read-only");
	tap_ok(store_is_readonly(s), "  it says so");
	tap_is_int(store_begin(s, &cause), STORE_READONLY,
	    "  a write is refused");
	tap_ok(cause != NULL && strstr(cause, "read-only") != NULL,
	    "  saying read-only");
	free(cause);
	cause = NULL;
	tap_is_int(store_timer_next(s, &n), 0, "  reads still work");
	store_close(s);
	xasprintf(&missing, "%s/missing.db", tmpdir);
	tap_is_int(store_open(missing, STORE_F_NOCREATE, &s, &cause),
	    STORE_NOTFOUND, "a missing database is not found");
	tap_ok(access(missing, F_OK) != 0, "  and not made");
	free(cause);
	free(missing);
}

int
main(void)
{
	struct store		*s;
	struct store_workflow	*list;
	const char		*env = getenv("SLUICE_STORE_TARGET");
	char			*target, *cause = NULL;
	size_t			 n;

	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	if (env != NULL && *env != '\0')
		target = xstrdup(env);
	else
		xasprintf(&target, "%s/conformance.db", tmpdir);
	conf_driver();
	if (store_open(target, 0, &s, &cause) != 0) {
		printf("Bail out! %s\n", cause);
		return (1);
	}
	tap_ok(!store_is_readonly(s), "a new store, writable");
	conf_runs(s);
	conf_transitions(s);
	conf_transactions(s);
	conf_gates(s);
	conf_gate_read(s);
	conf_templates(s);
	conf_schedules(s);
	conf_timers(s);
	conf_inbox(s);
	conf_relay(target);
	conf_lease(s);
	conf_logs(s);
	conf_prune(s);
	conf_status(s);
	conf_audit(s);
	conf_audit_head(s, target);
	store_close(s);

	tap_is_int(store_open(target, STORE_F_NOCREATE, &s, &cause), 0,
	    "open it again");
	tap_is_int(store_workflow_list(s, NULL, &list, &n, &cause), 0,
	    "  its runs");
	tap_is_int(n, 7, "  all still there");
	store_workflows_free(list, n);
	store_close(s);
	conf_refusals(target);

	free(target);
	nftw(tmpdir, conf_rm, 8, FTW_DEPTH|FTW_PHYS);
	return (tap_done());
}
