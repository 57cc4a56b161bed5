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
 * store-int.h: what the store files share and nobody else sees: the
 * connection struct (its driver, driver.h, under it), error mapping,
 * statement and binding helpers, and the entry points of the schema and
 * the audit writer.
 */

#ifndef SLUICE_STORE_INT_H
#define SLUICE_STORE_INT_H

#include <stdarg.h>
#include <stdint.h>

#include "store/store.h"
#include "store/driver.h"

/* A prepared statement kept for the life of the connection. */
struct store_cached {
	const char	*sql;		/* a static string: keyed by address */
	struct store_stmt	*st;
};
#define STORE_NCACHED	96

/* An audit row's syslog copy, waiting for its transaction to commit. */
struct store_syslog_line {
	char				*text;
	int				 depth;	/* the level that queued it; */
						/* 0: committed, to send */
	int				 warning; /* a refusal */
	struct store_syslog_line	*next;
};

/*
 * Where the next audit row goes and the hash it follows, kept from the
 * first read of the head in a write transaction to its end (audit.c):
 * the transaction holds the write lock, so only this connection writes
 * audit rows meanwhile, and each one it writes moves what is kept.
 */
struct store_audit_head {
	int		 kept;		/* next and hash hold */
	int64_t		 next;		/* the next row's id */
	char		 hash[SHA256_HEX]; /* the hash it follows */
};

/* One open database. */
struct store {
	const struct store_driver *drv;
	struct store_conn	*conn;
	char			*path;
	int			 flags;	/* STORE_F_* given to store_open */
	int			 readonly;	/* nothing may be written */
	int			 depth;	/* nesting of store_begin */
	int64_t			 busy_timeout;	/* ms a lock is waited for */
	int64_t			 busy_since;	/* monotonic ms the wait began */
	int64_t			 busy_waited;	/* ms waited before giving up */
	int64_t			 busy_until;	/* inbox.c's bounded wait: */
						/* its end, monotonic ms, or 0 */
	int			 passing;	/* last failure: a read-only */
						/* state that passes */
	int			 create_fd;	/* flocked while set up; or -1 */
	struct store_cached	 cached[STORE_NCACHED];
	size_t			 ncached;
	char			*last_error;	/* of store_runf, store_int64f */
	int64_t			 last_audit_id;	/* the row audit.c wrote last */
	struct store_audit_head	 audit_head;	/* audit.c: kept in a turn */
	int64_t			 requests_pruned; /* request.c: when, ms */
	struct store_syslog_line *syslog_head;	/* syslog.c: to send */
	struct store_syslog_line *syslog_tail;
	int			 syslog_later;	/* syslog.c: committed copies */
						/* wait for store_syslog_send */
	char			*migration_backup; /* backup.c: copy made */
	int64_t			 migrated_from;	/* schema before, or 0 */
	int64_t			 lock_lease;	/* leader.c: a lock session's */
						/* idle limit, ms, or 0 */
	int			 sent;		/* answer.c: an answer is */
						/* awaited */
};

/* store.c: what store_identify found in an existing database. */
struct store_ident {
	int		 empty;		/* no tables and no application id */
	int64_t		 version;	/* its schema version */
};
char		*store_dirname(const char *);
struct store	*store_connect(const char *, int,
		     const struct store_driver *, char **);
int		 store_identify(struct store *, struct store_ident *, char **);
int		 store_configure(struct store *, const struct store_ident *,
		     char **);
int		 store_missing(const char *, char **);
int		 store_busy(void *, int);
/* open-server.c: store_open on a server's database (postgresql:). */
int		 store_open_server(const char *, int, struct store **,
		     char **);

/* backup.c */
int		 store_backup_migration(struct store *, int64_t, char **);

/* backup-guard.c: a backup's refusals and its temporary file. */
int		 store_backup_guard(const char *, const char *, char **);
void		 store_backup_sweep(const char *);
char		*store_backup_tmpname(const char *);
void		 store_backup_watch(const char *);

