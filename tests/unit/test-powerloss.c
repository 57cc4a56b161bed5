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
 * test-powerloss.c: power loss during engine work loses no acknowledged
 * transition.  Round after round a child process opens the database with
 * store_open (the real pragmas, synchronous=FULL) through powerloss-vfs.c,
 * becomes the engine (engine_open: lock, epoch, recovery), starts a few
 * workflows (chains of built-in steps, a fan-out and its join, gates it
 * approves, rejects or cancels at, retries of a failing step, a failed
 * step it skips, a process step) and runs them on the loop until the VFS
 * loses power at a chosen I/O event.  Every commit
 * that returned is reported to this process as acknowledged, row by row
 * (update hook, then WAL hook); so is the content of a commit under way
 * (read in the open transaction just before the engine commits it).
 *
 * After each loss this process reopens the surviving files with store_open
 * and checks that integrity_check says "ok", that the database holds
 * exactly the acknowledged rows, or those plus the whole commit that was
 * under way (never a part of it), and nothing else; the next round's
 * engine then recovers and carries on.  At the end one engine runs
 * everything left to completion and every workflow must have ended as
 * its kind says.  A control run with synchronous=NORMAL (commits not
 * synced) must lose acknowledged rows, or the test could not see a loss.
 *
 * Size from the environment: POWERLOSS_POINTS crash points (default 40;
 * bench/powerloss.sh runs 1000), POWERLOSS_CONTROL the most control
 * crash points (default 40, it stops at the first loss; 0: none), POWERLOSS_SEED the seed (default: from the
 * time; printed, so a failure's crash choices can be made again).
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/util.h"
#include "os/os.h"
#include "flow/flow.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-sqlite.h"
#include "engine/engine.h"
#include "powerloss-vfs.h"
#include "tap.h"

#define PL_EXIT_CRASHED	77	/* the child lost power */
#define PL_CHECKPOINT	40	/* WAL frames before a checkpoint, see below */
#define PL_PER_ROUND	2	/* workflows started by each round */
#define PL_ROUND_S	60	/* a round that runs longer is stuck */
#define PL_FRESH_EVERY	25	/* rounds between new databases */
#define PL_FRESH_EVENTS	24	/* and its first commits, see pl_run */
#define PL_DRAIN_FIRST	1000000	/* numbers of the last engine's workflows */
#define PL_MAX_ROWID	(1 << 24)

#define PL_ROW_FIXED	0	/* see pl_row_may */
#define PL_ROW_COMMIT	1
#define PL_ROW_FREE	2

/* The kinds of workflow the rounds start, and how each must end. */
static const struct pl_kind {
	const char	*name;
	const char	*end;		/* workflow status at the end */
	const char	*flow;
} pl_kinds[] = {
	{ "chain", "completed",
	  "{\"start\": {\"tool\": \"noop\", \"next\": \"b\"},"
	  " \"b\": {\"tool\": \"echo\", \"args\": {\"n\": 1}, \"next\": \"c\"},"
	  " \"c\": {\"tool\": \"sleep\", \"args\": {\"seconds\": 0},"
	  "  \"retry\": {\"max_attempts\": 100, \"backoff\": [\"0s\"]},"
	  "  \"next\": \"d\"},"
	  " \"d\": {\"tool\": \"echo\", \"args\": {\"v\": \"{{steps.b.n}}\"}}}" },
	{ "fanout", "completed",
	  "{\"start\": {\"tool\": \"noop\", \"parallel\": [\"a\", \"b\"]},"
	  " \"a\": {\"tool\": \"echo\", \"args\": {\"v\": \"a\"},"
	  "  \"join\": \"j\"},"
	  " \"b\": {\"tool\": \"sleep\", \"args\": {\"seconds\": 0},"
	  "  \"retry\": {\"max_attempts\": 100, \"backoff\": [\"0s\"]},"
	  "  \"join\": \"j\"},"
	  " \"j\": {\"tool\": \"noop\", \"branch\": ["
	  "  {\"if\": \"input.pick == \\\"x\\\"\", \"then\": \"x\"},"
	  "  {\"else\": \"y\"}]},"
	  " \"x\": {\"tool\": \"noop\"}, \"y\": {\"tool\": \"noop\"}}" },
	{ "approve", "completed",
	  "{\"start\": {\"tool\": \"noop\", \"next\": \"g\"},"
	  " \"g\": {\"gate\": {\"message\": \"go on?\"}, \"next\": \"e\"},"
	  " \"e\": {\"tool\": \"echo\", \"args\": {\"ok\": true}}}" },
	{ "reject", "failed",
	  "{\"start\": {\"tool\": \"noop\", \"next\": \"g\"},"
	  " \"g\": {\"gate\": {\"message\": \"go on?\"}, \"next\": \"e\"},"
	  " \"e\": {\"tool\": \"echo\", \"args\": {\"ok\": true}}}" },
	{ "retry", "failed",
	  "{\"start\": {\"tool\": \"fail\", \"args\": {\"message\": \"no\"},"
	  "  \"retry\": {\"max_attempts\": 3, \"backoff\": [\"0s\"]}}}" },
	{ "cancel", "cancelled",
	  "{\"start\": {\"tool\": \"noop\", \"next\": \"g\"},"
	  " \"g\": {\"gate\": {\"message\": \"go on?\"}, \"next\": \"e\"},"
	  " \"e\": {\"tool\": \"echo\", \"args\": {\"ok\": true}}}" },
	{ "process", "completed",
	  "{\"start\": {\"run\": [\"echo\", \"out\"],"
	  "  \"retry\": {\"max_attempts\": 100, \"backoff\": [\"0s\"]},"
	  "  \"next\": \"e\"},"
	  " \"e\": {\"tool\": \"echo\", \"args\": {\"ok\": true}}}" },
	{ "skip", "completed",
	  "{\"start\": {\"tool\": \"fail\", \"args\": {\"message\": \"no\"},"
	  "  \"retry\": {\"max_attempts\": 1}, \"next\": \"e\"},"
	  " \"e\": {\"tool\": \"echo\", \"args\": {\"ok\": true}}}" },
};

/* Row digests: per table, by rowid, a hash of the row (0: no row). */
struct pl_table {
	char		*name;
	uint64_t	*h;
	size_t		 n;
	sqlite3_stmt	*one;		/* child: one row by rowid */
};
struct pl_digest {
	struct pl_table	*t;
	size_t		 n;
};

/* A row named by table and rowid, with its hash. */
struct pl_row {
	size_t		 t;
	int64_t		 rowid;
	uint64_t	 h;
};
struct pl_rows {
	struct pl_row	*v;
	size_t		 n;
	size_t		 alloc;
};

/* The child: its engine, and the rows changed by the open transaction. */
struct pl_child {
	FILE		*out;		/* to the parent */
	struct store	*store;
	struct engine	*engine;
	struct pl_digest d;		/* table names and statements only */
	struct pl_rows	 changed;
	int		 committing;	/* between commit hook and WAL hook */
	int		 known;		/* the commit's rows were sent */
	int		 mutate;	/* control: synchronous=NORMAL */
};

/* What pl_work's loop hook looks at. */
struct pl_work {
	struct loop	*loop;
	struct store	*s;
	struct engine	*e;
};

/* How one round is to go. */
struct pl_spec {
	const char	*path;
	int64_t		 crash_at;	/* the I/O event; 0: none */
	int		 mode;		/* PLVFS_DROP ... */
	uint64_t	 seed;		/* for the VFS's choices */
	int64_t		 first;		/* number of its first workflow */
	int		 mutate;	/* control: synchronous=NORMAL */
};

/* What the parent learnt from one round. */
struct pl_round {
	struct pl_rows	 ack;		/* rows of an ack not yet complete */
	struct pl_rows	 pro;		/* rows of the commit under way */
	int		 pro_done;
	struct pl_rows	 changed;	/* at the crash: rows the txn touched */
	int		 crashed;
	int		 committing;
	int		 known;
	int		 mode;		/* PLVFS_DROP ... */
	int64_t		 events;
	int64_t		 created;	/* events until a new database was made */
	char		*fail;
	char		 detail[160];
};

/* Totals over a run. */
struct pl_stats {
	int64_t		 points;
	int64_t		 torn;
	int64_t		 dropped;
	int64_t		 written;	/* every change written, no sync */
	int64_t		 clean;		/* rounds that ended before the point */
	int64_t		 acked;		/* rows acknowledged */
	int64_t		 lost;
	int64_t		 unexplained;	/* rows no commit explains */
	int64_t		 halves;	/* a commit found in part */
	int64_t		 inflight_kept;	/* the commit under way survived */
	int64_t		 integrity;	/* integrity_check failures */
	int64_t		 reopen;	/* store_open failures */
	int64_t		 children;	/* children that died otherwise */
	int64_t		 pending;
	int64_t		 kept;
	int64_t		 partial;
	int64_t		 garbage;
	int64_t		 names;		/* undurable name changes at crashes */
	int64_t		 names_kept;
	int64_t		 databases;	/* new databases the rounds made */
	int64_t		 before_ack;	/* crashes before any acknowledgement */
	int		 quiet;		/* the control: losses expected */
};

static char			 pl_dir[] = "/tmp/test-powerloss.XXXXXX";
static struct flow_tools	*pl_tools;
static const char		*pl_modes[] = { "dropped", "torn", "written" };
static int			 pl_verbose;	/* POWERLOSS_VERBOSE: each crash */

static uint64_t	 pl_splitmix(uint64_t *);
static uint64_t	 pl_hash_row(sqlite3_stmt *, int);
static size_t	 pl_table_find(struct pl_digest *, const char *);
static void	 pl_table_clear(struct pl_table *);
static void	 pl_digest_set(struct pl_digest *, size_t, int64_t, uint64_t);
static uint64_t	 pl_digest_get(const struct pl_digest *, size_t, int64_t);
static void	 pl_digest_free(struct pl_digest *);
static int	 pl_digest_scan(sqlite3 *, struct pl_digest *, char **);
static void	 pl_rows_add(struct pl_rows *, size_t, int64_t, uint64_t);
static int	 pl_row_cmp(const void *, const void *);
static void	 pl_rows_unique(struct pl_rows *);
static uint64_t	 pl_row_read(struct pl_child *, size_t, int64_t);
static void	 pl_send_rows(struct pl_child *, char);
static void	 pl_send_all(struct pl_child *);
static void	 pl_on_update(void *, int, const char *, const char *,
		     sqlite3_int64);
static int	 pl_on_commit(void *);
static void	 pl_on_rollback(void *);
static int	 pl_on_wal(void *, sqlite3 *, const char *, int);
static void	 pl_before_commit(void *);
static void	 pl_on_crash(const struct plvfs_crash *, void *);
static int	 pl_start(struct engine *, int64_t, int);
static int	 pl_decide(struct store *, struct engine *);
static int	 pl_due(struct store *);
static void	 pl_wake(void *);
static int	 pl_work(struct loop *, struct store *, struct engine *,
		     char **);
static __dead void pl_child(const struct pl_spec *, int);
static int	 pl_round_run(const struct pl_spec *, struct pl_round *,
		     struct pl_digest *, struct pl_stats *);
static int	 pl_parse_crash(struct pl_round *, const char *,
		     struct pl_stats *);
static void	 pl_parse(struct pl_round *, struct pl_digest *, char *,
		     struct pl_stats *);
static void	 pl_read(FILE *, struct pl_round *, struct pl_digest *,
		     struct pl_stats *);
static int	 pl_row_may(const struct pl_round *, size_t, int64_t,
		     uint64_t *);
static void	 pl_compare(struct pl_round *, const struct pl_digest *,
		     const struct pl_digest *, struct pl_stats *);
static int	 pl_check(const char *, struct pl_round *, struct pl_digest *,
		     struct pl_stats *);
static void	 pl_round_clear(struct pl_round *);
static char	*pl_run(const char *, const char *, int64_t, uint64_t, int,
		     struct pl_stats *);
static int64_t	 pl_calibrate(const char *, int64_t *);
static void	 pl_report(const struct pl_stats *, int64_t);
static void	 pl_drain(const char *);
static void	 pl_check_ends(const char *);
static int	 pl_rm(const char *, const struct stat *, int, struct FTW *);
static int64_t	 pl_env(const char *, int64_t);

/* A 64-bit splitmix step: seeds for rounds from the run's seed. */
static uint64_t
pl_splitmix(uint64_t *x)
{
	uint64_t	 z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

/* FNV-1a over a row's columns from first on, with their types; never 0. */
static uint64_t
pl_hash_row(sqlite3_stmt *st, int first)
{
	const unsigned char	*p;
	uint64_t		 h = 0xcbf29ce484222325ULL;
	int64_t			 v;
	double			 d;
	int			 i, n, j, type;

	for (i = first; i < sqlite3_column_count(st); i++) {
		type = sqlite3_column_type(st, i);
		h = (h ^ (uint64_t)type) * 0x100000001b3ULL;
		switch (type) {
		case SQLITE_INTEGER:
			v = sqlite3_column_int64(st, i);
			p = (const unsigned char *)&v;
			n = sizeof v;
			break;
		case SQLITE_FLOAT:
			d = sqlite3_column_double(st, i);
			p = (const unsigned char *)&d;
			n = sizeof d;
			break;
		case SQLITE_NULL:
			p = NULL;
			n = 0;
			break;
		default:
			p = sqlite3_column_blob(st, i);
			n = sqlite3_column_bytes(st, i);
			break;
		}
		for (j = 0; j < n; j++)
			h = (h ^ p[j]) * 0x100000001b3ULL;
		h = (h ^ 0xff) * 0x100000001b3ULL;
	}
	return (h != 0 ? h : 1);
}

/* A table's index in a digest, added when new. */
static size_t
pl_table_find(struct pl_digest *d, const char *name)
{
	size_t	 i;

	for (i = 0; i < d->n; i++) {
		if (strcmp(d->t[i].name, name) == 0)
			return (i);
	}
	d->t = xreallocarray(d->t, d->n + 1, sizeof *d->t);
	memset(&d->t[d->n], 0, sizeof d->t[d->n]);
	d->t[d->n].name = xstrdup(name);
	return (d->n++);
}

/* Forget every row of a table. */
static void
pl_table_clear(struct pl_table *tb)
{
	if (tb->n != 0)
		memset(tb->h, 0, tb->n * sizeof *tb->h);
}

/* Set (or with 0 remove) a row's hash. */
static void
pl_digest_set(struct pl_digest *d, size_t t, int64_t rowid, uint64_t h)
{
	struct pl_table	*tb = &d->t[t];
	size_t		 n;

	if (rowid < 0 || rowid >= PL_MAX_ROWID)
		fatalx("powerloss: rowid %lld of %s out of range",
		    (long long)rowid, tb->name);
	if ((size_t)rowid >= tb->n) {
		if (h == 0)
			return;
		n = tb->n == 0 ? 256 : tb->n;
		while (n <= (size_t)rowid)
			n *= 2;
		tb->h = xreallocarray(tb->h, n, sizeof *tb->h);
		memset(tb->h + tb->n, 0, (n - tb->n) * sizeof *tb->h);
		tb->n = n;
	}
	tb->h[rowid] = h;
}

/* A row's hash, 0 when there is no such row. */
static uint64_t
pl_digest_get(const struct pl_digest *d, size_t t, int64_t rowid)
{
	if (t >= d->n || rowid < 0 || (size_t)rowid >= d->t[t].n)
		return (0);
	return (d->t[t].h[rowid]);
}

/* Free a digest and its statements. */
static void
pl_digest_free(struct pl_digest *d)
{
	size_t	 i;

	for (i = 0; i < d->n; i++) {
		free(d->t[i].name);
		free(d->t[i].h);
		sqlite3_finalize(d->t[i].one);
	}
	free(d->t);
	memset(d, 0, sizeof *d);
}

/* Every row of every table of ours (not SQLite's own) into a digest. */
static int
pl_digest_scan(sqlite3 *db, struct pl_digest *d, char **cause)
{
	sqlite3_stmt	*tl, *st;
	char		*sql;
	size_t		 t, i;
	int		 rc;

	for (i = 0; i < d->n; i++)
		pl_table_clear(&d->t[i]);
	rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE"
	    " type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
	    " ORDER BY name", -1, &tl, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	while ((rc = sqlite3_step(tl)) == SQLITE_ROW) {
		t = pl_table_find(d, (const char *)sqlite3_column_text(tl, 0));
		sql = sqlite3_mprintf("SELECT rowid, * FROM \"%w\"",
		    d->t[t].name);
		rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
		sqlite3_free(sql);
		if (rc != SQLITE_OK) {
			sqlite3_finalize(tl);
			goto fail;
		}
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			pl_digest_set(d, t, sqlite3_column_int64(st, 0),
			    pl_hash_row(st, 1));
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			sqlite3_finalize(tl);
			goto fail;
		}
	}
	sqlite3_finalize(tl);
	if (rc != SQLITE_DONE)
		goto fail;
	return (0);

fail:
	xasprintf(cause, "reading the tables: %s", sqlite3_errmsg(db));
	return (-1);
}

/* Append a row to a list. */
static void
pl_rows_add(struct pl_rows *r, size_t t, int64_t rowid, uint64_t h)
{
	if (r->n == r->alloc) {
		r->alloc = r->alloc == 0 ? 64 : r->alloc * 2;
		r->v = xreallocarray(r->v, r->alloc, sizeof *r->v);
	}
	r->v[r->n].t = t;
	r->v[r->n].rowid = rowid;
	r->v[r->n].h = h;
	r->n++;
}

/* Order rows by table and rowid. */
static int
pl_row_cmp(const void *a, const void *b)
{
	const struct pl_row	*x = a, *y = b;

	if (x->t != y->t)
		return (x->t < y->t ? -1 : 1);
	return (x->rowid < y->rowid ? -1 : x->rowid > y->rowid);
}

/* Sort a list and keep the last of each row. */
static void
pl_rows_unique(struct pl_rows *r)
{
	size_t	 i, n = 0;

	if (r->n == 0)
		return;
	qsort(r->v, r->n, sizeof *r->v, pl_row_cmp);
	for (i = 0; i < r->n; i++) {
		if (n > 0 && pl_row_cmp(&r->v[n - 1], &r->v[i]) == 0)
			r->v[n - 1] = r->v[i];
		else
			r->v[n++] = r->v[i];
	}
	r->n = n;
}

/* Child: one row's hash as this connection sees it now (0: none). */
static uint64_t
pl_row_read(struct pl_child *c, size_t t, int64_t rowid)
{
	struct pl_table	*tb = &c->d.t[t];
	char		*sql;
	uint64_t	 h = 0;
	int		 rc;

	if (tb->one == NULL) {
		sql = sqlite3_mprintf("SELECT * FROM \"%w\" WHERE rowid = ?",
		    tb->name);
		rc = sqlite3_prepare_v2(store_sqlite_db(c->store->conn), sql, -1, &tb->one, NULL);
		sqlite3_free(sql);
		if (rc != SQLITE_OK)
			fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(c->store->conn)));
	}
	sqlite3_bind_int64(tb->one, 1, rowid);
	rc = sqlite3_step(tb->one);
	if (rc == SQLITE_ROW)
		h = pl_hash_row(tb->one, 0);
	else if (rc != SQLITE_DONE)
		fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(c->store->conn)));
	sqlite3_reset(tb->one);
	return (h);
}

