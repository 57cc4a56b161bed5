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
 * driver-pg-reader.c: members' reads on a postgresql: database (cluster
 * mode), the counterpart of driver-sqlite-reader.c.  Every node's engine
 * answers the reads members ship to its socket (driver-socket.c) on a
 * connection of this file's, never on the engine's own or its lock
 * session, so a read can neither write nor hold up a commit or a
 * heartbeat.  It is guarded in three layers:
 *
 * - the login: the connection logs in as the site config's
 *   cluster.reader, and is refused unless that role may only read (not a
 *   superuser, no right to change a table of ours, no member of the
 *   engine's role or of a table's owner, none of pg_signal_backend), so
 *   whatever SQL gets through cannot write, and cannot end or cancel the
 *   engine's sessions (which would force a takeover);
 * - the transaction: each statement is a cursor in a READ ONLY,
 *   REPEATABLE READ transaction (its pages are one snapshot), under
 *   statement_timeout (a page's work), lock_timeout and
 *   idle_in_transaction_session_timeout, set at login so no SQL can
 *   loosen them for good;
 * - the text: one statement, SELECT or WITH, none of the functions that
 *   act beyond reading (advisory locks, which any role may take and the
 *   engine's writes wait for; signalling backends; set_config; sleeping;
 *   NOTIFY; reading files; running SQL from a string, as query_to_xml).
 *
 * Statements come as the store's SQLite SQL and are translated as the
 * engine's are (driver-pg-sql.c).  A page is one FETCH: a member's read
 * blocks the engine's loop for at most statement_timeout (PGR_STATEMENT_MS).
 * Each open cursor has a session of its own (a session has one snapshot
 * at a time), PGR_CONNS at most; one idle session is kept.
 */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "store/driver-pg-lib.h"

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver-pg.h"
#include "store/driver-pg-int.h"

#define PGR_FETCH		100	/* rows in a page */
#define PGR_CONNS		8	/* cursors open at once, at most */
/*
 * One statement's work, at most: a read holds the node's loop that long,
 * which must still send the leader's heartbeat (every L/4, L at least
 * 1 s) and poll a standby's takeover in time.
 */
#define PGR_STATEMENT_MS	250
/*
 * Its answer, at most: a node cut off from PostgreSQL answers a read
 * with "database unreachable" then, and logs in again at the next; a
 * login is given as long (connect_timeout, in s, at least 2).
 */
#define PGR_ANSWER_MS		1000
#define PGR_LOGIN_S		"2"
static const struct pg_bound pgr_bound = { 0, PGR_ANSWER_MS, NULL, NULL };
/* Why the last wait was given up, for pgr_fail. */
static char	*pgr_unreachable;

/* Set at login, so RESET returns to them. */
#define PGR_STR(x)	#x
#define PGR_XSTR(x)	PGR_STR(x)
#define PGR_OPTIONS \
	"-c statement_timeout=" PGR_XSTR(PGR_STATEMENT_MS) \
	" -c lock_timeout=100" \
	" -c idle_in_transaction_session_timeout=10000" \
	" -c default_transaction_read_only=on"

#define PG_BOOL		16	/* type oids we read as numbers or bytes */
#define PG_BYTEA	17
#define PG_INT8		20
#define PG_INT2		21
#define PG_INT4		23
#define PG_TEXT		25
#define PG_OID		26
#define PG_FLOAT4	700
#define PG_FLOAT8	701
#define PG_NUMERIC	1700

/* What the engine's connection says for SQLite's "PRAGMA data_version". */
#define PGR_DATA_VERSION \
	"SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint"

/*
 * Whether the login may do more than read: 1 for yes.  The rights are
 * those of the session user, so SQL cannot change them.
 */
#define PGR_RIGHTS \
	"SELECT r.rolsuper OR r.rolcreaterole OR r.rolbypassrls" \
	" OR r.rolreplication" \
	" OR pg_has_role(session_user, 'pg_signal_backend', 'MEMBER')" \
	" OR pg_has_role(session_user, 'pg_write_all_data', 'MEMBER')" \
	" OR EXISTS (SELECT 1 FROM pg_roles e" \
	"  WHERE e.rolname = 'sluice_engine'" \
	"  AND pg_has_role(session_user, e.oid, 'MEMBER'))" \
	" OR EXISTS (SELECT 1 FROM pg_class c" \
	"  WHERE c.relnamespace = current_schema()::regnamespace" \
	"  AND c.relkind IN ('r', 'p')" \
	"  AND (has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')" \
	"  OR pg_has_role(session_user, c.relowner, 'MEMBER')))," \
	" session_user FROM pg_roles r WHERE r.rolname = session_user"

/*
 * Words a member's statement may not use: functions that do more than
 * read, or run SQL given as text (matched as whole names, or as the
 * start of one where they end in "_").
 */
static const char *pgr_refused[] = {
	"pg_advisory_", "pg_try_advisory_", "pg_terminate_backend",
	"pg_cancel_backend", "pg_sleep", "pg_sleep_for", "pg_sleep_until",
	"pg_notify", "set_config", "pg_read_", "pg_ls_", "pg_stat_file",
	"pg_reload_conf", "pg_rotate_logfile", "pg_promote", "pg_switch_wal",
	"pg_create_", "pg_drop_", "pg_replication_", "pg_logical_",
	"pg_log_backend_memory_contexts", "pg_stat_reset", "pg_stat_reset_",
	"pg_backup_", "pg_wal_replay_", "pg_import_system_collations",
	"pg_export_snapshot", "lo_", "dblink", "dblink_", "query_to_xml",
	"query_to_xml_", "cursor_to_xml", "cursor_to_xml_", "table_to_xml",
	"nextval", "setval", "txid_current", "pg_current_xact_id",
	"pg_current_xact_id_if_assigned", "pg_file_", "loread", "lowrite"
};

/*
 * A connection of the reader's: a cursor has one to itself, since a
 * PostgreSQL session has one transaction (its snapshot) at a time.
 */
struct pgr_conn {
	PGconn			*pg;
	int			 busy;		/* a cursor's */
};

struct pg_reader {
	struct store_reader	 base;		/* first: the seam's handle */
	char			*login;		/* postgresql:... */
	struct pgr_conn		 conns[PGR_CONNS];
	int			 ncursors;	/* open: none at close */
};

struct pg_cursor {
	struct store_cursor	 base;		/* first: the seam's handle */
	struct pg_reader	*r;
	struct pgr_conn		*conn;
	int			 done;		/* no more rows */
};

static void	pgr_close(struct store_reader *);
static int	pgr_cursor_open(struct store_reader *, const char *,
		    const cJSON *, struct store_cursor **, char **);
static int	pgr_cursor_page(struct store_cursor *, cJSON *, char **);
static void	pgr_cursor_close(struct store_cursor *);

static const struct store_reader_ops pgr_ops = {
	.close = pgr_close,
	.cursor_open = pgr_cursor_open,
	.cursor_page = pgr_cursor_page,
	.cursor_close = pgr_cursor_close,
};

/* The server's message of a failed result, or libpq's, on one line. */
static int
pgr_fail(PGconn *pg, const PGresult *res, const char *what, char **cause)
{
	const char	*state = NULL, *msg = NULL;
	size_t		 len;
	int		 rc = STORE_ERR;

	if (res != NULL) {
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	}
	if (res == NULL && pgr_unreachable != NULL) {
		xasprintf(cause, "%s: %s", what, pgr_unreachable);
		free(pgr_unreachable);
		pgr_unreachable = NULL;
		return (rc);
	}
	if (msg == NULL)
		msg = PQerrorMessage(pg);
	if (msg == NULL || *msg == '\0')
		msg = "unknown PostgreSQL error";
	len = strcspn(msg, "\n");
	if (state != NULL && (strcmp(state, "25006") == 0 ||
	    strcmp(state, "42501") == 0)) {
		xasprintf(cause, "read-only: members write through commands "
		    "(%.*s)", (int)len, msg);
		return (STORE_READONLY);
	}
	if (state != NULL && strcmp(state, "57014") == 0) {
		xasprintf(cause, "read stopped: a page took more than %d ms "
		    "of work (the limit for members' reads)",
		    PGR_STATEMENT_MS);
		return (STORE_ERR);
	}
	if (state != NULL && (strcmp(state, "55P03") == 0 ||
	    strcmp(state, "40001") == 0))
		rc = STORE_BUSY;
	xasprintf(cause, "%s: %.*s", what, (int)len, msg);
	return (rc);
}

/*
 * The answer to what was just sent (sent: it was), waited for at most
 * PGR_ANSWER_MS: its last result, or NULL (pgr_fail says why).
 */
static PGresult *
pgr_answer(PGconn *pg, int sent)
{
	return (pg_last(pg, sent, &pgr_bound, &pgr_unreachable));
}

/* Run SQL without parameters; 0, or -1 (the result's failure in *cause). */
static int
pgr_run(PGconn *pg, const char *sql, ExecStatusType want, PGresult **resp,
    char **cause)
{
	PGresult	*res;
	int		 rc;

	res = pgr_answer(pg, PQsendQuery(pg, sql));
	if (PQresultStatus(res) != want) {
		rc = pgr_fail(pg, res, "read", cause);
		PQclear(res);
		return (rc);
	}
	if (resp != NULL)
		*resp = res;
	else
		PQclear(res);
	return (0);
}

/* Connect as the reader's login and check that it may only read. */
static int
pgr_connect(struct pg_reader *r, struct pgr_conn *conn, char **cause)
{
	const char	*keys[] = { "dbname", "fallback_application_name",
			    "options", "connect_timeout", NULL };
	const char	*vals[] = { NULL, "sluice reader", PGR_OPTIONS,
			    PGR_LOGIN_S, NULL };
	PGresult	*res = NULL;
	PGconn		*pg;
	const char	*who;
	int		 more;

	if ((vals[0] = pg_conninfo(r->login)) == NULL) {
		xasprintf(cause, "members' reads: cluster.reader is not a "
		    "PostgreSQL name (postgresql:service=NAME)");
		return (STORE_ERR);
	}
	PQfinish(conn->pg);
	conn->pg = NULL;
	pg = PQconnectdbParams(keys, vals, 1);
	if (pg == NULL || PQstatus(pg) != CONNECTION_OK) {
		/* Not the name itself: it may hold a password. */
		xasprintf(cause, "members' reads: cannot log in as the "
		    "reader's login (cluster.reader): %.*s", pg != NULL ?
		    (int)strcspn(PQerrorMessage(pg), "\n") : 13,
		    pg != NULL ? PQerrorMessage(pg) : "out of memory");
		PQfinish(pg);
		return (STORE_ERR);
	}
	if (pgr_run(pg, PGR_RIGHTS, PGRES_TUPLES_OK, &res, cause) != 0) {
		PQfinish(pg);		/* unchecked: never read on it */
		return (STORE_ERR);
	}
	more = PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), "f") != 0;
	who = PQntuples(res) == 1 ? PQgetvalue(res, 0, 1) : "?";
	if (more) {
		xasprintf(cause, "members' reads refused: the reader's login "
		    "%s (cluster.reader) may do more than read; give it a "
		    "role that is a member of sluice_reader only", who);
		PQclear(res);
		PQfinish(pg);
		return (STORE_ERR);
	}
	PQclear(res);
	conn->pg = pg;
	return (0);
}

