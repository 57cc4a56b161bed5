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
 * runner.c: the engine's table of step kinds, one row per kind (as
 * tmux's cmd_entry and window_mode tables): which runner starts a step
 * of the kind, or, for a kind decided from outside, the policy its
 * waiting row keeps and what is done when it starts waiting.  A runner
 * (struct engine_runner, each in its own file: exec.c processes,
 * tool-mcp.c MCP servers, builtin.c the built-in tools, child.c
 * sub-workflows) starts a step, takes its output, sees its process end
 * and stops it; the rest of the engine calls through it and never asks
 * a step's kind.
 *
 * A new kind is one row in each table plus its own file: its word in
 * util/kind.c (and enum step_kind), the fields it forbids in
 * flow/kind.c and the key that selects it (kind_keys there), a
 * row here, and its runner in a file of its own.
 */

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static const struct engine_runner *engine_pick_tool(struct engine *,
		     const struct flow_step *, const struct flow_tool **);
static const struct engine_runner *engine_pick_process(struct engine *,
		     const struct flow_step *, const struct flow_tool **);
static const struct engine_runner *engine_pick_child(struct engine *,
		     const struct flow_step *, const struct flow_tool **);
static void	 engine_unknown_start(struct engine *, struct estep *,
		     const struct flow_tool *, const char *, struct cJSON *);

/* A tool step naming a tool the catalog lacks: it fails as it starts. */
static const struct engine_runner engine_runner_unknown = {
	.name = "unknown tool",
	.start = engine_unknown_start
};

/*
 * What each kind of step is to the engine.  pick: the runner of a step
 * of the kind (NULL: it never runs, it is decided from outside); policy
 * and waiting: for such a kind, its row's policy (gate_json) and what
 * starting to wait does; catalog: its settings may come from a catalog
 * tool (timeout, retry, heartbeat); process: a running row of the kind
 * may have left processes behind it (recovery looks for them).
 */
static const struct engine_kind {
	const struct engine_runner *(*pick)(struct engine *,
			    const struct flow_step *,
			    const struct flow_tool **);
	char		*(*policy)(struct engine *, struct ewf *,
			    const struct flow_step *);
	void		 (*waiting)(struct engine *, struct ewf *,
			    const struct flow_step *, int64_t, int64_t);
	int		 catalog;
	int		 process;
} engine_kinds[KIND_N] = {
	[KIND_GATE] = { NULL, engine_gate_json, engine_gate_waiting, 0, 0 },
	[KIND_TOOL] = { engine_pick_tool, NULL, NULL, 1, 1 },
	[KIND_RUN] = { engine_pick_process, NULL, NULL, 0, 1 },
	[KIND_SHELL] = { engine_pick_process, NULL, NULL, 0, 1 },
	[KIND_WORKFLOW] = { engine_pick_child, NULL, NULL, 0, 0 },
	[KIND_WAIT] = { NULL, engine_wait_json, engine_wait_waiting, 0, 0 }
};

/* A step's row in the table (a broken kind: a gate's, which runs none). */
static const struct engine_kind *
engine_kind_of(enum step_kind k)
{
	if ((unsigned)k >= KIND_N)
		return (&engine_kinds[KIND_GATE]);
	return (&engine_kinds[k]);
}

/* A tool step: the catalog says how its tool runs. */
static const struct engine_runner *
engine_pick_tool(struct engine *e, const struct flow_step *fs,
    const struct flow_tool **tp)
{
	const struct flow_tool	*t;

	if ((t = *tp = engine_step_tool(e, fs)) == NULL)
		return (&engine_runner_unknown);
	if (t->builtin)
		return (&engine_runner_builtin);
	if (t->mcp)
		return (&engine_runner_mcp);
	return (&engine_runner_process);
}

/* A run or shell step: a process of its own. */
static const struct engine_runner *
engine_pick_process(struct engine *e, const struct flow_step *fs,
    const struct flow_tool **tp)
{
	*tp = NULL;
	return (&engine_runner_process);
}

/* A sub-workflow step: a child run. */
static const struct engine_runner *
engine_pick_child(struct engine *e, const struct flow_step *fs,
    const struct flow_tool **tp)
{
	*tp = NULL;
	return (&engine_runner_child);
}

/*
 * The runner of a step, and its catalog tool (*tp, or NULL); NULL for a
 * kind that never runs.
 */
const struct engine_runner *
engine_runner_pick(struct engine *e, const struct flow_step *fs,
    const struct flow_tool **tp)
{
	const struct engine_kind	*k = engine_kind_of(fs->exec);

	*tp = NULL;
	if (k->pick == NULL)
		return (NULL);
	return (k->pick(e, fs, tp));
}

/* The catalog tool whose settings a step takes, or NULL. */
const struct flow_tool *
engine_step_tool(struct engine *e, const struct flow_step *fs)
{
	if (!engine_kind_of(fs->exec)->catalog || e->tools == NULL)
		return (NULL);
	return (flow_tools_find(e->tools, fs->tool));
}

/* Whether a step needs a process (and so one of the job slots). */
int
engine_step_is_process(struct engine *e, const struct flow_step *fs)
{
	const struct engine_runner	*r;
	const struct flow_tool		*t;

	r = engine_runner_pick(e, fs, &t);
	return (r != NULL && (r->flags & ENGINE_RUNNER_PROCESS));
}

/*
 * Whether a row of this kind may have run processes that outlive an
 * engine (a broken kind: a gate's answer, none).
 */
int
engine_kind_ran_process(enum step_kind k)
{
	return (engine_kind_of(k)->process);
}

/*
 * The policy a waiting row of this step keeps: its kind's, else a gate's
 * (a row made to wait for a person, as a lost step is).
 */
char *
engine_kind_policy(struct engine *e, struct ewf *wf,
    const struct flow_step *fs)
{
	const struct engine_kind	*k = engine_kind_of(fs->exec);

	if (k->policy != NULL)
		return (k->policy(e, wf, fs));
	return (engine_gate_json(e, wf, fs));
}

/* A row of this step started waiting: its kind says what follows. */
void
engine_kind_waiting(struct engine *e, struct ewf *wf,
    const struct flow_step *fs, int64_t id, int64_t now)
{
	const struct engine_kind	*k = engine_kind_of(fs->exec);

	if (k->waiting != NULL)
		k->waiting(e, wf, fs, id, now);
	else
		engine_gate_waiting(e, wf, fs, id, now);
}

/* The unknown tool's start: recorded running, then failed, with why. */
static void
engine_unknown_start(struct engine *e, struct estep *es,
    const struct flow_tool *t, const char *args, struct cJSON *scope)
{
	char	*why;

	xasprintf(&why, "unknown tool \"%s\" (not in the engine's catalog)",
	    engine_spec(es)->tool);
	engine_exec_running(e, es, args, NULL);
	engine_step_failed(e, es, why, 0, 0, NULL);
	free(why);
	engine_exec_end(e, es);
}
