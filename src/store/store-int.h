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
 * store-int.h: what the store files share and nobody else sees: the
 * connection struct, error mapping, statement and binding helpers, and
 * the entry points of the schema and the audit writer.
 */

#ifndef SLUICE_STORE_INT_H
#define SLUICE_STORE_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "store/store.h"

/* One open database. */
struct store {
	sqlite3		*db;
	char		*path;
	int		 flags;		/* STORE_F_* given to store_open */
	int		 readonly;	/* nothing may be written */
	int		 depth;		/* nesting of store_begin */
};

/* store.c */
int		 store_fail(struct store *, int, const char *, char **);
int		 store_fail_readonly(struct store *, char **);
int		 store_prepare(struct store *, const char *, sqlite3_stmt **,
		     char **);
int		 store_exec(struct store *, const char *, char **);
int		 store_step_done(struct store *, sqlite3_stmt *, const char *,
		     char **);
int		 store_bind_text(sqlite3_stmt *, int, const char *);
int		 store_bind_time(sqlite3_stmt *, int, int64_t);
char		*store_column_text(sqlite3_stmt *, int);
int		 store_finish(struct store *, int, char **);
/* How store_rows reads one kind of row into an array. */
struct store_rows {
	const char	*what;			/* "list steps", for errors */
	size_t		 size;			/* bytes of one element */
	void		(*fill)(sqlite3_stmt *, void *);
	void		(*free)(void *, size_t);
};
int		 store_rows(struct store *, sqlite3_stmt *,
		     const struct store_rows *, void **, size_t *, char **);
int		 store_query_int(struct store *, const char *, int64_t *,
		     char **);

/* schema.c */
int		 store_schema_migrate(struct store *, char **);

/* audit.c: an audit row inside the caller's transaction. */
int		 store_audit_insert(struct store *, const struct store_actor *,
		     const struct store_audit_entry *, char **);

/* workflow.c */
int		 store_workflow_insert(struct store *, struct store_workflow *,
		     const char *, int64_t, char **);
void		 store_workflow_clear(struct store_workflow *);

/* step.c */
int		 store_step_insert(struct store *, struct store_step *, int64_t,
		     char **);
void		 store_step_clear(struct store_step *);

/* audit.c */
const char	*store_actor_name(const struct store_actor *);

#endif /* SLUICE_STORE_INT_H */
