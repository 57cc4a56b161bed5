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
 * server.c: what "sluice status" says of a database on a server
 * (PostgreSQL, cluster mode): its version, its size, whether it is a
 * standby, whether we may write it, and its standbys as
 * pg_stat_replication lists them (to a superuser or a member of
 * pg_read_all_stats, as pg_monitor's are; to others it lists none).
 * PostgreSQL's own SQL: asked of a server's database only.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static const char server_info_sql[] =
	"SELECT split_part(current_setting('server_version'), ' ', 1),"
	" pg_database_size(current_database()),"
	" CASE WHEN pg_is_in_recovery() THEN 1 ELSE 0 END,"
	" CASE WHEN has_table_privilege('inbox', 'INSERT')"
	"  AND NOT pg_is_in_recovery() THEN 1 ELSE 0 END,"
	" CASE WHEN pg_has_role('pg_read_all_stats', 'USAGE')"
	"  THEN 1 ELSE 0 END";
static const char server_standbys_sql[] =
	"SELECT application_name, state, sync_state FROM pg_stat_replication"
	" ORDER BY application_name";
static const char server_roles_sql[] =
	"SELECT o.tableowner,"
	" (SELECT count(*) FROM pg_roles WHERE rolname = 'sluice_engine'),"
	" (SELECT count(*) FROM pg_roles WHERE rolname = 'sluice_reader'),"
	" CASE WHEN pg_has_role(current_user, o.tableowner, 'USAGE')"
	" THEN 1 ELSE 0 END"
	" FROM pg_tables o WHERE o.tablename = 'audit'"
	" AND o.schemaname = current_schema()";

/* Read one standby row. */
static int
server_standby_row(struct store_stmt *st, void *p, char **cause)
{
	struct store_standby	*sb = p;

	(void)cause;
	sb->name = store_column_text(st, 0);
	sb->state = store_column_text(st, 1);
	sb->sync = store_column_text(st, 2);
	return (0);
}

/* Free standby rows. */
static void
server_standbys_free(void *p, size_t n)
{
	struct store_standby	*sb = p;
	size_t			 i;

	for (i = 0; i < n; i++) {
		free(sb[i].name);
		free(sb[i].state);
		free(sb[i].sync);
	}
	free(sb);
}

static const struct store_rows server_standby_rows = {
	.what = "list standbys",
	.size = sizeof (struct store_standby),
	.fill = server_standby_row,
	.free = server_standbys_free
};

/* The server's facts; STORE_ERR with why on a database that is a file. */
int
store_server_info(struct store *s, struct store_server *sv, char **cause)
{
	struct store_stmt	*st;
	void			*list;
	int			 rc;

	memset(sv, 0, sizeof *sv);
	if (!store_is_server(s)) {
		xasprintf(cause, "%s is a file, not a server's database",
		    s->path);
		return (STORE_ERR);
	}
	if ((rc = store_prepare(s, server_info_sql, &st, cause)) != 0)
		return (rc);
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		sv->version = store_column_text(st, 0);
		sv->size = store_col_int64(st, 1);
		sv->standby = store_col_int(st, 2);
		sv->writable = store_col_int(st, 3);
		sv->replication = store_col_int(st, 4);
		rc = 0;
	} else
		rc = store_fail(s, rc, "server facts", cause);
	store_stmt_finalize(st);
	if (rc != 0)
		return (rc);
	if ((rc = store_prepare(s, server_standbys_sql, &st, cause)) != 0)
		return (rc);
	rc = store_rows(s, st, &server_standby_rows, &list, &sv->nstandbys,
	    cause);		/* which releases st */
	sv->standbys = list;
	return (rc);
}

/* Free what store_server_info found. */
void
store_server_clear(struct store_server *sv)
{
	free(sv->version);
	if (sv->standbys != NULL)
		server_standbys_free(sv->standbys, sv->nstandbys);
	memset(sv, 0, sizeof *sv);
}

/*
 * Say who owns the schema, whether we are (or act as) it, and which of
 * the engine's and readers' roles exist; as the owner, give those roles
 * their rights (sluice_grant, the schema's).  Run by "sluice init": as
 * the owner, so roles made after the schema get their rights from a
 * second init; as an engine's login (a unit's ExecStartPre), it changes
 * nothing, where PostgreSQL would only have warned of each GRANT.
 */
int
store_server_grant(struct store *s, struct store_roles *r, char **cause)
{
	struct store_stmt	*st;
	int			 rc;

	memset(r, 0, sizeof *r);
	if ((rc = store_begin(s, cause)) != 0)
		return (rc);
	if ((rc = store_prepare(s, server_roles_sql, &st, cause)) != 0)
		return (store_finish(s, rc, cause));
	if ((rc = store_stmt_step(st)) == STORE_DRV_ROW) {
		r->user = store_column_text(st, 0);
		r->engine = store_col_int(st, 1);
		r->reader = store_col_int(st, 2);
		r->owner = store_col_int(st, 3);
		rc = 0;
	} else
		rc = store_fail(s, rc, "roles", cause);
	store_stmt_finalize(st);
	if (rc == 0 && r->owner)
		rc = store_exec(s, "SELECT sluice_grant()", cause);
	return (store_finish(s, rc, cause));
}