/* Child: send the rows the transaction changed, as they are now. */
static void
pl_send_rows(struct pl_child *c, char what)
{
	struct pl_row	*r;
	size_t		 i;

	pl_rows_unique(&c->changed);
	for (i = 0; i < c->changed.n; i++) {
		r = &c->changed.v[i];
		fprintf(c->out, "%c %s %lld %llu\n", what, c->d.t[r->t].name,
		    (long long)r->rowid,
		    (unsigned long long)pl_row_read(c, r->t, r->rowid));
	}
}

/* Child: acknowledge every row there is (a database just created). */
static void
pl_send_all(struct pl_child *c)
{
	struct pl_table	*tb;
	size_t		 t, i;

	for (t = 0; t < c->d.n; t++) {
		tb = &c->d.t[t];
		for (i = 0; i < tb->n; i++) {
			if (tb->h[i] != 0)
				fprintf(c->out, "A %s %zu %llu\n", tb->name, i,
				    (unsigned long long)tb->h[i]);
		}
		free(tb->h);
		tb->h = NULL;
		tb->n = 0;
	}
	fprintf(c->out, "a 0\n");
}

/* Child, update hook: note which row a statement changed. */
static void
pl_on_update(void *arg, int op, const char *db, const char *table,
    sqlite3_int64 rowid)
{
	struct pl_child	*c = arg;

	(void)op;
	(void)db;
	pl_rows_add(&c->changed, pl_table_find(&c->d, table), rowid, 0);
}

