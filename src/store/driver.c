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
 * driver.c: the store drivers there are and the one this process opens
 * databases with (SQLite unless store_set_driver chose another).
 */

#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/driver.h"
#include "store/store-int.h"
#include "store/driver-pg.h"

static const struct store_driver *store_drivers[] = {
	&store_driver_sqlite,
#ifdef HAVE_POSTGRESQL
	&store_driver_pg,
#endif
};

static const struct store_driver *store_driver_chosen = &store_driver_sqlite;

/* The driver named, or NULL. */
const struct store_driver *
store_driver_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < nitems(store_drivers); i++) {
		if (strcmp(store_drivers[i]->name, name) == 0)
			return (store_drivers[i]);
	}
	return (NULL);
}

/* The driver store_open uses. */
const struct store_driver *
store_driver(void)
{
	return (store_driver_chosen);
}

/* Open databases from now on with the driver named. */
int
store_set_driver(const char *name, char **cause)
{
	const struct store_driver	*drv;
	size_t				 i;
	char				*names = NULL, *tmp;

	if ((drv = store_driver_find(name)) != NULL) {
		store_driver_chosen = drv;
		return (0);
	}
	for (i = 0; i < nitems(store_drivers); i++) {
		xasprintf(&tmp, "%s%s%s", names != NULL ? names : "",
		    names != NULL ? ", " : "", store_drivers[i]->name);
		free(names);
		names = tmp;
	}
	xasprintf(cause, "unknown store driver \"%s\" (there is: %s)", name,
	    names);
	free(names);
	return (STORE_ERR);
}

/* The name of the driver store_open uses. */
const char *
store_driver_name(void)
{
	return (store_driver_chosen->name);
}

/* Whether a database name is a server's (postgresql:...), not a file. */
int
store_name_is_server(const char *path)
{
	return (path != NULL && strncmp(path, STORE_PG_PREFIX,
	    strlen(STORE_PG_PREFIX)) == 0);
}

/*
 * The driver that opens the database named: a postgresql: name is
 * PostgreSQL's whatever was chosen, if this sluice has it; anything else
 * is a file, opened by the driver chosen (SQLite unless store_set_driver
 * said otherwise).
 */
const struct store_driver *
store_driver_for(const char *path, char **cause)
{
	const struct store_driver	*drv;

	if (!store_name_is_server(path))
		return (store_driver_chosen);
	if ((drv = store_driver_find("postgresql")) == NULL) {
		xasprintf(cause, "cannot open database %s: this sluice was "
		    "built without PostgreSQL (configure --with-postgresql)",
		    path);
	}
	return (drv);
}