/* stmt.c: result codes to causes, and statement helpers. */
int		 store_fail(struct store *, int, const char *, char **);
int		 store_fail_readonly(struct store *, char **);
int		 store_errcode(struct store *);
const char	*store_errmsg(struct store *);
int		 store_prepare(struct store *, const char *,
		     struct store_stmt **, char **);
int		 store_exec(struct store *, const char *, char **);
int		 store_read_begin(struct store *, char **);
int		 store_drv_identify(struct store *, int64_t *, int64_t *,
		     int64_t *, char **);
int		 store_schema_version(struct store *, int64_t *, char **);
void		 store_read_end(struct store *);
int		 store_step_done(struct store *, struct store_stmt *,
		     const char *, char **);
int		 store_bind_text(struct store_stmt *, int, const char *);
int		 store_bind_time(struct store_stmt *, int, int64_t);
char		*store_column_text(struct store_stmt *, int);
int		 store_finish(struct store *, int, char **);
/* How store_rows reads one kind of row into an array. */
struct store_rows {
	const char	*what;			/* "list steps", for errors */
	size_t		 size;			/* bytes of one element */
	/* Fill one element from a row; -1: a bad row. */
	int		(*fill)(struct store_stmt *, void *, char **);
	void		(*free)(void *, size_t);
};
int		 store_rows(struct store *, struct store_stmt *,
		     const struct store_rows *, void **, size_t *, char **);
int		 store_query_int(struct store *, const char *, int64_t *,
		     char **);

/*
 * status.c: the store boundary of statuses and step kinds: stored words
 * to enums (an unknown word is an error naming its row), and
 * sluice_state() for SQL that filters or counts by what a person sees.
 */
int		 store_column_step_kind(struct store_stmt *, int, int64_t,
		     enum step_kind *, char **);
int		 store_column_step_status(struct store_stmt *, int, int64_t,
		     enum step_status *, char **);
int		 store_column_run_status(struct store_stmt *, int, int64_t,
		     enum run_status *, char **);
int		 store_status_register(struct store *, char **);
extern const struct store_drv_function store_state_function;
/*
 * Whether running workflow w has a step waiting (a gate, a wait step).
 * Only running rows ask (CASE stops the others), through the run's own
 * rows: on a site of 20,000 runs, 300 running and 200 at gates, this
 * costs 0.7 ms of CPU for the header's counts where a walk of every
 * waiting row per run cost 10 ms.  The answer is 1 or 0 (an integer on
 * every database: PostgreSQL's EXISTS is a boolean).
 */
#define STORE_RUN_WAITING(w) \
	"(CASE WHEN " w ".status = 'running' THEN (CASE WHEN EXISTS (SELECT 1" \
	" FROM workflow_steps g WHERE g.workflow_id = " w ".id" \
	" AND g.status = 'waiting') THEN 1 ELSE 0 END) ELSE 0 END)"
/*
 * What a queued run waits behind: the queued run of its key just before
 * it, else the oldest run holding the key.
 */
#define STORE_RUN_BEHIND(w) \
	"(CASE WHEN " w ".status = 'queued' THEN COALESCE((SELECT max(b.id)" \
	" FROM workflows b WHERE b.conc_key = " w ".conc_key" \
	" AND b.status = 'queued' AND b.id < " w ".id), (SELECT min(b.id)" \
	" FROM workflows b WHERE b.conc_key = " w ".conc_key" \
	" AND b.status = 'running')) END)"
#define STORE_RUN_STATE(w) \
	"sluice_state(" w ".id, " w ".status, " w ".paused, " \
	STORE_RUN_WAITING(w) ", " w ".late_at)"
/* template.c: fill a template from a TEMPLATE_COLUMNS row. */
int		 store_template_row_read(struct store_stmt *, void *, char **);
int		 store_template_read(struct store *, const char *,
		     const char *, int64_t, struct store_template **, char **);

