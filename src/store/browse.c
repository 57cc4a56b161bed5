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
 * browse.c: the console's reads.  Lists are read a window at a time by
 * key (rows at or below an id, or the rows just above it), never by
 * OFFSET and never whole, so a screen costs the same on a database of a
 * thousand workflows as on one of a million; the header's counts read
 * the running rows and the counts the schema's triggers keep.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store-int.h"

/*
 * A workflow as a list shows it.  The filter matches the name, the state
 * a person sees (util state.c), creator or template by substring, or the
 * id exactly.
 */
#define BRIEF_COLUMNS \
	"w.id, w.created_at, w.started_at, w.completed_at, w.start_at," \
	" w.name, w.status, w.created_by, w.template_name, w.paused," \
	" w.late_at," \
	" COALESCE((SELECT s.name FROM workflow_steps s" \
	"  WHERE s.workflow_id = w.id AND " STORE_STEP_ACTIVE \
	"  ORDER BY s.id DESC LIMIT 1)," \
	" (SELECT s.name FROM workflow_steps s WHERE s.workflow_id = w.id" \
	"  ORDER BY s.id DESC LIMIT 1))," \
	" " STORE_RUN_WAITING("w") ", w.parent_id, " STORE_RUN_BEHIND("w")
#define BRIEF_MATCH \
	" (?1 IS NULL OR w.name LIKE ?1 ESCAPE '\\' OR " STORE_RUN_STATE("w") \
	"  LIKE ?1 ESCAPE '\\' OR w.created_by LIKE ?1 ESCAPE '\\' OR" \
	"  w.template_name LIKE ?1 ESCAPE '\\' OR w.id = ?2)"

static const char brief_down_sql[] =
	"SELECT " BRIEF_COLUMNS " FROM workflows w WHERE w.id <= ?3 AND"
	BRIEF_MATCH " ORDER BY w.id DESC LIMIT ?4";
static const char brief_up_sql[] =
	"SELECT " BRIEF_COLUMNS " FROM workflows w WHERE w.id > ?3 AND"
	BRIEF_MATCH " ORDER BY w.id ASC LIMIT ?4";

#define AUDIT_COLUMNS STORE_AUDIT_COLUMNS
#define AUDIT_MATCH \
	" (?1 IS NULL OR who LIKE ?1 ESCAPE '\\' OR action LIKE ?1" \
	"  ESCAPE '\\' OR target LIKE ?1 ESCAPE '\\' OR comment LIKE ?1" \
	"  ESCAPE '\\' OR workflow_id = ?2)"

static const char audit_down_sql[] =
	"SELECT " AUDIT_COLUMNS " FROM audit WHERE id <= ?3 AND" AUDIT_MATCH
	" ORDER BY id DESC LIMIT ?4";
static const char audit_up_sql[] =
	"SELECT " AUDIT_COLUMNS " FROM audit WHERE id > ?3 AND" AUDIT_MATCH
	" ORDER BY id ASC LIMIT ?4";

/*
 * Runs by the state a person sees: the running ones folded by the same
 * rule as the list (few rows, through the status index), the others
 * the triggers' counts per status (failed runs grow with the history).
 * Then the waiting gates.
 */
static const char counts_sql[] =
	"SELECT " STORE_RUN_STATE("w") ", count(*) FROM workflows w"
	" WHERE w.status = 'running' GROUP BY 1"
	" UNION ALL SELECT status, n FROM run_counts"
	" WHERE status IN ('scheduled', 'failed')"
	" UNION ALL SELECT 'gates', count(*) FROM workflow_steps"
	" WHERE status = 'waiting' AND kind <> 'wait' AND " STORE_STEP_ACTIVE
	" UNION ALL SELECT 'newest', max(id) FROM workflow_steps"
	" WHERE status = 'waiting' AND kind <> 'wait' AND " STORE_STEP_ACTIVE;

static int	 store_brief_row(struct store_stmt *, void *, char **);
static void	 store_brief_rows_free(void *, size_t);
static int	 store_window_bind(struct store *, struct store_stmt *,
		     const struct store_window *, char **);

static const struct store_rows store_brief_rows = {
	.what = "list workflows",
	.size = sizeof (struct store_brief),
	.fill = store_brief_row,
	.free = store_brief_rows_free
};