/* Child, commit hook: from now until the WAL hook a commit is under way. */
static int
pl_on_commit(void *arg)
{
	struct pl_child	*c = arg;

	c->committing = 1;
	return (0);
}

/* Child, rollback hook: nothing the transaction did will stay. */
static void
pl_on_rollback(void *arg)
{
	struct pl_child	*c = arg;

	c->changed.n = 0;
	c->known = 0;
	c->committing = 0;
}

/*
 * Child, WAL hook: the commit has returned, so its rows are acknowledged.
 * Setting a WAL hook replaces SQLite's automatic checkpoint, so do it
 * here, after PL_CHECKPOINT frames rather than SQLite's 1,000, so that
 * even a small run checkpoints (database writes and syncs, WAL restarts).
 */
static int
pl_on_wal(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct pl_child	*c = arg;
	size_t		 n;

	pl_rows_unique(&c->changed);
	n = c->changed.n;
	pl_send_rows(c, 'A');
	fprintf(c->out, "a %zu\n", n);
	c->changed.n = 0;
	c->known = 0;
	c->committing = 0;
	if (frames >= PL_CHECKPOINT)
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE,
		    NULL, NULL);
	return (SQLITE_OK);
}

/*
 * Child, a loop hook added before the engine's: the turn's transaction is
 * about to be committed; send what it will make of the rows it changed.
 */