/*
 * Open the read connection, logging in as login (a postgresql: name);
 * yield is not called: a page is one statement, bounded by its timeout.
 */
int
store_pg_reader_open(const char *login, store_reader_yield_cb yield,
    void *arg, struct store_reader **rp, char **cause)
{
	struct pg_reader	*r;
	char			*why;

	(void)yield;
	(void)arg;
	*rp = NULL;
	if (pg_lib_load(&why) != 0) {
		xasprintf(cause, "members' reads: %s", why);
		free(why);
		return (STORE_ERR);
	}
	r = xcalloc(1, sizeof *r);
	r->base.ops = &pgr_ops;
	r->login = xstrdup(login);
	if (pgr_connect(r, &r->conns[0], cause) != 0) {
		pgr_close(&r->base);
		return (STORE_ERR);
	}
	*rp = &r->base;
	return (0);
}

/* Close the read connection, its cursors closed already. */
static void
pgr_close(struct store_reader *base)
{
	struct pg_reader	*r = (struct pg_reader *)base;
	int			 i;

	if (r->ncursors != 0)
		fatalx("%s: %d cursors open", __func__, r->ncursors);
	for (i = 0; i < PGR_CONNS; i++)
		PQfinish(r->conns[i].pg);
	free(r->login);
	free(r);
}

