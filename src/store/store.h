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
 * store.h: the SQLite store, the only place SQL lives.  One connection per
 * process; WAL, foreign keys, a busy timeout, BEGIN IMMEDIATE for every
 * write transaction, prepared statements bound with ?, never formatted.
 *
 * Return codes: 0 success; STORE_ERR with *cause set (caller frees);
 * STORE_NOTFOUND and STORE_CONFLICT with *cause set to a one-line reason.
 * Times are Unix milliseconds.  Every string in a returned struct is owned
 * by it and freed by the matching _free function.
 */

#ifndef SLUICE_STORE_H
#define SLUICE_STORE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define STORE_ERR	 -1
#define STORE_NOTFOUND	 -2
#define STORE_CONFLICT	 -3
#define STORE_READONLY	 -4	/* read-only database or directory, or no access */
#define STORE_FOREIGN	 -5	/* not a sluice database, or a newer schema */
#define STORE_BUSY	 -6	/* still locked after the busy timeout */

#define STORE_SCHEMA_VERSION	20
#define STORE_APPLICATION_ID	0x736c6963	/* "slic" */
#define STORE_BUSY_TIMEOUT	5000		/* ms */

/* store_open flags */
#define STORE_F_READONLY	0x1	/* never write; never create */
#define STORE_F_NOCREATE	0x2	/* refuse a missing database file */

struct store;

/* Who is acting: recorded on every operator action. */
struct store_actor {
	uid_t		 uid;
	const char	*user;
	const char	*tty;
	const char	*host;
	const char	*via;		/* "mcp" for an agent's client, or NULL */
	const char	*node;		/* cluster mode: the node it came */
					/* through, or NULL */
};

/*
 * driver.c: the driver store_open uses from now on, by name ("sqlite",
 * the default; driver.h is the seam); and whether a database name is a
 * server's ("postgresql:service=NAME", cluster mode) rather than a file.
 */
int		 store_set_driver(const char *, char **);
const char	*store_driver_name(void);
int		 store_name_is_server(const char *);

/* store.c */
char		*store_default_path(void);
int		 store_open(const char *, int, struct store **, char **);
/*
 * A process that must never give up on a busy database (the engine) names
 * a waiter before opening it: a lock is then waited for as long as it is
 * held, calling the waiter instead of sleeping, with the database's path,
 * how long this wait has lasted (ms) and how long to wait now (ms).
 */
typedef void	 (*store_waiter)(void *, const char *, int64_t, int);
void		 store_set_waiter(store_waiter, void *);
void		 store_close(struct store *);
const char	*store_path(const struct store *);
int		 store_is_readonly(const struct store *);
int		 store_begin(struct store *, char **);
int		 store_begin_next(struct store *, char **);
int		 store_commit(struct store *, char **);
void		 store_rollback(struct store *);
int64_t		 store_data_version(struct store *);
void		 store_syslog_later(struct store *, int);
void		 store_syslog_send(struct store *);

/*
 * reader.c: the engine's read-only connection on which members' reads
 * run in service mode (sluice(1), "Commands and the socket", gives each
 * limit), and in cluster mode on every node (a postgresql: database:
 * the second name is the reader's login, which may only read).  A cursor
 * is one statement and its rows, read a page at a time.
 */
#define STORE_READ_PAGE_ROWS	1000		/* rows in one answer */
#define STORE_READ_PAGE_BYTES	(256 * 1024)	/* its size, about */
#define STORE_READ_TURN_MS	5		/* work per loop turn */
#define STORE_READ_STEP_MAX_MS	2000		/* one row's work, at most */
struct store_reader;
struct store_cursor;
struct cJSON;
typedef void	 (*store_reader_yield_cb)(void *);
int		 store_reader_open(const char *, const char *,
		     store_reader_yield_cb, void *, struct store_reader **,
		     char **);
void		 store_reader_close(struct store_reader *);
int		 store_cursor_open(struct store_reader *, const char *,
		     const struct cJSON *, struct store_cursor **, char **);
int		 store_cursor_page(struct store_cursor *, struct cJSON *,
		     char **);
void		 store_cursor_close(struct store_cursor *);

/*
 * driver-socket.c: members in service mode, who may not open the
 * database's files, read through the engine.  The client layer says how
 * to reach it: a link to the engine of a database (NULL with *cause when
 * none answers), one request line out and its answer line back (NULL
 * with *cause), close.
 */
struct store_link;
struct store_link_ops {
	struct store_link	*(*open)(const char *, char **);
	char			*(*ask)(struct store_link *, const char *,
				     char **);
	void			 (*close)(struct store_link *);
};
void		 store_set_link(const struct store_link_ops *);
int		 store_is_remote(const struct store *);

