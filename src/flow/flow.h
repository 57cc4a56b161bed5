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
 * flow.h: the pure layer.  Flow documents are parsed from JSON into sluice's
 * own structs, validated with every problem reported at its JSON path,
 * conditions are parsed to an AST and evaluated against JSON values, and
 * {{...}} references are interpolated.  No I/O, no SQLite: only text in and
 * structs or diagnostics out, so all of it can be unit-tested and fuzzed.
 */

#ifndef SLUICE_FLOW_H
#define SLUICE_FLOW_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

struct cJSON;

/*
 * Diagnostics.  A path is a JSON path rooted at "$" ("$.start.branch[1].if");
 * line and column (1-based) are filled by flow_diags_locate() when the
 * source text is known, else 0.
 */
enum flow_severity {
	FLOW_ERROR,
	FLOW_WARNING
};

struct flow_diag {
	enum flow_severity	 severity;
	char			*path;
	int			 line;
	int			 col;
	char			*message;
	TAILQ_ENTRY(flow_diag)	 entry;
};
TAILQ_HEAD(flow_diags, flow_diag);

/* diag.c */
struct flow_diags	*flow_diags_create(void);
void		 flow_diags_free(struct flow_diags *);
void		 flow_diags_add(struct flow_diags *, enum flow_severity,
		     const char *, const char *, ...)
		     __attribute__((__format__(__printf__, 4, 5)));
void		 flow_diags_add_at(struct flow_diags *, int, int,
		     const char *, ...)
		     __attribute__((__format__(__printf__, 4, 5)));
int		 flow_diags_errors(const struct flow_diags *);
int		 flow_diags_warnings(const struct flow_diags *);
char		*flow_diag_format(const struct flow_diag *, const char *);
const char	*flow_suggest(const char *, const char *const *, size_t);
char		*flow_diags_first_error(const struct flow_diags *, const char *);

/* locate.c: fill line:col of each diagnostic from its path and the text. */
void		 flow_diags_locate(struct flow_diags *, const char *, size_t);

/* duration.c: "90s", "5m", "2h", "1d", "1h30m", "250ms", or seconds. */
#define FLOW_DURATION_MAX	(366LL * 24 * 3600 * 1000)	/* one year */
int		 flow_duration_parse(const char *, int64_t *, const char **);
int		 flow_duration_json(const struct cJSON *, int64_t *,
		     const char **);
const char	*flow_duration_format(int64_t, char *, size_t);
int		 flow_duration_unit_follows(int64_t, int64_t);

/* Why flow_duration_unit_follows refused a unit, for both grammars. */
#define FLOW_DURATION_ORDER_WHY \
	"units must go from larger to smaller, each once (as in \"1h30m\")"

/*
 * cond.c: branch conditions, parsed never evaluated as code.  The scope is a
 * JSON object whose members are the names a condition may use: "result",
 * "exit_code", "input", "steps", "workflow".
 */
struct cond;
struct cond	*cond_parse(const char *, char **);
int		 cond_eval(const struct cond *, const struct cJSON *);
void		 cond_free(struct cond *);
int		 cond_refs(const struct cond *, const char ***, size_t *);
int		 cond_reads(const struct cond *, const char *);

/*
 * interp.c: {{input.KEY}}, {{steps.STEP.result.FIELD}}, {{workflow.id}}...
 * The scope is {"input": ..., "steps": {NAME: {"result": ..., "exit_code":
 * ...}}, "workflow": {"id": ..., "name": ...}, "args": {...}}.  A reference
 * that is the whole string keeps its JSON type; inside a longer string it is
 * rendered as text; a missing one becomes "".
 */
struct cJSON	*interp_value(const struct cJSON *, const struct cJSON *);
char		*interp_text(const char *, const struct cJSON *);
const struct cJSON *interp_ref(const char *, const struct cJSON *);
char		*interp_ref_text(const char *);
char		*interp_json(const char *, const struct cJSON *);
typedef int	 (*interp_ref_cb)(const char *, const char *, void *);
int		 interp_refs(const struct cJSON *, const char *,
		     interp_ref_cb, void *);

/* A flow: the parsed form of SPEC §3.  Step references are indexes. */
enum flow_interrupt {
	FLOW_INTERRUPT_RETRY,
	FLOW_INTERRUPT_FAIL,
	FLOW_INTERRUPT_ASK
};