/* Whether text at p is the name word (whole, or its start for "x_"). */
static int
pgr_names(const char *p, size_t len, const char *word)
{
	size_t	 n = strlen(word);

	if (word[n - 1] == '_')
		return (len >= n && strncasecmp(p, word, n) == 0);
	return (len == n && strncasecmp(p, word, n) == 0);
}

/*
 * Past a string literal at p (its opening quote), with backslash escapes
 * in an E'' string: a string's words are data, never called (what runs
 * SQL from a string is refused by name).
 */
static const char *
pgr_string(const char *p, int escapes)
{
	for (p++; *p != '\0'; p++) {
		if (escapes && *p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '\'' && p[1] == '\'')
			p++;
		else if (*p == '\'')
			return (p + 1);
	}
	return (p);
}

/*
 * The text's guard: one statement, a SELECT or WITH, no word refused
 * outside its strings (in a quoted name too).  0, or the store code
 * with why.
 */
static int
pgr_guard(const char *sql, char **cause)
{
	const char	*p = sql, *w;
	size_t		 len, i;
	int		 first = 1;

	while (*p != '\0') {
		if (*p == '\'') {
			p = pgr_string(p, 0);
			continue;
		}
		if (p[0] == '-' && p[1] == '-') {
			p += strcspn(p, "\n");
			continue;
		}
		if (*p == ';') {
			p += 1 + strspn(p + 1, " \t\r\n;");
			if (*p != '\0') {
				xasprintf(cause, "read: one statement at a "
				    "time");
				return (STORE_ERR);
			}
			break;
		}
		/*
		 * What could hide a string's end from the scan: block
		 * comments (which nest) and dollar quotes.  The store's
		 * SQL has neither.
		 */
		if ((p[0] == '/' && p[1] == '*') || (p[0] == '$' &&
		    !isdigit((unsigned char)p[1]))) {
			xasprintf(cause, "read: %s are refused in members' "
			    "reads", *p == '/' ? "block comments" :
			    "dollar quotes");
			return (STORE_ERR);
		}
		if ((p[0] == 'u' || p[0] == 'U') && p[1] == '&') {
			xasprintf(cause, "read: U& escapes are refused");
			return (STORE_READONLY);
		}
		if (!isalpha((unsigned char)*p) && *p != '_') {
			p++;
			continue;
		}
		w = p;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
			p++;
		len = (size_t)(p - w);
		if (len == 1 && (*w == 'E' || *w == 'e') && *p == '\'') {
			p = pgr_string(p, 1);
			continue;
		}
		if (first) {
			first = 0;
			if (!pgr_names(w, len, "SELECT") &&
			    !pgr_names(w, len, "WITH")) {
				xasprintf(cause, "read-only: members write "
				    "through commands (a read is a SELECT)");
				return (STORE_READONLY);
			}
		}
		for (i = 0; i < nitems(pgr_refused); i++) {
			if (pgr_names(w, len, pgr_refused[i])) {
				xasprintf(cause, "read-only: %.*s is refused in "
				    "members' reads", (int)len, w);
				return (STORE_READONLY);
			}
		}
	}
	if (first) {
		xasprintf(cause, "read: no statement");
		return (STORE_ERR);
	}
	return (0);
}