/* Fill one brief from a row of BRIEF_COLUMNS. */
static int
store_brief_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_brief	*b = p;

	b->id = store_col_int64(st, 0);
	b->created_at = store_col_int64(st, 1);
	b->started_at = store_col_int64(st, 2);
	b->completed_at = store_col_int64(st, 3);
	b->start_at = store_col_int64(st, 4);
	b->name = store_column_text(st, 5);

	b->created_by = store_column_text(st, 7);
	b->template_name = store_column_text(st, 8);
	b->paused = store_col_int(st, 9);
	b->late_at = store_col_int64(st, 10);
	b->current_step = store_column_text(st, 11);
	b->parent_id = store_col_int64(st, 13);
	b->behind = store_col_int64(st, 14);
	if (store_column_run_status(st, 6, b->id, &b->status, cause) != 0)
		return (-1);
	/* What a person sees, by the rule list and the filter use too. */
	b->state = state_of(b->status, b->paused, store_col_int(st, 12),
	    b->late_at != 0);
	return (0);
}

/* store_rows' way to free a partly read array. */
static void
store_brief_rows_free(void *list, size_t n)
{
	store_briefs_free(list, n);
}

/* Free an array of briefs. */
void
store_briefs_free(struct store_brief *list, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(list[i].name);
		free(list[i].created_by);
		free(list[i].template_name);
		free(list[i].current_step);
	}
	free(list);
}

/* Bind a window: the filter as a LIKE pattern and as an id, the anchor. */
static int
store_window_bind(struct store *s, struct store_stmt *st,
    const struct store_window *w, char **cause)
{
	struct buf	 b;
	const char	*p;
	int64_t		 id = -1, anchor;
	int		 bad = 0;

	buf_init(&b);
	if (w->match != NULL && *w->match != '\0') {
		buf_putc(&b, '%');
		for (p = w->match; *p != '\0'; p++) {
			if (*p == '%' || *p == '_' || *p == '\\')
				buf_putc(&b, '\\');
			buf_putc(&b, *p);
		}
		buf_putc(&b, '%');
		if (str_parse_int64(w->match, &id) != 0)
			id = -1;
		bad |= store_bind_text(st, 1, b.data);
	}
	anchor = w->anchor;
	if (!w->up && anchor <= 0)
		anchor = INT64_MAX;
	bad |= store_bind_int64(st, 2, id);
	bad |= store_bind_int64(st, 3, anchor);
	bad |= store_bind_int64(st, 4, w->limit > 0 ? w->limit : 1);
	buf_free(&b);
	if (bad != STORE_DRV_OK)
		return (store_fail(s, store_errcode(s), "bind window",
		    cause));
	return (0);
}

/*
 * Workflows at or below the anchor, newest first (anchor 0: from the
 * newest), or with up set the ones just above it, oldest first.
 */
int
store_brief_window(struct store *s, const struct store_window *w,
    struct store_brief **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_stmt(s, w->up ? brief_up_sql : brief_down_sql, &st,
	    cause)) != 0)
		return (rc);
	if ((rc = store_window_bind(s, st, w, cause)) != 0) {
		store_release(s, st);
		return (rc);
	}
	rc = store_rows(s, st, &store_brief_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* The audit trail a window at a time, like store_brief_window. */
int
store_audit_window(struct store *s, const struct store_window *w,
    struct store_audit **listp, size_t *np, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	*listp = NULL;
	*np = 0;
	if ((rc = store_stmt(s, w->up ? audit_up_sql : audit_down_sql, &st,
	    cause)) != 0)
		return (rc);
	if ((rc = store_window_bind(s, st, w, cause)) != 0) {
		store_release(s, st);
		return (rc);
	}
	rc = store_rows(s, st, &store_audit_rows, &list, np, cause);
	*listp = list;
	return (rc);
}

/* The header's counts: runs by state, waiting gates, the newest gate. */
int
store_counts(struct store *s, struct store_counts *c, char **cause)
{
	struct store_stmt	*st;
	enum run_state		 state;
	const char		*word;
	int64_t			 n;
	int			 rc;

	memset(c, 0, sizeof *c);
	if ((rc = store_stmt(s, counts_sql, &st, cause)) != 0)
		return (rc);
	while ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		word = store_col_text(st, 0);
		n = store_col_int64(st, 1);
		if (word == NULL)
			continue;
		if (strcmp(word, "gates") == 0)
			c->gates = n;
		else if (strcmp(word, "newest") == 0)
			c->newest_gate = n;
		else if (state_parse(word, &state) == 0)
			c->states[state] += n;
	}
	if (rc == STORE_DRV_DONE)
		rc = 0;
	else
		rc = store_fail(s, rc, "count workflows", cause);
	store_release(s, st);
	return (rc);
}

/*
 * Changes this connection made plus the data version others bump: when
 * either moves, what a screen shows may have changed.
 */
int64_t
store_change_mark(struct store *s)
{
	return (s->drv->total_changes(s->conn) * 4096 +
	    store_data_version(s));
}
