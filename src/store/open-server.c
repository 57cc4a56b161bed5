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
 * create, lock, check the modes of or copy before a migration.
 */

#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"

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
	if ((drv = store_driver_for(path, cause)) == NULL ||
	    (s = store_connect(path, flags, drv, cause)) == NULL)
		return (STORE_ERR);
	if ((flags & STORE_F_READONLY) || (drv->file_readonly != NULL &&
	    drv->file_readonly(s->conn)))
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