/* A read's parameters for libpq: text, or bytea's bytes. */
struct pgr_params {
	int		 n;
	char		**vals;
	int		*lens;
	int		*fmts;
	Oid		*types;		/* bytea only: the rest by place */
	Oid		*typed;		/* and by value (int8, text) */
};

/* Free the parameters. */
static void
pgr_params_free(struct pgr_params *p)
{
	int	 i;

	for (i = 0; p->vals != NULL && i < p->n; i++)
		free(p->vals[i]);
	free(p->vals);
	free(p->lens);
	free(p->fmts);
	free(p->types);
	free(p->typed);
}

/* The wire values of a read as parameters; 0, or -1 with why. */
static int
pgr_params(const cJSON *values, struct pgr_params *p, char **cause)
{
	struct store_wire_value	 w;
	const cJSON		*v;
	size_t			 n = (size_t)p->n + 1;
	int			 i = 0;

	if (values != NULL && !cJSON_IsArray(values)) {
		xasprintf(cause, "read: $.values is not an array");
		return (-1);
	}
	if (cJSON_GetArraySize(values) != p->n) {
		xasprintf(cause, "read: %d values for %d parameters",
		    cJSON_GetArraySize(values), p->n);
		return (-1);
	}
	p->vals = xcalloc(n, sizeof *p->vals);
	p->lens = xcalloc(n, sizeof *p->lens);
	p->fmts = xcalloc(n, sizeof *p->fmts);
	p->types = xcalloc(n, sizeof *p->types);
	p->typed = xcalloc(n, sizeof *p->typed);
	cJSON_ArrayForEach(v, values) {
		if (store_wire_read(v, &w) != 0) {
			xasprintf(cause, "read: $.values[%d] is not a value",
			    i);
			return (-1);
		}
		p->typed[i] = PG_TEXT;
		switch (w.kind) {
		case STORE_WIRE_NULL:
			break;
		case STORE_WIRE_INT:
			xasprintf(&p->vals[i], "%lld", (long long)w.i);
			p->typed[i] = PG_INT8;
			break;
		case STORE_WIRE_REAL:
			xasprintf(&p->vals[i], "%.17g", w.real);
			break;
		case STORE_WIRE_TEXT:
			p->vals[i] = xstrdup(w.text);
			break;
		case STORE_WIRE_BLOB:
			p->vals[i] = xmalloc(w.len + 1);
			memcpy(p->vals[i], w.data, w.len);
			p->lens[i] = (int)w.len;
			p->fmts[i] = 1;
			p->types[i] = p->typed[i] = PG_BYTEA;
			free(w.data);
			break;
		}
		i++;
	}
	return (0);
}