/*
 * cache.c: the engine's statements: prepared once and kept (store_stmt),
 * bound from a format of one letter per parameter: i int64, d int, t text
 * (NULL stored as NULL), T time or id (0 stored as NULL), x int64
 * (STORE_NULL stored as NULL), b blob (pointer, size_t), n NULL.
 */
#define STORE_NULL	INT64_MIN
int		 store_stmt(struct store *, const char *, struct store_stmt **,
		     char **);
void		 store_release(struct store *, struct store_stmt *);
int		 store_bindv(struct store_stmt *, const char *, va_list);
int		 store_runf(struct store *, const char *, const char *,
		     const char *, ...);
int		 store_int64f(struct store *, const char *, int64_t *,
		     const char *, const char *, ...);
void		 store_keep_error(struct store *, char *);

/*
 * schema.c: one schema version: its SQL, then a C step and more SQL when
 * rows must be rewritten between the two (NULL: none).
 */
struct store_migration {
	int64_t		 version;
	const char	*sql;
	int		(*fn)(struct store *, char **);
	const char	*after;
};
/* schema-pg.c: PostgreSQL's versions, numbered as schema.c's. */
extern const struct store_migration	 store_pg_migrations[];
extern const size_t			 store_pg_nmigrations;
int		 store_schema_migrate(struct store *, char **);
int		 store_schema_migrate_to(struct store *, int64_t, char **);

/* chain.c: an audit row as its hash covers it (strings not owned). */
struct store_chain_row {
	int64_t		 id;
	int64_t		 at;
	const char	*who;
	int64_t		 uid;
	const char	*tty;
	const char	*host;
	const char	*action;
	const char	*target;
	int64_t		 workflow_id;	/* 0: none */
	int64_t		 step_id;	/* 0: none */
	const char	*comment;
	const char	*detail_json;
	const char	*via;		/* hashed only when set */
	const char	*node;		/* cluster mode: as via */
};
extern const char store_chain_genesis[];
void		 store_chain_hash(const struct store_chain_row *, const char *,
		     char *);
void		 store_chain_seal(const struct store_inbox *, char *);
int		 store_chain_migrate(struct store *, char **);

/*
 * A decision (an approvals row aliased p) counts only beside the audit
 * row that recorded it: one written with sqlite3 is not a decision.
 */
#define STORE_APPROVAL_AUDITED \
	" AND EXISTS (SELECT 1 FROM audit aa WHERE aa.id = p.audit_id" \
	" AND aa.action = p.decision AND aa.who = p.who" \
	" AND aa.step_id = p.step_id)"

/* syslog.c: the audit rows' copies, sent when their transaction commits. */
void		 store_syslog_queue(struct store *,
		     const struct store_chain_row *);
void		 store_syslog_release(struct store *, int);
void		 store_syslog_drop(struct store *, int);

/* audit.c: an audit row inside the caller's transaction. */
int		 store_audit_insert(struct store *, const struct store_actor *,
		     const struct store_audit_entry *, char **);
/*
 * The audit head as three columns (the head's id and hash, the newest
 * row's id), for a statement that reads it with what else it reads;
 * store_audit_head_keep() keeps what they say for the rest of the write
 * transaction.  store_audit_level_end(): a level of store_begin ended
 * (committed or not), with what the trail kept for it.
 */
#define STORE_AUDIT_HEAD_COLUMNS \
	"(SELECT last_id FROM audit_head WHERE id = 1)," \
	" (SELECT hash FROM audit_head WHERE id = 1)," \
	" (SELECT coalesce(max(id), 0) FROM audit)"
void		 store_audit_head_keep(struct store *, struct store_stmt *,
		     int);
void		 store_audit_level_end(struct store *, int);

/* workflow.c */
int		 store_workflow_insert(struct store *, struct store_workflow *,
		     const char *, int64_t, char **);
