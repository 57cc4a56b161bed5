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
 * step.c: a client's view of one step: naming it (an id, or
 * WORKFLOW:NAME, which the engine resolves) and reading its log.
 */

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "client/client.h"

/*
 * STEP: a step id, or WORKFLOW:NAME (then the engine finds the row).
 * Returns 0, or -1 after saying why.
 */
int
client_step_target(struct client *cl, const char *arg,
    struct engine_request *q, cJSON *args)
{
	const char	*colon;
	char		*wf;
	int		 bad;

	if ((colon = strchr(arg, ':')) == NULL) {
		if (str_parse_int64(arg, &q->step_id) == 0 &&
		    q->step_id > 0)
			return (0);
		client_error(cl, "%s: bad step \"%s\" (a step id, or WORKFLOW:NAME)",
		    q->command, arg);
		return (-1);
	}
	wf = xstrndup(arg, (size_t)(colon - arg));
	bad = str_parse_int64(wf, &q->workflow_id) != 0 ||
	    q->workflow_id <= 0;
	free(wf);
	if (bad != 0 || colon[1] == '\0' ||
	    strlen(colon + 1) > SLUICE_MAX_NAME) {
		client_error(cl, "%s: bad step \"%s\" (a step id, or WORKFLOW:NAME)",
		    q->command, arg);
		return (-1);
	}
	cJSON_AddStringToObject(args, "step", colon + 1);
	return (0);
}

/*
 * A step's log as people read it (log ID, step_log): every chunk, control
 * characters but newline and tab escaped, sluice's own notes on a line
 * of their own.  0 or an exit status after saying why not.
 */
/* A step's kind, for a tool that does what fits it: 0 or an exit status. */
int
client_step_kind(struct client *cl, int64_t id, enum step_kind *kind)
{
	struct store_step	*step;
	char			*cause = NULL;
	int			 rc;

	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	if ((rc = store_step_get(cl->store, id, &step, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	*kind = step->kind;
	store_step_free(step);
	return (0);
}

int
client_read_log(struct client *cl, int64_t id, struct buf *out)
{
	struct store_step	*step;
	struct store_log	*l;
	char			*cause = NULL;
	size_t			 n, i;
	int64_t			 after = 0;
	int			 rc, bol = 1;

	if ((rc = client_store(cl, 0)) != 0)
		return (rc);
	if ((rc = store_step_get(cl->store, id, &step, &cause)) != 0)
		return (client_store_fail(cl, rc, cause));
	store_step_free(step);
	do {
		rc = store_log_read(cl->store, id, after, 1000, &l, &n, &cause);
		if (rc != 0)
			return (client_store_fail(cl, rc, cause));
		for (i = 0; i < n; i++) {
			if (!bol && strcmp(l[i].stream, "sluice") == 0) {
				buf_putc(out, '\n');
				bol = 1;
			}
			vis_buf(out, l[i].data, l[i].len, VIS_NL | VIS_TAB);
			if (l[i].len > 0)
				bol = l[i].data[l[i].len - 1] == '\n';
		}
		if (n > 0)
			after = l[n - 1].id;
		store_logs_free(l, n);
	} while (n == 1000);
	return (EXIT_OK);
}