/*
 * The parameters' types as PostgreSQL infers them from the statement
 * (prepared, unnamed, and described), into types: DECLARE leaves no type
 * to infer.  A parameter it cannot type from its place alone (?1 IS
 * NULL) is typed from its value, as the engine's driver does
 * (driver-pg.c).  0, or a store code with why.
 */
static int
pgr_describe(PGconn *pg, const char *text, struct pgr_params *p,
    Oid *types, char **cause)
{
	PGresult	*res;
	const char	*state;
	int		 rc, i;

	res = pgr_answer(pg, PQsendPrepare(pg, "", text, p->n, p->types));
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (PQresultStatus(res) != PGRES_COMMAND_OK && state != NULL &&
	    (strcmp(state, "42P18") == 0 || strcmp(state, "42P08") == 0)) {
		PQclear(res);
		res = pgr_answer(pg, PQsendPrepare(pg, "", text, p->n,
		    p->typed));
	}
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		rc = pgr_fail(pg, res, "read", cause);
		PQclear(res);
		return (rc);
	}
	PQclear(res);
	res = pgr_answer(pg, PQsendDescribePrepared(pg, ""));
	if (PQresultStatus(res) != PGRES_COMMAND_OK ||
	    PQnparams(res) != p->n) {
		rc = pgr_fail(pg, res, "read", cause);
		PQclear(res);
		return (rc);
	}
	for (i = 0; i < p->n; i++)
		types[i] = PQparamtype(res, i);
	PQclear(res);
	return (0);
}

