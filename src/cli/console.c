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
 * console.c: "sluice" with no command opens the console on the database,
 * writable where it can be (read-only otherwise: the console then only
 * looks).  The console itself is src/ui/.
 */

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "engine/engine.h"
#include "ui/ui.h"
#include "cli/cli.h"

/* Open what the console needs and run it. */
int
cli_console(struct client *ctx)
{
	struct ui_config	 cfg;
	const struct flow_tools	*tools;
	const char		*mouse;
	char			*cause = NULL;
	int			 rc;

	/*
	 * Month names ("Nov 20 09:41") are the console's alone, so the
	 * environment's LC_TIME is loaded here, not at every start (main.c).
	 */
	setlocale(LC_TIME, "");
	memset(&cfg, 0, sizeof cfg);
	if (!ui_script_wanted() &&
	    (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		cli_error("the console needs a terminal; scripts use the "
		    "commands (sluice --help)");
		return (EXIT_USAGE);
	}
	if ((rc = client_store(ctx, CLIENT_STORE_ANY|CLIENT_STORE_CREATE)) != 0)
		return (rc);
	if ((rc = client_tools(ctx, &tools)) != 0)
		return (rc);
	if ((rc = client_engine_opts(ctx, &cfg.opts)) != 0)
		return (rc);
	cfg.store = ctx->store;
	cfg.tools = tools;
	cfg.actor = ctx->actor;
	cfg.db_arg = ctx->db_path;
	cfg.tools_arg = ctx->tools_path;
	/* The mouse is the terminal's (to select text) when told so. */
	mouse = getenv("SLUICE_MOUSE");
	cfg.no_mouse = ctx->no_mouse || (mouse != NULL &&
	    strcmp(mouse, "0") == 0);
	if (ui_main(&cfg, &cause) != 0) {
		cli_error("%s", cause);
		free(cause);
		return (EXIT_FAILED);
	}
	return (EXIT_OK);
}
