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
 * test-status.c: statuses are enums above the store and words in its
 * tables.  Every status and every state round-trips through its word
 * (and through a real database, whose CHECK constraints must accept the
 * words sluice writes); a word no table knows is refused with its row,
 * read one row at a time, as a list, as the console's window or through
 * a state filter; and the states a person sees are folded by one rule.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-sqlite.h"
#include "tap.h"

static char			 tmpdir[] = "/tmp/test-status.XXXXXX";
static struct store_actor	 alice = { 1000, "alice", "pts/1", "host1", NULL, NULL };

/* Run one statement with one text and one id bound; 0 or the rc. */
static int
sql_set(struct store *s, const char *sql, const char *word, int64_t id)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), sql, -1, &st, NULL) != SQLITE_OK)
		return (-1);
	sqlite3_bind_text(st, 1, word, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return (rc == SQLITE_DONE ? 0 : rc);
}

/* Start a run whose first step is a gate (waiting) or a tool (ready). */
static int64_t
start(struct store *s, const char *name, int gate, int64_t *step)
{
	struct store_workflow	 wf;
	struct store_step	 first;
	char			*cause = NULL;

	memset(&wf, 0, sizeof wf);
	memset(&first, 0, sizeof first);
	wf.name = (char *)name;
	wf.flow_json = (char *)"{\"start\":{}}";
	wf.status = RUN_RUNNING;
	first.name = (char *)"start";
	first.tool = gate ? NULL : (char *)"noop";
	first.kind = gate ? KIND_GATE : KIND_TOOL;
	first.status = gate ? STEP_WAITING : STEP_READY;
	first.args_json = (char *)"{}";
	if (store_run_create(s, &wf, &first, &alice, &cause) != 0)
		fatalx("run_create: %s", cause);
	if (step != NULL)
		*step = first.id;
	return (wf.id);
}