enum flow_join_policy {
	FLOW_JOIN_ALL_SUCCESS,
	FLOW_JOIN_ALL_DONE,
	FLOW_JOIN_COUNT
};

#define FLOW_DEFAULT_ATTEMPTS	3
#define FLOW_DEFAULT_NBACKOFF	3	/* waits in flow_default_backoff */
#define FLOW_DEFAULT_TIMEOUT	(120 * 1000)
#define FLOW_DEFAULT_MAX_VISITS	100

struct flow_kv {
	char	*key;
	char	*value;
};

/*
 * The DAG form (dag.c): a step's "depends_on" entries, each a step that
 * must have ended first and an optional condition on its result; with
 * "trigger": "all_done" the step starts whatever its dependencies' ends.
 */
enum flow_form {
	FLOW_FORM_STEPS,		/* next, branch, parallel, join */
	FLOW_FORM_DEPENDS,		/* some step says depends_on */
	FLOW_FORM_NODES			/* the DAG note's nodes and edges */
};

enum flow_trigger {
	FLOW_TRIGGER_ALL_SUCCESS,
	FLOW_TRIGGER_ALL_DONE
};

struct flow_dep {
	char		*ref;		/* as written */
	int		 target;	/* step index, -1 when unknown */
	char		*cond_src;	/* "if", NULL: none */
	struct cond	*cond;
	int		 edge;		/* nodes form: its edge, else -1 */
};

struct flow_branch {
	char		*cond_src;	/* NULL for the "else" arm */
	struct cond	*cond;
	char		*then;		/* as written */
	int		 target;	/* step index, -1 when unknown */
};

/*
 * The one definition of the default waits between attempts (ms): the
 * parser fills a retry object without "backoff" from it and the engine
 * uses it when no retry object is set anywhere.
 */
extern const int64_t	flow_default_backoff[FLOW_DEFAULT_NBACKOFF];

struct flow_retry {
	int		 set;		/* 0: use the defaults */
	int		 max_attempts;
	int64_t		*backoff;	/* list form, in ms */
	size_t		 nbackoff;
	int64_t		 base;		/* exponential form, in ms */
	double		 factor;
	int64_t		 max;
	double		 jitter;
};

struct flow_gate {
	char		*message;
	char		**approvers;	/* user names and "@group" names */
	size_t		 napprovers;
	int		 quorum;	/* default 1 */
	int		 allow_self;	/* -1: site default */
	int		 agents;	/* decisions via MCP; -1: site default */
	int64_t		 timeout;	/* ms, -1 none */
	char		*on_timeout;	/* "reject" or a step reference */
	int		 on_timeout_target;	/* index, -1 for reject */
};

/*
 * A wait step's options (wait.c): who may finish it from outside ("by":
 * user names and "@group" names; none: the operator rule), and what its
 * timeout does ("fail", or a step started instead).
 */
struct flow_wait {
	char		*message;
	char		**by;
	size_t		 nby;
	int64_t		 timeout;	/* ms, -1 none */
	char		*on_timeout;	/* "fail" or a step reference */
	int		 on_timeout_target;	/* index, -1 for fail */
};

struct flow_foreach;

/*
 * "concurrency" on a run or a step (SPEC §13): at most limit runs (steps)
 * with the interpolated key in flight; the others queue, or are refused.
 */
struct flow_concurrency {
	char			*key;		/* as written; NULL: none */
	int			 limit;
	int			 refuse;	/* on_busy "refuse" */
};