static void
pl_before_commit(void *arg)
{
	struct pl_child	*c = arg;

	if (sqlite3_get_autocommit(store_sqlite_db(c->store->conn)))
		return;
	pl_send_rows(c, 'P');
	fprintf(c->out, "p\n");
	c->known = 1;
}

/* Child: power is lost; say where, then end as a crash. */
static void
pl_on_crash(const struct plvfs_crash *x, void *arg)
{
	struct pl_child	*c = arg;
	struct pl_row	*r;
	size_t		 i;

	pl_rows_unique(&c->changed);
	for (i = 0; i < c->changed.n; i++) {
		r = &c->changed.v[i];
		fprintf(c->out, "C %s %lld\n", c->d.t[r->t].name,
		    (long long)r->rowid);
	}
	fprintf(c->out, "X %d %d %d %lld %lld %lld %lld %lld %lld %lld %s\n",
	    c->committing, c->known, x->mode, (long long)x->event,
	    (long long)x->pending, (long long)x->kept,
	    (long long)x->partial, (long long)x->garbage,
	    (long long)x->entries, (long long)x->entries_kept, x->during);
	fflush(c->out);
	_exit(PL_EXIT_CRASHED);
}

/* Child: start workflow number n (its kind follows from n). */
static int
pl_start(struct engine *e, int64_t n, int k)
{
	struct engine_request	 q;
	struct engine_reply	 r;
	char			*args;
	int			 rc;

	memset(&q, 0, sizeof q);
	q.command = "start";
	xasprintf(&args, "{\"name\": \"pl-%s-%lld\", \"flow\": %s,"
	    " \"input\": {\"pick\": \"%s\"}}", pl_kinds[k].name, (long long)n,
	    pl_kinds[k].flow, n % 2 == 0 ? "x" : "y");
	q.args_json = args;
	engine_request_apply(e, NULL, &q, &r);
	rc = r.code;
	if (rc != 0)
		fprintf(stderr, "powerloss: start: %s\n", r.message);
	engine_reply_clear(&r);
	free(args);
	return (rc);
}

/*
 * What an operator does, by the workflow's kind: approve, reject or
 * cancel at each waiting gate; skip the failed step of a failed
 * pl-skip workflow, which then goes on.
 */
static const char pl_decide_sql[] =
	"SELECT CASE WHEN w.name LIKE 'pl-reject-%' THEN 'reject'"
	"  WHEN w.name LIKE 'pl-cancel-%' THEN 'cancel' ELSE 'approve' END,"
	" w.id, s.id FROM workflow_steps s JOIN workflows w"
	" ON w.id = s.workflow_id WHERE s.status = 'waiting'"
	" AND w.status = 'running'"
	" UNION ALL"
	" SELECT 'skip', w.id, s.id FROM workflows w JOIN workflow_steps s"
	" ON s.workflow_id = w.id WHERE w.status = 'failed'"
	" AND w.name LIKE 'pl-skip-%' AND s.status = 'failed'"
	" AND s.id = (SELECT max(id) FROM workflow_steps"
	"  WHERE workflow_id = w.id)";

/* Make every operator decision that is due; whether there was one. */
static int
pl_decide(struct store *s, struct engine *e)
{
	struct pl_act {
		char	 command[8];
		int64_t	 wf;
		int64_t	 step;
	}			*acts = NULL;
	struct engine_request	 q;
	struct engine_reply	 r;
	sqlite3_stmt		*st;
	size_t			 n = 0, i;

	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), pl_decide_sql, -1, &st, NULL) !=
	    SQLITE_OK)
		fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(s->conn)));
	while (sqlite3_step(st) == SQLITE_ROW) {
		acts = xreallocarray(acts, n + 1, sizeof *acts);
		strlcpy(acts[n].command, (const char *)sqlite3_column_text(st,
		    0), sizeof acts[n].command);
		acts[n].wf = sqlite3_column_int64(st, 1);
		acts[n].step = sqlite3_column_int64(st, 2);
		n++;
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++) {
		memset(&q, 0, sizeof q);
		q.command = acts[i].command;
		q.workflow_id = acts[i].wf;
		/* A cancel with a step would cancel one for-each item. */
		if (strcmp(q.command, "cancel") != 0)
			q.step_id = acts[i].step;
		q.args_json = "{\"comment\": \"power-loss test\"}";
		engine_request_apply(e, NULL, &q, &r);
		if (r.code != 0)
			fatalx("powerloss: %s: %s", q.command, r.message);
		engine_reply_clear(&r);
	}
	free(acts);
	return (n != 0);
}

/* Whether an operator decision is due (pl_decide would make one). */
static int
pl_due(struct store *s)
{
	sqlite3_stmt	*st;
	char		*sql;
	int		 due;

	sql = sqlite3_mprintf("SELECT EXISTS (%s)", pl_decide_sql);
	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), sql, -1, &st, NULL) != SQLITE_OK)
		fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(s->conn)));
	sqlite3_free(sql);
	due = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return (due);
}

