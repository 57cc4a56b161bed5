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
 * client.h: the one front door to the engine, which every client (the
 * command line, the console's actions, sluice mcp) goes through.  A
 * struct client holds a client's settings (the database, the tools
 * catalog, config.json) and where its messages for people go; the
 * transport (transport.c) decides how a request reaches the engine (its
 * socket, the inbox, or this process applying it as the engine for one
 * command); the operations (start.c, template.c, read-*.c) take typed
 * arguments and give structured results (ids, versions, states, exit
 * codes with their one-line reasons), from which each client makes its
 * own text at its edge.  No client reads another's printed text.
 */

#ifndef SLUICE_CLIENT_H
#define SLUICE_CLIENT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"

/* Exit statuses (SPEC §10), which are also the engine's reply codes. */
#define EXIT_OK		0
#define EXIT_FAILED	1	/* a run failed, or a runtime error */
#define EXIT_USAGE	2	/* bad usage or invalid input */
#define EXIT_NOTFOUND	3	/* no such id or name */
#define EXIT_REFUSED	4	/* permission refused, read-only database */

struct cJSON;

/*
 * Where a client's messages go: warning is 1 for a warning.  Without
 * one, each is printed on stderr as "sluice: [warning: ]TEXT".
 */
typedef void	 (*client_say_cb)(void *, int, const char *);

struct client {
	const char		*db_path;	/* --db, else NULL */
	const char		*tools_path;	/* --tools, else NULL */
	int			 verbose;
	int			 no_mouse;	/* --no-mouse (the console) */
	struct store		*store;		/* opened by client_store() */
	struct store_actor	 actor;
	struct flow_tools	*tools;		/* loaded by client_tools() */
	struct flow_tools	*site;		/* config.json defaults */
	struct notify_config	*notify;	/* config.json notify */
	struct authority_site	 authority;	/* the site's policy */
	struct secret_rule	*secrets;	/* config.json secrets */
	size_t			 nsecrets;
	char			*tools_file;	/* client_engine_opts: in use */
	char			*config_file;	/* client_engine_opts: site's */
	client_say_cb		 say;		/* NULL: stderr */
	void			*say_arg;
};

/* client.c: a client's settings, its database and its messages. */
void		 client_free(struct client *);
void		 client_message(const char *, const char *, va_list)
		     printflike(2, 0);
void		 client_error(const struct client *, const char *, ...)
		     printflike(2, 3);
void		 client_warn(const struct client *, const char *, ...)
		     printflike(2, 3);
int		 client_exit_code(int);
int		 client_store_fail(struct client *, int, char *);
#define CLIENT_NAME_TEMPLATE	0
#define CLIENT_NAME_SCHEDULE	1
int		 client_name_fail(struct client *, int, char *, int,
		     const char *);
const char	*client_suggest(const char *, const char *const *, size_t);
#define CLIENT_STORE_ANY	2	/* writable if it can be */
#define CLIENT_STORE_CREATE	0x4	/* may create the default path */
int		 client_store(struct client *, int);
int		 client_db_named(const struct client *);
char		*client_db_path(const struct client *);
int		 client_db_resolve(const struct client *, char **);
int		 client_tools(struct client *, const struct flow_tools **);
char		*client_tools_file(const struct client *);
void		 client_diags_print(struct client *, const struct flow_diags *,
		     const char *);
struct flow_doc	*client_doc_parse(struct client *, const char *, size_t,
		     const struct flow_tools *, const char *,
		     struct flow_diags **);

/* config.c: config.json, into an engine's settings. */
int		 client_config(struct client *, struct engine_opts *);
void		 client_config_files(char **, char **);
char		*client_config_site_path(void);
int		 client_config_read(const struct client *, const char *,
		     struct cJSON **);
/* config-cluster.c: "database", "cluster" and this node's name. */
int		 client_config_cluster(struct client *, const char *,
		     const struct cJSON *, struct engine_opts *);
int		 client_config_database(const struct client *, char **);
int		 client_engine_opts(struct client *, struct engine_opts *);
int		 client_config_secrets(struct client *, const char *,
		     const struct cJSON *);
void		 client_config_secrets_free(struct client *);
void		 client_secret_rules_free(struct secret_rule *, size_t);

/*
 * transport.c: how a request reaches the engine.  Over its socket
 * (DB.sock) when one answers; else, when the database is not ours to
 * write, nowhere (service mode, its engine stopped); else through the
 * inbox of an engine that runs without a socket; else this process
 * becomes the engine for one command and applies it (reply.offline).
 */
#define CLIENT_LOST	2	/* sent; the engine went away unanswering */
#define CLIENT_DENIED	3	/* the socket is not ours to connect to */
char		*client_sock_path(const char *);
/* read-link.c: the store reads through the engine where it may not open */
void		 client_read_link(void);
void		 client_read_link_wait(int);
int		 client_sock_connect(const char *);
int		 client_probe(struct store *);	/* 1: an engine runs */
int		 client_ask_sock(const char *, const struct store_actor *,
		     const struct engine_request *, struct engine_reply *,
		     char **);
