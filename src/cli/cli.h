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
 * cli.h: the command line.  Each command is one file exporting one const
 * struct cli_cmd, registered in the table in cli.c.  The entry declares
 * the command's options (.opts, a struct cli_opt list), its argument
 * count (.args_min, .args_max), what each argument is for completion
 * (.complete) and .run; cli.c parses the command line against it once
 * (args.c), so --help, usage, completion and errors come from the same
 * table.  .run reads its options with cli_args_has/get/next by long
 * name.  Commands print "sluice: <reason>" on stderr and return the exit
 * codes of SPEC §10.
 */

#ifndef SLUICE_CLI_H
#define SLUICE_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <wchar.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "client/client.h"

/*
 * An option a command takes, declared in its table entry (tmux's args
 * template): cli.c parses every command line once against it, so usage,
 * --help, completion and the parser never disagree.  An option list ends
 * with an entry whose name is NULL.
 */
struct cli_opt {
	const char	*name;		/* long name, without "--" */
	int		 letter;	/* short letter, or 0 */
	const char	*value;		/* its value's name ("N"), NULL: flag */
	int		 flags;
#define CLI_OPT_MANY	 0x1		/* may be given more than once */
#define CLI_OPT_REQUIRED 0x2		/* must be given */
#define CLI_OPT_HIDDEN	 0x4		/* not in usage, help or completion */
#define CLI_OPT_SHORT	 0x8		/* only -LETTER; name is for lookups */
	const char	*help;		/* one line for --help */
};

/* One option given on the command line, in the order given. */
struct cli_arg {
	const struct cli_opt	*opt;
	const char		*value;	/* NULL for a flag */
};

/* A command line parsed against a command's table entry. */
struct cli_args {
	const struct cli_cmd	*cmd;
	struct cli_arg		*opts;
	size_t			 nopts;
	char			**argv;	/* the arguments that are not options */
	int			 argc;
};

#define CLI_ARGS_ANY	-1		/* args_max: no upper bound */

struct cli_cmd {
	const char	*name;		/* "list", or "template show" */
	const char	*usage;		/* the arguments, e.g. "ID" */
	const char	*summary;	/* one line for --help */
	const char	*help;		/* notes for NAME --help, or NULL */
	const struct cli_opt *opts;	/* with .run: its options, or NULL */
	int		 args_min;	/* with .run: how many arguments */
	int		 args_max;	/* ... or CLI_ARGS_ANY */
	const struct cli_cmd *subs;	/* subcommands, ending with no name */
	const char	*complete;	/* what each argument is, for completion:
					   words of workflow, step, gate,
					   template, schedule, file, command,
					   shell; the last repeats */
	int		 hidden;	/* not in help or completion */
	int		 flags;		/* CLI_CMD_F_* */
	int		 (*run)(struct client *, const struct cli_args *);
};
#define CLI_CMD_F_STEP	0x1	/* its argument is a step id */
#define CLI_CMD_F_ITEM	0x2	/* with --step, its argument is a step id */

extern const struct cli_cmd cli_cmd_check;
extern const struct cli_cmd cli_cmd_run;
extern const struct cli_cmd cli_cmd_list;
extern const struct cli_cmd cli_cmd_show;
extern const struct cli_cmd cli_cmd_gates;
extern const struct cli_cmd cli_cmd_audit;
extern const struct cli_cmd cli_cmd_request;
extern const struct cli_cmd cli_cmd_template;
extern const struct cli_cmd cli_cmd_approve;
extern const struct cli_cmd cli_cmd_reject;
extern const struct cli_cmd cli_cmd_cancel;
extern const struct cli_cmd cli_cmd_retry;
extern const struct cli_cmd cli_cmd_skip;
extern const struct cli_cmd cli_cmd_complete;
extern const struct cli_cmd cli_cmd_fail;
extern const struct cli_cmd cli_cmd_pause;
extern const struct cli_cmd cli_cmd_resume;
extern const struct cli_cmd cli_cmd_log;
extern const struct cli_cmd cli_cmd_engine;
extern const struct cli_cmd cli_cmd_schedule;
extern const struct cli_cmd cli_cmd_init;
extern const struct cli_cmd cli_cmd_backup;
extern const struct cli_cmd cli_cmd_status;
extern const struct cli_cmd cli_cmd_prune;
extern const struct cli_cmd cli_cmd_mcp;
extern const struct cli_cmd cli_cmd_help;
extern const struct cli_cmd cli_cmd_completion;
extern const struct cli_cmd cli_cmd_complete_words;

/* cli.c */
extern const struct cli_cmd *const cli_cmds[];
const struct cli_cmd *cli_find(const char *);
int		 cli_dispatch(struct client *, int, char **);
int		 cli_cmd_exec(struct client *, const struct cli_cmd *, int,
		     char **);
int		 cli_unknown(const struct cli_cmd *, const char *);

/* help.c */
void		 cli_help_top(FILE *);
void		 cli_error(const char *, ...) printflike(1, 2);
void		 cli_warn(const char *, ...) printflike(1, 2);
int		 cli_usage(const struct cli_cmd *);
void		 cli_print_help(const struct cli_cmd *, FILE *);
int		 cli_wants_help(int, char **);

