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
 * open-server.c: store_open's way to a database on a server (PostgreSQL,
 * cluster mode), which has none of a file's work (store.c): nothing to
 * create, lock, check the modes of or copy before a migration; and the
 * way back to it when the server went away (its primary crashed and a
 * standby was promoted).
 *
 * Who cannot log in (a member on a node, with no PostgreSQL login of
 * their own) reads through the node's engine, as a member of single-host
 * service mode does who may not open the file: when its socket answers,
 * the store reads with driver-socket.c, read-only.
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"

/*
 * No login of our own (why in *cause): the node's engine reads for us
 * if its socket answers; NULL (*cause saying both) if not.
 */
static struct store *
store_open_node(const char *path, int flags, char **cause)
{
	struct store	*s;
	char		*why = NULL, *direct = *cause;

	*cause = NULL;
	if ((s = store_connect(path, flags | STORE_F_READONLY,
	    &store_driver_socket, &why)) != NULL) {
		log_debug("%s: %s: reading through the node's engine (%s)",
		    __func__, path, direct);
		free(direct);
		return (s);
	}
	xasprintf(cause, "%s, and no engine answers on this node's socket "
	    "to read it for you (%s)", direct, why);
	free(direct);
	free(why);
	return (NULL);
}

/*
 * Open a database on a server (PostgreSQL): no file to make, lock or
 * check; a new, empty database is set up unless flags forbid it (its
 * migrations wait for one another on the write lock).
 */
int
store_open_server(const char *path, int flags, struct store **sp,
    char **cause)
{
	const struct store_driver *drv;
	struct store		*s;
	struct store_ident	 id;
	int			 rc;

	*sp = NULL;
	if ((drv = store_driver_for(path, cause)) == NULL)
		return (STORE_ERR);
	if ((s = store_connect(path, flags, drv, cause)) == NULL &&
	    (s = store_open_node(path, flags, cause)) == NULL)
		return (STORE_ERR);
	if ((flags & STORE_F_READONLY) || s->drv != drv ||
	    (drv->file_readonly != NULL && drv->file_readonly(s->conn)))
		s->readonly = 1;
	memset(&id, 0, sizeof id);
	if ((rc = store_identify(s, &id, cause)) != 0)
		goto fail;
	if (id.empty && (flags & (STORE_F_READONLY|STORE_F_NOCREATE))) {
		rc = store_missing(path, cause);
		goto fail;
	}
	if ((rc = store_configure(s, &id, cause)) != 0)
		goto fail;
	log_debug("%s: %s%s", __func__, path, s->readonly ? " (read-only)" :
	    "");
	*sp = s;
	return (0);

fail:
	store_close(s);
	return (rc);
}

/* Whether a failure lost the connection to the server. */
int
store_lost(const struct store *s)
{
	return (s->drv->lost != NULL && s->conn != NULL &&
	    s->drv->lost(s->conn));
}

/*
 * Connect again if the server went away: after its primary crashed, a
 * name listing the primary and its standbys with
 * target_session_attrs=read-write reaches whichever was promoted (or
 * fails while none is yet).  Unless a failure already lost it, the
 * connection is tried with a query first, since a server that died
 * while we were idle has told us nothing.  The kept statements go with
 * the old connection; settings of the session are the caller's to make
 * again.  0: connected (again, or still); -1 with why.
 */
int
store_reconnect(struct store *s, char **cause)
{
	struct store_conn	*conn;
	char			*why = NULL;

	if (!s->drv->server)
		return (0);
	if (!store_lost(s) && store_exec(s, "SELECT 1", &why) == 0)
		return (0);
	free(why);
	if (!store_lost(s)) {
		xasprintf(cause, "%s: %s", s->path, store_errmsg(s));
		return (-1);
	}
	if (s->depth > 0) {
		xasprintf(cause, "%s: the connection was lost inside a "
		    "transaction", s->path);
		return (-1);
	}
	if (s->drv->open(s->path, s->readonly ? STORE_DRV_O_READONLY : 0,
	    &conn, cause) != 0)
		return (-1);
	while (s->ncached > 0)
		store_stmt_finalize(s->cached[--s->ncached].st);
	s->drv->close(s->conn);
	s->conn = conn;
	s->sent = 0;
	if (s->drv->busy_handler != NULL)
		s->drv->busy_handler(s->conn, store_busy, s);
	log_debug("%s: connected again to %s", __func__, s->path);
	return (0);
}

/*
 * Bound every wait for the server's answer (driver.h): until the
 * monotonic ms given (0: none), at most limit ms each (0: none), serve
 * called meanwhile.  A wait past it fails "database unreachable" and
 * loses the connection.  Nothing on a file.
 */
void
store_wait_bound(struct store *s, int64_t until, int64_t limit,
    void (*serve)(void *), void *arg)
{
	if (s->drv->wait_bound != NULL && s->conn != NULL)
		s->drv->wait_bound(s->conn, until, limit, serve, arg);
}
