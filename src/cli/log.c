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
 * log.c: "sluice log STEP [-f] [-t] [--raw]": a step's output as it was
 * kept, stdout and stderr interleaved in the order they came; -t puts each
 * line's time and stream in front, -f follows until the step ends.  The
 * output is a process's: control characters are shown escaped (but for
 * newline and tab) unless --raw asks for the bytes.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "cli/cli.h"

static int	 cmd_log_run(struct client *, const struct cli_args *);

static const struct cli_opt cmd_log_opts[] = {
	{ "follow", 'f', NULL, 0,
	    "keep printing output until the step ends" },
	{ "timestamps", 't', NULL, 0,
	    "put each line's time and stream (out, err) in front" },
	{ "raw", 0, NULL, 0, "the bytes as the step wrote them; otherwise "
	    "control characters but newline and tab are shown escaped" },
	{ "json", 0, NULL, 0, "one JSON document of the step's lines; with "
	    "-f, one JSON object a line as lines come" },
	{ NULL, 0, NULL, 0, NULL }
};

const struct cli_cmd cli_cmd_log = {
	.name = "log",
	.complete = "step",
	.usage = "STEP",
	.summary = "Show a step's output.",
	.opts = cmd_log_opts,
	.args_min = 1,
	.args_max = 1,
	.run = cmd_log_run
};

/*
 * Write a piece of output: as it is with --raw, else with control
 * characters but newline and tab escaped.  A chunk may end inside a UTF-8
 * character; its bytes are then shown as \xHH, which is safe.
 */
static void
cmd_log_write(const char *data, size_t len, int raw)
{
	struct buf	b;

	if (raw) {
		fwrite(data, 1, len, stdout);
		return;
	}
	buf_init(&b);
	vis_buf(&b, data, len, VIS_NL | VIS_TAB);
	fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
}

/* Print chunks; with stamps, each line gets its chunk's time and stream. */
static void
cmd_log_print(const struct store_log *l, size_t n, int stamps, int raw,
    int *bol)
{
	char		 when[32];
	struct tm	 tm;
	time_t		 t;
	size_t		 i, j, k;

	for (i = 0; i < n; i++) {
		/* sluice's own notes start on a line of their own. */
		if (!*bol && strcmp(l[i].stream, "sluice") == 0) {
			putchar('\n');
			*bol = 1;
		}
		if (!stamps) {
			cmd_log_write(l[i].data, l[i].len, raw);
			if (l[i].len > 0)
				*bol = l[i].data[l[i].len - 1] == '\n';
			continue;
		}
		t = (time_t)(l[i].at / 1000);
		localtime_r(&t, &tm);
		strftime(when, sizeof when, "%H:%M:%S", &tm);
		for (j = 0; j < l[i].len; j = k) {
			if (*bol)
				printf("%s.%03d %-3s ", when,
				    (int)(l[i].at % 1000), l[i].stream);
			for (k = j; k < l[i].len && l[i].data[k] != '\n'; k++)
				/* nothing */;
			if (k < l[i].len)
				k++;
			cmd_log_write(l[i].data + j, k - j, raw);
			*bol = l[i].data[k - 1] == '\n';
		}
	}
	fflush(stdout);
}

/* "sluice log": print what there is; with -f, wait for more. */
static int
cmd_log_run(struct client *ctx, const struct cli_args *args)
{
	struct timespec		 ts = { 0, 100 * 1000 * 1000 };
	struct store_step	*step = NULL;
	struct store_log	*l;
	size_t			 n;
	int64_t			 id, after = 0;
	char			*cause = NULL;
	int			 rc, follow, stamps, raw, bol = 1;
	int			 ended;
	struct cli_log_json	*lj = NULL;

	follow = cli_args_has(args, "follow");
	stamps = cli_args_has(args, "timestamps");
	raw = cli_args_has(args, "raw");
	if (cli_args_has(args, "json") && (stamps || raw)) {
		cli_error("log: --json takes neither -t nor --raw (each line "
		    "has its time and stream, its text as JSON)");
		return (EXIT_USAGE);
	}
	if (cli_parse_id(args->argv[0], &id) != 0) {
		cli_error("log: bad step id \"%s\"", args->argv[0]);
		return (EXIT_USAGE);
	}
	if ((rc = client_store(ctx, 0)) != 0)
		return (rc);
	for (;;) {
		if (step != NULL)
			store_step_free(step);
		if ((rc = store_step_get(ctx->store, id, &step, &cause)) != 0)
			return (client_store_fail(ctx, rc, cause));
		ended = step->status != STEP_RUNNING &&
		    step->status != STEP_READY &&
		    step->status != STEP_PENDING;
		if (lj == NULL && cli_args_has(args, "json"))
			lj = cli_log_json_create(step, follow);
		do {
			rc = store_log_read(ctx->store, id, after, 1000, &l, &n,
			    &cause);
			if (rc != 0) {
				cli_log_json_free(lj);
				store_step_free(step);
				return (client_store_fail(ctx, rc, cause));
			}
			if (lj != NULL)
				cli_log_json_add(lj, l, n);
			else
				cmd_log_print(l, n, stamps, raw, &bol);
			if (n > 0)
				after = l[n - 1].id;
			store_logs_free(l, n);
		} while (n == 1000);
		/* Nobody is reading (a full disk, a closed pipe): stop. */
		if (!follow || ended || ferror(stdout))
			break;
		nanosleep(&ts, NULL);
	}
	if (lj != NULL)
		cli_log_json_end(lj);
	store_step_free(step);
	return (EXIT_OK);
}
