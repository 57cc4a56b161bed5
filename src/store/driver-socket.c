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
 * driver-socket.c: the store driver of members in service mode, who may
 * not open the database's files: each statement goes, as its SQL and its
 * values, to the engine's socket (engine/server-read.c), which runs it on
 * a read-only connection of its own and sends its rows back a page at a
 * time.  So every read command and the console run the same store code
 * as the service account's.  Nothing is written this way: a write is
 * refused ("read-only: members write through commands"), and begin and
 * commit of a read are nothing: each statement is its own snapshot, and
 * no read transaction is held across requests.
 *
 * The store knows no sockets: the client layer installs the link
 * (store_set_link), one line out and one line back.  The engine keeps one
 * cursor per connection; a statement that starts while another still has
 * rows there first takes the rest of those.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "store/driver.h"
#include "store/store-int.h"

#define SOCK_READONLY	"read-only: members write through commands"

struct sock_stmt;

struct sock_conn {
	struct store_link	*link;
	enum store_drv_code	 code;		/* the last failure */
	char			*message;
	struct sock_stmt	*owner;		/* holds the engine's cursor */
};

struct sock_stmt {
	struct store_stmt	 base;		/* first: the store's handle */
	struct sock_conn	*conn;
	char			*sql;
	int			 nparams;
	cJSON			*values;	/* an array of nparams */
	cJSON			*rows;		/* of the pages read */
	cJSON			*row;		/* the current one, or NULL */
	int			 started;
	int			 more;		/* the engine has more rows */
	char			**text;		/* the row's columns as text */
	unsigned char		**blob;		/* and as bytes */
	int			 ncols;
};

static const struct store_link_ops	*sock_link;

static enum store_drv_code sock_fail(struct sock_conn *, enum store_drv_code,
		    const char *);
static enum store_drv_code sock_ask(struct sock_conn *, cJSON *, cJSON **);
static enum store_drv_code sock_fetch(struct sock_stmt *, int);
static enum store_drv_code sock_take_cursor(struct sock_conn *,
		    struct sock_stmt *);
static void	sock_row_free(struct sock_stmt *);
static void	sock_let_go(struct sock_stmt *);
static int	sock_count_parameters(const char *);
static cJSON	*sock_column(struct sock_stmt *, int);
static int	sock_value(struct store_stmt *, int, struct store_wire_value *);

/* How this process reaches the engine; the client layer sets it. */
void
store_set_link(const struct store_link_ops *ops)
{
	sock_link = ops;
}

/* Note a failure and its message; returns the code. */
static enum store_drv_code
sock_fail(struct sock_conn *c, enum store_drv_code code, const char *message)
{
	c->code = code;
	free(c->message);
	c->message = xstrdup(message);
	return (code);
}

/* Open the link to the engine of the database at path. */
static int
sock_open(const char *path, int flags, struct store_conn **connp,
    char **cause)
{
	struct sock_conn	*c;
	struct store_link	*l;

	(void)flags;		/* always read-only */
	*connp = NULL;
	if (sock_link == NULL) {
		xasprintf(cause, "cannot open database %s: %s", path,
		    strerror(EACCES));
		return (-1);
	}
	if ((l = sock_link->open(path, cause)) == NULL)
		return (-1);
	c = xcalloc(1, sizeof *c);
	c->link = l;
	c->message = xstrdup("not an error");
	*connp = (struct store_conn *)c;
	return (0);
}

static void
sock_close(struct store_conn *conn)
{
	struct sock_conn	*c = (struct sock_conn *)conn;

	if (c == NULL)
		return;
	sock_link->close(c->link);
	free(c->message);
	free(c);
}

static enum store_drv_code
sock_error(struct store_conn *conn)
{
	return (((struct sock_conn *)conn)->code);
}

static const char *
sock_message(struct store_conn *conn)
{
	return (((struct sock_conn *)conn)->message);
}

/*
 * One request and its answer (o is consumed): STORE_DRV_OK with the
 * answer in *ap, or the engine's refusal or the link's failure.
 */
