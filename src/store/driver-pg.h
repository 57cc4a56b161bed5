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
 * driver-pg.h: what the PostgreSQL driver's files share.  The translator
 * and the schema are plain text and built always (tests read them without
 * a server); the driver itself, the one user of libpq, only with
 * --with-postgresql.
 */

#ifndef SLUICE_STORE_DRIVER_PG_H
#define SLUICE_STORE_DRIVER_PG_H

#include <stddef.h>

#include "store/driver.h"

/* A database name that is PostgreSQL's: "postgresql:CONNINFO". */
#define STORE_PG_PREFIX	"postgresql:"

/* driver-pg-sql.c: the store's SQL as PostgreSQL reads it. */
char	*store_pg_sql(const char *, int *);

#endif /* SLUICE_STORE_DRIVER_PG_H */
