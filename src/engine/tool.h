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
 * tool.h: the private face of tool-cmd.c and retry.c, for the engine's own
 * files only.  tool-cmd.c turns a step (and its catalog tool) into the
 * argv, environment and working directory of the process to spawn, locally
 * or through ssh; retry.c says how often a failed step is tried and how
 * long to wait between attempts.  Neither does I/O.
 */

#ifndef SLUICE_ENGINE_TOOL_H
#define SLUICE_ENGINE_TOOL_H

#include <stddef.h>
#include <stdint.h>

struct cJSON;
struct flow_step;
struct flow_tool;

/* What to exec for one attempt of a step. */
struct tool_cmd {
	char	**argv;		/* NULL-terminated, owned */
	char	**envp;		/* NULL-terminated, owned */
	char	 *cwd;		/* NULL: the engine's */
	char	 *host;		/* NULL: local; else the ssh host */
};

/* Who is asking: the ids and names that go into SLUICE_* variables. */
struct tool_ctx {
	int64_t		 workflow_id;
	int64_t		 step_id;
	const char	*step;		/* the step's name */
	int		 attempt;
	char *const	*environ;	/* the engine's, the base */
	const char	*ssh;		/* ssh program, NULL: "ssh" */
	const struct cJSON *secrets;	/* env only: {"NAME": value}, or NULL */
	const struct cJSON *secret_input; /* env only: secret inputs, or NULL */
};

/* tool-cmd.c */
int	 tool_cmd_build(const struct flow_step *, const struct flow_tool *,
	     const char *, const struct cJSON *, const struct tool_ctx *,
	     struct tool_cmd *, char **);
void	 tool_cmd_free(struct tool_cmd *);
char	*tool_sh_quote(const char *);

/*
 * The effective retry policy of a step.  It borrows the backoff list of
 * the step or tool it came from (or a static default), so it is valid only
 * while they are.
 */
struct retry_policy {
	int		 max_attempts;	/* 1: no retry */
	const int64_t	*backoff;	/* list form, ms; NULL: expo */
	size_t		 nbackoff;
	int64_t		 base;		/* exponential form, ms */
	double		 factor;
	int64_t		 max;		/* 0: FLOW_DURATION_MAX */
	double		 jitter;	/* fraction, 0 to 1 */
};

/* retry.c */
struct flow_retry;
void	 retry_policy_of(const struct flow_step *, const struct flow_tool *,
	     const struct flow_retry *, struct retry_policy *);
int	 retry_max_attempts(const struct retry_policy *);
int64_t	 retry_delay(const struct retry_policy *, int, uint32_t);

#endif /* SLUICE_ENGINE_TOOL_H */