struct flow_step {
	char			*key;		/* the member name in the flow */
	char			*name;		/* "name", else the key */
	char			*description;
	enum step_kind		 exec;
	char			*tool;
	char			**run;
	size_t			 nrun;
	char			*shell;
	char			*host;
	char			*cwd;
	struct flow_kv		*env;
	size_t			 nenv;
	char			*args_json;	/* compact JSON object, "{}" */
	char			*next;		/* as written, NULL none */
	int			 next_target;
	struct flow_branch	*branch;
	size_t			 nbranch;
	char			**parallel;	/* as written */
	int			*parallel_targets;
	size_t			 nparallel;
	char			*join;
	int			 join_target;
	enum flow_join_policy	 join_policy;
	int			 join_count;	/* FLOW_JOIN_COUNT */
	int			 done;
	struct flow_retry	 retry;
	int64_t			 timeout;	/* ms, -1: default */
	struct flow_gate	 gate;
	struct flow_wait	 wait;		/* KIND_WAIT */
	int64_t			 heartbeat;	/* ms of silence, -1: none */
	enum flow_interrupt	 on_interrupt;
	int			 max_visits;
	struct flow_foreach	*foreach;	/* a for-each step, or NULL */
	char			*workflow;	/* child template, NULL none */
	char			*input_json;	/* its input, NULL: {} */
	char			*when_src;	/* "when", NULL: always */
	struct cond		*when;
	struct flow_concurrency	 concurrency;	/* the object form */
	struct flow_dep		*deps;		/* "depends_on" */
	size_t			 ndeps;
	int			 has_deps;	/* "depends_on" given, even [] */
	enum flow_trigger	 trigger;
	int			 node;		/* nodes form: its index, or -1 */
	int			 beside;	/* a handler in a template's */
						/* wrapper: its path is "$.KEY" */
};

/* A sub-workflow chain deeper than this fails at run time (SPEC §3). */
#define FLOW_MAX_DEPTH		8

/*
 * A for-each step (SPEC §3): "do" runs once per item of "foreach", in
 * batches, a bounded number at once, with a failure budget.
 */
#define FLOW_FOREACH_MAX	10000	/* items in one for-each */
#define FLOW_FOREACH_BATCHES	100	/* entries in a "batch" list */

struct flow_batch {
	int		 count;		/* items, when percent is 0 */
	int		 percent;	/* of all items, 1 to 100 */
};

enum flow_budget {
	FLOW_BUDGET_FAIL,		/* stop starting items, fail the step */
	FLOW_BUDGET_ASK			/* stop, and a gate asks what next */
};

struct flow_foreach {
	char			*items_src;	/* "{{...}}", or NULL */
	char			*items_json;	/* a literal array, or NULL */
	struct flow_step	*body;		/* "do" */
	char			*label;		/* template, NULL: the item */
	int			 concurrency;	/* 0: no bound of its own */
	struct flow_batch	*batch;		/* NULL: one batch */
	size_t			 nbatch;
	int			 gated;		/* gate_between_batches */
	struct flow_gate	 gate;
	int			 max_failures;	/* count, when pct is -1 */
	int			 max_failures_pct;	/* percent, or -1 */
	enum flow_budget	 on_budget_spent;
};

struct flow {
	struct flow_step	*steps;		/* in document order */
	size_t			 nsteps;
	int			 start;		/* "start", else the first; -1 */
	char			*output_json;	/* "output", NULL none */
	int64_t			 deadline_ms;	/* "deadline", 0 none */
	struct flow_concurrency	 concurrency;	/* run-level, key NULL none */
	enum flow_form		 form;
	int			*order;		/* DAG: steps, dependencies first */
	size_t			 norder;	/* (every step but the handlers) */
	int			 on_failure;	/* its step index, -1 none */
	int			 finally;	/* its step index, -1 none */
};

/*
 * handler.c: the run-level handlers, "on_failure" and "finally": steps
 * of the flow (after the others) that nothing leads to; the engine starts
 * them when the run would end.
 */
#define FLOW_ON_FAILURE	"on_failure"
#define FLOW_FINALLY	"finally"
int		 flow_handler_key(const char *);
const char	*flow_handler_of(const struct flow *, int);
size_t		 flow_handler_count(const struct flow *);
const char	*flow_handler_title(const char *, const char *, char *,
		     size_t);

/* A tools catalog (tools.json) plus the built-ins. */
struct flow_tool {
	char			*name;
	char			*description;
	int			 builtin;
	char			**run;		/* may hold {{args.KEY}} */
	size_t			 nrun;
	char			*shell;
	char			*host;
	struct flow_kv		*env;
	size_t			 nenv;
	int64_t			 timeout;	/* ms, -1: default */
	int64_t			 heartbeat;	/* ms, 0: none (a step's wins) */
	struct flow_retry	 retry;
	int			 mcp;		/* run starts an MCP server */
	char			*mcp_tool;	/* the server's tool to call */
	struct flow_kv		*mcp_env;	/* parsing only: into env */
	size_t			 nmcp_env;
};

