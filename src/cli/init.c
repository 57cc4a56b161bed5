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
 * init.c: "sluice init [PATH]" creates a database on purpose.  Commands
 * that only read never create one, and a named path (--db, $SLUICE_DB)
 * is never created by any other command, so a typo in it cannot turn
 * into a fresh, empty database that looks like "nothing waits".
 */

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_init_run(struct client *, const struct cli_args *);
static int	cmd_init_server(struct client *, char *);

const struct cli_cmd cli_cmd_init = {
	.name = "init",
	.complete = "file",
	.usage = "[PATH]",
	.summary = "Create a database (PATH, else --db, $SLUICE_DB, the "
	    "config's \"database\" or the default).",
	.help = "Creates the database and any missing directories above "
	    "it.\nAn existing sluice database is left as it is (exit 0); "
	    "any other file is refused.\nA postgresql: database (cluster "
	    "mode): run as the role to own the\nschema; creates or upgrades "
	    "it and gives sluice_engine and sluice_reader\ntheir rights; "
	    "run as another role (an engine's login), it changes\nnothing "
	    "and says so.\n",
	.args_min = 0,
	.args_max = 1,
	.run = cmd_init_run
};

/* Create the database, or say that it is already there. */
static int
cmd_init_run(struct client *ctx, const struct cli_args *args)
{
	struct stat	 sb;
	struct store	*s;
	const char	*bak;
	char		*path, *cause = NULL;
	int64_t		 from;
	int		 rc, existed;

	if (args->argc == 1)
		path = xstrdup(args->argv[0]);
	else if (client_db_resolve(ctx, &path) != 0)
		return (EXIT_USAGE);
	if (path == NULL || *path == '\0') {
		free(path);
		cli_error("no database path (give PATH, --db or SLUICE_DB)");
		return (EXIT_USAGE);
	}
	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		cli_error("%s is a directory: name the database file in it, "
		    "e.g. %s/sluice.db", path, path);
		free(path);
		return (EXIT_USAGE);
	}
	if (store_name_is_server(path))
		return (cmd_init_server(ctx, path));
	existed = stat(path, &sb) == 0 && sb.st_size > 0;
	/*
	 * The service runs init before each engine: a database someone
	 * keeps locked is waited out here too, saying so, not a failure.
	 */
	engine_busy_init("init");
	if ((rc = store_open(path, 0, &s, &cause)) != 0) {
		free(path);
		return (client_store_fail(ctx, rc, cause));
	}
	engine_busy_over();
	bak = store_migration_backup(s, &from);
	if (bak != NULL) {
		cli_printf("%s: upgraded from schema version %lld to %d (the "
		    "old one is kept at %s)\n", path, (long long)from,
		    STORE_SCHEMA_VERSION, bak);
	} else if (existed) {
		cli_printf("%s: already a sluice database (schema version "
		    "%d); nothing changed\n", path, STORE_SCHEMA_VERSION);
	} else
		cli_printf("%s: created\n", path);
	store_close(s);
	free(path);
	return (EXIT_OK);
}

/* One role's line: what it is for, or how to make it. */
static void
cmd_init_role(const char *word, const char *name, int exists,
    const char *what)
{
	if (exists)
		cli_printf("  %-7s %s: %s\n", word, name, what);
	else {
		cli_printf("  %-7s %s: missing (CREATE ROLE %s NOLOGIN, then "
		    "sluice init again)\n", word, name, name);
	}
}

/*
 * A database on a server (cluster mode): its schema made or brought up
 * to date by us, its owner; the engine's and readers' roles given their
 * rights; and which role is which, said.
 */
static int
cmd_init_server(struct client *ctx, char *path)
{
	struct store		*s;
	struct store_roles	 r;
	char			*cause = NULL;
	int			 rc, existed = 1;

	if ((rc = store_open(path, STORE_F_NOCREATE, &s, &cause)) ==
	    STORE_NOTFOUND) {
		existed = 0;
		free(cause);
		cause = NULL;
		rc = store_open(path, 0, &s, &cause);
	}
	if (rc != 0) {
		free(path);
		return (client_store_fail(ctx, rc, cause));
	}
	if ((rc = store_server_grant(s, &r, &cause)) != 0) {
		store_close(s);
		free(path);
		return (client_store_fail(ctx, rc, cause));
	}
	if (existed && !r.owner) {
		cli_printf("%s: a sluice database (schema version %d); "
		    "nothing changed: its owner's sluice init gives the "
		    "rights\n", path, STORE_SCHEMA_VERSION);
	} else if (existed) {
		cli_printf("%s: a sluice database (schema version %d); rights "
		    "given again\n", path, STORE_SCHEMA_VERSION);
	} else {
		cli_printf("%s: created (schema version %d)\n", path,
		    STORE_SCHEMA_VERSION);
	}
	cli_printf("  %-7s %s: owns the schema and runs its migrations "
	    "(sluice init after an upgrade)\n", "owner", r.user);
	cmd_init_role("engine", "sluice_engine", r.engine, "engines log in "
	    "as its members: every table, but only INSERT and SELECT on "
	    "audit");
	cmd_init_role("reader", "sluice_reader", r.reader, "people who "
	    "only read log in as its members");
	free(r.user);
	store_close(s);
	free(path);
	return (EXIT_OK);
}