/* backup.c */
int		 store_backup(struct store *, const char *, int, char **);
const char	*store_migration_backup(const struct store *, int64_t *);

/* health.c: what "sluice status" reads. */
struct store_health {
	int64_t		 schema;	/* PRAGMA user_version */
	int64_t		 states[STATE_N];	/* runs by the state seen */
	int64_t		 gates;		/* gates waiting for people */
	int64_t		 audit_rows;
	char		*audit_problem;	/* a cheap check failed, or NULL */
};
int		 store_health(struct store *, struct store_health *, char **);
void		 store_health_clear(struct store_health *);

/*
 * server.c: a server's database (cluster mode): its facts and standbys,
 * for "sluice status".
 */
struct store_standby {
	char		*name;		/* application_name; NULL: hidden */
	char		*state;		/* streaming, catchup, ... */
	char		*sync;		/* sync, async, potential, quorum */
};
struct store_server {
	char		*version;	/* the server's, "15.18" */
	int64_t		 size;		/* the database's bytes */
	int		 standby;	/* this server is a standby */
	int		 writable;	/* we may write (a primary, rights) */
	int		 replication;	/* we may see its standbys */
	struct store_standby *standbys;
	size_t		 nstandbys;
};
int		 store_server_info(struct store *, struct store_server *,
		     char **);
void		 store_server_clear(struct store_server *);
struct store_roles {
	char		*user;		/* the schema's owner */
	int		 engine;	/* sluice_engine exists */
	int		 reader;	/* sluice_reader exists */
	int		 owner;		/* we are the owner, or act as it */
};
int		 store_server_grant(struct store *, struct store_roles *,
		     char **);
/* lease.c: whether the database is a server's, not a file. */
int		 store_is_server(const struct store *);
int		 store_lost(const struct store *);
int		 store_reconnect(struct store *, char **);
void		 store_wait_bound(struct store *, int64_t, int64_t,
		     void (*)(void *), void *);

/* prune.c: old finished runs go, a batch at a time; never the audit. */
struct store_prune_opts {
	int64_t		 before;	/* finished before this time */
	int64_t		 after;		/* top-level ids above this */
	int64_t		 limit;		/* top-level runs per batch */
	const int64_t	*keep;		/* runs the engine holds */
	size_t		 nkeep;
};
struct store_prune_result {
	int64_t		 runs;		/* runs removed, children included */
	int64_t		 roots;		/* of them top-level */
	int64_t		 steps;
	int64_t		 logs;		/* log chunks */
	int64_t		 next;		/* the next batch's after; 0: done */
};
struct store_prune_run {
	int64_t		 id;
	char		*name;
	enum run_status	 status;
	int64_t		 finished_at;
	int64_t		 runs;		/* itself and its child runs */
	int64_t		 steps;
};
int		 store_prune(struct store *, const struct store_prune_opts *,
		     struct store_prune_result *, char **);
int		 store_prune_preview(struct store *, int64_t,
		     struct store_prune_run **, size_t *, char **);
void		 store_prune_runs_free(struct store_prune_run *, size_t);

/* workflow.c */
struct store_workflow {
	int64_t		 id;
	int64_t		 updated_at;
	int64_t		 created_at;
	int64_t		 started_at;	/* 0 until running */
	int64_t		 completed_at;
	int64_t		 cancelled_at;
	int64_t		 start_at;	/* scheduled start, 0 none */
	char		*name;
	char		*flow_json;
	char		*input_json;
	enum run_status	 status;
	char		*created_by;
	char		*template_name;	/* NULL when run from a file */
	int64_t		 template_version;
	char		*error;		/* why it failed, or NULL */
	int		 paused;
	int		 waiting;	/* running, and a step of it waits */
	char		*current_step;	/* list only: newest unfinished step */
	int64_t		 sla_ms;	/* 0: no SLA */
	int64_t		 late_at;	/* when it was marked late, 0 not */
	int64_t		 schedule_id;	/* the schedule that made it, 0 */
	int64_t		 fire_at;	/* the cron instant it ran for, 0 */
	char		*schedule_name;	/* read only: that schedule's name */
	char		*output_json;	/* its output once completed, or NULL */
	int64_t		 parent_id;	/* the run whose step started it, 0 */
	int64_t		 parent_step_id;	/* that step's row, 0 */
	int		 depth;		/* 0 top, 1 a child, ... */
	char		*parent_name;	/* read only: the parent's name */
	char		*created_via;	/* "mcp" when an agent started it */
	char		*conc_key;	/* its concurrency key, or NULL */
	int		 conc_limit;	/* runs the key lets run at once */
	int64_t		 behind;	/* queued: the run it waits behind */
};

