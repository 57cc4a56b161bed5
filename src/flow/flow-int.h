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
 * flow-int.h: helpers shared by the files of the flow layer only: building
 * JSON paths, duplicate-key checks, retry objects and name suggestions.
 * Nothing outside src/flow/ includes this.
 */

#ifndef SLUICE_FLOW_INT_H
#define SLUICE_FLOW_INT_H

#include "util/util.h"
#include "flow/flow.h"

/* diag.c: "$.a" + "b" -> "$.a.b",
		     or "$.a[\"odd key\"]"; "$.a" + 2 -> "$.a[2]". */
char		*flow_path_key(const char *, const char *);
char		*flow_path_index(const char *, size_t);
void		 flow_path_add_key(struct buf *, const char *);

/* diag.c: report members that appear twice in any object under a value. */
void		 flow_json_dups(struct cJSON *, const char *,
		     struct flow_diags *);

/* diag.c: typed member checks that report at the member's path. */
int		 flow_json_int(const struct cJSON *, const char *, int64_t,
		     int64_t, int64_t *, struct flow_diags *);
char		*flow_json_string(const struct cJSON *, const char *, int,
		     struct flow_diags *);
char		**flow_json_strings(const struct cJSON *, const char *,
		     size_t *, struct flow_diags *);
void		 flow_strings_free(char **, size_t);

/* input.c: a number as people write it (3, 1.5), for messages. */
void		 flow_input_number(struct buf *, double);

/* diag.c: the closest name within edit distance 2, or NULL. */
const char	*flow_suggest(const char *, const char *const *, size_t);

/* diag.c: an unknown field at its path, with the closest known name. */
void		 flow_diags_unknown(struct flow_diags *, const char *,
		     const char *, const char *const *, size_t, const char *);

/* diag.c: the position of a JSON syntax error from json_parse's cause. */
void		 flow_diags_add_json(struct flow_diags *, const char *);

/* parse.c: a document's text as a JSON object, or NULL after saying why. */
struct cJSON	*flow_json_document(const char *, size_t, const char *,
		     const char *, struct flow_diags *);

/* retry.c: retry objects, shared with the tools catalog. */
void		 flow_retry_parse(const struct cJSON *, const char *,
		     struct flow_retry *, struct flow_diags *);
void		 flow_retry_free(struct flow_retry *);

/* step.c: env objects, shared with the tools catalog. */
void		 flow_env_parse(const struct cJSON *, const char *,
		     struct flow_kv **, size_t *, struct flow_diags *);
void		 flow_env_free(struct flow_kv *, size_t);

/* step.c: one step object (a flow's, or a for-each's "do"). */
void		 flow_step_parse(struct flow_step *, const struct cJSON *,
		     const char *, const char *, struct flow_diags *);
void		 flow_step_free(struct flow_step *);

/* gate.c: gate options (a gate step's, or a for-each's between batches). */
void		 flow_gate_parse(struct flow_gate *, const struct cJSON *,
		     const char *, struct flow_diags *);

/* kind.c: the fields each kind of step forbids. */
#define FLOW_KIND_BIT(k)	(1u << (k))
enum step_kind	 flow_kind_select(unsigned, const char *,
		     struct flow_diags *);
void		 flow_kind_keys(struct buf *);
void		 flow_kind_check(const struct flow_step *, const char *,
		     struct flow_diags *);

/* wait.c: a wait step's options, and what it may not also have. */
void		 flow_wait_init(struct flow_wait *);
void		 flow_wait_parse(struct flow_wait *, const struct cJSON *,
		     const char *, struct flow_diags *);
void		 flow_wait_finish(const struct flow_step *, const char *,
		     struct flow_diags *);
void		 flow_wait_free(struct flow_wait *);

/* foreach.c: the for-each fields of a step, and their checks. */
void		 flow_foreach_field(struct flow_step *, const struct cJSON *,
		     const char *, struct flow_diags *);
void		 flow_foreach_finish(struct flow_step *, const char *,
		     struct flow_diags *);
void		 flow_foreach_free(struct flow_foreach *);

/* cond.c, cond-eval.c: a parsed condition, as a tree of nodes. */
enum cond_kind {
	COND_OR,
	COND_AND,
	COND_NOT,
	COND_CMP,
	COND_LIT,
	COND_PATH
};

enum cond_lit {
	COND_LIT_NULL,
	COND_LIT_TRUE,
	COND_LIT_FALSE,
	COND_LIT_NUMBER,
	COND_LIT_STRING
};

enum cond_op {
	COND_EQ,
	COND_NE,
	COND_LT,
	COND_LE,
	COND_GT,
	COND_GE
};

struct cond_node {
	enum cond_kind		  kind;
	enum cond_op		  op;
	struct cond_node	**kids;		/* or, and, not, cmp */
	size_t			  nkids;
	size_t			  kidsalloc;
	enum cond_lit		  lit;
	double			  number;
	char			 *string;
	char			**segs;		/* path */
	size_t			  nsegs;
};

struct cond {
	struct cond_node	 *root;
	char			**refs;
	size_t			  nrefs;
};

/* interp.c: longest dotted-run lookup shared with conditions. */
const struct cJSON *flow_json_lookup(const struct cJSON *, char **,
		     size_t);

/* dag.c: the DAG form's fields, and its checks once all steps are read. */
void		 flow_dag_field(struct flow_step *, const struct cJSON *,
		     const char *, struct flow_diags *);
void		 flow_dag_add(struct flow_step *, const struct flow_dep *);
char		*flow_step_path(const char *, const struct flow_step *,
		     const char *);
void		 flow_dag_free(struct flow_step *);
void		 flow_dag_finish(struct flow *, const char *,
		     struct flow_diags *);

/* nodes.c: the DAG note's {"nodes": [...], "edges": [...]} document. */
int		 flow_nodes_is(const struct cJSON *);
void		 flow_nodes_parse(struct flow *, const struct cJSON *,
		     const char *, struct flow_diags *);

/* parse.c */
void	 parse_names(struct flow *, const char *, struct flow_diags *);
void	 parse_resolve_all(struct flow *, const char *, struct flow_diags *);
int	 parse_span(const struct cJSON *, const char *, const char *,
	     int64_t *, struct flow_diags *);
void	 parse_deadline(struct flow *, const struct cJSON *, const char *,
	     struct flow_diags *);

/* handler.c: a handler's step object, added after the flow's steps. */
void	 flow_handler_parse(struct flow *, const struct cJSON *,
	     const char *, const char *, struct flow_diags *);

#endif /* SLUICE_FLOW_INT_H */
