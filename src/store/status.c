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
 * status.c: where stored status and kind words become enums and back.  The tables
 * keep words (the schema and old databases stay readable by sqlite3 and
 * by older sluices); the structs above the store carry enums.  A word no
 * table knows is an error naming its row, never a silent default: it
 * means the database was written by something else, and acting on a
 * guess (a failed step read as pending, run again) would be worse.
 */

#include <stdint.h>
#include <stdlib.h>

#include "util/util.h"
#include "store/store-int.h"

static int	 store_state_sql(const struct store_drv_arg *, int,
		     const char **, char **);

/* Why a stored word is refused: the table, the row and the word shown. */
static void
store_status_refuse(const char *table, int64_t id, const char *word,
    char **cause)
{
	char	*shown;

	shown = vis_str(word != NULL ? word : "NULL", 0);
	xasprintf(cause, "%s row %lld: unknown status \"%s\"", table,
	    (long long)id, shown);
	free(shown);
}

/* A step row's status column as the enum; -1 with why for a bad word. */
int
store_column_step_status(struct store_stmt *st, int col, int64_t id,
    enum step_status *out, char **cause)
{
	const char	*word;

	word = store_col_text(st, col);
	if (status_step_parse(word, out) == 0)
		return (0);
	store_status_refuse("workflow_steps", id, word, cause);
	*out = STEP_PENDING;
	return (-1);
}

/* A step row's kind column as the enum; -1 with why for a bad word. */
int
store_column_step_kind(struct store_stmt *st, int col, int64_t id,
    enum step_kind *out, char **cause)
{
	const char	*word;
	char		*shown;

	word = store_col_text(st, col);
	if (kind_parse(word, out) == 0)
		return (0);
	shown = vis_str(word != NULL ? word : "NULL", 0);
	xasprintf(cause, "workflow_steps row %lld: unknown step kind \"%s\"",
	    (long long)id, shown);
	free(shown);
	*out = KIND_GATE;
	return (-1);
}

/* A workflow row's status column as the enum; -1 with why. */
int
store_column_run_status(struct store_stmt *st, int col, int64_t id,
    enum run_status *out, char **cause)
{
	const char	*word;

	word = store_col_text(st, col);
	if (status_run_parse(word, out) == 0)
		return (0);
	store_status_refuse("workflows", id, word, cause);
	*out = RUN_SCHEDULED;
	return (-1);
}

/* What a person sees of a workflow read from the store. */
enum run_state
store_workflow_state(const struct store_workflow *w)
{
	return (state_of(w->status, w->paused, w->waiting, w->late_at != 0));
}

/*
 * sluice_state(id, status, paused, waiting, late_at): the state a person
 * sees, by state_of, so a filter or a count in SQL folds the same rule.
 */
static int
store_state_sql(const struct store_drv_arg *argv, int argc,
    const char **result, char **why)
{
	enum run_status	 st;

	(void)argc;
	if (status_run_parse(argv[1].text, &st) != 0) {
		store_status_refuse("workflows", argv[0].i, argv[1].text, why);
		return (-1);
	}
	*result = state_name(state_of(st, (int)argv[2].i, (int)argv[3].i,
	    argv[4].i != 0));
	return (0);
}

const struct store_drv_function store_state_function = {
	.name = "sluice_state",
	.nargs = 5,
	.call = store_state_sql
};

/* Teach the connection sluice_state(). */
int
store_status_register(struct store *s, char **cause)
{
	int	 rc;

	if (s->drv->function == NULL)	/* the database has it already */
		return (0);
	rc = s->drv->function(s->conn, &store_state_function);
	if (rc == STORE_DRV_OK)
		return (0);
	xasprintf(cause, "sluice_state: %s", store_errmsg(s));
	return (-1);
}
