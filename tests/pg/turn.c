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
 * turn.c: the engine's turn on PostgreSQL (driver-pg-defer.c), through
 * the store as the engine uses it: a turn begun with store_begin_next,
 * fenced by the server, whose writes are not waited for.  A write that
 * the database refuses, found only at the next read or at the COMMIT,
 * fails the turn whole, names the write, and commits nothing; a stale
 * epoch is refused with STORE_CONFLICT and commits nothing; writes that
 * succeed commit as sent.  Run by tests/pg/turn.sh, which gives it a
 * database in SLUICE_STORE_TARGET (its owner's login).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

#include "../unit/tap.h"

static const char ins_sql[] = "INSERT INTO turn_rows (id, v) VALUES (?, ?)";
static const char upd_sql[] = "UPDATE turn_rows SET v = ? WHERE id = ?";
static const char count_sql[] = "SELECT count(*) FROM turn_rows";

/*
 * The transaction ids a connection's open transaction holds: one per
 * subtransaction that wrote.
 */
static const char xids_sql[] = "SELECT count(*) FROM pg_locks WHERE"
    " locktype = 'transactionid' AND pid = pg_backend_pid()";
/* The forms of the fence a connection has prepared on the server. */
static const char fences_sql[] = "SELECT count(*) FROM"
    " pg_prepared_statements WHERE name LIKE 'sluice_fence%'";

/* The one number SQL reads on s (-1: it failed). */
static int64_t
number(struct store *s, const char *sql)
{
	int64_t	 n = -1;

	if (store_int64f(s, "number", &n, sql, "") != 0)
		return (-1);
	return (n);
}

/* The rows committed, as another connection sees them. */
static int64_t
committed(struct store *other)
{
	return (number(other, count_sql));
}

/* Whether the last failure's text has a word. */
static int
said(struct store *s, const char *cause, const char *word)
{
	const char	*text = cause != NULL ? cause : store_last_error(s);

	return (text != NULL && strstr(text, word) != NULL);
}

static const struct store_actor	 alice = { 1000, "alice", "pts/1", "h1", NULL,
				     NULL };

/* Start a run of one step in the turn open on s: its step's id (0: no). */
static int64_t
run(struct store *s, const char *name)
{
	struct store_workflow	 wf = { .name = (char *)name,
				     .flow_json = (char *)"{}",
				     .input_json = (char *)"{}",
				     .status = RUN_RUNNING };
	struct store_step	 first = { .name = (char *)"one",
				     .status = STEP_READY, .kind = KIND_TOOL,
				     .tool = (char *)"true",
				     .args_json = (char *)"{}" };
	char			*cause = NULL;

	if (store_run_create(s, &wf, &first, &alice, &cause) != 0) {
		printf("# run_create: %s\n", cause);
		free(cause);
		return (0);
	}
	return (first.id);
}

/* Begin a turn and fence it, as engine_txn does. */
static int
turn(struct store *s, int64_t epoch, int64_t now)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = store_begin_next(s, &cause)) != 0) {
		free(cause);
		return (rc);
	}
	return (store_lease_fence(s, epoch, now));
}

/* A refused write found at the next read: the turn fails whole. */
static void
refused_at_read(struct store *s, struct store *other, int64_t epoch)
{
	char	*cause = NULL;
	int64_t	 n;

	tap_is_int(turn(s, epoch, 0), 0, "a turn");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)4, "f"), 0,
	    "  a write sent");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)1, "g"), 0,
	    "  a write the database refuses, sent (not yet known)");
	store_runf(s, "insert", ins_sql, "it", (int64_t)5, "h");
	tap_ok(store_int64f(s, "count", &n, count_sql, "") != 0,
	    "  the next read fails");
	tap_ok(said(s, NULL, "duplicate key") &&
	    said(s, NULL, "INSERT INTO turn_rows"),
	    "  naming the refused write: %s", store_last_error(s));
	tap_ok(store_runf(s, "update", upd_sql, "ti", "x", (int64_t)1) != 0,
	    "  and so does every statement after");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	tap_ok(said(s, cause, "duplicate key"), "  saying why: %s",
	    cause != NULL ? cause : "");
	free(cause);
	tap_is_int(committed(other), 3, "  nothing of the turn committed");
}

/* A refused write found at the COMMIT: rolled back, not committed. */
static void
refused_at_commit(struct store *s, struct store *other, int64_t epoch)
{
	char	*cause = NULL;
	int64_t	 n;

	tap_is_int(turn(s, epoch, 0), 0, "a turn");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_runf(s, "update", upd_sql, "ti", "y", (int64_t)3), 0,
	    "  a write sent");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)2, "i"), 0,
	    "  a write the database refuses, sent");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	tap_ok(said(s, cause, "duplicate key") &&
	    said(s, cause, "INSERT INTO turn_rows"), "  naming the write: %s",
	    cause != NULL ? cause : "");
	free(cause);
	tap_is_int(store_int64f(other, "v", &n, "SELECT count(*) FROM"
	    " turn_rows WHERE v = 'y'", ""), 0, "  read back");
	tap_is_int(n, 0, "  the write before it undone too");
}