/*
 * A loop hook after the engine's (which commits the turn): when the turn
 * left a decision due or no work at all, do not let poll() sleep, so that
 * pl_work sees it now.  Asked only after poll(), it would wait for the
 * engine's next timer, up to a second, in most rounds.
 */
static void
pl_wake(void *arg)
{
	struct pl_work	*w = arg;

	if (engine_idle(w->e) || pl_due(w->s))
		loop_break(w->loop);
}

/* Run the engine until no workflow is left; -1 when it is stuck. */
static int
pl_work(struct loop *loop, struct store *s, struct engine *e, char **cause)
{
	struct pl_work	 w;
	int64_t		 deadline = time_mono_ms() + PL_ROUND_S * 1000;
	int		 decided, rc;

	w.loop = loop;
	w.s = s;
	w.e = e;
	loop_hook_add(loop, pl_wake, &w);
	for (;;) {
		decided = pl_decide(s, e);
		if (!decided && engine_idle(e)) {
			rc = 0;
			break;
		}
		if (time_mono_ms() > deadline) {
			xasprintf(cause, "the engine did not finish its work "
			    "in %d s", PL_ROUND_S);
			rc = -1;
			break;
		}
		loop_resume(loop);
		loop_once(loop, !decided);
	}
	loop_hook_del(loop, pl_wake, &w);
	loop_resume(loop);
	return (rc);
}

/*
 * The child: be the engine for one round as sp says, start a few
 * workflows and run everything until the power goes or no work is left.
 * Reports to fd, one line a fact.
 */
static __dead void
pl_child(const struct pl_spec *sp, int fd)
{
	const char	*path = sp->path;
	struct pl_child	 c;
	struct loop	*loop;
	struct stat	 sb;
	char		*cause = NULL;
	int64_t		 left;
	int		 fresh, i;

	memset(&c, 0, sizeof c);
	if ((c.out = fdopen(fd, "w")) == NULL)
		_exit(1);
	c.mutate = sp->mutate;
	fresh = stat(path, &sb) != 0;
	plvfs_arm(path, sp->crash_at, sp->seed, sp->mode, pl_on_crash, &c);
	if (store_open(path, 0, &c.store, &cause) != 0) {
		fprintf(c.out, "F store_open: %s\n", cause);
		fflush(c.out);
		_exit(1);
	}
	if (sp->mutate && store_exec(c.store, "PRAGMA synchronous = NORMAL",
	    &cause) != 0)
		fatalx("powerloss: %s", cause);
	sqlite3_update_hook(store_sqlite_db(c.store->conn), pl_on_update, &c);
	sqlite3_commit_hook(store_sqlite_db(c.store->conn), pl_on_commit, &c);
	sqlite3_rollback_hook(store_sqlite_db(c.store->conn), pl_on_rollback, &c);
	sqlite3_wal_hook(store_sqlite_db(c.store->conn), pl_on_wal, &c);
	if (fresh) {
		/* What creating it made is acknowledged: store_open returned. */
		if (pl_digest_scan(store_sqlite_db(c.store->conn), &c.d, &cause) != 0)
			fatalx("powerloss: %s", cause);
		fprintf(c.out, "R %lld\n", (long long)plvfs_events());
		pl_send_all(&c);
	}

	loop = loop_create();
	loop_hook_add(loop, pl_before_commit, &c);
	if (engine_open(loop, c.store, pl_tools, NULL, &c.engine,
	    &cause) != 0) {
		fprintf(c.out, "F engine_open: %s\n", cause);
		fflush(c.out);
		_exit(1);
	}
	/* New work only when little is left, so the backlog stays small. */
	if (store_query_int(c.store, "SELECT count(*) FROM workflows WHERE"
	    " status IN ('scheduled', 'running')", &left, &cause) != 0)
		fatalx("powerloss: %s", cause);
	for (i = 0; left < 2 * PL_PER_ROUND && i < PL_PER_ROUND; i++) {
		if (pl_start(c.engine, sp->first + i, (int)((sp->first + i) %
		    (int64_t)nitems(pl_kinds))) != 0)
			_exit(1);
	}
	if (pl_work(loop, c.store, c.engine, &cause) != 0) {
		fprintf(c.out, "F %s\n", cause);
		fflush(c.out);
		_exit(1);
	}
	engine_close(c.engine);
	loop_free(loop);
	pl_digest_free(&c.d);
	store_close(c.store);
	plvfs_disarm();
	fprintf(c.out, "E %lld\n", (long long)plvfs_events());
	fflush(c.out);
	_exit(0);
}

/* Parent: the child's line about its crash. */
static int
pl_parse_crash(struct pl_round *r, const char *line, struct pl_stats *st)
{
	char		 during[16];
	long long	 v[7];
	int		 com, known, mode;

	if (sscanf(line, "%d %d %d %lld %lld %lld %lld %lld %lld %lld %15s",
	    &com, &known, &mode, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
	    &v[6], during) != 11 || mode < 0 || mode > 2)
		return (-1);
	r->crashed = 1;
	r->committing = com;
	r->known = known && r->pro_done;
	r->mode = mode;
	r->events = v[0];
	st->pending += v[1];
	st->kept += v[2];
	st->partial += v[3];
	st->garbage += v[4];
	st->names += v[5];
	st->names_kept += v[6];
	snprintf(r->detail, sizeof r->detail, "%s at event %lld during a %s, "
	    "%lld unsynced writes (%lld kept, %lld torn), %lld of %lld name "
	    "changes kept%s", pl_modes[mode], v[0], during, v[1], v[2], v[3],
	    v[6], v[5], com ? ", a commit under way" : "");
	return (0);
}

/* Parent: one line from the child. */
static void
pl_parse(struct pl_round *r, struct pl_digest *a, char *line,
    struct pl_stats *st)
{
	char		 table[64];
	long long	 rowid, n;
	unsigned long long h;
	size_t		 i;

	switch (line[0]) {
	case 'A':
	case 'P':
		if (sscanf(line + 2, "%63s %lld %llu", table, &rowid, &h) != 3)
			break;
		if (line[0] == 'P' && r->pro_done) {
			r->pro.n = 0;
			r->pro_done = 0;
		}
		pl_rows_add(line[0] == 'A' ? &r->ack : &r->pro,
		    pl_table_find(a, table), rowid, h);
		return;
	case 'a':
		if (sscanf(line + 2, "%lld", &n) != 1)
			break;
		for (i = 0; i < r->ack.n; i++) {
			pl_digest_set(a, r->ack.v[i].t, r->ack.v[i].rowid,
			    r->ack.v[i].h);
		}
		st->acked += n;
		r->ack.n = 0;
		r->pro.n = 0;
		r->pro_done = 0;
		return;
	case 'p':
		r->pro_done = 1;
		return;
	case 'R':
		/* A new database: what creating it made is acknowledged. */
		if (sscanf(line + 1, "%lld", &n) == 1)
			r->created = n;
		for (i = 0; i < a->n; i++)
			pl_table_clear(&a->t[i]);
		return;
	case 'C':
		if (sscanf(line + 2, "%63s %lld", table, &rowid) != 2)
			break;
		pl_rows_add(&r->changed, pl_table_find(a, table), rowid, 0);
		return;
	case 'X':
		if (pl_parse_crash(r, line + 2, st) != 0)
			break;
		return;
	case 'E':
		if (sscanf(line + 2, "%lld", &n) == 1)
			r->events = n;
		return;
	case 'F':
		free(r->fail);
		r->fail = xstrdup(line + 2);
		return;
	}
	fatalx("powerloss: bad line from the child: %s", line);
}

