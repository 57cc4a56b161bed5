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
 * engine-int.h: what the engine's files share: the engine, the workflows
 * it holds in memory, the steps it is running, and the entry points of
 * each file.  Nothing outside src/engine includes this.
 */

#ifndef SLUICE_ENGINE_INT_H
#define SLUICE_ENGINE_INT_H

#include <sys/queue.h>
#include <sys/tree.h>

#include <stdint.h>
#include <stdio.h>

#include "util/util.h"
#include "os/os.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "engine/tool.h"

struct cJSON;

/* How a fan-out row's branches have ended so far. */
struct engine_fanout {
	int64_t			 id;		/* the fan-out row */
	int			 spec;		/* the fan-out step */
	int			 join;		/* the join step, -1 */
	int64_t			 fanout_id;	/* its own branch context */
	int			 branch_no;
	int			 nbranches;
	int			 joined;	/* arrived at the join */
	int			 failed;
	int			 ended;		/* without reaching it */
	char			*seen;		/* per branch: ended */
	TAILQ_ENTRY(engine_fanout) entry;
};
TAILQ_HEAD(engine_fanouts, engine_fanout);

/*
 * A for-each row the engine is moving (foreach.c): what it needs beyond
 * its rows, which hold everything else.  One per for-each in flight,
 * whatever its number of items.
 */
struct engine_foreach {
	int64_t			 id;		/* the current for-each row */
	int64_t			 root;		/* its first row: items' item_of */
	int			 spec;
	int64_t			 fanout_id;	/* the row's own branch */
	int			 branch_no;
	int			 attempt;
	int			 visit;
	int			 n;		/* items */
	size_t			*ends;		/* each batch's end index */
	size_t			 nbatches;
	int			 budget;	/* failures tolerated */
	int			 failed;	/* items whose latest row failed */
	int			 forgiven;	/* failures an operator went past */
	int			 passed;	/* batches whose gate was approved */
	int64_t			 gate;		/* the gate waiting, 0 none */
	int			 stopping;	/* start nothing more */
	char			*why;		/* why it stops */
	TAILQ_ENTRY(engine_foreach) entry;
};
TAILQ_HEAD(engine_foreachs, engine_foreach);

/* What a step row is to the engine. */
enum estep_role {
	ESTEP_PLAIN,		/* a step of the flow */
	ESTEP_FOREACH,		/* a for-each step's own row */
	ESTEP_ITEM,		/* one item of a for-each */
	ESTEP_FEGATE		/* a for-each's gate (batch, budget) */
};

/* A parsed flow, shared by the runs whose flow has this text. */
struct eflow {
	uint64_t	 hash;
	size_t		 len;
	char		*json;
	struct flow	*flow;
	int		 refs;		/* runs in memory that hold it */
	RB_ENTRY(eflow)	 entry;
};
RB_HEAD(eflow_tree, eflow);

/* A workflow the engine is moving, with its flow parsed once. */
struct ewf {
	int64_t		 id;
	char		*name;
	char		*input_json;
	struct cJSON	*input;		/* what steps read of it, parsed */
	struct flow_input_use *input_use; /* which members they read */
	char		*created_by;
	char		*conc_key;	/* the key it holds, or NULL */
	struct flow	*flow;		/* eflow's, never changed */
	struct eflow	*eflow;
	int		*join_of;	/* per step: the join of its fan-out */
	int		*uses_steps;	/* per step: refers to steps.* */
	int64_t		*visits;	/* per step: passes so far */
	struct engine_fanouts fanouts;	/* tallies of open fan-outs */
	struct engine_foreachs foreachs; /* for-each rows in flight */
	int		 paused;
	int64_t		 parent_step_id; /* the step waiting for it, 0 */
	int		 depth;		/* 0, or how deep a child it is */
	int64_t		 nactive;	/* rows pending ready running waiting */
	int		 ended;		/* completed, failed or cancelled */
	int		 handling;	/* its on_failure or finally runs */
	enum run_status	 ending;	/* then: how it ends after them */
	char		*ending_why;	/* and why, or NULL */
	int		 refs;		/* steps in memory that point here */
	struct mask	*mask;		/* secret values: "***" when stored */
	struct cJSON	*secret_input;	/* secret inputs' values, or NULL */
	/* finished.c: steps.*, the latest finished row of each step. */
	int64_t		*fin_latest;	/* per step: that row's id, or 0 */
	int64_t		 fin_seen;	/* rows up to this id were looked at */
	struct engine_fin_open *fin_open; /* those of them not ended then */
	size_t		 fin_nopen;
	int		 fin_stray;	/* a row of no step of the flow */
	RB_ENTRY(ewf)	 entry;
};
RB_HEAD(ewf_tree, ewf);

/* A step row the engine is about to start or is running. */
TAILQ_HEAD(engine_loglines, engine_logline);

struct estep {
	int64_t			 id;
	struct ewf		*wf;
	int			 spec;		/* index in wf->flow */
	int			 attempt;
	int			 visit;
	int64_t			 fanout_id;
	int			 branch_no;
	enum estep_role		 role;
	int64_t			 item_of;	/* items and for-each gates */
	int			 item_index;	/* an item's, else -1 */
	char			*label;		/* an item's */
	char			*item_json;	/* an item's value */

