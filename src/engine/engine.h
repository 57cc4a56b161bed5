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
 * engine.h: the engine, the single writer that moves workflows through
 * their lifecycle on the loop it is given (which a console may share), and
 * the client side every other process uses to ask it for something.
 */

#ifndef SLUICE_ENGINE_H
#define SLUICE_ENGINE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct loop;
struct store;
struct store_actor;
struct store_step;
struct flow_row;
struct flow_tools;
struct flow_tool;
struct engine;
struct cJSON;
struct flow_policy;
struct notify_config;

/*
 * authority.c: who may do what (sluice(1) AUTHORITY).  The site's policy
 * comes only from SYSCONFDIR/sluice/config.json.
 */
struct authority_site {
	int		 allow_self;	/* gate default: 1 as in SPEC, or 0 */
	int		 agents;	/* gate default: 0, decisions via MCP */
	int		 has_operators;	/* "operators" named: only they */
	char		**operators;	/* user names and "@group" names */
	size_t		 noperators;
};

/* A caller, from a uid and the system's user and group databases. */
struct authority_caller {
	uid_t		 uid;
	gid_t		 gid;		/* primary group, -1 unknown account */
	char		*name;		/* account name, or the uid in decimal */
	gid_t		*groups;	/* every group it is in */
	int		 ngroups;
};

/*
 * What is asked: an operator action, a gate decision (gate set), or
 * finishing a wait step from outside (wait set).
 */
struct authority_ask {
	const char	*verb;		/* approve reject skip cancel ... */
	const char	*target;	/* for messages: "g (step 12)" */
	const struct flow_policy *gate;	/* the gate row's stored policy */
	const struct flow_policy *wait;	/* a wait row's: who may finish it */
	const char	*starter;	/* who started the workflow */
	const char	*via;		/* "mcp": an agent asks; NULL a person */
	int64_t		 workflow_id;
	int		 approving;	/* approve, or skip: allow_self holds */
	const char	*decided;	/* the caller's earlier decision, NULL */
	int		 need_reason;
	const char	*reason;
};

void		 authority_caller_init(struct authority_caller *, uid_t);
void		 authority_caller_clear(struct authority_caller *);
int		 authority_names(const struct authority_caller *,
		     const char *);
int		 authority_operator(const struct authority_site *,
		     const struct authority_caller *, char **);
int		 authority_has_reason(const char *);
int		 authority_check(const struct authority_site *,
		     const struct authority_caller *,
		     const struct authority_ask *, char **);

/* authority-template.c: a template's own "operators" narrow the rule. */
int		 authority_template_names_caller(
		     const struct authority_caller *, char *const *, size_t);
int		 authority_template(const struct authority_caller *,
		     const char *, char *const *, size_t, const char *,
		     char **);
int		 authority_template_change(const struct authority_site *,
		     const struct authority_caller *, const char *,
		     char *const *, size_t, const char *, char **);
char		*authority_template_run_by(const struct authority_site *,
		     const char *);

/* config.json's "secrets": which templates may use a site secret. */
struct secret_rule {
	char		*name;
	char		**templates;	/* fnmatch(3) patterns */
	size_t		 ntemplates;
};

/* secret.c: may a run of this flow use the site secrets it names? */
struct flow_tools;
struct engine_opts;
int		 engine_secret_start_ok(const struct flow_tools *,
		     const struct engine_opts *, const char *, const char *,
		     char **);

/* Site settings (config.json) and command-line choices. */
struct engine_opts {
	int		 max_jobs;	/* step processes at once; 0: default */
	struct authority_site authority; /* the site's policy */
	int64_t		 kill_grace;	/* ms between SIGTERM and SIGKILL */
	int64_t		 log_max;	/* bytes of output kept per step */
	const char	*ssh;		/* ssh program, NULL: "ssh" */
	const struct flow_tool *site;	/* config.json: default retry, timeout */
	const struct notify_config *notify;	/* config.json: "notify" */
	int64_t		 retention;	/* config.json: ms; 0: keep runs */
	const struct secret_rule *secrets;	/* config.json: "secrets" */
	size_t		 nsecrets;
	const char	*tools_path;	/* the catalog file, NULL: none */
	const char	*config_path;	/* the site config file, NULL: none */
	struct leader	*leader;	/* cluster mode: leader.c, won */
	struct engine	*standby;	/* cluster mode: relay.c, the socket */
					/* served while standing by */
	int		 commit_thread;	/* commits may run on a thread */
	int64_t		 lease;		/* cluster mode: L, ms; 0: default */
};