static enum store_drv_code
sock_ask(struct sock_conn *c, cJSON *o, cJSON **ap)
{
	const cJSON	*v, *word;
	cJSON		*a;
	char		*line, *answer, *cause = NULL;
	enum store_drv_code code;

	*ap = NULL;
	if ((line = cJSON_PrintUnformatted(o)) == NULL)
		fatalx("%s: out of memory", __func__);
	cJSON_Delete(o);
	answer = sock_link->ask(c->link, line, &cause);
	cJSON_free(line);
	if (answer == NULL) {
		code = sock_fail(c, STORE_DRV_ERROR, cause);
		free(cause);
		return (code);
	}
	a = cJSON_Parse(answer);
	free(answer);
	v = cJSON_GetObjectItemCaseSensitive(a, "code");
	if (!cJSON_IsNumber(v))
		code = sock_fail(c, STORE_DRV_ERROR, "the engine's answer "
		    "to a read is unreadable");
	else if (v->valueint != 0) {
		word = cJSON_GetObjectItemCaseSensitive(a, "error");
		v = cJSON_GetObjectItemCaseSensitive(a, "message");
		code = STORE_DRV_ERROR;
		if (cJSON_IsString(word) && strcmp(word->valuestring,
		    "readonly") == 0)
			code = STORE_DRV_READONLY;
		else if (cJSON_IsString(word) && strcmp(word->valuestring,
		    "busy") == 0)
			code = STORE_DRV_BUSY;
		code = sock_fail(c, code, cJSON_IsString(v) ? v->valuestring :
		    "the engine refused the read");
	} else {
		*ap = a;
		return (STORE_DRV_OK);
	}
	cJSON_Delete(a);
	return (code);
}

/* A statement's number of parameters, as SQLite counts ? and ?NNN. */
static int
sock_count_parameters(const char *sql)
{
	const char	*p;
	char		 quote;
	int		 n = 0, k;

	for (p = sql; *p != '\0'; p++) {
		if (*p == '\'' || *p == '"' || *p == '`') {
			quote = *p;
			while (p[1] != '\0' && p[1] != quote)
				p++;
			if (p[1] != '\0')
				p++;
		} else if (p[0] == '-' && p[1] == '-') {
			while (p[1] != '\0' && p[1] != '\n')
				p++;
		} else if (*p == '?') {
			for (k = 0; p[1] >= '0' && p[1] <= '9' && k < 100000;
			    p++)
				k = k * 10 + (p[1] - '0');
			n = k > 0 ? (k > n ? k : n) : n + 1;
		}
	}
	return (n);
}

/* Prepare: nothing is sent until the statement runs. */
static enum store_drv_code
sock_prepare(struct store_conn *conn, const char *sql, int keep,
    struct store_stmt **stp)
{
	struct sock_conn	*c = (struct sock_conn *)conn;
	struct sock_stmt	*h;
	int			 i;

	(void)keep;
	h = xcalloc(1, sizeof *h);
	h->base.drv = &store_driver_socket;
	h->conn = c;
	h->sql = xstrdup(sql);
	h->nparams = sock_count_parameters(sql);
	h->values = cJSON_CreateArray();
	for (i = 0; i < h->nparams; i++)
		cJSON_AddItemToArray(h->values, cJSON_CreateNull());
	*stp = &h->base;
	return (STORE_DRV_OK);
}

/* Free the current row's converted columns. */
static void
sock_row_free(struct sock_stmt *h)
{
	int	 i;

	for (i = 0; i < h->ncols; i++) {
		free(h->text[i]);
		free(h->blob[i]);
	}
	free(h->text);
	free(h->blob);
	h->text = NULL;
	h->blob = NULL;
	h->ncols = 0;
}

/*
 * Forget the statement's rows; when the engine still holds its cursor,
 * tell it to close (its snapshot goes now, not after the idle time).
 */