struct store_workflow_filter {
	int		 by_state;	/* 0: any state */
	enum run_state	 state;		/* what a person sees (util state.c) */
	const char	*name_like;	/* NULL: any; substring */
	int64_t		 limit;		/* <= 0: 50 */
	int64_t		 offset;
	int		 top;		/* only runs with no parent */
};

int		 store_workflow_children(struct store *, int64_t,
		     struct store_workflow **, size_t *, char **);
int		 store_workflow_get(struct store *, int64_t,
		     struct store_workflow **, char **);
int		 store_workflow_list(struct store *,
		     const struct store_workflow_filter *,
		     struct store_workflow **, size_t *, char **);
void		 store_workflow_free(struct store_workflow *);
enum run_state	 store_workflow_state(const struct store_workflow *);
void		 store_workflows_free(struct store_workflow *, size_t);

/* step.c */
struct store_step {
	int64_t		 id;
	int64_t		 workflow_id;
	int64_t		 updated_at;
	int64_t		 created_at;
	int64_t		 ready_at;
	int64_t		 started_at;
	int64_t		 completed_at;
	char		*name;		/* display name */
	char		*step_key;	/* key in the flow */
	char		*tool;		/* tool name; NULL for a gate */
	enum step_kind	 kind;
	char		*args_json;	/* resolved args */
	char		*result_json;
	char		*gate_json;	/* gate options, resolved; NULL */
	enum step_status status;
	char		*error;
	int		 attempt;
	int		 visit;		/* pass number through a loop, 1.. */
	int		 has_exit_code;
	int		 exit_code;
	int64_t		 parent_id;	/* the step whose completion made it, 0 */
	int64_t		 fanout_id;	/* the fan-out row of its branch, 0 */
	int		 branch_no;	/* which branch of that fan-out */
	char		*branch_end;	/* join failed end: how it ended one */
	int64_t		 pid;		/* its process while running, 0 */
	int64_t		 pgid;
	int64_t		 proc_start;	/* the process's start time */
	char		*host;		/* remote host, NULL local */
	int64_t		 timeout_at;
	int64_t		 log_bytes;
	int64_t		 item_of;	/* for-each items and gates: its row */
	int		 item_index;	/* an item's, 0..; -1: not an item */
	char		*label;		/* an item's label, a gate's purpose */
	int64_t		 items;		/* a for-each row: its items, else 0 */
	char		*item_json;	/* an item's value */
	int64_t		 child_id;	/* a sub-workflow step's run, 0 */
	int		 progress_pct;	/* its latest progress, -1 none */
	char		*progress_text;	/* and its line, or NULL */
	int64_t		 behind;	/* queued: the step it waits behind */
};

int		 store_step_get(struct store *, int64_t, struct store_step **,
		     char **);
int		 store_step_list(struct store *, int64_t, struct store_step **,
		     size_t *, char **);
int		 store_step_list_shown(struct store *, int64_t,
		     struct store_step **, size_t *, char **);
void		 store_step_free(struct store_step *);
void		 store_steps_free(struct store_step *, size_t);

/*
 * Start a workflow: insert it and its first step and audit "start", in one
 * transaction.  Sets wf->id and first->id.
 */
int		 store_run_create(struct store *, struct store_workflow *,
		     struct store_step *, const struct store_actor *, char **);

/* Gates: steps waiting for people, oldest first. */
struct store_gate {
	int64_t		 step_id;
	int64_t		 workflow_id;
	int64_t		 waiting_since;
	char		*workflow_name;
	char		*step;
	char		*label;		/* a for-each's gate or item, NULL */
	char		*title;		/* "restart (before batch 2 of 3)" */
	char		*gate_json;	/* its policy, as stored */
	char		*message;	/* from the policy: client_gate_list() */
	char		*created_by;
	int		 approvals;
	int		 quorum;	/* from the policy, as message */
	int64_t		 parent_id;	/* a child run's gate: the parent, 0 */
	char		*parent_name;
	char		*created_via;	/* "mcp": an agent started the run */
	char		*started_by;	/* "alice", or "alice via mcp" */
};

int		 store_gate_list(struct store *, struct store_gate **, size_t *,
		     char **);
void		 store_gates_free(struct store_gate *, size_t);

/* template.c: one row per name, every version kept, soft delete. */
struct store_template {
	int64_t		 id;
	int64_t		 version;
	int64_t		 created_at;
	int64_t		 updated_at;
	int64_t		 cancelled_at;	/* soft delete, 0 live */
	char		*name;
	char		*description;
	char		*document;	/* the whole document as saved */
	char		*flow_json;
	char		*input_json;	/* declared inputs, or NULL */
	char		*created_by;
	char		*updated_by;
};