/*
 * relay.c: cluster mode's standby serves its socket while it stands by
 * (engine_standby_open), and hands it to the engine when it takes over
 * (engine_opts.standby); each command names the node it came through.
 */
struct engine	*engine_standby_open(struct loop *, struct store *, char **);
void		 engine_standby_free(struct engine *);
const char	*engine_node_name(void);
void		 engine_node_set(const char *);
/* server-read.c: members' reads log in as this (cluster.reader). */
void		 engine_read_login_set(const char *);

/*
 * leader.c: cluster mode (a postgresql: database).  leader_open opens the
 * lock session, leader_wait stands by until it holds the leader's lock;
 * then engine_open with opts.leader set leads (the engine frees it).
 */
int64_t		 engine_epoch(const struct engine *);
#define LEADER_LEASE_MS		3000	/* L: the lock session's idle limit */
struct leader	*leader_open(struct loop *, const char *, int64_t, char **);
int		 leader_wait(struct leader *, volatile int *, char **);
void		 leader_free(struct leader *);
int64_t		 leader_lease(const struct leader *);
int64_t		 leader_hold(const struct leader *);

#define ENGINE_MAX_JOBS		32
#define ENGINE_KILL_GRACE	5000
#define ENGINE_LOG_MAX		(1024 * 1024)

/*
 * notify-config.c: config.json's "notify", the commands run on events.
 * Parsing reports every problem as "$.notify[N]...: reason" in *errs.
 */
struct notify_cmd {
	int		 events;	/* NOTIFY_E_* bits */
	char		**argv;		/* "run", NULL-terminated; or NULL */
	char		*shell;		/* "shell", or NULL */
	char		**env;		/* "env" as KEY=VALUE, NULL-ended */
	int64_t		 timeout;	/* ms */
	char		*label;		/* for logs and the audit trail */
};

struct notify_config {
	struct notify_cmd *cmds;
	size_t		 ncmds;
};

#define NOTIFY_E_GATE_WAITING		0x01
#define NOTIFY_E_GATE_DECIDED		0x02
#define NOTIFY_E_WORKFLOW_FAILED	0x04
#define NOTIFY_E_WORKFLOW_LATE		0x08
#define NOTIFY_E_WORKFLOW_COMPLETED	0x10
#define NOTIFY_E_WORKFLOW_DEADLINE	0x20
#define NOTIFY_E_ALL			0x3f

#define NOTIFY_TIMEOUT		30000	/* ms, unless "timeout" says */
#define NOTIFY_MAX_CMDS		64

struct notify_config *notify_config_parse(const struct cJSON *, char ***,
		     size_t *);
void		 notify_config_free(struct notify_config *);
int		 notify_event_bit(const char *);	/* 0: unknown */

/* engine.c */
int		 engine_open(struct loop *, struct store *,
		     const struct flow_tools *, const struct engine_opts *,
		     struct engine **, char **);
void		 engine_close(struct engine *);
void		 engine_shutdown(struct engine *, int);

/* reload.c */
void		 engine_reload(struct engine *, const struct flow_tools *,
		     const struct engine_opts *, const char *);
		 /* take a new catalog and config, or (a reason given)
		    record why they were refused */
int		 engine_finished(const struct engine *);
int		 engine_idle(const struct engine *);
int		 engine_quiet(const struct engine *);	/* none running, ready */
int		 engine_nrunning(const struct engine *);
void		 engine_set_headless(struct engine *);
int		 engine_handing_over(const struct engine *);

/*
 * Told of every notify event (gate_waiting, gate_decided, workflow_failed,
 * workflow_late, workflow_completed, workflow_deadline) as the engine
 * makes it, whether or not config.json asks for it: a headless console
 * logs them.
 */
typedef void	 (*engine_observer_cb)(const char *, int64_t, int64_t,
		     void *);
void		 engine_set_observer(struct engine *, engine_observer_cb,
		     void *);