	/* While running. */
	struct engine		*engine;
	struct proc		*proc;
	struct loop_timer	*timer;		/* timeout, or a sleep */
	struct buf		 out;		/* stdout, for the result */
	int64_t			 log_bytes;
	int			 log_cut;	/* log limit reached */
	int			 timed_out;
	int			 cancelled;	/* kill asked; row already ended */
	int			 queued;	/* to spawn after the commit */
	int			 durable;	/* queued, its running row committed */
	int			 ahead;		/* recorded while the lanes were full */
	int64_t			 spawned_at;	/* wall ms, when ahead */
	int64_t			 spawn_mono;	/* monotonic ms of its spawn */
	int			 interrupted;	/* killed by a shutdown */
	int			 pid_dirty;	/* pid not yet recorded */
	pid_t			 pid;		/* its process's, for the row */
	pid_t			 pgid;
	int64_t			 pstart;	/* Unix ms, 0 unknown */
	int			 end_status;	/* reaped meanwhile: engine_ended */
	int64_t			 ended_at;	/* wall ms it was reaped, or 0 */
	int			 no_retry;	/* a failure is final */
	struct tool_cmd		*cmd;		/* what to spawn */
	const struct engine_runner *runner; /* how it runs (runner.c) */
	struct engine_mcp	*mcp;		/* an MCP tool's exchange */
	int64_t			 timeout;	/* ms, 0 none; processes only */
	struct loop_timer	*hb_timer;	/* heartbeat: silence watch */
	int64_t			 heartbeat;	/* ms of silence allowed, 0 none */
	int64_t			 hb_last;	/* monotonic ms of last output */
	int			 no_heartbeat;	/* killed for its silence */
	struct buf		 pline[2];	/* a "::progress" line, per pipe */
	int			 pmid[2];	/* per pipe: 1 mid-line, 2 in one */
	struct buf		 mcarry[2];	/* per pipe: maybe a secret's start */

	struct estep_queue	*rq;		/* the ready queue it is on */
	TAILQ_ENTRY(estep)	 qentry;	/* ready, spawn or ended queue */
	TAILQ_ENTRY(estep)	 pentry;	/* pids to record */
	struct engine_loglines	 loglater;	/* exec-log.c: log to write */
	size_t			 loglater_len;
	TAILQ_ENTRY(estep)	 lentry;	/* steps with log to write */
	RB_ENTRY(estep)		 entry;		/* running tree, by id */
};
TAILQ_HEAD(estep_queue, estep);
RB_HEAD(estep_tree, estep);

/*
 * recover.c: rows the last engine left running whose processes are still
 * being killed; they follow their on_interrupt once their group is gone.
 */
struct engine_leftovers {
	struct store_step	*rows;		/* the interrupted rows */
	size_t			 n;
	char			*state;		/* per row: 1 held, 2 done */
	int			*err;		/* per row: errno of a kill */
	size_t			 left;		/* rows still held */
	int64_t			 term_at;	/* monotonic ms of SIGTERM */
	int64_t			 hold_until;	/* cluster: monotonic ms */
	int			 killed;	/* SIGKILL sent */
	struct loop_timer	*timer;		/* the next look */
	struct procscan		*scan;		/* the one look at /proc */
	int			 look_due;	/* scan, signal: next turn */
};

struct engine {
	struct loop		*loop;
	struct store		*store;
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	char			*dbpath;	/* absolute, symlinks resolved */
	int			 lock_fd;	/* DB.lock; -1 on a server */
	struct leader		*leader;	/* cluster mode: leader.c */
	struct proc_fence	 fence;		/* DB.lock, or the deadline */
	int64_t			 epoch;
	int			 in_txn;
	int64_t			*secret_gone;	/* runs whose secret inputs */
	size_t			 nsecret_gone;	/* go once the turn commits */
	int			 stopping;	/* no new steps; exit when idle */
	int			 offline;	/* no loop: apply, don't run */
	int64_t			 data_version;
	uint32_t		 rng;
	FILE			*trace;		/* $SLUICE_TRACE */

	struct ewf_tree		 workflows;
	struct eflow_tree	 flows;		/* flow-share.c */
	struct estep_queue	 ready[2];	/* built-ins, then processes */
	struct estep_queue	 spawn;		/* recorded, spawn after commit */
	struct estep_queue	 pids;		/* spawned, pid not recorded */
	struct estep_queue	 ended;		/* reaped while committing */
	struct engine_committer	*committer;	/* commit-thread.c, or NULL */
	int			 committing;	/* its commit under way */
	int			 just_committed; /* starting what it recorded */
	int			 spawning;	/* in engine_spawn */
	struct estep_queue	 loglater;	/* with log lines to write */
	struct estep_tree	 running;
	int			 nprocs;	/* process steps recorded running */
	int			 nlive;		/* of them, spawned and not reaped */
	int			 brief;		/* the last one ran briefly */
	int			 drain_queued;