/*
 * Begin the read's transaction and declare its cursor: 0, or a store
 * code with why (and no transaction left open).
 */
static int
pgr_declare(PGconn *pg, const char *text, struct pgr_params *p,
    char **cause)
{
	PGresult	*res;
	Oid		*types;
	char		*declare;
	int		 rc;

	types = xcalloc((size_t)p->n + 1, sizeof *types);
	if ((rc = pgr_describe(pg, text, p, types, cause)) != 0 ||
	    (rc = pgr_run(pg, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
	    PGRES_COMMAND_OK, NULL, cause)) != 0) {
		free(types);
		return (rc);
	}
	xasprintf(&declare, "DECLARE sluice_read NO SCROLL CURSOR FOR %s",
	    text);
	res = pgr_answer(pg, PQsendQueryParams(pg, declare, p->n, types,
	    (const char *const *)p->vals, p->lens, p->fmts, 0));
	free(declare);
	free(types);
	if (PQresultStatus(res) == PGRES_COMMAND_OK) {
		PQclear(res);
		return (0);
	}
	rc = pgr_fail(pg, res, "read", cause);
	PQclear(res);
	(void)pgr_run(pg, "ROLLBACK", PGRES_COMMAND_OK, NULL, NULL);
	return (rc);
}

/*
 * A connection for a new cursor: one no cursor has (one that is open
 * first), logged in again if the server ended its session.  NULL with
 * why when every one has a cursor.
 */
static struct pgr_conn *
pgr_take(struct pg_reader *r, char **cause)
{
	struct pgr_conn	*conn = NULL;
	int		 i;

	for (i = 0; i < PGR_CONNS; i++) {
		if (r->conns[i].busy)
			continue;
		if (conn == NULL || (conn->pg == NULL && r->conns[i].pg != NULL))
			conn = &r->conns[i];
	}
	if (conn == NULL) {
		xasprintf(cause, "members' reads: %d reads are open on this "
		    "node at once already; try again", PGR_CONNS);
		return (NULL);
	}
	if ((conn->pg == NULL || PQstatus(conn->pg) != CONNECTION_OK) &&
	    pgr_connect(r, conn, cause) != 0)
		return (NULL);
	if (PQtransactionStatus(conn->pg) != PQTRANS_IDLE)
		(void)pgr_run(conn->pg, "ROLLBACK", PGRES_COMMAND_OK, NULL,
		    NULL);
	return (conn);
}

/*
 * Start a member's statement in a transaction of its own: the store's
 * SQL translated, guarded, declared as a cursor on the values given.
 */
static int
pgr_cursor_open(struct store_reader *base, const char *sql,
    const cJSON *values, struct store_cursor **cp, char **cause)
{
	struct pg_reader	*r = (struct pg_reader *)base;
	struct pg_cursor	*c;
	struct pgr_conn		*conn;
	struct pgr_params	 p;
	char			*text;
	size_t			 at;
	int			 rc;

	*cp = NULL;
	memset(&p, 0, sizeof p);
	at = strspn(sql, " \t\r\n");
	if (strncasecmp(sql + at, "PRAGMA data_version", 19) == 0 &&
	    sql[at + 19 + strspn(sql + at + 19, " \t\r\n;")] == '\0')
		sql = PGR_DATA_VERSION;
	text = store_pg_sql(sql, &p.n);
	if ((rc = pgr_guard(text, cause)) != 0)
		goto out;
	if (pgr_params(values, &p, cause) != 0) {
		rc = STORE_ERR;
		goto out;
	}
	if ((conn = pgr_take(r, cause)) == NULL) {
		rc = STORE_BUSY;
		goto out;
	}
	rc = pgr_declare(conn->pg, text, &p, cause);
	if (rc != 0 && PQstatus(conn->pg) != CONNECTION_OK) {
		/* The server ended the session while it was idle: again. */
		free(*cause);
		*cause = NULL;
		if ((rc = pgr_connect(r, conn, cause)) != 0)
			goto out;
		rc = pgr_declare(conn->pg, text, &p, cause);
	}
	if (rc != 0)
		goto out;
	c = xcalloc(1, sizeof *c);
	c->base.r = base;
	c->r = r;
	c->conn = conn;
	conn->busy = 1;
	r->ncursors++;
	*cp = &c->base;
out:
	pgr_params_free(&p);
	free(text);
	return (rc);
}