struct store_template_save {
	const char	*name;
	const char	*document;
	const char	*description;
	const char	*flow_json;
	const char	*input_json;
	int64_t		 expect_version;	/* -1 any; 0 must be new */
	const char	*secrets_json;	/* audit: the secrets it touches */
};

int		 store_template_save(struct store *,
		     const struct store_template_save *,
		     const struct store_actor *, int64_t *, char **);
int		 store_template_get(struct store *, const char *, int64_t,
		     struct store_template **, char **);
int		 store_template_list(struct store *, struct store_template **,
		     size_t *, char **);
int		 store_template_remove(struct store *, const char *,
		     const struct store_actor *, char **);
void		 store_template_free(struct store_template *);

/* template-history.c: versions, removed templates, the last good run. */
struct store_template_version {
	int64_t		 version;
	int64_t		 saved_at;
	char		*saved_by;
	char		*description;
	int64_t		 runs;		/* workflows started from it */
	int64_t		 completed;	/* of those, completed */
};
int		 store_template_history(struct store *, const char *,
		     struct store_template_version **, size_t *, int64_t *,
		     char **);
int		 store_template_get_any(struct store *, const char *, int64_t,
		     struct store_template **, char **);
int		 store_template_last_completed(struct store *, const char *,
		     int64_t *, char **);
void		 store_template_versions_free(struct store_template_version *,
		     size_t);
void		 store_templates_free(struct store_template *, size_t);

/* audit.c: append-only; UPDATE and DELETE are refused by triggers. */
struct store_audit {
	int64_t		 id;
	int64_t		 at;
	int64_t		 workflow_id;	/* 0 none */
	int64_t		 step_id;	/* 0 none */
	char		*who;
	char		*tty;
	char		*host;
	char		*via;		/* "mcp", or NULL: how it came */
	char		*node;		/* cluster mode: the node it came */
					/* through, or NULL */
	char		*action;	/* start approve reject cancel ... */
	char		*target;	/* what it acted on, as text */
	char		*comment;
	char		*detail_json;
	int64_t		 uid;
	char		*hash;		/* its link in the chain (chain.c) */
};

struct store_audit_entry {
	const char	*action;
	const char	*target;
	int64_t		 workflow_id;
	int64_t		 step_id;
	const char	*comment;
	const char	*detail_json;
};

int		 store_audit_add(struct store *, const struct store_actor *,
		     const struct store_audit_entry *, char **);
/*
 * The words of a leader's refusal of a command whose uid the node it came
 * through names otherwise (engine/relay-caller.c); status looks for them
 * among the newest STORE_ACCOUNTS_ROWS audit rows.
 */
#define STORE_ACCOUNTS_DIFFER	"every node must have the same accounts"
#define STORE_ACCOUNTS_ROWS	10000
int		 store_audit_accounts(struct store *, int64_t, int64_t *,
		     char **, char **);
int		 store_audit_list(struct store *, int64_t, struct store_audit **,
		     size_t *, char **);
int64_t		 store_audit_last(const struct store *);

/*
 * chain.c: the audit trail's hash chain.  A verification lists every
 * problem found: the first break in the chain (bad_row, the first row
 * that was changed, removed or inserted out of order), a missing head or
 * trigger, approvals and inbox rows sluice did not write.
 */
struct store_verify {
	int64_t		 rows;		/* audit rows read */
	char		*head;		/* the newest row's hash */
	int64_t		 bad_row;	/* first row of a break, 0 */
	char		**problems;
	size_t		 nproblems;
};
int		 store_audit_verify(struct store *, struct store_verify *,
		     char **);
void		 store_verify_clear(struct store_verify *);
void		 store_audits_free(struct store_audit *, size_t);

/*
 * The engine's writes.  Each is one statement inside the engine's turn
 * transaction, prepared once and kept; a failure returns a STORE_ code
 * and store_last_error() says why.
 */
const char	*store_last_error(const struct store *);

/* browse.c: the console's windowed reads. */
struct store_brief {
	int64_t		 id;
	int64_t		 created_at;
	int64_t		 started_at;
	int64_t		 completed_at;
	int64_t		 start_at;
	int64_t		 late_at;	/* past its SLA since, 0 not late */
	char		*name;
	enum run_status	 status;
	enum run_state	 state;		/* what a person sees (util state.c) */
	char		*created_by;
	char		*template_name;
	char		*current_step;
	int		 paused;
	int64_t		 parent_id;	/* a child run's parent, 0 */
	int64_t		 behind;	/* queued: the run it waits behind */
};