	struct loop_timer	*more;		/* yield: drain next turn */
	struct loop_timer	*poll;		/* inbox, a slow fallback */
	int			 poll_now;	/* a leader's: after a beat */
	struct loop_timer	*pidrec;	/* record new pids, at the latest */
	struct loop_timer	*group;		/* a waiting commit's limit */
	int64_t			 txn_at;	/* monotonic ms the txn began */
	struct loop_timer	*logrec;	/* write waiting log, at the latest */
	struct loop_timer	*timers;	/* the next stored timer */
	int64_t			 timers_due;	/* wall ms it is armed for */
	int64_t			 heartbeat_at;	/* monotonic ms of the last */

	struct loop_timer	*alarm;		/* scheduled starts, cron */
	struct loop_timer	*clock;		/* looks for wall clock jumps */
	int64_t			 skew;		/* wall minus monotonic, ms */

	struct engine_notifier	*notifier;	/* notify.c, or NULL */
	struct engine_leftovers	*leftovers;	/* recover.c, or NULL */
	int			 headless;	/* may hand over (engine_open) */
	int			 handover;	/* asked to hand over */
	engine_observer_cb	 observer;	/* told of each notify event */
	void			*observer_arg;

	struct engine_server	*server;	/* server.c: DB.sock, or NULL */
	char			*server_cause;	/* why there is no socket */
	struct store_reader	*reader;	/* server-read.c: members' */
	int			 reading;	/* a read works: its */
						/* connection is not free */
	int64_t			 prune_before;	/* prune.c: retention batches */
	int64_t			 prune_after;

	int			 standby;	/* relay.c: a standby's shell */
	struct loop_fd		*listen_ev;	/* relay.c: LISTEN heard */
	struct loop_timer	*listen_act;
	int			 heard_inbox;	/* a command was relayed */
	int			 heard_changed;	/* the leader committed */
	struct loop_timer	*rehear;	/* a standby connects again */
	int64_t			 rehear_ms;
};

#define ENGINE_ESCAPED_MAX	256	/* a row's processes outside its group */
#define ENGINE_POLL_MS		5000	/* the inbox, for clients with no socket */
#define ENGINE_HEARTBEAT_MS	1000
#define ENGINE_TURN_STEPS	512	/* steps started per turn, at most */
#define ENGINE_GROUP_MS		25	/* a commit waits for the next at most */
#define ENGINE_BRIEF_MS		100	/* a process this short: start ahead */
#define ENGINE_AHEAD_MIN	32	/* recorded ahead of the slots, at least */
#define ENGINE_RESULT_MAX	(1024 * 1024)
#define ENGINE_PROGRESS_MAX	200	/* bytes of a progress line kept */
/*
 * How often the wall clock is compared with the monotonic one: every few
 * seconds, so an idle engine sleeps; every second in test builds, whose
 * clock a file moves and whose tests expect a jump seen at once.
 */
#ifdef SLUICE_TEST_CLOCK
#define ENGINE_CLOCK_MS		1000
#else
#define ENGINE_CLOCK_MS		5000
#endif
#define ENGINE_JUMP_MS		1000	/* a bigger step of wall time is a jump */
#define ENGINE_ALARM_MAX_MS	60000	/* the alarm looks again at least so */
#define ENGINE_MISSED_MAX	10000	/* missed cron instants counted, at most */
#define ENGINE_LEFTOVER_MS	50	/* how often leftovers are looked at */
#define ENGINE_LEFTOVER_MARGIN	5000	/* after SIGKILL, before giving up */

/* engine.c */
void		 engine_txn(struct engine *);
void		 engine_store_fatal(struct engine *, const char *)
		     __attribute__((__noreturn__));
void		 engine_kick(struct engine *);
int		 engine_lease_held(struct engine *);
int		 engine_leader_attach(struct engine *, char **);
void		 leader_after_beat(struct leader *, void (*)(void *), void *);
int64_t		 leader_stop_at(const struct leader *);

/* cutoff.c: a leader cut off from the database steps down. */
void		 engine_cutoff_bound(struct engine *);
void		 engine_cutoff(struct engine *, const char *)
		     __attribute__((__noreturn__));
void		 engine_superseded(struct engine *, const char *)
		     __attribute__((__noreturn__));