int		 client_post(struct store *, const struct store_actor *,
		     const struct engine_request *, int64_t *, char **);
int		 client_submit(struct store *, const struct flow_tools *,
		     const struct engine_opts *, const struct store_actor *,
		     const struct engine_request *, struct engine_reply *,
		     char **);
void		 client_request_id(struct engine_request *, char *);
int		 client_ask(struct client *, const struct engine_request *,
		     struct engine_reply *);
int		 client_command(struct client *, const char *, int64_t, int64_t,
		     const char *, const char *, struct engine_reply *);
void		 client_offline_note(struct client *);

/* access.c: a database that is not open to us at all. */
int		 client_denied_errno(int);
int		 client_no_access(const struct client *, const char *);

/* outcome.c: what became of a request whose answer never came. */
#define CLIENT_OUTCOME_WAIT_MS	30000	/* for an engine to say what it did */
int		 client_outcome(struct client *, const char *, int64_t,
		     struct engine_reply *, char **);
int		 client_lost(struct client *, const char *, char *,
		     struct engine_reply *);
char		*client_outcome_words(const char *,
		     const struct engine_reply *);

/*
 * start.c: what starting a run takes.  The document is a flow file or a
 * template's name (what), or a flow's text named where; where also names
 * the run when nothing else does.
 */
struct client_start {
	const char		*what;
	const char		*text;
	size_t			 len;
	const char		*where;
	const struct cJSON	*input;		/* given values, NULL: none */
	const struct cJSON	*texts;		/* keys given as text, or NULL */
	const char		*name;		/* the run's name, NULL: default */
	const char		*at;		/* when to start, NULL: now */
};
int		 client_start(struct client *, const struct client_start *,
		     struct engine_request *);
void		 client_start_clear(struct engine_request *);
int		 client_run_is_file(const char *);
int		 client_run_check_name(struct client *, const char *);
char		*client_run_default_name(const char *);
int		 client_run_load(struct client *, const char *,
		     struct flow_doc **, struct store_template **);
int		 client_run_secrets_ok(struct client *, const struct flow_doc *,
		     const struct store_template *);
char		*client_run_request(const struct flow_doc *, const char *,
		     const char *, const struct store_template *, int64_t,
		     const struct cJSON *);
void		 client_secret_inputs_free(struct cJSON *);
int		 client_secret_inputs(const struct client *,
		     const struct flow_doc *, struct cJSON *, struct cJSON **);

/* step.c: naming a step, and its log. */
int		 client_step_target(struct client *, const char *,
		     struct engine_request *, struct cJSON *);
int		 client_step_kind(struct client *, int64_t, enum step_kind *);
int		 client_read_log(struct client *, int64_t, struct buf *);

/* check.c: a document checked without running it. */
int		 client_check(struct client *, const char *, size_t,
		     const struct flow_tools *, struct flow_doc **,
		     struct flow_diags **);
struct cJSON	*client_json_check(const struct flow_diags *, int);

/* template.c, subflow.c: changing a template. */
int		 client_template_save(struct client *, const char *,
		     const char *, size_t, const char *, int64_t *);
int		 client_template_request(struct client *, const char *,
		     const char *, int64_t, struct engine_reply *);
char		*client_subflow_loop(struct store *, const char *,
		     const struct flow_doc *);

/*
 * read-*.c: what a client reads, as structured answers (the JSON of
 * SPEC §10 and sluice(1) JSON OUTPUT); 0 or an exit status after saying
 * why not.  The client_json_* builders make them from store rows.
 */
int		 client_read_workflows(struct client *,
		     const struct store_workflow_filter *, struct cJSON **);
int		 client_read_workflow(struct client *, int64_t, struct cJSON **);
struct cJSON	*client_json_workflows(const struct store_workflow *, size_t);
struct cJSON	*client_json_workflow(const struct store_workflow *,
		     const struct store_step *, size_t);
void		 client_json_workflow_times(struct cJSON *,
		     const struct store_workflow *);
void		 client_json_workflow_conc(struct cJSON *,
		     const struct store_workflow *);
void		 client_json_workflow_family(struct cJSON *,
		     const struct store_workflow *);
int		 client_gate_list(struct store *, struct store_gate **,
		     size_t *, char **);
int		 client_read_gates(struct client *, struct cJSON **);
struct cJSON	*client_json_gates(const struct store_gate *, size_t);
int		 client_read_templates(struct client *, struct cJSON **);
int		 client_read_template(struct client *, const char *, int64_t,
		     struct cJSON **);
struct cJSON	*client_json_template(const struct store_template *, int);

#endif /* SLUICE_CLIENT_H */