/* Every word names one enum and back; other words are refused. */
static void
test_words(void)
{
	static const char	*bad[] = { "", "Running", "running ", "bogus",
	    "paused", "late", "ok" };
	enum step_status	 ss;
	enum run_status		 rs;
	enum run_state		 st;
	int			 i, j, ok;

	for (ok = 1, i = 0; i < STEP_NSTATUS; i++) {
		if (status_step_parse(status_step_name(i), &ss) != 0 ||
		    (int)ss != i || *status_step_glyph(i, 1) == '\0' ||
		    *status_step_glyph(i, 0) == '\0')
			ok = 0;
		for (j = 0; j < i; j++)
			ok &= strcmp(status_step_name(i),
			    status_step_name(j)) != 0;
	}
	tap_ok(ok, "each of the %d step statuses round-trips its word",
	    STEP_NSTATUS);
	for (ok = 1, i = 0; i < RUN_NSTATUS; i++) {
		if (status_run_parse(status_run_name(i), &rs) != 0 ||
		    (int)rs != i)
			ok = 0;
	}
	tap_ok(ok, "each of the %d workflow statuses round-trips", RUN_NSTATUS);
	for (ok = 1, i = 0; i < STATE_N; i++) {
		if (state_parse(state_name(i), &st) != 0 || (int)st != i ||
		    strstr(state_words(), state_name(i)) == NULL ||
		    *state_glyph(i, 0) == '\0' || *state_glyph(i, 1) == '\0')
			ok = 0;
	}
	tap_ok(ok, "each of the %d states round-trips, in the list of words",
	    STATE_N);
	tap_is(state_words(), "running, waiting, paused, scheduled, queued, "
	    "late, completed, failed, cancelled", "the vocabulary, in its order");
	for (ok = 1, i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
		ok &= i < 5 ? status_step_parse(bad[i], &ss) != 0 &&
		    status_run_parse(bad[i], &rs) != 0 : 1;
	tap_ok(ok && status_step_parse(NULL, &ss) != 0,
	    "unknown words and NULL are refused");
	tap_ok(state_parse("bogus", &st) != 0 && state_parse("", &st) != 0 &&
	    state_parse("Waiting", &st) != 0, "unknown states are refused");
	tap_is(status_step_name(STEP_NSTATUS), "?",
	    "a value past the table has no word");
}

/* The one rule: what a run's status and circumstances show as. */
static void
test_rule(void)
{
	int	 st, paused, waiting, late, ok = 1, ended;

	tap_ok(state_of(RUN_RUNNING, 0, 0, 0) == STATE_RUNNING,
	    "running is running");
	tap_ok(state_of(RUN_RUNNING, 0, 1, 0) == STATE_WAITING,
	    "running with a waiting step is waiting");
	tap_ok(state_of(RUN_RUNNING, 1, 1, 0) == STATE_PAUSED,
	    "paused beats waiting");
	tap_ok(state_of(RUN_RUNNING, 1, 1, 1) == STATE_LATE,
	    "late beats paused and waiting");
	for (st = 0; st < RUN_NSTATUS; st++) {
		ended = st != RUN_RUNNING;
		for (paused = 0; paused < 2; paused++)
		for (waiting = 0; waiting < 2; waiting++)
		for (late = 0; late < 2; late++) {
			if (state_status(state_of(st, paused, waiting,
			    late)) != (enum run_status)st)
				ok = 0;
			if (ended && strcmp(state_name(state_of(st, paused,
			    waiting, late)), status_run_name(st)) != 0)
				ok = 0;
		}
	}
	tap_ok(ok, "a state names the status it comes from; other statuses "
	    "show as their own word");
}

/* Every word sluice writes passes the schema's CHECK and reads back. */
static void
test_store_roundtrip(struct store *s)
{
	struct store_step	*row;
	struct store_workflow	*w;
	char			*cause = NULL;
	int64_t			 wf, step;
	int			 i, ok;

	wf = start(s, "roundtrip", 0, &step);
	for (ok = 1, i = 0; i < STEP_NSTATUS; i++) {
		if (sql_set(s, "UPDATE workflow_steps SET status = ?1"
		    " WHERE id = ?2", status_step_name(i), step) != 0 ||
		    store_step_get(s, step, &row, &cause) != 0) {
			printf("# %s: %s\n", status_step_name(i),
			    cause != NULL ? cause : sqlite3_errmsg(store_sqlite_db(s->conn)));
			ok = 0;
			continue;
		}
		ok &= row->status == (enum step_status)i;
		store_step_free(row);
	}
	tap_ok(ok, "every step status is stored and read back");
	for (ok = 1, i = 0; i < RUN_NSTATUS; i++) {
		if (sql_set(s, "UPDATE workflows SET status = ?1"
		    " WHERE id = ?2", status_run_name(i), wf) != 0 ||
		    store_workflow_get(s, wf, &w, &cause) != 0) {
			ok = 0;
			continue;
		}
		ok &= w->status == (enum run_status)i;
		store_workflow_free(w);
	}
	tap_ok(ok, "every workflow status is stored and read back");
	tap_ok(sql_set(s, "UPDATE workflows SET status = ?1 WHERE id = ?2",
	    "completed", wf) == 0, "(it ends completed)");
}

/* Filters, the console's window and the header count by the one rule. */
static void
test_states(struct store *s)
{
	struct store_workflow_filter	 f;
	struct store_workflow		*list;
	struct store_brief		*b;
	struct store_window		 win;
	struct store_counts		 c;
	char				*cause = NULL;
	int64_t				 id[5], gate;
	size_t				 n, i;
	int				 want, ok;

	id[0] = start(s, "plain", 0, NULL);
	id[1] = start(s, "at-gate", 1, &gate);
	id[2] = start(s, "held", 1, NULL);
	id[3] = start(s, "slow", 0, NULL);
	id[4] = start(s, "later", 0, NULL);
	sql_set(s, "UPDATE workflows SET paused = 1 WHERE id = ?2 OR ?1",
	    "0", id[2]);
	sql_set(s, "UPDATE workflows SET late_at = 5 WHERE id = ?2 OR ?1",
	    "0", id[3]);
	sql_set(s, "UPDATE workflows SET status = ?1, started_at = NULL"
	    " WHERE id = ?2", "scheduled", id[4]);

	memset(&f, 0, sizeof f);
	f.by_state = 1;
	for (ok = 1, i = 0; i < 5; i++) {
		f.state = (enum run_state[]){ STATE_RUNNING, STATE_WAITING,
		    STATE_PAUSED, STATE_LATE, STATE_SCHEDULED }[i];
		if (store_workflow_list(s, &f, &list, &n, &cause) != 0) {
			printf("# %s\n", cause);
			ok = 0;
			continue;
		}
		if (n != 1 || list[0].id != id[i] ||
		    store_workflow_state(&list[0]) != f.state) {
			printf("# %s: %zu rows\n", state_name(f.state), n);
			ok = 0;
		}
		store_workflows_free(list, n);
	}
	tap_ok(ok, "list --status: running, waiting, paused, late, scheduled "
	    "each find their one run");
	f.state = STATE_COMPLETED;
	tap_ok(store_workflow_list(s, &f, &list, &n, &cause) == 0 && n == 1,
	    "and completed the ended one");
	store_workflows_free(list, n);

	memset(&win, 0, sizeof win);
	win.limit = 50;
	win.match = "waiting";
	tap_ok(store_brief_window(s, &win, &b, &n, &cause) == 0 && n == 1 &&
	    b[0].id == id[1] && b[0].state == STATE_WAITING,
	    "the / filter matches the word the list shows");
	store_briefs_free(b, n);
	win.match = "paus";
	tap_ok(store_brief_window(s, &win, &b, &n, &cause) == 0 && n == 1 &&
	    b[0].id == id[2], "and a part of it");
	store_briefs_free(b, n);

	tap_is_int(store_counts(s, &c, &cause), 0, "counts");
	for (want = 1, i = 0; i < 5; i++)
		want &= c.states[(enum run_state[]){ STATE_RUNNING,
		    STATE_WAITING, STATE_PAUSED, STATE_LATE,
		    STATE_SCHEDULED }[i]] == 1;
	tap_ok(want && c.states[STATE_COMPLETED] == 0 && c.gates == 2 &&
	    c.newest_gate > gate, "the header counts each run once, by its "
	    "state");
}

/* A word no table knows is an error naming its row, everywhere. */
static void
test_unknown(struct store *s)
{
	struct store_workflow_filter	 f;
	struct store_workflow		*w, *list;
	struct store_step		*row, *rows;
	struct store_brief		*b;
	struct store_window		 win;
	char				*cause = NULL, want[128];
	int64_t				 wf, step;
	size_t				 n;

	wf = start(s, "odd", 0, &step);
	tap_ok(sql_set(s, "UPDATE workflow_steps SET status = ?1 WHERE id = ?2",
	    "exploded", step) != 0, "the schema refuses an unknown word");
	sqlite3_exec(store_sqlite_db(s->conn), "PRAGMA ignore_check_constraints = ON", NULL, NULL,
	    NULL);
	sql_set(s, "UPDATE workflow_steps SET status = ?1 WHERE id = ?2",
	    "exploded", step);
	snprintf(want, sizeof want, "workflow_steps row %lld: unknown status "
	    "\"exploded\"", (long long)step);
	tap_ok(store_step_get(s, step, &row, &cause) == STORE_ERR &&
	    row == NULL, "a step with an unknown status is not read");
	tap_is(cause, want, "the reason names the row and the word");
	free(cause);
	cause = NULL;
	tap_ok(store_step_list(s, wf, &rows, &n, &cause) == STORE_ERR &&
	    rows == NULL && n == 0 && cause != NULL && strcmp(cause,
	    want) == 0, "nor in a list of steps");
	free(cause);
	cause = NULL;
	sql_set(s, "UPDATE workflow_steps SET status = ?1 WHERE id = ?2",
	    "done", step);

	sql_set(s, "UPDATE workflows SET status = ?1 WHERE id = ?2",
	    "zombie\033[2J", wf);
	snprintf(want, sizeof want, "workflows row %lld: unknown status "
	    "\"zombie\\e[2J\"", (long long)wf);
	tap_ok(store_workflow_get(s, wf, &w, &cause) == STORE_ERR &&
	    w == NULL, "a workflow with an unknown status is not read");
	tap_is(cause, want, "its reason shows control characters escaped");
	free(cause);
	cause = NULL;
	memset(&f, 0, sizeof f);
	tap_ok(store_workflow_list(s, &f, &list, &n, &cause) == STORE_ERR &&
	    cause != NULL && strcmp(cause, want) == 0, "list says so");
	free(cause);
	cause = NULL;
	f.by_state = 1;
	f.state = STATE_WAITING;
	tap_ok(store_workflow_list(s, &f, &list, &n, &cause) == 0 &&
	    (n == 0 || list[0].id != wf), "list --status reads only the "
	    "rows of the state's status: the odd one is never taken for one");
	store_workflows_free(list, n);
	memset(&win, 0, sizeof win);
	win.limit = 50;
	tap_ok(store_brief_window(s, &win, &b, &n, &cause) == STORE_ERR &&
	    cause != NULL && strstr(cause, "unknown status") != NULL,
	    "the console's list says so");
	free(cause);
	cause = NULL;
	win.match = "x";
	tap_ok(store_brief_window(s, &win, &b, &n, &cause) != 0 &&
	    cause != NULL && strstr(cause, "unknown status") != NULL,
	    "and its filter, folding states in SQL, too");
	free(cause);
	sql_set(s, "UPDATE workflows SET status = ?1 WHERE id = ?2",
	    "failed", wf);
}

int
main(void)
{
	struct store	*s = NULL;
	char		 path[128];
	char		*cause = NULL;

	test_words();
	test_rule();
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	snprintf(path, sizeof path, "%s/status.db", tmpdir);
	if (store_open(path, 0, &s, &cause) != 0)
		fatalx("%s", cause);
	test_store_roundtrip(s);
	test_states(s);
	test_unknown(s);
	store_close(s);
	unlink(path);
	snprintf(path, sizeof path, "%s/status.db-wal", tmpdir);
	unlink(path);
	snprintf(path, sizeof path, "%s/status.db-shm", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	return (tap_done());
}
