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
 * finished.c: what steps.* shows of a workflow, the latest finished row
 * of each of its steps, kept in memory as row ids and brought up to date
 * before each scope from the rows made since the last look and the few
 * that had not ended then.  A scope then reads only the rows it shows:
 * a loop of 10,000 passes costs each scope its steps, not its 10,000 rows
 * (sorted, as one GROUP BY over the whole run did).  Rows only move
 * forward (transition.c): one that has finished stays finished, so its
 * id need not be read again until a scope shows it.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine-int.h"

struct engine_fin_open {
	int64_t		 id;
	int		 spec;
};

/* The step of the flow whose key is key, or -1 (never matched by name). */
static int
fin_spec(const struct flow *f, const char *key)
{
	size_t	i;

	for (i = 0; i < f->nsteps; i++) {
		if (strcmp(f->steps[i].key, key) == 0)
			return ((int)i);
	}
	return (-1);
}

/* A row of step spec has finished: the latest such is what steps.* shows. */
static void
fin_note(struct ewf *wf, int spec, int64_t id)
{
	if (id > wf->fin_latest[spec])
		wf->fin_latest[spec] = id;
}

/* Whether steps.* shows a row in this status; -1 if it may still end. */
static int
fin_shows(enum step_status status)
{
	switch (status) {
	case STEP_DONE:
	case STEP_SKIPPED:
	case STEP_FAILED:
		return (1);
	case STEP_CANCELLED:
		return (0);
	default:
		return (-1);
	}
}

/* One row made since the last look (store_steps_after). */
static void
fin_row(int64_t id, const char *key, enum step_status status, int shown,
    void *arg)
{
	struct ewf	*wf = arg;
	int		 spec, how;

	wf->fin_seen = id;
	if (!shown || wf->fin_stray)
		return;
	if ((spec = fin_spec(wf->flow, key)) < 0) {
		wf->fin_stray = 1;	/* not the flow's: read the old way */
		return;
	}
	if ((how = fin_shows(status)) == 1)
		fin_note(wf, spec, id);
	else if (how == -1) {
		wf->fin_open = xreallocarray(wf->fin_open, wf->fin_nopen + 1,
		    sizeof *wf->fin_open);
		wf->fin_open[wf->fin_nopen].id = id;
		wf->fin_open[wf->fin_nopen++].spec = spec;
	}
}

/* Look again at the rows that had not ended: keep those that still have not. */
static void
fin_recheck(struct engine *e, struct ewf *wf)
{
	enum step_status	 status;
	size_t			 i, kept = 0;
	int			 how;

	for (i = 0; i < wf->fin_nopen; i++) {
		if (store_step_status_now(e->store, wf->fin_open[i].id,
		    &status) != 0)
			engine_store_fatal(e, store_last_error(e->store));
		if ((how = fin_shows(status)) == 1)
			fin_note(wf, wf->fin_open[i].spec, wf->fin_open[i].id);
		if (how == -1)
			wf->fin_open[kept++] = wf->fin_open[i];
	}
	wf->fin_nopen = kept;
}

static int
fin_cmp(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y ? -1 : x > y);
}

/*
 * The latest row of each step of wf that ended done, skipped or failed
 * (what steps.* refers to), oldest first, as store_steps_finished gives
 * them but without reading the whole run.
 */
void
engine_steps_shown(struct engine *e, struct ewf *wf,
    struct store_step **rowsp, size_t *np)
{
	const struct flow	*f = wf->flow;
	int64_t			*ids;
	size_t			 i, n = 0;
	char			*cause = NULL;

	if (wf->fin_latest == NULL)
		wf->fin_latest = xcalloc(f->nsteps + 1, sizeof *wf->fin_latest);
	if (!wf->fin_stray) {
		fin_recheck(e, wf);
		if (store_steps_after(e->store, wf->id, wf->fin_seen, fin_row,
		    wf) != 0)
			engine_store_fatal(e, store_last_error(e->store));
	}
	if (wf->fin_stray) {
		if (store_steps_finished(e->store, wf->id, rowsp, np,
		    &cause) != 0)
			engine_store_fatal(e, cause);
		return;
	}
	ids = xreallocarray(NULL, f->nsteps + 1, sizeof *ids);
	for (i = 0; i < f->nsteps; i++) {
		if (wf->fin_latest[i] != 0)
			ids[n++] = wf->fin_latest[i];
	}
	qsort(ids, n, sizeof *ids, fin_cmp);
	if (store_steps_scope(e->store, ids, n, rowsp, &cause) != 0)
		engine_store_fatal(e, cause);
	free(ids);
	*np = n;
}

/* Forget what steps.* showed (the workflow leaves memory). */
void
engine_steps_shown_free(struct ewf *wf)
{
	free(wf->fin_latest);
	free(wf->fin_open);
	wf->fin_latest = NULL;
	wf->fin_open = NULL;
	wf->fin_nopen = 0;
}