int		 engine_workflow_status(struct engine *, int64_t,
		     enum run_status *);

/*
 * protocol.c: a request and its reply, as every client sends and reads
 * them (client/transport.c decides how they travel) and the engine
 * answers them, on its socket or an inbox row.
 */
#define ENGINE_REQUEST_ID_LEN	32	/* ours: 128 random bits in hex */
#define ENGINE_REQUEST_ID_MAX	64	/* anyone's */

/*
 * Why secret inputs are refused in cluster mode, by the leader and by a
 * standby: the engine keeps them on its own disk for the life of the run,
 * and the node that takes over would run the steps with "***" instead.
 */
#define ENGINE_CLUSTER_SECRETS \
	"secret inputs are refused in cluster mode: the leader would keep " \
	"them on its own disk only, and a node taking over would not have " \
	"them; use a site secret ({{secrets.NAME}}), kept on every node"

struct engine_request {
	const char	*command;	/* start approve reject cancel ... */
	const char	*request;	/* the client's id for it, or NULL */
	int64_t		 workflow_id;
	int64_t		 step_id;
	const char	*args_json;	/* what the command needs */
	int		 patient;	/* wait for the answer however long */
	int		 secret;	/* carries secrets: never to the inbox */
};

struct engine_reply {
	int		 code;		/* 0, or an exit status: 1 3 4 */
	char		*message;	/* why, when code != 0 */
	int64_t		 workflow_id;
	int64_t		 step_id;
	int		 offline;	/* no engine ran; applied here */
	int64_t		 version;	/* template-save: the new version */
	int		 conflict;	/* template-save: changed meanwhile */
	int64_t		 next;		/* prune: the next batch's start */
	int64_t		 pruned_runs;	/* prune: what this batch removed */
	int64_t		 pruned_steps;
	int64_t		 pruned_logs;
	char		*waiting;	/* ping: what the engine waits for */
	int64_t		 waiting_since;	/* ping: since when (wall ms) */
	int		 outcome;	/* outcome: ENGINE_OUTCOME_* */
	int64_t		 queued;	/* outcome: the inbox row holding it */
};
#define ENGINE_OUTCOME_NONE		0	/* not an answer to "outcome" */
#define ENGINE_OUTCOME_APPLIED		1	/* r is the request's answer */
#define ENGINE_OUTCOME_NOT_APPLIED	2	/* and it never will be */
#define ENGINE_OUTCOME_QUEUED		3	/* on an inbox row, not yet */

/* A request as the engine reads it off its socket. */
struct engine_wire {
	char		*command;
	int64_t		 workflow_id;
	int64_t		 step_id;
	char		*args_json;	/* NULL: none */
	char		*request;	/* the client's id for it, or NULL */
	char		*tty;		/* the client's report, or "-" */
	char		*host;
	char		*via;		/* "mcp", "other" or NULL */
};

int		 engine_request_apply(struct engine *,
		     const struct store_actor *, const struct engine_request *,
		     struct engine_reply *);
void		 engine_reply_clear(struct engine_reply *);
int		 engine_reply_read(const char *, struct engine_reply *);
struct cJSON	*engine_reply_json(const struct engine_reply *);
int		 engine_request_decode(const char *, struct engine_wire *,
		     char **);
void		 engine_wire_clear(struct engine_wire *);
void		 engine_request_id_new(char *);
int		 engine_request_id_valid(const char *);
const char	*engine_outcome_name(int);
/* request.c: what became of a request, from its record. */
int		 engine_request_outcome(struct store *, int64_t,
		     const char *, struct engine_reply *, char **);

/* busy.c: "sluice engine" waits out a busy database, never exits for it. */
void		 engine_busy_init(const char *);
void		 engine_busy_over(void);
const char	*engine_busy_what(int64_t *);

/* rerun.c: step rows as flow/rerun.c's retry rules read them. */
struct flow_row	*engine_flow_rows(const struct store_step *, size_t);

/* retry-preview.c */
int		 engine_retry_preview(struct store *, int64_t, const char *,
		     struct buf *, char **);
char		*engine_request_line(const struct store_actor *,
		     const struct engine_request *);
const char	*engine_server_error(const struct engine *);

#endif /* SLUICE_ENGINE_H */