/* Parent: read the child's report until it ends. */
static void
pl_read(FILE *f, struct pl_round *r, struct pl_digest *a,
    struct pl_stats *st)
{
	char	*line = NULL;
	size_t	 size = 0;
	ssize_t	 len;

	while ((len = getline(&line, &size, f)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		pl_parse(r, a, line, st);
	}
	free(line);
}

/*
 * Parent: what the commit under way at the crash may have made of a row:
 * PL_ROW_FIXED (nothing; it must be as acknowledged), PL_ROW_COMMIT (the
 * hash in *hp, sent before the commit) or PL_ROW_FREE (the commit touched
 * it but its content was not sent: a commit inside engine_open).
 */
static int
pl_row_may(const struct pl_round *r, size_t t, int64_t rowid, uint64_t *hp)
{
	size_t	 i;

	if (!r->committing)
		return (PL_ROW_FIXED);
	if (r->known) {
		for (i = 0; i < r->pro.n; i++) {
			if (r->pro.v[i].t == t && r->pro.v[i].rowid == rowid) {
				*hp = r->pro.v[i].h;
				return (PL_ROW_COMMIT);
			}
		}
		return (PL_ROW_FIXED);
	}
	for (i = 0; i < r->changed.n; i++) {
		if (r->changed.v[i].t == t && r->changed.v[i].rowid == rowid)
			return (PL_ROW_FREE);
	}
	return (PL_ROW_FIXED);
}

/*
 * Parent: the database found after the crash against what was
 * acknowledged: every row as acknowledged, or (when a commit was under
 * way) every row that commit changed as it made it; never a mixture,
 * nothing else.
 */
static void
pl_compare(struct pl_round *r, const struct pl_digest *a,
    const struct pl_digest *got, struct pl_stats *st)
{
	size_t		 t, ntab;
	int64_t		 rowid, nrow, lost = 0, extra = 0, as_a = 0, as_p = 0;
	uint64_t	 ha, hp, hr;
	int		 may;

	pl_rows_unique(&r->pro);
	pl_rows_unique(&r->changed);
	ntab = a->n > got->n ? a->n : got->n;
	for (t = 0; t < ntab; t++) {
		nrow = t < a->n ? (int64_t)a->t[t].n : 0;
		if (t < got->n && (int64_t)got->t[t].n > nrow)
			nrow = (int64_t)got->t[t].n;
		for (rowid = 0; rowid < nrow; rowid++) {
			ha = hp = pl_digest_get(a, t, rowid);
			hr = pl_digest_get(got, t, rowid);
			may = pl_row_may(r, t, rowid, &hp);
			if (may == PL_ROW_FREE || (hr == ha && hr == hp))
				continue;
			if (may == PL_ROW_COMMIT && hr == hp) {
				as_p++;
				continue;
			}
			if (may == PL_ROW_COMMIT && hr == ha) {
				as_a++;
				continue;
			}
			if (ha != 0 && ++lost <= 3 && !st->quiet) {
				printf("#   lost: %s row %lld\n", a->t[t].name,
				    (long long)rowid);
			} else if (ha == 0 && ++extra <= 3 && !st->quiet) {
				printf("#   unexplained: %s row %lld\n",
				    got->t[t].name, (long long)rowid);
			}
		}
	}
	if (as_p != 0 && as_a != 0) {
		st->halves++;
		if (!st->quiet)
			printf("#   a commit survived in part: %lld rows as "
			    "it made them, %lld as before\n", (long long)as_p,
			    (long long)as_a);
	}
	if (as_p != 0 && as_a == 0)
		st->inflight_kept++;
	st->lost += lost;
	st->unexplained += extra;
}

/*
 * Parent: reopen what survived as a restarted engine does, check it, and
 * make it the acknowledged state the next round starts from.  0: passed.
 */
static int
pl_check(const char *path, struct pl_round *r, struct pl_digest *a,
    struct pl_stats *st)
{
	struct store		*s;
	struct pl_digest	 got;
	sqlite3_stmt		*ic;
	char			*cause = NULL;
	const char		*res;
	int64_t			 before;
	size_t			 t, i;
	int			 ok, empty = 1;

	before = st->lost + st->unexplained + st->halves + st->integrity;
	if (store_open(path, 0, &s, &cause) != 0) {
		if (!st->quiet)
			printf("#   store_open after the crash: %s\n", cause);
		free(cause);
		st->reopen++;
		return (-1);
	}
	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), "PRAGMA integrity_check", -1, &ic,
	    NULL) != SQLITE_OK)
		fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(s->conn)));
	ok = sqlite3_step(ic) == SQLITE_ROW;
	res = ok ? (const char *)sqlite3_column_text(ic, 0) : NULL;
	if (!ok || res == NULL || strcmp(res, "ok") != 0) {
		if (!st->quiet)
			printf("#   integrity_check: %s\n", res != NULL ?
			    res : sqlite3_errmsg(store_sqlite_db(s->conn)));
		st->integrity++;
	}
	sqlite3_finalize(ic);

	memset(&got, 0, sizeof got);
	for (t = 0; t < a->n; t++)
		pl_table_find(&got, a->t[t].name);
	if (pl_digest_scan(store_sqlite_db(s->conn), &got, &cause) != 0)
		fatalx("powerloss: %s", cause);
	for (t = 0; t < a->n && empty; t++) {
		for (i = 0; i < a->t[t].n; i++) {
			if (a->t[t].h[i] != 0) {
				empty = 0;
				break;
			}
		}
	}
	/* Before anything is acknowledged there is nothing to lose. */
	if (!empty)
		pl_compare(r, a, &got, st);
	else if (r->crashed)
		st->before_ack++;
	for (t = 0; t < got.n; t++)
		pl_table_find(a, got.t[t].name);
	for (t = 0; t < a->n; t++) {
		pl_table_clear(&a->t[t]);
		for (i = 0; i < got.t[t].n; i++) {
			if (got.t[t].h[i] != 0)
				pl_digest_set(a, t, (int64_t)i, got.t[t].h[i]);
		}
	}
	pl_digest_free(&got);
	store_close(s);
	return (st->lost + st->unexplained + st->halves + st->integrity ==
	    before ? 0 : -1);
}