struct store_window {
	const char	*match;		/* filter text, NULL or "": all */
	int64_t		 anchor;	/* an id; 0 with !up: the newest */
	int		 up;		/* rows above the anchor, ascending */
	int		 limit;
};

struct store_counts {
	int64_t		 states[STATE_N];	/* runs by the state seen */
	int64_t		 gates;			/* waiting gates */
	int64_t		 newest_gate;	/* id of the newest waiting gate */
};

int		 store_brief_window(struct store *, const struct store_window *,
		     struct store_brief **, size_t *, char **);
void		 store_briefs_free(struct store_brief *, size_t);
int		 store_audit_window(struct store *, const struct store_window *,
		     struct store_audit **, size_t *, char **);
int		 store_counts(struct store *, struct store_counts *, char **);
int64_t		 store_change_mark(struct store *);

/* lease.c: the engine row: epoch fence and heartbeat. */
struct store_lease {
	int64_t		 epoch;
	int64_t		 pid;		/* 0: no engine recorded */
	char		*host;
	int64_t		 since;
	int64_t		 heartbeat_at;
};
int		 store_lease_take(struct store *, int64_t, const char *,
		     int64_t *, char **);
int		 store_lease_fence(struct store *, int64_t, int64_t);
int		 store_lease_drop(struct store *, int64_t);
int		 store_lease_epoch(struct store *, int64_t *);
int		 store_lease_get(struct store *, struct store_lease *, char **);
void		 store_lease_clear(struct store_lease *);

/* leader.c: cluster leadership's lock session (PostgreSQL). */
int		 store_leader_session(struct store *, int64_t, char **);
int		 store_leader_engine_session(struct store *, int64_t, char **);
int		 store_leader_try_send(struct store *, char **);
#define STORE_LEADER_KEY	INT64_C(0x736c75696365)	/* "sluice" */

/*
 * node.c: the nodes of a cluster, one row each, written by the node's
 * own engine and read by "sluice status" (times by the server's clock).
 */
struct store_node {
	char		*name;
	char		*role;		/* "leader", "standby", "stopped" */
	int64_t		 pid;
	int64_t		 epoch;		/* the one it leads; 0: none */
	int64_t		 lease;		/* its L, ms */
	int64_t		 started;	/* ms */
	int64_t		 age;		/* ms since it was last seen */
	int64_t		 seen;		/* when (stopped: the stop), ms */
	char		*version;	/* its sluice's */
};
int		 store_node_seen_send(struct store *,
		     const struct store_node *, char **);
int		 store_node_stopped(struct store *, const char *, int64_t);
int		 store_node_prune(struct store *);
int		 store_nodes(struct store *, struct store_node **, size_t *,
		     char **);
void		 store_nodes_free(struct store_node *, size_t);
/* A node stopped cleanly keeps its row so long (a week), then it goes. */
#define STORE_NODE_KEEP_MS	(INT64_C(7) * 24 * 3600 * 1000)
int		 store_node_lock_held(struct store *, int64_t, int *, char **);
int		 store_node_leader(struct store *, char **, int64_t *, char **);

/* notify.c: a server's LISTEN and NOTIFY (no-ops on a file). */
#define STORE_CHANNEL_INBOX	"sluice_inbox"	/* a command was relayed */
#define STORE_CHANNEL_CHANGED	"sluice_changed"	/* the leader committed */
typedef void	 (*store_heard_cb)(void *, const char *);
int		 store_listen(struct store *, const char *, char **);
int		 store_notify(struct store *, const char *, char **);
int		 store_listen_fd(struct store *);
int		 store_heard(struct store *, int, store_heard_cb, void *);

/*
 * answer.c: a statement sent now and answered later (a server's), read
 * as store_listen_fd becomes readable: 1 waiting, 0 done, -1 failed.
 */
int		 store_send(struct store *, const char *, const char *, int,
		     const char *const *, char **);
int		 store_sent(const struct store *);
int		 store_answer(struct store *, int, int64_t *, char **);
int		 store_answer_wait(struct store *, int64_t, int64_t *, char **);

/* concurrency.c: the slots of concurrency keys, counted from the rows. */
int		 store_conc_runs_held(struct store *, const char *, int64_t *);
int		 store_conc_run_holder(struct store *, const char *,
		     int64_t *);
int		 store_conc_run_next(struct store *, const char *, int64_t *);
int		 store_conc_run_after(struct store *, int64_t, int64_t *);
int		 store_workflow_dequeue(struct store *, int64_t, int64_t);
int		 store_workflow_queue(struct store *, int64_t, const char *,
		     int, int64_t);
