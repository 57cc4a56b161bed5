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
 * kind.c: the one table of step kinds.  A new kind is one row here, one
 * in the fields each kind forbids (flow/kind.c), one in the engine's
 * table (engine/runner.c, which lists the rest), and its runner.
 *
 * The stored word is what workflow_steps.kind holds.  Since schema
 * version 6 that column's CHECK is "kind GLOB '[a-z]*' AND length(kind)
 * < 10" (store/schema.c): a word is lowercase letters, at most
 * KIND_WORD_MAX of them.  tests/unit/test-kind walks this table through
 * a real insert, so a longer word fails make check, not a user's run.
 */

#include <stddef.h>
#include <string.h>

#include "util/util.h"

/* A kind: its stored word, and how people see it. */
static const struct {
	const char	*word;		/* stored; "kind" in JSON */
	const char	*label;		/* short: "next  deploy (shell)" */
	const char	*noun;		/* in sentences: "a wait step has no" */
	const char	*runs;		/* what it runs, NULL: nothing shown */
	int		 decided;	/* ended from outside, not by a run */
	int		 target;	/* the tool column names its tool or */
					/* template */
} kinds[KIND_N] = {
	[KIND_GATE] = { "gate", "gate", "gate", NULL, 1, 0 },
	[KIND_TOOL] = { "tool", "tool", "tool step", "tool", 0, 1 },
	[KIND_RUN] = { "run", "run", "run step", "run (inline in the flow)",
	    0, 0 },
	[KIND_SHELL] = { "shell", "shell", "shell step",
	    "shell (inline in the flow)", 0, 0 },
	[KIND_WORKFLOW] = { "workflow", "sub-workflow", "sub-workflow step",
	    "sub-workflow", 0, 1 },
	[KIND_WAIT] = { "wait", "wait", "wait step",
	    "nothing: it waits to be finished from outside", 1, 0 }
};

/* A kind's stored word ("?" for a value no row has: a broken caller). */
const char *
kind_name(enum step_kind k)
{
	if ((unsigned)k >= KIND_N)
		return ("?");
	return (kinds[k].word);
}

/* The kind a stored word spells, or -1 for a word that is none. */
int
kind_parse(const char *word, enum step_kind *k)
{
	size_t	 i;

	for (i = 0; word != NULL && i < KIND_N; i++) {
		if (strcmp(kinds[i].word, word) == 0) {
			*k = (enum step_kind)i;
			return (0);
		}
	}
	return (-1);
}

/* A kind's short label for a list or a heading: "shell", "sub-workflow". */
const char *
kind_label(enum step_kind k)
{
	if ((unsigned)k >= KIND_N)
		return ("?");
	return (kinds[k].label);
}

/* A kind as a sentence names it: "gate", "sub-workflow step". */
const char *
kind_noun(enum step_kind k)
{
	if ((unsigned)k >= KIND_N)
		return ("step");
	return (kinds[k].noun);
}

/*
 * What a step of the kind runs, for its detail; the tool or template
 * follows when kind_names_target says so.  NULL: nothing to say (a gate).
 */
const char *
kind_runs(enum step_kind k)
{
	if ((unsigned)k >= KIND_N)
		return (NULL);
	return (kinds[k].runs);
}

/* A kind that ends by a decision from outside (gate, wait), not a run. */
int
kind_decided(enum step_kind k)
{
	return ((unsigned)k < KIND_N && kinds[k].decided);
}

/* A kind whose tool column names what it runs (a tool, a template). */
int
kind_names_target(enum step_kind k)
{
	return ((unsigned)k < KIND_N && kinds[k].target);
}
