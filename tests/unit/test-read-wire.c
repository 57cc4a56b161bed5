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
 * test-read-wire.c: members' reads, below the socket.  The wire's values
 * go and come back unchanged (integers past 2^53, bytes with NULs, every
 * base64 tail); a bad one is refused.  The engine's read connection
 * answers a read a page at a time and refuses whatever would write,
 * attach, set a pragma, or be a second statement.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "tap.h"

static char	 tmpdir[] = "/tmp/test-read-wire.XXXXXX";

/* Bytes through the wire and back. */
static void
test_blob(const char *what, const void *data, size_t len)
{
	struct store_wire_value	 w;
	cJSON			*o;

	o = store_wire_blob(data, len);
	tap_ok(store_wire_read(o, &w) == 0 && w.kind == STORE_WIRE_BLOB &&
	    w.len == len && memcmp(w.data, data, len) == 0, "%s", what);
	free(w.data);
	cJSON_Delete(o);
}

/* Integers through the wire and back. */
static void
test_ints(void)
{
	static const int64_t	 v[] = { 0, -1, 9007199254740992LL,
				     9007199254740993LL, INT64_MIN, INT64_MAX };
	struct store_wire_value	 w;
	cJSON			*o;
	size_t			 i;

	for (i = 0; i < nitems(v); i++) {
		o = store_wire_int(v[i]);
		tap_ok(store_wire_read(o, &w) == 0 && w.kind ==
		    STORE_WIRE_INT && w.i == v[i], "integer %lld", (long long)v[i]);
		cJSON_Delete(o);
	}
}

/* Values that are none of the wire's. */
static void
test_bad(void)
{
	static const char	*bad[] = { "{\"blob\": \"abc\"}",
				    "{\"blob\": \"a===\"}", "{\"blob\": \"@@@@\"}",
				    "{\"int\": \"12x\"}", "[1]", "true", "{}" };
	struct store_wire_value	 w;
	cJSON			*o;
	size_t			 i;

	for (i = 0; i < nitems(bad); i++) {
		o = cJSON_Parse(bad[i]);
		tap_ok(store_wire_read(o, &w) == -1, "refused: %s", bad[i]);
		cJSON_Delete(o);
	}
}

/* Run sql with values (JSON text) on the reader: its rows as JSON. */
static int
reader_run(struct store_reader *r, const char *sql, const char *values,
    char **out, char **cause)
{
	struct store_cursor	*c;
	cJSON			*v, *rows;
	int			 rc;

	*out = NULL;
	v = values != NULL ? cJSON_Parse(values) : NULL;
	rc = store_cursor_open(r, sql, v, &c, cause);
	cJSON_Delete(v);
	if (rc != 0)
		return (rc);
	rows = cJSON_CreateArray();
	while ((rc = store_cursor_page(c, rows, cause)) == 1)
		/* nothing */;
	store_cursor_close(c);
	if (rc == 0)
		*out = cJSON_PrintUnformatted(rows);
	cJSON_Delete(rows);
	return (rc);
}

/* The engine's read connection: reads answer, the rest is refused. */
static void
test_reader(void)
{
	static const char	*refused[] = { "DELETE FROM audit",
				    "INSERT INTO audit (id) VALUES (1)",
				    "PRAGMA user_version = 3",
				    "ATTACH '/tmp/x.db' AS x",
				    "CREATE TEMP TABLE t (x)", "BEGIN",
				    "PRAGMA journal_mode = DELETE",
				    "SELECT load_extension('x')",
				    "SELECT 1; DELETE FROM audit" };
	struct store		*s;
	struct store_reader	*r;
	struct store_cursor	*c;
	cJSON			*rows;
	char			*path, *cause = NULL, *out, *want;
	size_t			 i;
	int			 rc, pages;

	xasprintf(&path, "%s/db", tmpdir);
	if (store_open(path, 0, &s, &cause) != 0)
		fatalx("%s", cause);
	tap_ok(store_reader_open(path, NULL, NULL, NULL, &r, &cause) == 0,
	    "the read connection opens");
	rc = reader_run(r, "SELECT ?, ? || 'b', ?, sluice_state(1, 'running',"
	    " 0, 1, NULL), value FROM json_each('[7]')",
	    "[1, \"a\", {\"blob\": \"AP8=\"}]", &out, &cause);
	tap_is(rc == 0 ? out : cause, "[[1,\"ab\",{\"blob\":\"AP8=\"},"
	    "\"waiting\",7]]", "values bound, columns read, our function and "
	    "json_each");
	free(out);
	rc = reader_run(r, "PRAGMA user_version", NULL, &out, &cause);
	xasprintf(&want, "[[%d]]", STORE_SCHEMA_VERSION);
	tap_is(rc == 0 ? out : cause, want, "a pragma that reports");
	free(want);
	free(out);
	for (i = 0; i < nitems(refused); i++) {
		free(cause);
		cause = NULL;
		rc = reader_run(r, refused[i], NULL, &out, &cause);
		tap_ok(rc != 0 && out == NULL, "refused: %s (%s)", refused[i],
		    cause != NULL ? cause : "");
	}
	free(cause);
	cause = NULL;
	rc = reader_run(r, "DELETE FROM audit", NULL, &out, &cause);
	free(cause);
	cause = NULL;
	tap_is_int(rc, STORE_READONLY, "a write is refused as read-only");

	/* 2500 rows: three pages of at most 1000. */
	if (store_cursor_open(r, "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL"
	    " SELECT x + 1 FROM n WHERE x < 2500) SELECT x FROM n", NULL, &c,
	    &cause) != 0)
		fatalx("%s", cause);
	for (pages = 1, i = 0;; pages++) {
		rows = cJSON_CreateArray();
		rc = store_cursor_page(c, rows, &cause);
		tap_ok(cJSON_GetArraySize(rows) <= STORE_READ_PAGE_ROWS,
		    "page %d: at most %d rows", pages, STORE_READ_PAGE_ROWS);
		i += (size_t)cJSON_GetArraySize(rows);
		cJSON_Delete(rows);
		if (rc != 1)
			break;
	}
	store_cursor_close(c);
	tap_is_int((long long)i, 2500, "every row came, a page at a time");
	tap_ok(pages >= 3, "in three pages or more");

	store_reader_close(r);
	store_close(s);
	free(path);
}

int
main(void)
{
	static const unsigned char	 bytes[] = { 0, 255, 16, 0, 'a' };
	size_t				 n;
	char				*cmd;

	json_init();
	if (mkdtemp(tmpdir) == NULL)
		fatal("mkdtemp");
	test_ints();
	for (n = 0; n <= sizeof bytes; n++)
		test_blob(n == 0 ? "no bytes" : "bytes with NULs, each tail",
		    bytes, n);
	test_bad();
	test_reader();
	xasprintf(&cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		tap_ok(0, "clean up %s", tmpdir);
	free(cmd);
	return (tap_done());
}
