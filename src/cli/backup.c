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
 * backup.c: "sluice backup FILE" writes a consistent copy of the
 * database, also while an engine writes it (store_backup).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_backup_run(struct client *, const struct cli_args *);

static const struct cli_opt cmd_backup_opts[] = {
	{ "force", 0, NULL, 0, "replace FILE if it exists" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_backup = {
	.name = "backup",
	.complete = "file",
	.usage = "FILE",
	.summary = "Write a consistent copy of the database to FILE.",
	.help = "A postgresql: database (cluster mode) is refused: back it "
	    "up with\npg_dump (pg_dump -Fc) or pgBackRest.\n",
	.opts = cmd_backup_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_backup_run
};

/* Copy the database to the file named. */
static int
cmd_backup_run(struct client *ctx, const struct cli_args *args)
{
	const char	*file = args->argv[0];
	char		*cause = NULL;
	int		 rc;

	if (*file == '\0')
		return (cli_usage(&cli_cmd_backup));
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	rc = store_backup(ctx->store, file, cli_args_has(args, "force"),
	    &cause);
	if (rc == STORE_CONFLICT) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if (rc != 0)
		return (client_store_fail(ctx, rc, cause));
	cli_printf("%s: copy of %s\n", file, store_path(ctx->store));
	return (EXIT_OK);
}