struct flow_tools {
	struct flow_tool	*tools;
	size_t			 ntools;
};

/* concurrency.c: the "concurrency" object of a run or a step. */
void		 flow_concurrency_parse(struct flow_concurrency *,
		     const struct cJSON *, const char *, struct flow_diags *);
void		 flow_concurrency_clear(struct flow_concurrency *);
char		*flow_concurrency_key(const struct flow_concurrency *,
		     const struct cJSON *, char **);

/* parse.c: structure and types; references resolved to indexes. */
struct flow	*flow_parse(const char *, size_t, struct flow_diags *);
struct flow	*flow_from_json(const struct cJSON *, const char *,
		     struct flow_diags *);
int		 flow_find(const struct flow *, const char *);
void		 flow_free(struct flow *);

/*
 * policy.c: the policy a gate's or a wait step's row keeps, fixed when it
 * starts waiting: one writer, one strict reader (an unknown key or a
 * wrong type is an error at its JSON path, never a default).
 */
enum flow_policy_foreach {
	FLOW_POLICY_NOT_FOREACH,
	FLOW_POLICY_BATCH,		/* a for-each's gate before a batch */
	FLOW_POLICY_BUDGET		/* a for-each's failure budget spent */
};
struct flow_policy {
	enum step_kind	 kind;		/* KIND_GATE or KIND_WAIT */
	char		*message;	/* interpolated; NULL: none */
	char		**approvers;	/* a gate's; none: anyone */
	size_t		 napprovers;
	char		**by;		/* a wait step's; none: see operators */
	size_t		 nby;
	int		 quorum;	/* distinct approvals needed, 1.. */
	int		 allow_self;	/* -1: not stored, the site's default */
	int		 agents;	/* -1: not stored, the site's default */
	int		 operators;	/* only the site's operators may */
	int		 interrupted;	/* made by recovery for a lost step */
	int64_t		 timeout_ms;	/* -1: none */
	char		*on_timeout;	/* "reject" or a step; NULL: none */
	enum flow_policy_foreach foreach;
	int		 batch;		/* FLOW_POLICY_BATCH: before batch N */
};
void		 flow_policy_init(struct flow_policy *, enum step_kind);
void		 flow_policy_free(struct flow_policy *);
char		*flow_policy_write(const struct flow_policy *);
int		 flow_policy_read(const char *, enum step_kind,
		     struct flow_policy *, char **);
char		*flow_policy_unreadable(const char *);

/* kind.c: what a step names to run (its tool, its template), or NULL. */
const char	*flow_step_target(const struct flow_step *);

/*
 * scope.c: the scope interpolation and conditions read (input, workflow,
 * steps), for the engine and the console's preview alike.  A finished
 * step row as it enters the scope:
 */
struct flow_scope_step {
	const char	*step_key;
	const char	*result_json;	/* NULL: null */
	enum step_status status;
	int		 has_exit_code;
	int		 exit_code;
};

struct cJSON	*flow_scope_create(struct cJSON *, int, int64_t,
		     const char *);
void		 flow_scope_add(struct cJSON *, const struct flow *,
		     const struct flow_scope_step *);
void		 flow_scope_ending(struct cJSON *, const char *,
		     const char *);
int		 flow_branch_pick(const struct flow_step *, struct cJSON *,
		     const char *, int, int);

/*
 * Which top-level members of the input a flow may read outside its
 * for-each items (which are read once, from the whole input, when the
 * for-each starts): the engine keeps only those parsed while the run
 * goes on.
 */
struct flow_input_use {
	int		 all;		/* reads the input whole */
	char		**keys;		/* else: members it may read */
	size_t		 nkeys;
};
struct flow_input_use *flow_input_use(const struct flow *, const char *,
		     const struct flow_tools *);
void		 flow_input_use_free(struct flow_input_use *);
struct cJSON	*flow_input_parse(const char *,
		     const struct flow_input_use *);

/*
 * dag.c: the DAG form's readiness rule, for the engine and the console.
 * A dependency as the rule sees it: how its latest row ended, its result.
 */