void		 store_workflow_clear(struct store_workflow *);

/* step.c: the columns store_step_row reads, in order. */
#define STORE_STEP_COLUMNS \
	"id, workflow_id, updated_at, created_at, ready_at, started_at," \
	" completed_at, name, step_key, tool, kind, args_json, result_json," \
	" gate_json, status, error, attempt, visit, exit_code, parent_id," \
	" fanout_id, branch_no, branch_end, pid, pgid, proc_start, host," \
	" timeout_at, log_bytes, item_of, item_index, label, items, item_json," \
	" child_id, progress_pct, progress_text"
extern const struct store_rows store_step_rows;
/* The condition of the partial index of unfinished rows; queries on a
 * status repeat it so SQLite can use the index.  Equalities, not IN: SQLite
 * builds a table for an IN list of three or more each time a statement
 * evaluates it, and every write of a step row evaluates this condition
 * (schema.c, version 19). */
#define STORE_STEP_ACTIVE_OF(t) \
	"(" t "status = 'pending' OR " t "status = 'ready' OR " t \
	"status = 'running' OR " t "status = 'waiting' OR " t \
	"status = 'queued')"
#define STORE_STEP_ACTIVE	STORE_STEP_ACTIVE_OF("")
int		 store_step_row(struct store_stmt *, void *, char **);
int		 store_step_insert(struct store *, struct store_step *, int64_t,
		     char **);
void		 store_step_clear(struct store_step *);

/* audit.c: the columns store_audit_rows reads, in order. */
#define STORE_AUDIT_COLUMNS \
	"id, at, workflow_id, step_id, who, tty, host, action, target," \
	" comment, detail_json, uid, hash, via, node"
const char	*store_actor_name(const struct store_actor *);
extern const struct store_rows store_audit_rows;

/* steplog.c: log chunks (id, at, stream, data), for detail.c's tail. */
extern const struct store_rows store_log_rows;

/* read-wire.c: one value of a member's read on the engine's socket. */
#define STORE_WIRE_NULL	0
#define STORE_WIRE_INT	1
#define STORE_WIRE_REAL	2
#define STORE_WIRE_TEXT	3
#define STORE_WIRE_BLOB	4
struct store_wire_value {
	int		 kind;		/* STORE_WIRE_* */
	int64_t		 i;
	double		 real;
	const char	*text;		/* in the tree read */
	unsigned char	*data;		/* a blob's bytes: the caller frees */
	size_t		 len;		/* of text or data */
};
struct cJSON	*store_wire_int(int64_t);
struct cJSON	*store_wire_blob(const void *, size_t);
int		 store_wire_read(const struct cJSON *,
		     struct store_wire_value *);

/*
 * reader.c: members' reads, on a read connection the engine keeps for
 * them (store.h), from the driver of the database's kind: each reader's
 * struct begins with struct store_reader, each cursor's with struct
 * store_cursor, and reader.c calls through the ops.
 */
struct store_reader_ops {
	void	(*close)(struct store_reader *);
	int	(*cursor_open)(struct store_reader *, const char *,
		    const struct cJSON *, struct store_cursor **, char **);
	int	(*cursor_page)(struct store_cursor *, struct cJSON *,
		    char **);
	void	(*cursor_close)(struct store_cursor *);
};
struct store_reader {
	const struct store_reader_ops	*ops;
};
struct store_cursor {
	struct store_reader		*r;
};
/* driver-sqlite-reader.c: a database file's. */
int		 store_sqlite_reader_open(const char *, store_reader_yield_cb,
		     void *, struct store_reader **, char **);
/* driver-pg-reader.c: a postgresql: database's, on the reader's login. */
int		 store_pg_reader_open(const char *, store_reader_yield_cb,
		     void *, struct store_reader **, char **);

#endif /* SLUICE_STORE_INT_H */
