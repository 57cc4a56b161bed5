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
 * server-read.c: members' reads on the engine's socket.  In service mode
 * the database's files are the service account's alone; a member's
 * sluice runs the same store code as anyone's through a driver that ships
 * each statement here (store/driver-socket.c).  A read runs on the
 * engine's own read-only connection (store/reader.c: SQLite's, or on a
 * postgresql: database PostgreSQL's as the reader's login, on every node
 * of a cluster, a standby too), never the write connection, opened at
 * the first read:
 *
 *	{"command": "read", "sql": "(one statement)", "values": [7, "x"]}
 *	{"code": 0, "rows": [[1, "a"], [2, null]], "more": true}
 *	{"command": "read-next"}	the next page
 *	{"command": "read-close"}	done with it before its end
 *
 * A connection has one cursor; a new read replaces it.  A cursor left
 * unread for ENGINE_READ_IDLE_MS is closed, so no member holds a read
 * snapshot (and with it the WAL's growth) by going quiet.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

static void	read_idle(void *);
static void	read_yield(void *);
static cJSON	*read_refusal(int, const char *);
static cJSON	*read_page(struct engine_read_slot *);
static int	read_reader(struct engine *, char **);

/* Cluster mode: the reader's login (the site config's cluster.reader). */
static char	*read_login;

/* The site config's login for members' reads (config-cluster.c). */
void
engine_read_login_set(const char *login)
{
	free(read_login);
	read_login = login != NULL ? xstrdup(login) : NULL;
}

/* Whether a request's command is one of the reads. */
int
engine_read_command(const char *command)
{
	return (strcmp(command, "read") == 0 ||
	    strcmp(command, "read-next") == 0 ||
	    strcmp(command, "read-close") == 0);
}

/* Set up a connection's read slot. */
void
engine_read_slot_init(struct engine *e, struct engine_read_slot *slot)
{
	memset(slot, 0, sizeof *slot);
	slot->e = e;
	slot->idle = loop_timer_create(e->loop, read_idle, slot);
}

/* Let go of a connection's cursor and timer. */
void
engine_read_slot_clear(struct engine_read_slot *slot)
{
	store_cursor_close(slot->cursor);
	slot->cursor = NULL;
	if (slot->idle != NULL)
		loop_timer_free(slot->idle);
	slot->idle = NULL;
}

/* A cursor nobody asked on for a while: close it, letting its snapshot go. */
static void
read_idle(void *arg)
{
	struct engine_read_slot	*slot = arg;

	log_debug("%s: a cursor left unread for %d ms; closed", __func__,
	    ENGINE_READ_IDLE_MS);
	store_cursor_close(slot->cursor);
	slot->cursor = NULL;
}

/*
 * A long row's work: answer pings and take newcomers meanwhile, but no
 * other read (SQLite's progress handler may not use its connection).
 */
static void
read_yield(void *arg)
{
	struct engine	*e = arg;

	e->reading = 1;
	engine_server_wait(e, 0);
	e->reading = 0;
}

/* The read connection, opened at the first read. */
static int
read_reader(struct engine *e, char **cause)
{
	if (e->reader != NULL)
		return (0);
	return (store_reader_open(e->dbpath, read_login, read_yield, e,
	    &e->reader, cause));
}

/*
 * A standby that leads now: its read connection, with the cursors of
 * the clients it hands over, is the engine's.
 */
void
engine_read_adopt(struct engine *e, struct engine *standby)
{
	if (e->reader == NULL) {
		e->reader = standby->reader;
		standby->reader = NULL;
	}
}

/* Close the read connection (after every slot let go of its cursor). */
void
engine_read_close(struct engine *e)
{
	store_reader_close(e->reader);
	e->reader = NULL;
}

/* A read refused: its code as a word the member's driver maps back. */
static cJSON *
read_refusal(int rc, const char *why)
{
	cJSON		*o;
	const char	*word;

	switch (rc) {
	case STORE_READONLY:
		word = "readonly";
		break;
	case STORE_BUSY:
		word = "busy";
		break;
	default:
		word = "error";
		break;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", 1);
	cJSON_AddStringToObject(o, "message", why);
	cJSON_AddStringToObject(o, "error", word);
	return (o);
}

/* The next page of the slot's cursor, as the answer. */
static cJSON *
read_page(struct engine_read_slot *slot)
{
	cJSON	*o, *rows;
	char	*cause = NULL;
	int	 rc;

	rows = cJSON_CreateArray();
	rc = slot->cursor != NULL ? store_cursor_page(slot->cursor, rows,
	    &cause) : 0;
	if (rc < 0) {
		cJSON_Delete(rows);
		store_cursor_close(slot->cursor);
		slot->cursor = NULL;
		o = read_refusal(rc, cause);
		free(cause);
		return (o);
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "code", 0);
	cJSON_AddItemToObject(o, "rows", rows);
	if (rc == 1) {
		cJSON_AddTrueToObject(o, "more");
		loop_timer_start(slot->idle, ENGINE_READ_IDLE_MS);
	} else {
		store_cursor_close(slot->cursor);
		slot->cursor = NULL;
		loop_timer_stop(slot->idle);
	}
	return (o);
}

/* Answer a read request of the connection whose slot this is. */
cJSON *
engine_read_apply(struct engine_read_slot *slot, const char *command,
    const cJSON *req)
{
	const cJSON	*sql;
	cJSON		*o;
	char		*cause = NULL;
	int		 rc;

	if (strcmp(command, "read-next") == 0)
		return (read_page(slot));
	store_cursor_close(slot->cursor);
	slot->cursor = NULL;
	loop_timer_stop(slot->idle);
	if (strcmp(command, "read-close") == 0) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "code", 0);
		return (o);
	}
	sql = cJSON_GetObjectItemCaseSensitive(req, "sql");
	if (!cJSON_IsString(sql))
		return (read_refusal(STORE_ERR, "read: $.sql is not a string"));
	if ((rc = read_reader(slot->e, &cause)) != 0 ||
	    (rc = store_cursor_open(slot->e->reader, sql->valuestring,
	    cJSON_GetObjectItemCaseSensitive(req, "values"), &slot->cursor,
	    &cause)) != 0) {
		o = read_refusal(rc, cause);
		free(cause);
		return (o);
	}
	return (read_page(slot));
}
