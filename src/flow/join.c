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
 * join.c: which join each fan-out's branches meet at, worked out from the
 * flow alone.  The engine uses it to know when a fan-out is complete, and
 * the retry rules (rerun.c) to know whether a fan-out's join has run, so
 * the console's preview reads the same answer the engine acts on.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "flow/flow.h"

static int	 join_walk(const struct flow *, int, int *, char *, int);
static int	 join_inside(const struct flow *, int, int, int, char *);
static void	 join_shared(const struct flow *, int *);

/*
 * From step i inside a fan-out, the first join reached along next and
 * branch arms, going over nested fan-outs by way of their own joins.
 * With shared set, a nested fan-out that names no join and whose join
 * leads nowhere offers that join itself: its branches may be meeting at
 * the enclosing fan-out's join (both branches of an outer fan-out nesting
 * one, say, with every inner branch naming the outer join).
 */
static int
join_walk(const struct flow *f, int i, int *join_of, char *seen, int shared)
{
	const struct flow_step	*st;
	size_t			 k;
	int			 j;

	if (i < 0 || seen[i])
		return (-1);
	seen[i] = 1;
	st = &f->steps[i];
	if (st->join_target >= 0 && st->nparallel == 0)
		return (st->join_target);
	if (st->nparallel > 0) {
		if (join_of[i] < 0)
			return (-1);
		j = join_walk(f, join_of[i], join_of, seen, shared);
		if (j < 0 && shared && st->join_target < 0)
			j = join_of[i];
		return (j);
	}
	if ((j = join_walk(f, st->next_target, join_of, seen, shared)) >= 0)
		return (j);
	for (k = 0; k < st->nbranch; k++) {
		j = join_walk(f, st->branch[k].target, join_of, seen, shared);
		if (j >= 0)
			return (j);
	}
	return (-1);
}

/*
 * The first join a branch starting at step i reaches, going over nested
 * fan-outs by way of join_of (from flow_joins), or -1.
 */
int
flow_join_reached(const struct flow *f, int i, int *join_of)
{
	char	*seen;
	int	 j;

	seen = xcalloc(f->nsteps + 1, 1);
	j = join_walk(f, i, join_of, seen, 0);
	free(seen);
	return (j);
}

/* Is step i reached from fan-out o's branches before its join j? */
static int
join_inside(const struct flow *f, int o, int i, int j, char *seen)
{
	const struct flow_step	*st;
	int			*stack, s;
	size_t			 top = 0, k, n;

	stack = xcalloc(f->nsteps * 4 + 1, sizeof *stack);
	memset(seen, 0, f->nsteps + 1);
	st = &f->steps[o];
	for (k = 0; k < st->nparallel; k++)
		stack[top++] = st->parallel_targets[k];
	while (top > 0) {
		if ((s = stack[--top]) < 0 || s == j || seen[s])
			continue;
		if (s == i) {
			free(stack);
			return (1);
		}
		seen[s] = 1;
		st = &f->steps[s];
		n = st->nbranch + st->nparallel + 1;
		stack = xreallocarray(stack, top + n + 1, sizeof *stack);
		stack[top++] = st->next_target;
		for (k = 0; k < st->nbranch; k++)
			stack[top++] = st->branch[k].target;
		for (k = 0; k < st->nparallel; k++)
			stack[top++] = st->parallel_targets[k];
	}
	free(stack);
	return (0);
}

/*
 * A fan-out inside another whose branches end at the outer one's join
 * has no join of its own: its branches' ends together end its branch.
 */
static void
join_shared(const struct flow *f, int *join_of)
{
	char			*seen;
	size_t			 i, o;

	seen = xcalloc(f->nsteps + 1, 1);
	for (i = 0; i < f->nsteps; i++) {
		if (join_of[i] < 0)
			continue;
		for (o = 0; o < f->nsteps; o++) {
			if (o == i || join_of[o] != join_of[i] ||
			    !join_inside(f, (int)o, (int)i,
			    join_of[i], seen))
				continue;
			join_of[i] = -1;
			break;
		}
	}
	free(seen);
}

/*
 * Each step's join, if it is a fan-out, else -1: an array of nsteps + 1
 * the caller frees.  Inner fan-outs are worked out first.
 */
int *
flow_joins(const struct flow *f)
{
	const struct flow_step	*st;
	char			*seen;
	int			*join_of;
	size_t			 i, k, pass;
	int			 j, changed;

	join_of = xcalloc(f->nsteps + 1, sizeof *join_of);
	seen = xcalloc(f->nsteps + 1, 1);
	for (i = 0; i < f->nsteps; i++)
		join_of[i] = -1;
	/*
	 * Inner fan-outs first: repeat until nothing changes; then, for a
	 * fan-out still without a join, the joins its nested fan-outs may
	 * share with it (join_walk).
	 */
	for (pass = 0; pass < 2 * (f->nsteps + 1); pass++) {
		changed = 0;
		for (i = 0; i < f->nsteps; i++) {
			st = &f->steps[i];
			if (st->nparallel == 0 || join_of[i] >= 0)
				continue;
			j = st->join_target;
			for (k = 0; j < 0 && k < st->nparallel; k++) {
				memset(seen, 0, f->nsteps + 1);
				j = join_walk(f, st->parallel_targets[k],
				    join_of, seen, pass > f->nsteps);
			}
			if (j >= 0) {
				join_of[i] = j;
				changed = 1;
			}
		}
		if (!changed && pass <= f->nsteps)
			pass = f->nsteps;
		else if (!changed)
			break;
	}
	free(seen);
	join_shared(f, join_of);
	return (join_of);
}