enum flow_dag_verdict {
	FLOW_DAG_WAIT,			/* a dependency has not ended */
	FLOW_DAG_START,
	FLOW_DAG_SKIP,			/* why says which dependency */
	FLOW_DAG_FAIL			/* a dependency failed */
};
struct flow_dag_end {
	int		 ended;		/* done, skipped or failed */
	enum step_status status;
	const char	*result_json;	/* NULL: null */
	int		 has_exit_code;
	int		 exit_code;
};
enum flow_dag_verdict flow_dag_decide(const struct flow *, int,
		     const struct flow_dag_end *, struct cJSON *, char **);
int		 flow_dag_tolerated(const struct flow *, int);
int		 flow_dag_judged(const struct flow *, int);
unsigned char	*flow_dag_downstream(const struct flow *, int);
char		*flow_dag_after(const struct flow *, int);

/* join.c: each fan-out step's join (-1 for others), nsteps + 1 ints. */
int		*flow_joins(const struct flow *);
int		 flow_join_reached(const struct flow *, int, int *);

/*
 * rerun.c: the retry rules the engine acts on and the console previews.
 * A step row as they see it; callers fill these from their rows, every
 * row of the workflow in id order.
 */
struct flow_row {
	int64_t		 id;
	int64_t		 parent_id;	/* the row whose end made it, 0 */
	int64_t		 fanout_id;	/* the fan-out row of its branch, 0 */
	int64_t		 item_of;	/* for-each items and gates: its row */
	int64_t		 items;		/* a for-each row: its items, else 0 */
	int		 item_index;	/* an item's, 0..; -1: not an item */
	const char	*step_key;
	enum step_status status;
	int		 branch_end;	/* it ended a join-failed branch */
};

int		 flow_retry_refusal(int64_t, enum run_status, int, char **);
int		 flow_retry_from(const struct flow *, const struct flow_row *,
		     size_t, int64_t, const char *, size_t *, char **);
size_t		 flow_retry_plan(const struct flow *, const int *,
		     const struct flow_row *, size_t, size_t,
		     unsigned char *);
int		 flow_rerun_leaf(const struct flow *, const struct flow_row *,
		     size_t, size_t);
size_t		 flow_dag_retry_plan(const struct flow *,
		     const struct flow_row *, size_t, size_t,
		     unsigned char *);

/*
 * foreach.c: for-each arithmetic shared by check and the engine: the
 * batches over n items (each batch's end index), the failure budget as a
 * count, and an item's label (NULL with a reason when it has none usable).
 * The retry at a spent budget, shared by the engine and the console's
 * preview of it: which waiting row is the budget's gate, which items run
 * again (by their latest row's status), and those items among a
 * workflow's rows.
 */
size_t		 flow_foreach_batches(const struct flow_foreach *, size_t,
		     size_t **);
int		 flow_foreach_budget(const struct flow_foreach *, size_t);
int		 flow_foreach_budget_gate(enum step_status, int64_t, int,
		     const char *);
int		 flow_foreach_budget_again(enum step_status);
size_t		 flow_foreach_budget_plan(const struct flow_row *, size_t,
		     size_t, unsigned char *);
char		*flow_foreach_label(const struct flow_foreach *,
		     const struct cJSON *, const struct cJSON *, char **);
int		 flow_foreach_items(const struct flow_foreach *,
		     const struct cJSON *, const char *, struct flow_diags *);

/*
 * A for-each's items walked one at a time: from a parsed array, or from
 * an array's JSON text, each element parsed only while it is looked at
 * (the engine reads 10,000 hosts from a run's input so).
 */
struct flow_items {
	const struct cJSON	*array;		/* parsed, or NULL */
	const char		*text;		/* else the array's text */
	const char		*end;
	const struct cJSON	*c;		/* walking: the next element */
	const char		*p;
	struct cJSON		*own;		/* the element parsed last */
	size_t			 n;		/* counted, or (size_t)-1 */
	int			 bad;		/* the text is malformed */
};
void		 flow_items_array(struct flow_items *, const struct cJSON *);
void		 flow_items_text(struct flow_items *, const char *,
		     const char *);
size_t		 flow_items_count(struct flow_items *);
void		 flow_items_rewind(struct flow_items *);
const struct cJSON *flow_items_next(struct flow_items *);
void		 flow_items_free(struct flow_items *);
int		 flow_foreach_walk(const struct flow_foreach *,
		     struct flow_items *, const char *, struct flow_diags *);

/*
 * How a for-each stands, from its item rows (oldest first: an item is its
 * latest row), for show and the console.
 */