int		 store_conc_step_free(struct store *, int64_t, int64_t *);
int		 store_conc_step_holder(struct store *, int64_t, int64_t *);
int		 store_conc_step_next(struct store *, int64_t, int64_t *);
int		 store_conc_step_after(struct store *, int64_t, int64_t *);
int		 store_steps_behind(struct store *, struct store_step *, size_t,
		     char **);
int		 store_step_set_conc(struct store *, int64_t, const char *,
		     int, int64_t);
int		 store_step_queue(struct store *, int64_t, int64_t);
int		 store_step_dequeue(struct store *, int64_t, int64_t);

/* transition.c: step and workflow state changes. */
int		 store_step_add(struct store *, struct store_step *, int64_t);
int		 store_step_start(struct store *, const struct store_step *,
		     int64_t);
int		 store_step_end(struct store *, const struct store_step *,
		     int64_t);
int		 store_step_set_proc(struct store *, const struct store_step *);
int		 store_step_set_status(struct store *, int64_t,
		     enum step_status, int64_t);
int		 store_step_set_branch_end(struct store *, int64_t,
		     const char *);
int		 store_step_set_log_bytes(struct store *, int64_t, int64_t);
int		 store_step_set_progress(struct store *, int64_t, int,
		     const char *);
int		 store_step_visits(struct store *, int64_t,
		     void (*)(const char *, int64_t, void *), void *);
int		 store_step_children(struct store *, int64_t, int64_t *);
int		 store_step_join_exists(struct store *, int64_t, const char *,
		     int64_t *);
int		 store_steps_with_status(struct store *, enum step_status,
		     struct store_step **, size_t *, char **);
int		 store_steps_unfinished(struct store *, int64_t,
		     struct store_step **, size_t *, char **);
int		 store_steps_finished(struct store *, int64_t,
		     struct store_step **, size_t *, char **);
/* finished.c: what keeps the engine's steps.* up to date, a read at a time. */
int		 store_steps_after(struct store *, int64_t, int64_t,
		     void (*)(int64_t, const char *, enum step_status, int,
		     void *), void *);
int		 store_step_status_now(struct store *, int64_t,
		     enum step_status *);
int		 store_steps_scope(struct store *, const int64_t *, size_t,
		     struct store_step **, char **);
struct store_branch_end {
	int		 branch_no;
	char		 end[8];	/* join failed end */
};
int		 store_branch_ends(struct store *, int64_t,
		     struct store_branch_end **, size_t *, char **);
int		 store_workflow_add(struct store *, struct store_workflow *,
		     int64_t);
int		 store_workflow_end(struct store *, int64_t, enum run_status,
		     const char *, int64_t);
int		 store_workflow_reopen(struct store *, int64_t, int64_t);
int		 store_workflow_set_ending(struct store *, int64_t,
		     enum run_status, const char *, int64_t);
int		 store_workflow_ending(struct store *, int64_t,
		     enum run_status *);
int		 store_workflow_set_output(struct store *, int64_t,
		     const char *);
int		 store_step_set_child(struct store *, int64_t, int64_t);
int		 store_workflow_set_paused(struct store *, int64_t, int,
		     int64_t);
int		 store_workflows_active(struct store *,
		     struct store_workflow **, size_t *, char **);
int		 store_workflow_count_active(struct store *, int64_t,
		     int64_t *);

/* recover-read.c: every running workflow's state, for an engine starting. */
struct store_recover_run {
	int64_t		 id;
	enum run_status	 ending;	/* RUN_RUNNING: none */
	int64_t		 nactive;	/* rows not ended */
};
int		 store_recover_runs(struct store *,
		     struct store_recover_run **, size_t *);
int		 store_recover_visits(struct store *,
		     void (*)(int64_t, const char *, int64_t, void *), void *);

/* recover-foreach.c: every for-each and DAG run in flight, at once. */
struct store_recover_foreach {
	int64_t		 root;		/* the for-each's first row */
	int64_t		 current;	/* as store_foreach_current */
	int64_t		 failed;	/* items whose latest row failed */
	int64_t		 inflight;	/* as store_items_inflight */
	int64_t		 first;		/* as store_items_first */
};
int		 store_recover_foreachs(struct store *,
		     struct store_recover_foreach **, size_t *);
int		 store_recover_foreach_gates(struct store *,
		     struct store_step **, size_t *, char **);
int		 store_recover_dag_rows(struct store *, struct store_step **,
		     size_t *, char **);

/*
 * foreach.c: a for-each's items (root: the for-each's first row).  An
 * item is its latest row; store_item is the part of it store_items_each
 * reads, valid during the callback only.
 */