/* args.c: parse a command line against a command's option table. */
int		 cli_args_parse(const struct cli_cmd *, int, char **,
		     struct cli_args *);
void		 cli_args_free(struct cli_args *);
int		 cli_args_has(const struct cli_args *, const char *);
const char	*cli_args_get(const struct cli_args *, const char *);
int		 cli_cmd_takes(const struct cli_cmd *, const char *);
const char	*cli_args_next(const struct cli_args *, const char *,
		     size_t *);
char		*cli_args_usage(const struct cli_cmd *);
void		 cli_args_help(const struct cli_cmd *, FILE *);
const struct cli_cmd *cli_sub_find(const struct cli_cmd *, const char *);
int		 cli_parse_id(const char *, int64_t *);
int		 cli_parse_limit(const char *, int64_t *);

/* input.c: -i KEY=VAL (a string), -i KEY:=JSON, --input FILE.json */
struct cJSON;
int		 cli_input_pair(struct cJSON *, struct cJSON *, const char *,
		     char **);
int		 cli_input_file(struct cJSON *, const char *, char **);
struct cJSON	*cli_input_args(const struct cli_args *, struct cJSON **);

/*
 * status.c, status-cluster.c: "sluice status"; a cluster's part (a
 * server's database): its leader, its nodes and their problems.
 */
struct store_lease;
struct store_node;
struct status_cluster {
	char			*node;		/* this node's name */
	int			 held;		/* a node holds the lock */
	int			 local;		/* this node's engine runs */
	int			 member;	/* this host is a node */
	int			 stopped;	/* on purpose, says its row */
	struct store_node	*nodes;
	size_t			 nnodes;
	const struct store_node	*leader;	/* its row, or NULL */
	int64_t			 accounts;	/* refused: accounts differ */
	char			*accounts_last;	/* the newest one's reason */
};
void		 status_problem_add(char ***, size_t *, const char *, ...)
		     printflike(3, 4);
int		 status_cluster_read(struct client *,
		     const struct store_lease *, struct status_cluster *,
		     char **);
void		 status_cluster_check(const struct status_cluster *, char ***,
		     size_t *);
void		 status_cluster_print(const struct status_cluster *,
		     const struct store_lease *);
void		 status_cluster_json(struct cJSON *,
		     const struct status_cluster *,
		     const struct store_lease *);
void		 status_cluster_free(struct status_cluster *);

/* output.c */
void		 cli_json_out(struct cJSON *);	/* prints pretty, frees */

/* log-json.c: "sluice log --json", a document or (-f) a line a line. */
struct cli_log_json;
struct store_step;
struct store_log;
struct cli_log_json *cli_log_json_create(const struct store_step *, int);
void		 cli_log_json_add(struct cli_log_json *,
		     const struct store_log *, size_t);
void		 cli_log_json_end(struct cli_log_json *);
void		 cli_log_json_free(struct cli_log_json *);
size_t		 cli_text_char(const char *, mbstate_t *, int *);
int		 cli_text_width(const char *);

/* table.c: columns sized from the rows; cut with "…" on a narrow tty. */
struct cli_table;
struct cli_table *cli_table_create(const char *const *, size_t);
void		 cli_table_flex(struct cli_table *, const char *);
void		 cli_table_add(struct cli_table *, const char *const *);
void		 cli_table_print(struct cli_table *, const char *);
void		 cli_table_free(struct cli_table *);
void		 cli_printf(const char *, ...) printflike(1, 2);
const char	*cli_ago(int64_t, char *, size_t);
int		 cli_stdout_close(int);

/* run.c: shared by "run" and "template run". */
struct cli_run_opts {
	const char	*what;		/* FLOW.json path or template name */
	struct cJSON	*input;		/* object, owned by caller */
	struct cJSON	*texts;		/* keys given as text, or NULL */
	const char	*name;		/* --name, or NULL */
	const char	*at;		/* --at WHEN, or NULL */
	int		 wait;		/* --wait */
};
int		 cli_run_start(struct client *, const struct cli_run_opts *);
extern const struct cli_opt cli_run_options[];
int		 cli_run_args(struct client *, const struct cli_args *,
		     const char *);

/* wait.c: "run --wait": drive the run as the engine, or follow one. */
struct engine_request;
struct engine_reply;
struct engine_opts;
int		 cli_run_wait(struct client *, const struct engine_request *);

/* submit.c */
int		 cli_submit(struct client *, const struct engine_request *,
		     struct engine_reply *, int);
int		 cli_reply(struct client *, struct engine_reply *, int);
int		 cli_submit_action(struct client *, const char *, int64_t,
		     int64_t, const char *, const char *);


/* authorize.c: the authority rule for what the CLI writes itself. */
int		 cli_authorize(struct client *, const char *, const char *);

/* template.c: template names, shared with editor.c. */
int		 cli_template_check_name(const char *, char **);

/* template-versions.c */
int		 cli_template_history(struct client *,
		     const struct cli_args *);
int		 cli_template_diff(struct client *, const struct cli_args *);

/* console.c: sluice with no command. */
int		 cli_console(struct client *);

/* editor.c: "template edit", like crontab -e. */
int		 cli_template_edit(struct client *, const char *);

#endif /* SLUICE_CLI_H */