struct flow_foreach_tally {
	int		 n;		/* items */
	int		 done;		/* done or skipped */
	int		 failed;
	int		 running;	/* started, or retrying */
	int		 waiting;	/* not started yet */
	int		 cancelled;
	int		 batch;		/* under way (1-based), or the last */
	int		 nbatches;
	int		 budget;	/* failures allowed */
};
struct flow_foreach_row {
	int		 index;
	int		 attempt;
	enum step_status status;
};
void		 flow_foreach_tally(const struct flow_foreach *, int,
		     const struct flow_foreach_row *, size_t,
		     struct flow_foreach_tally *);

/*
 * check.c: the graph: reachability, joins, tools, references in args,
 * gate messages and conditions (inputs against the document's declared
 * ones, when it declares any).
 */
struct flow_doc;
void		 flow_check(const struct flow_doc *, const struct flow_tools *,
		     const char *, struct flow_diags *);

/* tools.c */
struct flow_tools *flow_tools_parse(const char *, size_t,
		     struct flow_diags *);
const struct flow_tool *flow_tools_find(const struct flow_tools *,
		     const char *);
void		 flow_tools_free(struct flow_tools *);
const char	*flow_tools_missing(const struct flow *,
		     const struct flow_tools *, const char **);

/*
 * input.c: a declared input and what values it allows (JSON Schema's
 * keywords); flow_input_check is the one check of a value for it.
 */
enum flow_input_type {
	FLOW_INPUT_ANY,			/* no "type" */
	FLOW_INPUT_STRING,
	FLOW_INPUT_INTEGER,
	FLOW_INPUT_NUMBER,
	FLOW_INPUT_BOOLEAN,
	FLOW_INPUT_ARRAY,
	FLOW_INPUT_OBJECT
};
struct flow_input_rule {
	enum flow_input_type	 type;
	char			*enum_json;	/* the values allowed, or NULL */
	char			*pattern;	/* POSIX ERE matched whole */
	double			 minimum;
	double			 maximum;
	int			 has_minimum;
	int			 has_maximum;
	int64_t			 min_length;	/* -1: none */
	int64_t			 max_length;	/* -1: none */
	struct flow_input_rule	*items;		/* each element's, or NULL */
};
struct flow_input {
	char			*key;
	char			*description;
	char			*default_json;	/* NULL: no default */
	int			 required;
	int			 secret;	/* "secret": true (SPEC §13) */
	struct flow_input_rule	 rule;
};
const char	*flow_input_type_name(enum flow_input_type);
void		 flow_input_declare(struct flow_input *, const struct cJSON *,
		     const char *, struct flow_diags *);
void		 flow_input_free(struct flow_input *);
int		 flow_input_check(const struct flow_input *, struct cJSON **,
		     int, char **);

/* input-schema.c: declared inputs as JSON Schema, and as words. */
struct flow_doc;
struct cJSON	*flow_doc_input_schema(const struct flow_doc *);
char		*flow_input_rule_text(const struct flow_input *);

/* doc.c: a template document is a flow, or {description, inputs, flow}. */

struct flow_doc {
	int			 is_template;	/* had the wrapper form */
	char			*description;
	struct flow_input	*inputs;
	size_t			 ninputs;
	struct flow		*flow;
	char			*flow_json;	/* the flow object, compact */
	char			*inputs_json;	/* the inputs object, or NULL */
	int64_t			 sla_ms;	/* the wrapper's "sla", 0 none */
	char			**operators;	/* who alone may act on its runs */
	size_t			 noperators;	/* 0: the site's rule alone */
};

struct flow_doc	*flow_doc_parse(const char *, size_t, const struct flow_tools *,
		     struct flow_diags *);
char		*flow_doc_input(const struct flow_doc *, const struct cJSON *,
		     char **);
char		*flow_doc_input_text(const struct flow_doc *,
		     const struct cJSON *, const struct cJSON *, char **);
void		 flow_doc_free(struct flow_doc *);

/* secret.c: where secrets may be named (only env values), and which. */
int		 flow_secret_name_ok(const char *);
void		 flow_secret_check(const struct cJSON *, const struct flow_doc *,
		     struct flow_diags *);
void		 flow_secret_refs(const struct cJSON *, char ***, size_t *);

#endif /* SLUICE_FLOW_H */