static void
sock_let_go(struct sock_stmt *h)
{
	struct sock_conn	*c = h->conn;
	cJSON			*o, *a;

	if (c->owner == h) {
		c->owner = NULL;
		if (h->more) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "command", "read-close");
			if (sock_ask(c, o, &a) == STORE_DRV_OK)
				cJSON_Delete(a);
		}
	}
	sock_row_free(h);
	cJSON_Delete(h->rows);
	h->rows = NULL;
	h->row = NULL;
	h->started = 0;
	h->more = 0;
}

static void
sock_finalize(struct store_stmt *st)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;

	sock_let_go(h);
	cJSON_Delete(h->values);
	free(h->sql);
	free(h);
}

static void
sock_reset(struct store_stmt *st, int clear)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;
	int			 i;

	sock_let_go(h);
	if (!clear)
		return;
	for (i = 0; i < h->nparams; i++)
		cJSON_ReplaceItemInArray(h->values, i, cJSON_CreateNull());
}

static int
sock_parameters(struct store_stmt *st)
{
	return (((struct sock_stmt *)st)->nparams);
}

/*
 * The engine's cursor is about to go to h (or to a one-off read, h
 * NULL): a statement holding it with rows still there reads them all now.
 */
static enum store_drv_code
sock_take_cursor(struct sock_conn *c, struct sock_stmt *h)
{
	enum store_drv_code	 code;

	while (c->owner != NULL && c->owner != h && c->owner->more) {
		if ((code = sock_fetch(c->owner, 1)) != STORE_DRV_OK)
			return (code);
	}
	return (STORE_DRV_OK);
}

/*
 * Get the statement's next page (first the read itself): its rows
 * replace those read, or with keep are added after them (a statement
 * giving the engine's cursor up, still on one of its rows).
 */
static enum store_drv_code
sock_fetch(struct sock_stmt *h, int keep)
{
	struct sock_conn	*c = h->conn;
	cJSON			*o, *a, *rows, *row;
	enum store_drv_code	 code;

	o = cJSON_CreateObject();
	if (!h->started) {
		if ((code = sock_take_cursor(c, h)) != STORE_DRV_OK) {
			cJSON_Delete(o);
			return (code);
		}
		cJSON_AddStringToObject(o, "command", "read");
		cJSON_AddStringToObject(o, "sql", h->sql);
		cJSON_AddItemReferenceToObject(o, "values", h->values);
	} else
		cJSON_AddStringToObject(o, "command", "read-next");
	h->started = 1;
	code = sock_ask(c, o, &a);
	if (code != STORE_DRV_OK) {
		h->more = 0;
		if (c->owner == h)
			c->owner = NULL;
		return (code);
	}
	h->more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "more"));
	if (h->more)
		c->owner = h;
	else if (c->owner == h)
		c->owner = NULL;
	rows = cJSON_DetachItemFromObjectCaseSensitive(a, "rows");
	cJSON_Delete(a);
	if (!cJSON_IsArray(rows)) {
		cJSON_Delete(rows);
		h->more = 0;
		return (sock_fail(c, STORE_DRV_ERROR, "the engine's answer to "
		    "a read has no rows"));
	}
	if (!keep || h->rows == NULL) {
		cJSON_Delete(h->rows);
		h->rows = rows;
		return (STORE_DRV_OK);
	}
	while ((row = rows->child) != NULL) {
		cJSON_DetachItemViaPointer(rows, row);
		cJSON_AddItemToArray(h->rows, row);
	}
	cJSON_Delete(rows);
	return (STORE_DRV_OK);
}

/* The next row: from the rows read, else the next page. */
static enum store_drv_code
sock_step(struct store_stmt *st)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;
	enum store_drv_code	 code;

	sock_row_free(h);
	if (h->row != NULL && h->row->next != NULL)
		h->row = h->row->next;
	else {
		h->row = NULL;
		while (h->row == NULL && (!h->started || h->more)) {
			if ((code = sock_fetch(h, 0)) != STORE_DRV_OK)
				return (code);
			h->row = h->rows->child;
		}
		if (h->row == NULL)
			return (STORE_DRV_DONE);
	}
	if (!cJSON_IsArray(h->row))
		return (sock_fail(h->conn, STORE_DRV_ERROR, "the engine's "
		    "answer to a read has a row that is not an array"));
	h->ncols = cJSON_GetArraySize(h->row);
	h->text = xcalloc((size_t)h->ncols + 1, sizeof *h->text);
	h->blob = xcalloc((size_t)h->ncols + 1, sizeof *h->blob);
	return (STORE_DRV_ROW);
}

