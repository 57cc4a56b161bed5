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
 * kind.c: the key that selects each kind of step and the fields each
 * kind forbids, in one table each, and what a step of a kind names.  A field that shapes a process (host, env,
 * timeout...) means nothing on a step that runs none; it is an error at
 * its own path, never ignored.  The kinds themselves are util/kind.c.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"
#include "flow/flow-int.h"

static int	 kind_has_host(const struct flow_step *);
static int	 kind_has_cwd(const struct flow_step *);
static int	 kind_has_env(const struct flow_step *);
static int	 kind_has_args(const struct flow_step *);
static int	 kind_has_timeout(const struct flow_step *);
static int	 kind_has_retry(const struct flow_step *);
static int	 kind_has_heartbeat(const struct flow_step *);

/* A step field a kind may forbid, and whether a step has it set. */
static const struct kind_field {
	const char	*name;
	int		(*set)(const struct flow_step *);
} kind_fields[] = {
	{ "host", kind_has_host },
	{ "cwd", kind_has_cwd },
	{ "env", kind_has_env },
	{ "args", kind_has_args },
	{ "timeout", kind_has_timeout },
	{ "retry", kind_has_retry },
	{ "heartbeat", kind_has_heartbeat }
};

/* Why a kind has none of its forbidden fields: "runs no command". */
static const char *const kind_why[KIND_N] = {
	[KIND_GATE] = "runs no process",
	[KIND_WORKFLOW] = "runs no command",
	[KIND_WAIT] = "runs nothing (something outside sluice finishes it)"
};

/*
 * The fields each kind forbids, one row each.  A note follows the reason
 * in parentheses; a row with instead says that in place of the reason.
 */
static const struct kind_forbid {
	enum step_kind	 kind;
	const char	*field;
	const char	*note;
	const char	*instead;
} kind_forbids[] = {
	{ KIND_GATE, "heartbeat", NULL, NULL },

	{ KIND_WORKFLOW, "host", NULL, NULL },
	{ KIND_WORKFLOW, "cwd", NULL, NULL },
	{ KIND_WORKFLOW, "env", NULL, NULL },
	{ KIND_WORKFLOW, "args", "its child's input is \"input\"", NULL },
	{ KIND_WORKFLOW, "timeout", NULL, NULL },
	{ KIND_WORKFLOW, "heartbeat", NULL, NULL },

	{ KIND_WAIT, "host", NULL, NULL },
	{ KIND_WAIT, "cwd", NULL, NULL },
	{ KIND_WAIT, "env", NULL, NULL },
	{ KIND_WAIT, "args", NULL, NULL },
	{ KIND_WAIT, "timeout", NULL, "a wait step's timeout goes in its "
	    "wait options: \"wait\": {\"timeout\": ...}" },
	{ KIND_WAIT, "retry", NULL, NULL },
	{ KIND_WAIT, "heartbeat", NULL, NULL }
};

/*
 * The key that selects each kind, in the order a clash between two of
 * them is told; a step with none of them is a gate.
 */
static const struct kind_key {
	enum step_kind	 kind;
	const char	*key;
} kind_keys[] = {
	{ KIND_TOOL, "tool" },
	{ KIND_RUN, "run" },
	{ KIND_SHELL, "shell" },
	{ KIND_WORKFLOW, "workflow" },
	{ KIND_WAIT, "wait" }
};

/* The keys that select a kind, for people: "tool, run, ... or wait". */
void
flow_kind_keys(struct buf *b)
{
	size_t	 i;

	for (i = 0; i < nitems(kind_keys); i++) {
		if (i > 0)
			buf_puts(b, i + 1 == nitems(kind_keys) ? " or " : ", ");
		buf_puts(b, kind_keys[i].key);
	}
}

/*
 * A step's kind from the keys it set (set has FLOW_KIND_BIT of the kind
 * each selects): the one it set, else a gate.  Two set is an error at
 * the second, and the first counts.
 */
enum step_kind
flow_kind_select(unsigned set, const char *path, struct flow_diags *d)
{
	const struct kind_key	*first = NULL, *k;
	struct buf		 keys;
	char			*sub;
	size_t			 i;

	for (i = 0; i < nitems(kind_keys); i++) {
		k = &kind_keys[i];
		if (!(set & FLOW_KIND_BIT(k->kind)))
			continue;
		if (first == NULL) {
			first = k;
			continue;
		}
		buf_init(&keys);
		flow_kind_keys(&keys);
		sub = flow_path_key(path, k->key);
		flow_diags_add(d, FLOW_ERROR, sub, "\"%s\" cannot be used "
		    "with \"%s\" (a step has one of %s)", k->key, first->key,
		    keys.data);
		free(sub);
		buf_free(&keys);
		break;
	}
	return (first != NULL ? first->kind : KIND_GATE);
}

/* "host" is set. */
static int
kind_has_host(const struct flow_step *st)
{
	return (st->host != NULL);
}

/* "cwd" is set. */
static int
kind_has_cwd(const struct flow_step *st)
{
	return (st->cwd != NULL);
}

/* "env" is set. */
static int
kind_has_env(const struct flow_step *st)
{
	return (st->env != NULL);
}

/* "args" is set to more than {}. */
static int
kind_has_args(const struct flow_step *st)
{
	return (st->args_json != NULL && strcmp(st->args_json, "{}") != 0);
}

/* "timeout" is set. */
static int
kind_has_timeout(const struct flow_step *st)
{
	return (st->timeout >= 0);
}

/* "retry" is set. */
static int
kind_has_retry(const struct flow_step *st)
{
	return (st->retry.set);
}

/* "heartbeat" is set. */
static int
kind_has_heartbeat(const struct flow_step *st)
{
	return (st->heartbeat >= 0);
}

/* A field's test by its name (a row of kind_forbids names one). */
static const struct kind_field *
kind_field_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(kind_fields); i++) {
		if (strcmp(kind_fields[i].name, name) == 0)
			return (&kind_fields[i]);
	}
	fatalx("%s: no field %s", __func__, name);
}

/*
 * Each field the step's kind forbids that it has: an error at the
 * field's path.  A for-each step's own heartbeat is for-each's to refuse
 * (it runs nothing of its own, whatever its kind reads).
 */
void
flow_kind_check(const struct flow_step *st, const char *path,
    struct flow_diags *d)
{
	const struct kind_forbid	*kf;
	char				*sub;
	size_t				 i;

	for (i = 0; i < nitems(kind_forbids); i++) {
		kf = &kind_forbids[i];
		if (kf->kind != st->exec || !kind_field_find(kf->field)->set(st))
			continue;
		if (st->foreach != NULL && strcmp(kf->field, "heartbeat") == 0)
			continue;
		sub = flow_path_key(path, kf->field);
		if (kf->instead != NULL)
			flow_diags_add(d, FLOW_ERROR, sub, "%s", kf->instead);
		else
			flow_diags_add(d, FLOW_ERROR, sub, "a %s %s, so it has "
			    "no \"%s\"%s%s%s", kind_noun(st->exec),
			    kind_why[st->exec], kf->field,
			    kf->note != NULL ? " (" : "",
			    kf->note != NULL ? kf->note : "",
			    kf->note != NULL ? ")" : "");
		free(sub);
	}
}

/* What a step names to run: its tool or its template; NULL for others. */
const char *
flow_step_target(const struct flow_step *st)
{
	if (st->exec == KIND_TOOL)
		return (st->tool);
	if (st->exec == KIND_WORKFLOW)
		return (st->workflow);
	return (NULL);
}