void		 engine_timers_rearm(struct engine *, int64_t);
uint32_t	 engine_random(struct engine *);
void		 engine_trace(struct engine *, int, int64_t);
int		 engine_cmd_handover(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* flow-share.c: one parse of each distinct flow text. */
int		 eflow_cmp(struct eflow *, struct eflow *);
RB_PROTOTYPE(eflow_tree, eflow, entry, eflow_cmp);
struct eflow	*engine_flow_get(struct engine *, const char *, char **);
void		 engine_flow_put(struct engine *, struct eflow *);

/* workflow.c: workflows in memory. */
int		 ewf_cmp(struct ewf *, struct ewf *);
RB_PROTOTYPE(ewf_tree, ewf, entry, ewf_cmp);
struct ewf	*engine_wf_get(struct engine *, int64_t);
struct ewf	*engine_wf_load(struct engine *, const struct store_workflow *,
		     char **);
struct ewf	*engine_wf_make(struct engine *, const struct store_workflow *,
		     char **);
void		 engine_wf_visit(struct ewf *, const char *, int64_t);
void		 engine_wf_free(struct engine *, struct ewf *);
void		 engine_wf_ended(struct engine *, struct ewf *, enum run_status);
struct cJSON	*engine_scope(struct engine *, struct ewf *, int);
/* finished.c: the rows steps.* shows, read a few at a time. */
void		 engine_steps_shown(struct engine *, struct ewf *,
		     struct store_step **, size_t *);
void		 engine_steps_shown_free(struct ewf *);
/* owners.c: a template's own operators, for commands on its runs. */
int		 engine_owners_may(struct engine *, const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_owners_change_may(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, const char *,
		     const char *, struct engine_reply *);
int		 engine_wf_start(struct engine *, const struct store_inbox *,
		     int64_t *, char **);

/* step.c: rows and the ready queue. */
struct estep_origin {
	int64_t		 parent_id;	/* the row this one follows */
	int64_t		 fanout_id;	/* its branch's fan-out row, 0 */
	int		 branch_no;
	int		 attempt;	/* 0: a new pass (attempt 1) */
	int		 visit;		/* with attempt > 1: the pass's */
	int		 has_status;	/* 0: ready, or waiting for a gate */
	enum step_status status;
	const char	*gate_json;	/* NULL: from the step's gate options */
	int64_t		 item_of;	/* an item's retry: its for-each's */
	int		 item_index;	/* and its index, label and value */
	const char	*label;
	const char	*item_json;
};
int		 estep_cmp(struct estep *, struct estep *);
RB_PROTOTYPE(estep_tree, estep, entry, estep_cmp);
struct estep	*engine_step_new(struct engine *, struct ewf *, int,
		     int64_t);
void		 engine_step_free(struct estep *);
void		 engine_step_row_kind(struct store_step *,
		     const struct flow_step *);
int64_t		 engine_step_create(struct engine *, struct ewf *, int,
		     const struct estep_origin *);
void		 engine_origin_after(const struct estep *, int,
		     struct estep_origin *);
void		 engine_step_ready(struct engine *, struct estep *);
struct estep	*engine_step_queued(struct engine *, int64_t);
struct estep	*engine_step_from_row(struct engine *,
		     const struct store_step *);
void		 engine_step_wake(struct engine *, int64_t);
void		 engine_wf_requeue(struct engine *, struct ewf *);
void		 engine_drain(void *);
const struct flow_step *engine_spec(const struct estep *);
void		 engine_step_role(struct estep *, const struct store_step *);

/*
 * runner.c: how a step runs.  A runner starts a step (its catalog tool,
 * resolved args and scope), takes its output, sees its process end and
 * stops it; runner.c's table of kinds says which runner a step has.  A
 * runner without a process has no output or exit: it ends the step
 * itself (engine_exec_end).
 */
#define ENGINE_RUNNER_PROCESS	0x1	/* spawns a process: a job slot */
#define ENGINE_RUNNER_TALK	0x2	/* its stdin carries requests */
#define ENGINE_RUNNER_LOG_LATER	0x4	/* its log waits for a commit */
struct engine_runner {
	const char	*name;
	int		 flags;
	void		(*start)(struct engine *, struct estep *,
			    const struct flow_tool *, const char *,
			    struct cJSON *);
	void		(*spawned)(struct engine *, struct estep *);
	void		(*output)(struct engine *, struct estep *, int,
			    const char *, size_t);
	void		(*exit)(struct engine *, struct estep *, int);
	void		(*kill)(struct engine *, struct estep *);
};
extern const struct engine_runner engine_runner_process;	/* exec.c */
extern const struct engine_runner engine_runner_mcp;	/* tool-mcp.c */
extern const struct engine_runner engine_runner_builtin; /* builtin.c */
extern const struct engine_runner engine_runner_child;	/* child.c */
const struct engine_runner *engine_runner_pick(struct engine *,
		     const struct flow_step *, const struct flow_tool **);
const struct flow_tool *engine_step_tool(struct engine *,
		     const struct flow_step *);
int		 engine_step_is_process(struct engine *,
		     const struct flow_step *);
int		 engine_kind_ran_process(enum step_kind);
char		*engine_kind_policy(struct engine *, struct ewf *,
		     const struct flow_step *);
void		 engine_kind_waiting(struct engine *, struct ewf *,
		     const struct flow_step *, int64_t, int64_t);

/* exec.c: running a step through its runner; the process runner. */
void		 engine_exec(struct engine *, struct estep *);
void		 engine_exec_running(struct engine *, struct estep *,
		     const char *, const char *);
void		 engine_exec_end(struct engine *, struct estep *);
void		 engine_exec_kill(struct engine *, struct estep *);
void		 engine_exec_process(struct engine *, struct estep *,
		     const struct flow_tool *, const char *, struct cJSON *);
void		 engine_exec_stream(struct engine *, struct estep *, int,
		     const char *, size_t);
void		 engine_exec_status(struct engine *, struct estep *, int);
void		 engine_exec_stop(struct engine *, struct estep *);
void		 engine_spawn(struct engine *, int);
int		 engine_spawn_waiting(const struct engine *);
#ifdef SLUICE_TEST_CLOCK
void		 engine_test_hold(const char *);
#endif
void		 engine_record_pids(struct engine *);
void		 engine_exec_ended_run(void *);

/*
 * commit-thread.c: a turn's commit made on a thread of its own while the
 * loop goes on seeing step processes end (see there).
 */
int		 engine_committer_open(struct engine *, char **);
void		 engine_committer_close(struct engine *);
void		 engine_committer_start(struct engine *);
void		 engine_commit_join(struct engine *);
void		 engine_committed(struct engine *);
char		*engine_exec_result(const struct buf *);

/* exec-log.c: a step's log, now or with the next commit. */
void		 engine_exec_log(struct engine *, struct estep *,
		     const char *, const char *, size_t);
void		 engine_exec_log_flush(struct engine *, struct estep *);
void		 engine_exec_log_drop(struct engine *, struct estep *);
void		 engine_logs_flush(struct engine *);
void		 engine_logs_due(void *);

/* tool-mcp.c: an MCP tool step's exchange with its server. */
struct engine_mcp *engine_mcp_create(const struct flow_tool *, const char *);
void		 engine_mcp_free(struct engine_mcp *);
void		 engine_mcp_start(struct engine *, struct estep *);
void		 engine_mcp_output(struct engine *, struct estep *,
		     const char *, size_t);
void		 engine_mcp_exit(struct engine *, struct estep *, int);

/* progress.c: "::progress PCT TEXT" lines in a step's output. */
void		 engine_progress_feed(struct engine *, struct estep *, int,
		     const char *, size_t);
void		 engine_progress_strip(struct buf *);

/* advance.c: what follows a step's end. */
void		 engine_step_done(struct engine *, struct estep *,
		     const char *, int, int);
void		 engine_step_failed(struct engine *, struct estep *,
		     const char *, int, int, const char *);
void		 engine_wf_fail(struct engine *, struct ewf *, const char *);
void		 engine_wf_cancel(struct engine *, struct ewf *);
void		 engine_wf_cancel_why(struct engine *, struct ewf *,
		     const char *);
void		 engine_wf_settle(struct engine *, struct ewf *);
void		 engine_row_skip(struct engine *, struct ewf *, int64_t,
		     const char *);
void		 engine_wf_end(struct engine *, struct ewf *, enum run_status,
		     const char *);
const char	*engine_end_reason(enum run_status, const char *);
void		 engine_rows_cancel(struct engine *, struct ewf *, int64_t,
		     const char *);
void		 engine_advance(struct engine *, struct estep *,
		     const char *, int, int);
void		 engine_step_skipped(struct engine *, struct estep *,
		     const char *);
void		 engine_step_rejected(struct engine *, struct estep *,
		     const char *);
void		 engine_step_cancelled(struct engine *, struct estep *,
		     const char *);
int64_t		 engine_step_timeout(struct engine *,
		     const struct flow_step *);
int		 engine_fanout_spec(struct engine *, struct estep *);
void		 engine_fanout_forget(struct ewf *, struct engine_fanout *);

/*
 * foreach.c: for-each steps.  A for-each row resolves its items into item
 * rows waiting for their turn and starts them batch by batch, a bounded
 * number at once, asking at gates between batches and when the failure
 * budget is spent; its result is the items' results in item order.
 * foreach-ops.c: operators' retry, rerun and cancel of one item.
 */
void		 engine_foreach_begin(struct engine *, struct estep *);
void		 engine_foreach_item_ended(struct engine *, struct estep *,
		     int);
void		 engine_foreach_gate_decided(struct engine *, struct estep *,
		     const char *);
void		 engine_foreach_resume(struct engine *,
		     const struct store_step *);
void		 engine_foreach_resume_read(struct engine *,
		     const struct store_step *,
		     const struct store_recover_foreach *,
		     const struct store_step *, size_t);
void		 engine_foreach_rerun(struct engine *, struct ewf *,
		     const struct store_step *, struct buf *);
int		 engine_foreach_retry(struct engine *, const struct store_inbox *,
		     int64_t, struct engine_reply *);
void		 engine_foreach_forget_all(struct ewf *);
int		 engine_foreach_cancel_item(struct engine *,
		     const struct store_inbox *, struct engine_reply *);
struct cJSON	*engine_item_scope(struct engine *, struct estep *);
/* Shared by foreach.c and foreach-ops.c. */
#define FOREACH_NAMES	5	/* failed items named in a message, at most */
struct engine_foreach *engine_foreach_of(struct engine *, struct ewf *,
		     int64_t, int *);
struct engine_foreach *engine_foreach_load(struct engine *, struct ewf *,
		     int64_t);
void		 engine_foreach_pump(struct engine *, struct ewf *,
		     struct engine_foreach *);
int64_t		 engine_foreach_row_add(struct engine *, struct ewf *,
		     struct store_step *);
void		 engine_foreach_row_init(struct store_step *,
		     const struct flow_step *);

/* gate.c */
void		 engine_gate_policy(struct engine *, const struct flow_gate *,
		     const char *, struct flow_policy *);
char		*engine_gate_json(struct engine *, struct ewf *,
		     const struct flow_step *);
void		 engine_gate_waiting(struct engine *, struct ewf *,
		     const struct flow_step *, int64_t, int64_t);
int		 engine_gate_read(struct engine *, const struct store_inbox *,
		     const char *, struct store_gate_read *,
		     struct engine_reply *);
int		 engine_gate_decide(struct engine *, const struct store_inbox *,
		     const struct authority_caller *, int,
		     const struct store_gate_read *, struct engine_reply *);
void		 engine_gate_timeout(struct engine *, int64_t);
char		*engine_gate_refusal(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, const struct store_step *,
		     const char *, struct flow_policy *, struct ewf **);

/* wait.c: steps finished from outside (complete, fail). */
int		 engine_wait_is(const struct store_step *);
char		*engine_wait_json(struct engine *, struct ewf *,
		     const struct flow_step *);
void		 engine_wait_waiting(struct engine *, struct ewf *,
		     const struct flow_step *, int64_t, int64_t);
char		*engine_wait_skip_refusal(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, const struct store_step *);
int		 engine_cmd_complete(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_fail(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
void		 engine_wait_timeout(struct engine *, int64_t);

/* template.c: template-save, template-rm. */
int		 engine_cmd_template_save(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_template_rm(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* relay.c: every cluster node serves operators; the leader hears them. */
#define RELAY_WAIT_MS		8000	/* a relayed command's answer, at most */
#define RELAY_LOOK_MS		250	/* looked for without a NOTIFY too */
int		 engine_listen_open(struct engine *, const char *, char **);
void		 engine_listen_close(struct engine *);
int		 engine_standby_adopt(struct engine *, struct engine *,
		     char **);
int		 engine_relay_post(struct engine *, const struct store_inbox *,
		     int64_t *, char **);
int		 engine_relay_answer(struct engine *, int64_t,
		     struct engine_reply *);
int		 engine_relay_secret(const char *);

/* relay-caller.c: a relayed caller's uid names the same account here. */
int		 engine_relay_caller_ok(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, char **);

/* relay-late.c: a relayed command no leader answered in time. */
void		 engine_relay_late(struct engine *, int64_t,
		     struct engine_reply *);

/* server.c: the socket, DB.sock. */
struct engine_server;
int		 engine_server_open(struct engine *, char **);
void		 engine_server_adopt(struct engine *, struct engine *);
void		 engine_server_relays(struct engine *);
void		 engine_server_close(struct engine *);
void		 engine_server_flush(struct engine *, int);
int		 engine_server_quiet(const struct engine *);
int		 engine_server_pending(struct engine *);
void		 engine_server_take(void *);
void		 engine_server_wait(struct engine *, int);
void		 engine_server_down(struct engine *, const char *);
void		 engine_server_down_tidy(struct engine *);

/* server-read.c: members' reads on the socket, a cursor per connection. */
#define ENGINE_READ_IDLE_MS	2000	/* a cursor left unread, closed */
struct engine_read_slot {
	struct engine		*e;
	struct store_cursor	*cursor;	/* open, or NULL */
	struct loop_timer	*idle;		/* closes it unread */
};
int		 engine_read_command(const char *);
void		 engine_read_slot_init(struct engine *,
		     struct engine_read_slot *);
void		 engine_read_slot_clear(struct engine_read_slot *);
struct cJSON	*engine_read_apply(struct engine_read_slot *, const char *,
		     const struct cJSON *);
void		 engine_read_close(struct engine *);
void		 engine_read_adopt(struct engine *, struct engine *);

/* busy.c */
void		 engine_busy_attach(struct engine *);

/* request.c: request ids, recorded with their answers. */
void		 engine_outcome(struct engine *, int64_t, const char *,
		     struct engine_reply *);
int		 engine_request_seen(struct engine *,
		     const struct store_inbox *, struct engine_reply *);
int		 engine_request_answer(const char *, const char *,
		     struct engine_reply *, char **);
void		 engine_request_record(struct engine *,
		     const struct store_inbox *, const struct engine_reply *);

/* command.c: the inbox. */
void		 engine_inbox(struct engine *);
int		 engine_apply(struct engine *, const struct store_inbox *,
		     struct engine_reply *);
char		*engine_arg_string(const char *, const char *);
char		*engine_arg_comment(const char *);
int		 engine_refuse(struct engine *, const struct store_inbox *,
		     const char *, const struct store_step *,
		     struct engine_reply *);
void		 engine_audit(struct engine *, const struct store_inbox *,
		     const char *, int64_t, int64_t, const char *,
		     const char *, const char *);
struct ewf	*engine_cmd_workflow(struct engine *, int64_t, const char *,
		     struct engine_reply *);

/* rerun.c: operator retry and skip. */
int		 engine_cmd_retry(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_skip(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* child.c: sub-workflows (child runs) and workflow outputs. */
int64_t		 engine_child_start(struct engine *, struct estep *,
		     const char *, const char *, char **);
void		 engine_child_ended(struct engine *, struct ewf *,
		     enum run_status, const char *, const char *);
void		 engine_child_cancel(struct engine *, int64_t);
void		 engine_children_pause(struct engine *, struct ewf *, int);
char		*engine_wf_output(struct engine *, struct ewf *);

/* recover.c */
int		 engine_recover(struct engine *, char **);
void		 engine_leftovers_check(struct engine *);
void		 engine_leftovers_free(struct engine *);

/*
 * recover-batch.c: a takeover's for-each and DAG runs go on from reads
 * made for all of them at once.
 */
void		 engine_recover_foreachs(struct engine *,
		     const struct store_step *, size_t);
void		 engine_recover_dag(struct engine *);

/*
 * workflow.c: creating a workflow (from a start command, a schedule's
 * firing) and beginning one (now, or when its start time comes).
 */
struct engine_start {
	const char	*name;
	const char	*flow_json;
	const char	*input_json;
	const char	*template_name;	/* NULL: from a file */
	int64_t		 template_version;
	const char	*created_by;	/* NULL: who asked */
	int64_t		 start_at;	/* later than now: scheduled */
	int64_t		 sla_ms;	/* 0: none */
	int64_t		 schedule_id;	/* the schedule firing it, 0 */
	int64_t		 fire_at;	/* the cron instant, 0 */
	const char	*detail;	/* audit detail JSON, or NULL */
	const struct cJSON *secret_input; /* secret inputs' values, or NULL */
	int64_t		 parent_id;	/* a child run: its parent, else 0 */
	int64_t		 parent_step_id; /* and the step waiting for it */
	int		 depth;
};
int		 engine_wf_create(struct engine *, const struct engine_start *,
		     const struct store_inbox *, int64_t *, char **);

/* start-check.c: the engine's own check of every start it receives. */
int		 engine_start_check(struct engine *, const char *, int64_t,
		     const struct cJSON *, const struct cJSON *,
		     struct engine_start *, char **, char **, char **);
void		 engine_wf_begin(struct engine *, const struct store_workflow *,
		     int64_t);

/* concurrency.c: runs held by their concurrency key. */
int		 engine_conc_run_key(const char *, const char *, const char *,
		     char **, int *, int *, char **);
int		 engine_conc_run_free(struct engine *, const char *, int,
		     int64_t *);
void		 engine_conc_run_refusal(const char *, int, int64_t, char **);
void		 engine_conc_run_release(struct engine *, const char *);
void		 engine_conc_recover(struct engine *);
void		 engine_conc_started(struct engine *, int64_t, char **);

/* step-concurrency.c: step rows held by their concurrency key. */
int		 engine_conc_step_admit(struct engine *, struct estep *);
int		 engine_conc_step_keyed(const struct estep *);
void		 engine_conc_step_release(struct engine *, int64_t);
void		 engine_conc_step_recover(struct engine *);
void		 engine_rerun_queued(struct engine *,
		     const struct store_workflow *);

/* secret.c: site secrets, read when a process starts, never stored. */
int		 engine_secret_read(const char *, char **, char **);
void		 engine_secret_names(const struct flow_tools *, const char *,
		     char ***, size_t *);
void		 engine_secret_step_names(const struct flow_step *,
		     const struct flow_tool *, char ***, size_t *);
void		 engine_secret_names_free(char **, size_t);
int		 engine_secret_allowed(const struct engine_opts *, const char *,
		     char **, size_t, char **);
int		 engine_secret_template_listed(const struct engine_opts *,
		     const char *);
void		 engine_secret_mask_load(struct engine *, struct ewf *,
		     const char *);
void		 engine_secret_wipe(struct cJSON *);

/* secret-input.c: secret inputs, kept in DB.secrets/ID.json for a run. */
int		 engine_secret_input_save(struct engine *, int64_t,
		     const struct cJSON *, char **);
void		 engine_secret_input_load(struct engine *, struct ewf *);
void		 engine_secret_input_drop(struct engine *, struct ewf *);
void		 engine_secret_input_forget(struct engine *, int64_t);
void		 engine_secret_input_sweep(struct engine *);
void		 engine_secret_input_committed(struct engine *);

/*
 * schedule.c: time.  Workflows waiting for their start, recurring
 * schedules (their commands: schedule-cmd.c), SLA deadlines, and wall
 * clock jumps (stored delays move with a jump; start times and cron
 * instants are wall-clock instants and are looked at again).
 */
void		 engine_time_open(struct engine *);
void		 engine_time_close(struct engine *);
void		 engine_alarm_rearm(struct engine *);
void		 engine_clock_check(struct engine *);
void		 engine_self(struct store_inbox *);
int		 engine_sched_cancel(struct engine *,
		     const struct store_inbox *, struct engine_reply *);
void		 engine_sla_arm(struct engine *, int64_t, int64_t, int64_t);
void		 engine_sla_due(struct engine *, int64_t);
int		 engine_cmd_schedule_add(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
/* prune.c */
struct cJSON;
int		 engine_cmd_prune(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
void		 engine_prune_due(struct engine *);
void		 engine_prune_open(struct engine *);

int		 engine_cmd_schedule_rm(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_schedule_pause(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_schedule_resume(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);
int		 engine_cmd_schedule_run(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* schedule.c, schedule-cmd.c: firing a schedule, shared with its commands. */
/* What firing a schedule takes from its template. */
struct engine_fire {
	struct store_template	*t;
	struct flow_doc		*doc;
	char			*input;
	char			*detail;
	struct engine_start	 st;
};
int		 engine_fire_prepare(struct engine *,
		     const struct store_schedule *, struct engine_fire *,
		     char **);
void		 engine_fire_clear(struct engine_fire *);
int		 engine_sched_launch(struct engine *,
		     const struct store_schedule *, int64_t,
		     const struct store_inbox *, int64_t *, int64_t *, char **);
void		 engine_sched_audit(struct engine *,
		     const struct store_inbox *, const char *,
		     const struct store_schedule *, const char *,
		     struct cJSON *);

/*
 * notify.c: config.json "notify" commands.  event: gate_waiting
 * gate_decided workflow_failed workflow_late workflow_completed
 * workflow_deadline; extra
 * (may be NULL) is merged into the payload and freed.  Queued in the
 * turn, run after it commits.
 */
void		 engine_notify(struct engine *, const char *, int64_t,
		     int64_t, struct cJSON *);
void		 engine_notify_commit(struct engine *);
int		 engine_notify_busy(const struct engine *);
void		 engine_notify_shutdown(struct engine *, int);
void		 engine_notify_close(struct engine *);
int		 engine_cmd_notify(struct engine *,
		     const struct store_inbox *,
		     const struct authority_caller *, struct engine_reply *);

/* notify.c, notify-job.c: what the notifier's two files share. */
#define NOTIFY_QUEUE_MAX	256	/* events or runs waiting, at most */
/* An event of the open turn, sent once the turn has committed. */
struct notify_event {
	char			*event;
	int64_t			 at;
	int64_t			 workflow_id;
	int64_t			 step_id;
	struct cJSON		*extra;		/* merged into the payload */
	struct cJSON		*payload;	/* replayed from the inbox */
	TAILQ_ENTRY(notify_event) entry;
};
TAILQ_HEAD(notify_events, notify_event);

/* One command run for one event. */
struct notify_job {
	struct engine		*engine;
	const struct notify_cmd	*cmd;
	size_t			 index;		/* in config.json's array */
	char			*event;
	int64_t			 workflow_id;
	int64_t			 step_id;
	char			*payload;	/* JSON text, for stdin */
	char			**envp;
	struct proc		*proc;
	struct loop_timer	*timer;		/* its timeout, or its retry */
	struct buf		 err;		/* the start of its stderr */
	int			 attempt;
	int			 timed_out;
	TAILQ_ENTRY(notify_job)	 entry;
};
TAILQ_HEAD(notify_jobs, notify_job);

struct engine_notifier {
	struct notify_events	 pending;	/* this turn's events */
	size_t			 npending;
	struct notify_jobs	 queue;		/* waiting for a slot */
	struct notify_jobs	 active;	/* running, or to be retried */
	size_t			 nqueued;
	size_t			 nactive;
	size_t			 nrunning;
	int			 killing;	/* the engine stops now */
};
const char	*engine_notify_str(const struct cJSON *, const char *,
		     const char *);
void		 engine_notify_enqueue(struct engine *, struct cJSON *);
void		 engine_notify_run(struct engine *);
void		 engine_notify_job_free(struct notify_job *);

/* when.c */
int		 engine_when_holds(struct engine *, struct ewf *,
		     const struct flow_step *);
int		 engine_when_skip(struct engine *, struct estep *);

/* dag.c: the DAG form: what starts with the run, what each end decides. */
void		 engine_dag_begin(struct engine *, struct ewf *);
void		 engine_dag_advance(struct engine *, struct ewf *);
int		 engine_dag_advance_rows(struct engine *, struct ewf *,
		     const struct store_step *, size_t);
/* handler.c: a run's on_failure and finally. */
int		 engine_handler_is(const struct estep *);
int		 engine_handler_begin(struct engine *, struct ewf *,
		     enum run_status, const char *);
void		 engine_handler_ended(struct engine *, struct estep *,
		     const char *);
void		 engine_handler_set(struct ewf *, enum run_status,
		     const char *);
void		 engine_handler_load(struct engine *, struct ewf *,
		     const char *);

/* deadline.c */
void		 engine_run_timer_arm(struct engine *, const char *, int64_t,
		     int64_t, int64_t);
void		 engine_deadline_arm(struct engine *, int64_t, int64_t,
		     int64_t);
void		 engine_deadline_due(struct engine *, int64_t);

#endif /* SLUICE_ENGINE_INT_H */