/* Parent: forget a round. */
static void
pl_round_clear(struct pl_round *r)
{
	free(r->ack.v);
	free(r->pro.v);
	free(r->changed.v);
	free(r->fail);
	memset(r, 0, sizeof *r);
}

/*
 * Crash points until `points` of them were tried: each round is a child
 * that loses power at a random I/O event within what a whole round did
 * last time (rounds that end first are not counted).
 */
static char *
pl_run(const char *label, const char *base, int64_t points, uint64_t seed,
    int mutate, struct pl_stats *st)
{
	char			*path = NULL;
	struct pl_digest	 a;
	struct pl_round		 r;
	struct pl_spec		 sp;
	uint64_t		 x = seed, rs;
	int64_t			 span, created, round = 0;
	int			 status, failed = 0;

	memset(&a, 0, sizeof a);
	memset(st, 0, sizeof *st);
	st->quiet = mutate;
	span = pl_calibrate(base, &created);
	memset(&sp, 0, sizeof sp);
	sp.mutate = mutate;
	while (st->points < points && round < points * 4) {
		if (round++ % PL_FRESH_EVERY == 0) {
			/* A new database: crashes while it is made, too. */
			free(path);
			xasprintf(&path, "%s.%lld", base,
			    (long long)++st->databases);
			pl_digest_free(&a);
			sp.path = path;
		}
		rs = pl_splitmix(&x);
		sp.crash_at = 1 + (int64_t)(rs % (uint64_t)(span + span / 4));
		/*
		 * A new database's first crash falls while it is made (under
		 * a name of its own, linked into place, its directory synced)
		 * or in its first commits.
		 */
		if (round % PL_FRESH_EVERY == 1)
			sp.crash_at = 1 + (int64_t)(rs % (uint64_t)(created +
			    PL_FRESH_EVENTS));
		sp.mode = (int)((rs >> 32) % 3);
		sp.seed = pl_splitmix(&x);
		status = pl_round_run(&sp, &r, &a, st);
		sp.first += PL_PER_ROUND;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    !r.crashed) {
			st->clean++;
			if (pl_verbose)
				printf("# %s: round %lld: ended after %lld "
				    "events, before its crash point %lld\n",
				    label, (long long)round,
				    (long long)r.events, (long long)sp.crash_at);
			if (r.events > 0)
				span = r.events;
			if (pl_check(path, &r, &a, st) != 0)
				failed++;
		} else if (WIFEXITED(status) &&
		    WEXITSTATUS(status) == PL_EXIT_CRASHED && r.crashed) {
			st->points++;
			if (pl_verbose)
				printf("# %s: round %lld: %s\n", label,
				    (long long)round, r.detail);
			if (r.mode == PLVFS_TEAR)
				st->torn++;
			else if (r.mode == PLVFS_KEEP)
				st->written++;
			else
				st->dropped++;
			if (pl_check(path, &r, &a, st) != 0 && !mutate) {
				failed++;
				printf("#   %s: round %lld: %s\n", label,
				    (long long)round, r.detail);
			}
		} else {
			st->children++;
			printf("#   %s: round %lld: the engine died (status "
			    "0x%x): %s\n", label, (long long)round, status,
			    r.fail != NULL ? r.fail : "no reason given");
		}
		pl_round_clear(&r);
		if (failed > 5 && !mutate)
			break;
		if (mutate && st->lost > 0)
			break;		/* the control has shown a loss */
	}
	pl_digest_free(&a);
	return (path);
}

/* Parent: run one round in a child and read its report; its status. */
static int
pl_round_run(const struct pl_spec *sp, struct pl_round *r,
    struct pl_digest *a, struct pl_stats *st)
{
	FILE	*f;
	pid_t	 pid;
	int	 fds[2], status;

	memset(r, 0, sizeof *r);
	if (pipe(fds) != 0)
		fatal("pipe");
	fflush(stdout);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		close(fds[0]);
		pl_child(sp, fds[1]);
	}
	close(fds[1]);
	if ((f = fdopen(fds[0], "r")) == NULL)
		fatal("fdopen");
	pl_read(f, r, a, st);
	fclose(f);
	if (waitpid(pid, &status, 0) == -1)
		fatal("waitpid");
	return (status);
}

/*
 * Parent: how many I/O events a whole first round makes, with no crash,
 * on a scratch database beside path, and how many of them made it.
 */
static int64_t
pl_calibrate(const char *path, int64_t *created)
{
	struct pl_digest	 a;
	struct pl_round		 r;
	struct pl_stats		 st;
	struct pl_spec		 sp;
	char			*scratch, *side;
	int			 status;
	int64_t			 events;
	size_t			 i;
	static const char	*suffix[] = { "", "-wal", "-shm", ".lock" };

	xasprintf(&scratch, "%s.calibrate", path);
	memset(&a, 0, sizeof a);
	memset(&r, 0, sizeof r);
	memset(&st, 0, sizeof st);
	memset(&sp, 0, sizeof sp);
	sp.path = scratch;
	status = pl_round_run(&sp, &r, &a, &st);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || r.events <= 0)
		fatalx("powerloss: the calibration round failed: %s",
		    r.fail != NULL ? r.fail : "no reason given");
	events = r.events;
	*created = r.created;
	for (i = 0; i < nitems(suffix); i++) {
		xasprintf(&side, "%s%s", scratch, suffix[i]);
		unlink(side);
		free(side);
	}
	pl_round_clear(&r);
	pl_digest_free(&a);
	free(scratch);
	return (events);
}

/*
 * Parent: one engine runs what the crashes left, and a workflow of each
 * kind so that every kind is seen to end, until no workflow is left.
 */
static void
pl_drain(const char *path)
{
	struct store	*s;
	struct engine	*e;
	struct loop	*loop;
	char		*cause = NULL;
	int64_t		 left;
	size_t		 k;
	int		 rc;

	if (store_open(path, 0, &s, &cause) != 0)
		fatalx("powerloss: %s", cause);
	if (store_query_int(s, "SELECT count(*) FROM workflows WHERE status"
	    " IN ('scheduled', 'running')", &left, &cause) != 0)
		fatalx("powerloss: %s", cause);
	loop = loop_create();
	if (engine_open(loop, s, pl_tools, NULL, &e, &cause) != 0)
		fatalx("powerloss: %s", cause);
	for (k = 0; k < nitems(pl_kinds); k++) {
		if (pl_start(e, PL_DRAIN_FIRST + (int64_t)k, (int)k) != 0)
			fatalx("powerloss: cannot start a %s workflow",
			    pl_kinds[k].name);
	}
	rc = pl_work(loop, s, e, &cause);
	tap_ok(rc == 0, "the last engine runs the %lld workflows the crashes "
	    "left, and one of each kind more, to their end", (long long)left);
	if (rc != 0) {
		printf("#   %s\n", cause);
		free(cause);
	}
	engine_close(e);
	loop_free(loop);
	store_close(s);
}

