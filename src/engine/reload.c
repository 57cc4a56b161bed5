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
 * reload.c: a new tools catalog and site config while the engine runs
 * ("systemctl reload", SIGHUP to sluice engine).  The caller reads and
 * checks both files; a bad one is never swapped in, and either way the
 * audit trail says what happened.  What was in force before is not freed
 * here: steps started under it may still point into it, so the caller
 * keeps it until the engine closes.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "engine/engine-int.h"

/*
 * Take a new catalog and config (error NULL), or record why they were
 * refused (error set).  The step limit stays as the command line set it.
 */
void
engine_reload(struct engine *e, const struct flow_tools *tools,
    const struct engine_opts *opts, const char *error)
{
	struct store_inbox	 self;
	cJSON			*d;
	char			*detail, *comment;
	const char		*tp, *cp;

	tp = opts->tools_path != NULL ? opts->tools_path : "(built-ins only)";
	cp = opts->config_path != NULL ? opts->config_path : "(none)";
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "tools", tp);
	cJSON_AddStringToObject(d, "config", cp);
	cJSON_AddBoolToObject(d, "applied", error == NULL);
	if (error != NULL) {
		cJSON_AddStringToObject(d, "error", error);
		xasprintf(&comment, "reload refused, the catalog and config in "
		    "force are kept: %s", error);
	} else {
		e->tools = tools;
		e->opts.authority = opts->authority;
		e->opts.site = opts->site;
		e->opts.notify = opts->notify;
		e->opts.retention = opts->retention;
		e->opts.secrets = opts->secrets;
		e->opts.nsecrets = opts->nsecrets;
		e->opts.tools_path = opts->tools_path;
		e->opts.config_path = opts->config_path;
		xasprintf(&comment, "reloaded the tools catalog %s and the "
		    "config %s", tp, cp);
	}
	detail = json_print(d);
	cJSON_Delete(d);
	engine_txn(e);
	engine_self(&self);
	engine_audit(e, &self, "reload", 0, 0, "engine", comment, detail);
	free(comment);
	free(detail);
}