/* The id of turn_serial's row with v, as another connection reads it. */
static int64_t
serial_id(struct store *other, const char *v)
{
	int64_t	 id = -1;

	if (store_int64f(other, "id", &id, "SELECT id FROM turn_serial"
	    " WHERE v = ?", "t", v) != 0)
		return (-1);
	return (id);
}

/*
 * The id of an INSERT sent ahead (not read back with it): asked for,
 * it is the INSERT's, also after another INSERT and when ids are drawn
 * from a sequence (which moves the server's lastval) before it is
 * asked, and outside the turn after its COMMIT.
 */
static void
ids_asked(struct store *s, struct store *other, int64_t epoch)
{
	char	*cause = NULL;
	int64_t	 n, a, b, c, drawn;

	tap_is_int(turn(s, epoch, 0), 0, "a turn inserting rows whose ids"
	    " are asked");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_runf(s, "insert", "INSERT INTO turn_serial (v)"
	    " VALUES (?)", "t", "first"), 0, "  an INSERT sent ahead");
	tap_is_int(store_runf(s, "insert", "INSERT INTO turn_serial (v)"
	    " VALUES (?)", "t", "second"), 0, "  another");
	b = s->drv->last_insert_id(s->conn);
	tap_is_int(store_runf(s, "insert", "INSERT INTO turn_serial (v)"
	    " VALUES (?)", "t", "third"), 0, "  a third");
	tap_is_int(s->drv->turn_id(s->conn, "turn_serial", &drawn), 0,
	    "  ids drawn from the same sequence");
	c = s->drv->last_insert_id(s->conn);
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	free(cause);
	a = serial_id(other, "first");
	tap_ok(a > 0 && serial_id(other, "second") == b,
	    "  the second INSERT's id asked is its own (%lld)", (long long)b);
	tap_ok(serial_id(other, "third") == c && drawn > c,
	    "  the third's, asked after the draw (%lld, drawn %lld)",
	    (long long)c, (long long)drawn);
	tap_is_int(s->drv->last_insert_id(s->conn), c, "  and after the"
	    " COMMIT");
}

/*
 * Nested transactions in the turn (as the audit rows' are) take no
 * savepoint: a level that commits keeps its writes in the turn's one
 * transaction, one rolled back with nothing written costs nothing, and
 * one rolled back after it wrote undoes the turn whole, as a statement
 * that fails in the turn does.
 */
static void
nested(struct store *s, struct store *other, int64_t epoch)
{
	char	*cause = NULL;
	int64_t	 n, before;

	before = committed(other);
	tap_is_int(turn(s, epoch, 0), 0, "a turn with nested levels");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_begin(s, &cause), 0, "  a nested level");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)20, "n"),
	    0, "  a write in it");
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	tap_is_int(store_begin(s, &cause), 0, "  another level");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0,
	    "  a read in it");
	store_rollback(s);
	tap_is_int(store_runf(s, "update", upd_sql, "ti", "o", (int64_t)20), 0,
	    "  the turn goes on after that level is rolled back");
	tap_is_int(number(s, xids_sql), 1, "  its writes in one transaction, no"
	    " subtransaction");
	tap_is_int(store_commit(s, &cause), 0, "  the turn commits");
	tap_is_int(committed(other), before + 1, "  its row there");

	tap_is_int(turn(s, epoch, 0), 0, "a turn whose nested level wrote and"
	    " is rolled back");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)21, "q"),
	    0, "  a write before the level");
	tap_is_int(store_begin(s, &cause), 0, "  a nested level");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)22, "r"),
	    0, "  a write in it");
	store_rollback(s);
	tap_ok(store_int64f(s, "count", &n, count_sql, "") != 0,
	    "  the next read fails");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	tap_ok(said(s, cause, "undone whole"), "  saying why: %s",
	    cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	tap_is_int(committed(other), before + 1, "  nothing of the turn"
	    " committed");

	/* A statement prepared already that fails: the turn is lost. */
	tap_is_int(store_int64f(s, "div", &n, "SELECT 10 / ?", "i",
	    (int64_t)2), 0, "a statement prepared, outside a turn");
	tap_is_int(turn(s, epoch, 0), 0, "a turn in which it fails");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)23, "s"),
	    0, "  a write");
	tap_ok(store_int64f(s, "div", &n, "SELECT 10 / ?", "i", (int64_t)0)
	    != 0, "  the statement fails");
	tap_ok(said(s, NULL, "division by zero"), "  saying why: %s",
	    store_last_error(s));
	tap_ok(store_int64f(s, "count", &n, count_sql, "") != 0,
	    "  so does the next");
	tap_ok(said(s, NULL, "division by zero"), "  with the same reason");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	free(cause);
	cause = NULL;
	tap_is_int(committed(other), before + 1, "  nothing of the turn"
	    " committed");
	tap_is_int(store_runf(other, "delete", "DELETE FROM turn_rows WHERE"
	    " id = 20", ""), 0, "  (its row removed again)");
}