/* Parent: every workflow ended as its kind says, and no step is left. */
static void
pl_check_ends(const char *path)
{
	struct store	*s;
	sqlite3_stmt	*st;
	char		*cause = NULL, *want;
	const char	*name, *status;
	int64_t		 n = 0, bad = 0, open_steps = -1;
	size_t		 k;

	if (store_open(path, STORE_F_READONLY, &s, &cause) != 0)
		fatalx("powerloss: %s", cause);
	if (sqlite3_prepare_v2(store_sqlite_db(s->conn), "SELECT name, status FROM workflows"
	    " ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		fatalx("powerloss: %s", sqlite3_errmsg(store_sqlite_db(s->conn)));
	while (sqlite3_step(st) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		status = (const char *)sqlite3_column_text(st, 1);
		want = NULL;
		for (k = 0; k < nitems(pl_kinds); k++) {
			xasprintf(&want, "pl-%s-", pl_kinds[k].name);
			if (strncmp(name, want, strlen(want)) == 0)
				break;
			free(want);
			want = NULL;
		}
		n++;
		if (want == NULL || strcmp(status, pl_kinds[k].end) != 0) {
			if (++bad <= 5)
				printf("#   %s: %s\n", name, status);
		}
		free(want);
	}
	sqlite3_finalize(st);
	tap_ok(n > 0 && bad == 0, "each of the %lld workflows ended as its "
	    "kind says (%lld did not)", (long long)n, (long long)bad);
	if (store_query_int(s, "SELECT count(*) FROM workflow_steps WHERE"
	    " status IN ('pending', 'ready', 'running', 'waiting')",
	    &open_steps, &cause) != 0)
		fatalx("powerloss: %s", cause);
	tap_is_int(open_steps, 0, "no step row is left unfinished");
	store_close(s);
}

/* Parent: the figures of the run and the checks on them. */
static void
pl_report(const struct pl_stats *st, int64_t points)
{
	printf("# crash points tried: %lld (torn %lld, dropped %lld, written "
	    "but not synced %lld); rounds that ended first: %lld\n",
	    (long long)st->points, (long long)st->torn, (long long)st->dropped,
	    (long long)st->written, (long long)st->clean);
	printf("# unsynced writes at the crashes: %lld (%lld kept whole, "
	    "%lld torn, %lld garbage sectors); commits under way that "
	    "survived whole: %lld\n", (long long)st->pending,
	    (long long)st->kept, (long long)st->partial, (long long)st->garbage,
	    (long long)st->inflight_kept);
	printf("# new databases: %lld, crash points before their first "
	    "acknowledged commit: %lld; undurable file creations and "
	    "deletions at the crashes: %lld (%lld kept)\n",
	    (long long)st->databases, (long long)st->before_ack,
	    (long long)st->names, (long long)st->names_kept);
	printf("# transitions acknowledged: %lld, transitions lost: %lld\n",
	    (long long)st->acked, (long long)st->lost);
	tap_ok(st->points == points, "%lld crash points tried (%lld asked)",
	    (long long)st->points, (long long)points);
	tap_ok(st->acked > 0, "transitions were acknowledged (%lld)",
	    (long long)st->acked);
	tap_is_int(st->children, 0, "no engine died but by the power loss");
	tap_is_int(st->reopen, 0, "store_open reopens every crashed database");
	tap_is_int(st->integrity, 0, "integrity_check says ok after each crash");
	tap_is_int(st->lost, 0, "no acknowledged transition is lost");
	tap_is_int(st->unexplained, 0, "no row appears that no commit made");
	tap_is_int(st->halves, 0, "no commit survives in part");
}

/* Remove one entry of the temporary directory. */
static int
pl_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return (remove(path));
}

/* A whole number from the environment, or a default. */
static int64_t
pl_env(const char *name, int64_t dflt)
{
	const char	*v = getenv(name);
	int64_t		 n;

	if (v == NULL || *v == '\0')
		return (dflt);
	if (str_parse_int64(v, &n) != 0 || n < 0) {
		printf("Bail out! %s must be a whole number\n", name);
		exit(1);
	}
	return (n);
}

int
main(void)
{
	struct pl_stats	 st, ct;
	struct flow_diags diags;
	char		*db, *cdb, *last;
	int64_t		 points, control, seed;
	int		 rc;

	points = pl_env("POWERLOSS_POINTS", 40);
	control = pl_env("POWERLOSS_CONTROL", 40);
	seed = pl_env("POWERLOSS_SEED", (int64_t)time(NULL) ^
	    ((int64_t)getpid() << 16));
	pl_verbose = pl_env("POWERLOSS_VERBOSE", 0) != 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# seed %lld (POWERLOSS_SEED=%lld makes the same crash "
	    "choices)\n", (long long)seed, (long long)seed);
	if (mkdtemp(pl_dir) == NULL)
		fatal("mkdtemp");
	memset(&diags, 0, sizeof diags);
	if ((pl_tools = flow_tools_parse(NULL, 0, &diags)) == NULL)
		fatalx("powerloss: no built-in tools");
	if ((rc = plvfs_register()) != SQLITE_OK)
		fatalx("powerloss: cannot register the VFS: %d", rc);
	tap_ok(strcmp(sqlite3_vfs_find(NULL)->zName, "powerloss") == 0,
	    "the power-loss VFS is the default in this program");

	xasprintf(&db, "%s/sluice.db", pl_dir);
	last = pl_run("full sync", db, points, (uint64_t)seed, 0, &st);
	pl_report(&st, points);
	pl_drain(last);
	pl_check_ends(last);
	free(last);

	if (control > 0) {
		/*
		 * The same rounds with synchronous=NORMAL, which in WAL mode
		 * does not sync a commit: acknowledged transitions must be
		 * found lost within the control's crash points.
		 */
		xasprintf(&cdb, "%s/control.db", pl_dir);
		free(pl_run("control", cdb, control, (uint64_t)seed + 1, 1,
		    &ct));
		printf("# control with synchronous=NORMAL: %lld crash points "
		    "until the first loss, %lld transitions acknowledged, "
		    "%lld lost, %lld integrity failures, %lld unopenable\n",
		    (long long)ct.points, (long long)ct.acked,
		    (long long)ct.lost, (long long)ct.integrity,
		    (long long)ct.reopen);
		tap_ok(ct.lost > 0, "the control (synchronous=NORMAL) loses "
		    "acknowledged transitions, so a loss would be seen");
		free(cdb);
	}

	free(db);
	flow_tools_free(pl_tools);
	if (getenv("POWERLOSS_KEEP") == NULL)
		nftw(pl_dir, pl_rm, 16, FTW_DEPTH|FTW_PHYS);
	else
		printf("# files kept in %s\n", pl_dir);
	return (tap_done());
}
