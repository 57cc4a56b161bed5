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

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "cli/cli.h"

static int	cmd_backup_exec(struct cli_ctx *, int, char **);

const struct cli_cmd cli_cmd_backup = {
	.name = "backup",
	.usage = "[--force] FILE",
	.summary = "Write a consistent copy of the database to FILE.",
	.help = "Options:\n"
	    "  --force  replace FILE if it exists\n",
	.exec = cmd_backup_exec
};

/* Copy the database to the file named. */
static int
cmd_backup_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 }
	};
	char				*cause = NULL;
	int				 ch, force = 0, rc;

	cli_getopt_reset();
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			force = 1;
			break;
		default:
			return (cli_usage(&cli_cmd_backup));
		}
	}
	if (argc != optind + 1 || argv[optind][0] == '\0')
		return (cli_usage(&cli_cmd_backup));
	if ((rc = cli_store(ctx, 0)) != 0)
		return (rc);
	rc = store_backup(ctx->store, argv[optind], force, &cause);
	if (rc == STORE_CONFLICT) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_USAGE);
	}
	if (rc != 0)
		return (cli_store_fail(rc, cause));
	cli_printf("%s: copy of %s\n", argv[optind], store_path(ctx->store));
	return (EXIT_OK);
}