/* Bind a wire value (consumed) to parameter idx. */
static enum store_drv_code
sock_bind(struct store_stmt *st, int idx, cJSON *v)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;

	if (idx < 1 || idx > h->nparams) {
		cJSON_Delete(v);
		return (sock_fail(h->conn, STORE_DRV_ERROR, "column index "
		    "out of range"));
	}
	cJSON_ReplaceItemInArray(h->values, idx - 1, v);
	return (STORE_DRV_OK);
}

static enum store_drv_code
sock_bind_int64(struct store_stmt *st, int idx, int64_t v)
{
	return (sock_bind(st, idx, store_wire_int(v)));
}

static enum store_drv_code
sock_bind_text(struct store_stmt *st, int idx, const char *v, size_t len)
{
	char	*copy;
	cJSON	*o;

	copy = xmalloc(len + 1);
	memcpy(copy, v, len);
	copy[len] = '\0';
	o = cJSON_CreateString(copy);
	free(copy);
	return (sock_bind(st, idx, o));
}

static enum store_drv_code
sock_bind_blob(struct store_stmt *st, int idx, const void *v, size_t len)
{
	return (sock_bind(st, idx, store_wire_blob(v, len)));
}

static enum store_drv_code
sock_bind_null(struct store_stmt *st, int idx)
{
	return (sock_bind(st, idx, cJSON_CreateNull()));
}

/* The current row's column col, or NULL past its end. */
static cJSON *
sock_column(struct sock_stmt *h, int col)
{
	if (h->row == NULL || col < 0 || col >= h->ncols)
		return (NULL);
	return (cJSON_GetArrayItem(h->row, col));
}

static int
sock_column_null(struct store_stmt *st, int col)
{
	cJSON	*v = sock_column((struct sock_stmt *)st, col);

	return (v == NULL || cJSON_IsNull(v));
}

/* The current row's column col as a wire value: 0, or -1 for none. */
static int
sock_value(struct store_stmt *st, int col, struct store_wire_value *w)
{
	cJSON	*v = sock_column((struct sock_stmt *)st, col);

	if (v == NULL || store_wire_read(v, w) != 0)
		return (-1);
	return (0);
}

/* An integer column; text is read as SQLite would (its leading digits). */
static int64_t
sock_column_int64(struct store_stmt *st, int col)
{
	struct store_wire_value	 w;

	if (sock_value(st, col, &w) != 0)
		return (0);
	switch (w.kind) {
	case STORE_WIRE_INT:
		return (w.i);
	case STORE_WIRE_REAL:
		return ((int64_t)w.real);
	case STORE_WIRE_TEXT:
		return (strtoll(w.text, NULL, 10));
	case STORE_WIRE_BLOB:
		free(w.data);
		break;
	}
	return (0);
}

/* A text column; numbers as SQLite writes them. */
static const char *
sock_column_text(struct store_stmt *st, int col)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;
	struct store_wire_value	 w;

	if (sock_value(st, col, &w) != 0)
		return (NULL);
	switch (w.kind) {
	case STORE_WIRE_TEXT:
		return (w.text);
	case STORE_WIRE_INT:
		free(h->text[col]);
		xasprintf(&h->text[col], "%lld", (long long)w.i);
		return (h->text[col]);
	case STORE_WIRE_REAL:
		free(h->text[col]);
		xasprintf(&h->text[col], "%.15g", w.real);
		return (h->text[col]);
	case STORE_WIRE_BLOB:
		/* Bytes as text: up to their first NUL, as C sees them. */
		free(h->text[col]);
		h->text[col] = xmalloc(w.len + 1);
		memcpy(h->text[col], w.data, w.len);
		h->text[col][w.len] = '\0';
		free(w.data);
		return (h->text[col]);
	}
	return (NULL);
}