struct store_item {
	int64_t		 id;
	int		 index;
	int		 attempt;
	int		 ran;		/* it started, at some attempt */
	enum step_status status;
	const char	*result_json;
	const char	*label;
	const char	*error;
	const char	*item_json;
};
int		 store_foreach_set_items(struct store *, int64_t, int64_t);
int		 store_foreach_current(struct store *, int64_t, int64_t *);
int		 store_items_queued(struct store *, int64_t, int, int,
		     struct store_step **, size_t *, char **);
int		 store_items_first(struct store *, int64_t, int64_t *);
int		 store_items_inflight(struct store *, int64_t, int64_t *);
int		 store_items_waiting(struct store *, int64_t, int64_t *);
int		 store_items_ran(struct store *, int64_t, int, int, int64_t *);
int		 store_items_each(struct store *, int64_t,
		     int (*)(const struct store_item *, void *), void *);
int		 store_item_gates(struct store *, int64_t,
		     struct store_step **, size_t *, char **);
int		 store_items_cancel_waiting(struct store *, int64_t,
		     const char *, int64_t, int64_t *);
struct store_item_tally {
	int64_t		 done;		/* done or skipped */
	int64_t		 failed;
	int64_t		 running;	/* started, or retrying */
	int64_t		 waiting;	/* not started yet */
	int64_t		 cancelled;
	int64_t		 first;		/* lowest index not ended, -1 */
};
int		 store_items_tally(struct store *, int64_t,
		     struct store_item_tally *, char **);
int		 store_step_list_view(struct store *, int64_t, const char *,
		     struct store_step **, size_t *, char **);

/*
 * timer.c: stored timers (retries, gate timeouts, SLA deadlines), due in
 * wall time; the engine moves them when the wall clock jumps.
 */
struct store_timer {
	int64_t		 id;
	int64_t		 due_at;
	char		*kind;		/* retry gate_timeout sla */
	int64_t		 workflow_id;
	int64_t		 step_id;
};
int		 store_timer_add(struct store *, int64_t, const char *,
		     int64_t, int64_t);
int		 store_timers_due(struct store *, int64_t,
		     struct store_timer **, size_t *, char **);
int		 store_timer_next(struct store *, int64_t *);
int		 store_timer_count(struct store *, const char *, int64_t *);
int		 store_timer_del(struct store *, int64_t);
int		 store_timers_del_step(struct store *, int64_t);
void		 store_timers_free(struct store_timer *, size_t);

/*
 * schedule.c: recurring schedules (soft delete), the workflows waiting
 * for their start time, the late mark, and stored delays moved when the
 * wall clock jumps.  The writes are the engine's (one turn's statements).
 */
struct store_schedule {
	int64_t		 id;
	char		*name;
	char		*cron;
	char		*template_name;
	char		*input_json;	/* as given; defaults apply at firing */
	char		*overlap;	/* skip allow cancel-previous */
	char		*tz;		/* IANA zone it fires in, NULL local */
	int		 paused;
	char		*created_by;
	int64_t		 created_at;
	int64_t		 updated_at;
	int64_t		 last_fire_at;	/* the cron instant last run, 0 */
	int64_t		 last_run_id;	/* its newest run, 0 none */
	int64_t		 next_fire_at;	/* first instant not consumed, 0 */
	int64_t		 deleted_at;
	int		 has_last_run;	/* read only: last_run_status is set */
	enum run_status	 last_run_status;
};
/* One entry of a schedule's history: a run, or a skipped firing. */
struct store_schedule_run {
	int64_t		 workflow_id;	/* runs */
	enum run_status	 status;
	int64_t		 fire_at;	/* the instant, 0: fired by hand */
	int64_t		 created_at;	/* skips: when it was logged */
	int64_t		 ended_at;
	char		*detail_json;	/* skips: the audit detail */
};
int		 store_schedule_get(struct store *, const char *,
		     struct store_schedule **, char **);
int		 store_schedule_list(struct store *, struct store_schedule **,
		     size_t *, char **);
int		 store_schedule_history(struct store *, int64_t, int64_t, int,
		     struct store_schedule_run **, size_t *, char **);
void		 store_schedule_runs_free(struct store_schedule_run *, size_t);
void		 store_schedule_free(struct store_schedule *);
void		 store_schedules_free(struct store_schedule *, size_t);
int		 store_schedules_due(struct store *, int64_t,
		     struct store_schedule **, size_t *, char **);
int		 store_schedule_next(struct store *, int64_t *);
int		 store_schedule_add(struct store *, struct store_schedule *,
		     int64_t);
int		 store_schedule_set_paused(struct store *, int64_t, int,
		     int64_t, int64_t);
int		 store_schedule_remove(struct store *, int64_t, int64_t);
int		 store_schedule_fired(struct store *, int64_t, int64_t, int64_t,
		     int64_t, int64_t);