/* One turn fenced (with a heartbeat or not) writing a row: committed. */
static int
fenced_write(struct store *s, int64_t epoch, int64_t now, int64_t id)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = turn(s, epoch, now)) != 0)
		return (rc);
	if ((rc = store_runf(s, "insert", ins_sql, "it", id, "p")) != 0) {
		store_rollback(s);
		return (rc);
	}
	rc = store_commit(s, &cause);
	free(cause);
	return (rc);
}

/*
 * The fence is prepared once per connection, both its forms; a new
 * connection (the server ended the old one: a reconnect) prepares them
 * again at their first run, and its turns are fenced and commit.
 */
static void
fence_prepared(struct store *s, struct store *other, int64_t epoch)
{
	char	*cause = NULL;
	int64_t	 pid = 0, n;

	tap_is_int(number(s, fences_sql), 2, "the fence's two forms are"
	    " prepared on the connection");
	tap_is_int(store_int64f(s, "pid", &pid, "SELECT pg_backend_pid()",
	    ""), 0, "  its server process");
	tap_is_int(store_int64f(other, "end", &n, "SELECT count(*) FROM"
	    " (SELECT pg_terminate_backend(?)) t", "i", pid), 0,
	    "  ended by the server");
	tap_is_int(store_reconnect(s, &cause), 0, "  connected again");
	free(cause);
	tap_is_int(number(s, fences_sql), 0, "  the new connection has no fence");
	tap_is_int(fenced_write(s, epoch, 0, 10), 0, "  a fenced turn commits");
	tap_is_int(fenced_write(s, epoch, time_now_ms(), 11), 0,
	    "  one with a heartbeat too");
	tap_is_int(number(s, fences_sql), 2, "  both forms prepared again");
	tap_is_int(store_int64f(other, "rows", &n, "SELECT count(*) FROM"
	    " turn_rows WHERE id IN (10, 11)", ""), 0, "  read back");
	tap_is_int(n, 2, "  both turns' rows there");
	tap_is_int(store_runf(other, "delete", "DELETE FROM turn_rows WHERE"
	    " id IN (10, 11)", ""), 0, "  (removed again)");
}

