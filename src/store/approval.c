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
 * approval.c: people's decisions on gates, one row each, so a quorum
 * counts distinct people and a second vote by the same person is seen.
 */

#include <stdint.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char approval_add_sql[] =
	"INSERT INTO approvals (step_id, workflow_id, who, decision, comment,"
	" at) VALUES (?, ?, ?, ?, ?, ?)";
static const char approval_count_sql[] =
	"SELECT count(DISTINCT who) FROM approvals WHERE step_id = ?"
	" AND decision = 'approve'";
static const char approval_by_sql[] =
	"SELECT count(*) FROM approvals WHERE step_id = ? AND who = ?";

/* Record a decision ("approve" or "reject") on a gate row. */
int
store_approval_add(struct store *s, int64_t step, int64_t wf, const char *who,
    const char *decision, const char *comment, int64_t now)
{
	return (store_runf(s, "record decision", approval_add_sql, "iittti",
	    step, wf, who, decision, comment, now));
}

/* How many distinct people approved a gate row. */
int
store_approval_count(struct store *s, int64_t step, int64_t *n)
{
	return (store_int64f(s, "count approvals", n, approval_count_sql, "i",
	    step));
}

/* How many decisions one person made on a gate row. */
int
store_approval_by(struct store *s, int64_t step, const char *who, int64_t *n)
{
	return (store_int64f(s, "count decisions", n, approval_by_sql, "it",
	    step, who));
}
