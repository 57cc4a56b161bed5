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
 * request.c: "sluice request ID" says what became of a request whose
 * answer never came: every command a client sends carries an id, which a
 * command whose answer was lost names (client/outcome.c).  Asked of the
 * engine, else read from the database where it is readable; nothing
 * waits and nothing is sent again.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/util.h"
#include "store/store.h"
#include "engine/engine.h"
#include "cli/cli.h"

static int	 cmd_request_run(struct client *, const struct cli_args *);

static const struct cli_opt cmd_request_opts[] = {
	{ "json", 0, NULL, 0,
	    "an object: request, outcome, and the answer when applied" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_request = {
	.name = "request",
	.usage = "ID",
	.summary = "Say whether the engine applied a request whose answer was "
	    "lost.",
	.help = "ID is the request id a command named when the engine went "
	    "away before\nanswering it.  Prints \"applied\" with the "
	    "engine's answer (exit 0), or\n\"not applied\" (exit 1, or the "
	    "exit status of the engine's refusal):\nnothing changed.  "
	    "Records are kept for 7 days, and only your own\nrequests are "
	    "found.\n",
	.opts = cmd_request_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_request_run
};

/* The outcome as --json has it. */
static void
cmd_request_json(const char *id, const struct engine_reply *r)
{
	struct engine_reply	 answer = *r;
	cJSON			*o;
	char			*text;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "request", id);
	cJSON_AddStringToObject(o, "outcome", engine_outcome_name(r->outcome));
	if (r->outcome == ENGINE_OUTCOME_APPLIED) {
		answer.outcome = ENGINE_OUTCOME_NONE;
		cJSON_AddItemToObject(o, "answer", engine_reply_json(&answer));
	}
	if (r->queued != 0)
		cJSON_AddNumberToObject(o, "queued", (double)r->queued);
	text = json_print(o);
	cJSON_Delete(o);
	printf("%s\n", text);
	free(text);
}

/* request ID: ask, print the outcome; exit 0 applied, 1 not. */
static int
cmd_request_run(struct client *ctx, const struct cli_args *args)
{
	struct engine_reply	 r;
	const char		*id = args->argv[0];
	char			*cause = NULL;
	int			 rc;

	if (!engine_request_id_valid(id)) {
		cli_error("request: \"%s\" is not a request id (1 to %d "
		    "letters, digits, '.', '_' or '-')", id,
		    ENGINE_REQUEST_ID_MAX);
		return (EXIT_USAGE);
	}
	if ((rc = client_outcome(ctx, id, 0, &r, &cause)) != 0) {
		cli_error("request %s: cannot tell: %s", id, cause);
		free(cause);
		return (rc == CLIENT_DENIED ? EXIT_REFUSED : EXIT_FAILED);
	}
	if (cli_args_has(args, "json"))
		cmd_request_json(id, &r);
	else if (r.outcome == ENGINE_OUTCOME_APPLIED && r.code == 0)
		printf("request %s: applied: %s\n", id, r.message != NULL ?
		    r.message : "done");
	else if (r.outcome == ENGINE_OUTCOME_APPLIED)
		printf("request %s: not applied: the engine answered %d: %s\n",
		    id, r.code, r.message != NULL ? r.message : "refused");
	else if (r.outcome == ENGINE_OUTCOME_QUEUED)
		printf("request %s: not applied yet: queued as command %lld\n",
		    id, (long long)r.queued);
	else
		printf("request %s: not applied\n", id);
	rc = r.outcome != ENGINE_OUTCOME_APPLIED ? EXIT_FAILED : r.code;
	engine_reply_clear(&r);
	return (rc);
}