/* A blob column: its bytes (NULL when empty or NULL) and their count. */
static const void *
sock_column_blob(struct store_stmt *st, int col, size_t *len)
{
	struct sock_stmt	*h = (struct sock_stmt *)st;
	struct store_wire_value	 w;

	*len = 0;
	if (sock_value(st, col, &w) != 0)
		return (NULL);
	switch (w.kind) {
	case STORE_WIRE_BLOB:
		free(h->blob[col]);
		h->blob[col] = w.data;
		*len = w.len;
		return (w.len > 0 ? w.data : NULL);
	case STORE_WIRE_TEXT:
		*len = w.len;
		return (w.len > 0 ? w.text : NULL);
	default:
		break;
	}
	if (sock_column_text(st, col) == NULL)
		return (NULL);
	*len = strlen(h->text[col]);
	return (h->text[col]);
}

/* Schema and pragma work writes: never here. */
static enum store_drv_code
sock_exec(struct store_conn *conn, const char *sql)
{
	(void)sql;
	return (sock_fail((struct sock_conn *)conn, STORE_DRV_READONLY,
	    SOCK_READONLY));
}

/*
 * A read transaction is nothing (each statement its own snapshot, none
 * held across requests); a write one is refused.
 */
static enum store_drv_code
sock_begin(struct store_conn *conn, int level, int write)
{
	(void)level;
	if (write) {
		return (sock_fail((struct sock_conn *)conn,
		    STORE_DRV_READONLY, SOCK_READONLY));
	}
	return (STORE_DRV_OK);
}

static enum store_drv_code
sock_end(struct store_conn *conn, int level)
{
	(void)conn;
	(void)level;
	return (STORE_DRV_OK);
}

static int
sock_in_transaction(struct store_conn *conn)
{
	(void)conn;
	return (0);
}

static int64_t
sock_nothing(struct store_conn *conn)
{
	(void)conn;
	return (0);
}

/* The engine's read connection's data_version: moves with each commit. */
static enum store_drv_code
sock_data_version(struct store_conn *conn, int64_t *v)
{
	struct store_stmt	*st;
	enum store_drv_code	 code;

	*v = 0;
	(void)sock_prepare(conn, "PRAGMA data_version", 0, &st);
	if ((code = sock_step(st)) == STORE_DRV_ROW) {
		*v = sock_column_int64(st, 0);
		code = STORE_DRV_OK;
	} else if (code == STORE_DRV_DONE)
		code = STORE_DRV_OK;
	sock_finalize(st);
	return (code);
}

/* Settings, journal and functions are the engine's connection's. */
static enum store_drv_code
sock_ok(struct store_conn *conn)
{
	(void)conn;
	return (STORE_DRV_OK);
}

static enum store_drv_code
sock_function(struct store_conn *conn, const struct store_drv_function *f)
{
	(void)conn;
	(void)f;
	return (STORE_DRV_OK);
}

const struct store_driver store_driver_socket = {
	.name = "socket",

	.open = sock_open,
	.close = sock_close,
	.error = sock_error,
	.message = sock_message,

	.prepare = sock_prepare,
	.finalize = sock_finalize,
	.reset = sock_reset,
	.parameters = sock_parameters,
	.step = sock_step,

	.bind_int64 = sock_bind_int64,
	.bind_text = sock_bind_text,
	.bind_blob = sock_bind_blob,
	.bind_null = sock_bind_null,

	.column_null = sock_column_null,
	.column_int64 = sock_column_int64,
	.column_text = sock_column_text,
	.column_blob = sock_column_blob,

	.exec = sock_exec,

	.begin = sock_begin,
	.commit = sock_end,
	.rollback = sock_end,
	.in_transaction = sock_in_transaction,

	.last_insert_id = sock_nothing,
	.changes = sock_nothing,
	.total_changes = sock_nothing,
	.data_version = sock_data_version,

	.tune = sock_ok,
	.journal = sock_ok,
	.function = sock_function,
};