int
main(void)
{
	struct store	*s, *other;
	const char	*target = getenv("SLUICE_STORE_TARGET");
	char		*cause = NULL;
	int64_t		 epoch, newer, n, step1, step2, step3, step4;
	int		 rc;

	if (target == NULL || *target == '\0') {
		printf("1..0 # SKIP no database (tests/pg/turn.sh gives one)\n");
		return (0);
	}
	if (store_set_driver("postgresql", &cause) != 0 ||
	    store_open(target, 0, &s, &cause) != 0 ||
	    store_open(target, 0, &other, &cause) != 0) {
		printf("Bail out! %s\n", cause);
		return (1);
	}
	tap_is_int(store_exec(s, "CREATE TABLE turn_rows (id bigint PRIMARY"
	    " KEY, v text NOT NULL)", &cause), 0, "a table of the test's own");
	tap_is_int(store_exec(s, "CREATE TABLE turn_serial (id bigserial"
	    " PRIMARY KEY, v text NOT NULL)", &cause), 0, "and one whose ids"
	    " the database draws");
	tap_is_int(store_lease_take(s, 100, "hostA", &epoch, &cause), 0,
	    "take the lease");

	/* Each statement's first run prepares it, and waits. */
	tap_is_int(turn(s, epoch, 0), 0, "a turn, fenced");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)1, "a"), 0,
	    "  a row written");
	tap_is_int(store_runf(s, "update", upd_sql, "ti", "b", (int64_t)1), 0,
	    "  and changed");
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	tap_is_int(committed(other), 1, "  the other connection sees it");

	/* Writes that succeed, not waited for, commit as sent. */
	tap_is_int(turn(s, epoch, time_now_ms()), 0, "a turn with a heartbeat");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0,
	    "  a read with its fence");
	tap_is_int(n, 1, "  one row");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)2, "c"), 0,
	    "  a write sent");
	tap_is_int(store_runf(s, "update", upd_sql, "ti", "d", (int64_t)2), 0,
	    "  another");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0,
	    "  a read after them");
	tap_is_int(n, 2, "  sees the row sent ahead");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)3, "e"), 0,
	    "  one more, answered with the COMMIT");
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	tap_is_int(committed(other), 3, "  all three there");
	tap_is_int(store_int64f(other, "v", &n, "SELECT count(*) FROM"
	    " turn_rows WHERE id = 2 AND v = 'd'", ""), 0, "  read it back");
	tap_is_int(n, 1, "  as changed");

	ids_asked(s, other, epoch);
	refused_at_read(s, other, epoch);
	refused_at_commit(s, other, epoch);

	/* The connection goes on: the next turn commits. */
	tap_is_int(turn(s, epoch, 0), 0, "the next turn");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	tap_is_int(store_runf(s, "insert", ins_sql, "it", (int64_t)4, "j"), 0,
	    "  a write sent");
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	tap_is_int(committed(other), 4, "  there");

	/* Step ids drawn ahead: bound, increasing, and as committed. */
	tap_is_int(turn(s, epoch, 0), 0, "a turn starting runs");
	tap_is_int(store_int64f(s, "count", &n, count_sql, ""), 0, "  a read");
	step1 = run(s, "one");
	step2 = run(s, "two");
	step3 = run(s, "three");
	tap_ok(step1 > 0 && step2 > step1 && step3 > step2,
	    "  their steps' ids increase (%lld, %lld, %lld)",
	    (long long)step1, (long long)step2, (long long)step3);
	tap_is_int(store_commit(s, &cause), 0, "  committed");
	tap_is_int(store_int64f(other, "steps", &n, "SELECT count(*) FROM"
	    " workflow_steps WHERE id IN (?, ?, ?) AND name = 'one'", "iii",
	    step1, step2, step3), 0, "  read back");
	tap_is_int(n, 3, "  the steps under those ids");

	fence_prepared(s, other, epoch);
	nested(s, other, epoch);

	/* Another engine takes over: the stale epoch is refused. */
	tap_is_int(store_lease_take(other, 200, "hostB", &newer, &cause), 0,
	    "another engine takes the lease");
	tap_is_int(turn(s, epoch, 0), 0, "a turn of the old epoch: the fence"
	    " on its way");
	rc = store_int64f(s, "count", &n, count_sql, "");
	tap_is_int(rc, STORE_CONFLICT, "  its first read is refused");
	tap_ok(said(s, NULL, "stale"), "  the epoch named stale: %s",
	    store_last_error(s));
	tap_ok(store_runf(s, "insert", ins_sql, "it", (int64_t)6, "k") != 0,
	    "  a write after it fails");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	free(cause);
	cause = NULL;
	tap_is_int(committed(other), 4, "  nothing committed");

	/* A write first, with a heartbeat: refused before it is written. */
	tap_is_int(turn(s, epoch, time_now_ms()), 0, "a turn of the old"
	    " epoch with a heartbeat");
	rc = store_runf(s, "insert", ins_sql, "it", (int64_t)7, "l");
	tap_is_int(rc, STORE_CONFLICT, "  its first write is refused");
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	free(cause);
	cause = NULL;
	tap_is_int(committed(other), 4, "  nothing committed");

	/* Constant SQL first: its fence runs alone, and refuses. */
	tap_is_int(turn(s, epoch, 0), 0, "a turn of the old epoch whose first"
	    " statement is constant SQL");
	rc = store_exec(s, "UPDATE turn_rows SET v = 'z' WHERE id = 1",
	    &cause);
	tap_is_int(rc, STORE_CONFLICT, "  it is refused");
	tap_ok(said(s, cause, "stale"), "  the epoch named stale: %s",
	    cause != NULL ? cause : "");
	free(cause);
	cause = NULL;
	tap_ok(store_commit(s, &cause) != 0, "  the COMMIT is refused");
	free(cause);
	cause = NULL;
	tap_is_int(store_int64f(other, "v", &n, "SELECT count(*) FROM"
	    " turn_rows WHERE v = 'z'", ""), 0, "  read back");
	tap_is_int(n, 0, "  nothing committed");

	/* The new epoch's turns go on. */
	tap_is_int(turn(other, newer, 0), 0, "the new engine's turn");
	tap_is_int(store_runf(other, "insert", ins_sql, "it", (int64_t)8,
	    "m"), 0, "  writes");
	tap_is_int(store_commit(other, &cause), 0, "  and commits");
	tap_is_int(turn(other, newer, 0), 0, "the new engine's turn starting a"
	    " run");
	tap_is_int(store_int64f(other, "count", &n, count_sql, ""), 0,
	    "  a read");
	step4 = run(other, "four");
	tap_ok(step4 > step3, "  its step's id is beyond the old engine's"
	    " (%lld)", (long long)step4);
	tap_is_int(store_commit(other, &cause), 0, "  committed");
	tap_is_int(committed(s), 5, "  seen by the old engine's connection");

	store_close(other);
	store_close(s);
	return (tap_done());
}
