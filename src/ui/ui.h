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
 * ui.h: the console, sluice's ncurses front end.  It runs on the engine's
 * loop: it is the engine when none runs, else it attaches to the one that
 * does and sends its actions through the inbox.
 */

#ifndef SLUICE_UI_H
#define SLUICE_UI_H

#include "store/store.h"
#include "engine/engine.h"

struct flow_tools;

struct ui_config {
	struct store		*store;
	const struct flow_tools	*tools;
	struct engine_opts	 opts;
	struct store_actor	 actor;
	const char		*db_arg;	/* --db as given, for echoes */
	const char		*tools_arg;	/* --tools as given */
	int			 no_mouse;	/* --no-mouse, SLUICE_MOUSE=0 */
};

/* Run the console until the user quits; 0, or -1 with a reason. */
int		 ui_main(const struct ui_config *, char **);

/* Whether $SLUICE_SCRIPT drives the console (script.c; no terminal). */
int		 ui_script_wanted(void);

#endif /* SLUICE_UI_H */