int		 store_schedule_ran(struct store *, int64_t, int64_t, int64_t);
int		 store_schedule_active(struct store *, int64_t, int64_t **,
		     size_t *, char **);
int		 store_workflows_scheduled_due(struct store *, int64_t,
		     int64_t **, size_t *, char **);
int		 store_workflow_scheduled_next(struct store *, int64_t *);
int		 store_workflow_begin(struct store *, int64_t, int64_t);
int		 store_workflow_set_late(struct store *, int64_t, int64_t);
int		 store_timers_shift(struct store *, int64_t);

/* inbox.c: commands other processes post for the engine. */
struct store_inbox {
	int64_t		 id;
	int64_t		 posted_at;
	int64_t		 uid;
	char		*who;
	char		*tty;
	char		*host;
	char		*command;
	int64_t		 workflow_id;
	int64_t		 step_id;
	char		*args_json;
	char		*state;		/* new done refused */
	char		*reply;		/* JSON */
	char		*seal;		/* chain.c: set by store_inbox_post */
					/* and store_inbox_relay */
	char		*via;		/* "mcp", or NULL */
	char		*request;	/* the client's request id, or NULL */
	char		*node;		/* cluster mode: the node that took */
					/* it (relay.c), or NULL */
};
int		 store_inbox_sealed(const struct store_inbox *);
int		 store_inbox_post(struct store *, const struct store_actor *,
		     const struct store_inbox *, int64_t *, char **);
int		 store_inbox_relay(struct store *,
		     const struct store_actor *, const struct store_inbox *,
		     const char *, int64_t *, char **);
int		 store_inbox_new(struct store *, struct store_inbox **,
		     size_t *, char **);
int		 store_inbox_get(struct store *, int64_t, struct store_inbox **,
		     char **);
int		 store_inbox_reply(struct store *, int64_t, const char *,
		     const char *, int64_t);
int		 store_inbox_withdraw(struct store *, int64_t, const char *,
		     int64_t, int *, char **);
void		 store_inbox_free(struct store_inbox *);
void		 store_inboxes_free(struct store_inbox *, size_t);

/* request.c: what became of each request a client sent with an id. */
#define STORE_REQUEST_KEEP_MS	(7 * 24 * 3600 * 1000LL)	/* a week */
int		 store_request_add(struct store *, int64_t, const char *,
		     const char *, const char *, int64_t);
int		 store_request_get(struct store *, int64_t, const char *,
		     char **, char **);
int		 store_request_queued(struct store *, int64_t, const char *,
		     int64_t *);

/* approval.c: decisions on gates. */
int		 store_approval_add(struct store *, int64_t, int64_t,
		     const char *, const char *, const char *, int64_t,
		     int64_t);
int		 store_approval_count(struct store *, int64_t, int64_t *);
int		 store_approval_decision(struct store *, int64_t, const char *,
		     char **);

/*
 * gate-read.c: what a decision on a gate reads before it writes, in one
 * statement (the turn's round trips, issue 23).
 */
struct store_gate_read {
	struct store_step *row;		/* the gate's row; NULL: no step */
	char		*decided;	/* the decider's earlier decision */
	int64_t		 approved;	/* distinct people who approved */
	char		*reply;		/* the request's recorded answer */
};
int		 store_gate_read(struct store *, int64_t, const char *,
		     int64_t, const char *, struct store_gate_read *, char **);
void		 store_gate_read_clear(struct store_gate_read *);

/* steplog.c: a step's output, one row per chunk with its time. */
/* How the note begins that says a step's log was cut (stream "sluice"). */
#define STORE_LOG_CUT	"[sluice: output cut here:"
struct store_log {
	int64_t		 id;
	int64_t		 at;
	char		 stream[8];	/* out err sluice */
	char		*data;
	size_t		 len;
};
int		 store_log_add(struct store *, int64_t, int64_t, const char *,
		     const char *, size_t);
int		 store_log_read(struct store *, int64_t, int64_t, int64_t,
		     struct store_log **, size_t *, char **);
void		 store_logs_free(struct store_log *, size_t);

/* detail.c: one step's details for the console. */
struct store_approval {
	int64_t		 id;
	int64_t		 at;
	char		*who;
	char		*decision;	/* approve reject */
	char		*comment;
};
int		 store_approval_list(struct store *, int64_t, int64_t,
		     struct store_approval **, size_t *, char **);
void		 store_approvals_free(struct store_approval *, size_t);
int		 store_timer_of_step(struct store *, int64_t, const char *,
		     int64_t *);
int		 store_log_tail(struct store *, int64_t, int64_t,
		     struct store_log **, size_t *, char **);

#endif /* SLUICE_STORE_H */