/* One column of a row as a wire value; *bytes grows by its size. */
static cJSON *
pgr_value(const PGresult *res, int row, int col, size_t *bytes)
{
	const char	*v;
	unsigned char	*data;
	size_t		 n;
	cJSON		*o;

	if (PQgetisnull(res, row, col)) {
		*bytes += 4;
		return (cJSON_CreateNull());
	}
	v = PQgetvalue(res, row, col);
	*bytes += (size_t)PQgetlength(res, row, col) + 2;
	switch (PQftype(res, col)) {
	case PG_INT2:
	case PG_INT4:
	case PG_INT8:
	case PG_OID:
		return (store_wire_int(strtoll(v, NULL, 10)));
	case PG_BOOL:
		return (store_wire_int(*v == 't'));
	case PG_FLOAT4:
	case PG_FLOAT8:
		return (cJSON_CreateNumber(strtod(v, NULL)));
	case PG_NUMERIC:
		if (strpbrk(v, ".eEN") == NULL)
			return (store_wire_int(strtoll(v, NULL, 10)));
		return (cJSON_CreateNumber(strtod(v, NULL)));
	case PG_BYTEA:
		if ((data = PQunescapeBytea((const unsigned char *)v,
		    &n)) == NULL)
			return (cJSON_CreateNull());
		o = store_wire_blob(data, n);
		PQfreemem(data);
		return (o);
	}
	return (cJSON_CreateString(v));
}

/* End the cursor's transaction (a read's: nothing to keep). */
static void
pgr_end(struct pg_cursor *c)
{
	if (c->done)
		return;
	c->done = 1;
	if (c->conn->pg != NULL && PQstatus(c->conn->pg) == CONNECTION_OK &&
	    PQtransactionStatus(c->conn->pg) != PQTRANS_IDLE)
		(void)pgr_run(c->conn->pg, "ROLLBACK", PGRES_COMMAND_OK, NULL,
		    NULL);
}

/*
 * Add the cursor's next rows (one FETCH) to rows: 1 when there may be
 * more, 0 at the end (the transaction ended), or a store code with why.
 */
static int
pgr_cursor_page(struct store_cursor *base, cJSON *rows, char **cause)
{
	struct pg_cursor	*c = (struct pg_cursor *)base;
	PGresult		*res = NULL;
	cJSON			*row;
	size_t			 bytes = 0;
	int			 rc, n, i, j, ncols;
	char			 fetch[64];

	if (c->done)
		return (0);
	snprintf(fetch, sizeof fetch, "FETCH %d FROM sluice_read", PGR_FETCH);
	if ((rc = pgr_run(c->conn->pg, fetch, PGRES_TUPLES_OK, &res,
	    cause)) != 0) {
		pgr_end(c);
		return (rc);
	}
	n = PQntuples(res);
	ncols = PQnfields(res);
	for (i = 0; i < n; i++) {
		row = cJSON_CreateArray();
		for (j = 0; j < ncols; j++)
			cJSON_AddItemToArray(row, pgr_value(res, i, j, &bytes));
		cJSON_AddItemToArray(rows, row);
	}
	PQclear(res);
	if (n == PGR_FETCH)
		return (1);
	pgr_end(c);		/* the snapshot goes now */
	return (0);
}

/* Finish a cursor, letting go of its snapshot. */
static void
pgr_cursor_close(struct store_cursor *base)
{
	struct pg_cursor	*c = (struct pg_cursor *)base;

	pgr_end(c);
	c->conn->busy = 0;
	/* One idle session is kept; those of reads at once go. */
	if (c->conn != &c->r->conns[0]) {
		PQfinish(c->conn->pg);
		c->conn->pg = NULL;
	}
	c->r->ncursors--;
	free(c);
}
