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
 * log.c: "sluice log STEP [-f] [-t]": a step's output as it was kept,
 * stdout and stderr interleaved in the order they came; -t puts each
 * line's time and stream in front, -f follows until the step ends.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "flow/flow.h"
#include "store/store.h"
#include "cli/cli.h"

static int	 cmd_log_exec(struct cli_ctx *, int, char **);

const struct cli_cmd cli_cmd_log = {
	.name = "log",
	.usage = "STEP [-f] [-t]",
	.summary = "Show a step's output.",
	.help = "Options:\n"
	    "  -f   follow: keep printing output until the step ends\n"
	    "  -t   put each line's time and stream (out, err) in front\n",
	.exec = cmd_log_exec
};

/* Print chunks; with stamps, each line gets its chunk's time and stream. */
static void
cmd_log_print(const struct store_log *l, size_t n, int stamps, int *bol)
{
	char		 when[32];
	struct tm	 tm;
	time_t		 t;
	size_t		 i, j;

	for (i = 0; i < n; i++) {
		/* sluice's own notes start on a line of their own. */
		if (!*bol && strcmp(l[i].stream, "sluice") == 0) {
			putchar('\n');
			*bol = 1;
		}
		if (!stamps) {
			fwrite(l[i].data, 1, l[i].len, stdout);
			if (l[i].len > 0)
				*bol = l[i].data[l[i].len - 1] == '\n';
			continue;
		}
		t = (time_t)(l[i].at / 1000);
		localtime_r(&t, &tm);
		strftime(when, sizeof when, "%H:%M:%S", &tm);
		for (j = 0; j < l[i].len; j++) {
			if (*bol)
				printf("%s.%03d %-3s ", when,
				    (int)(l[i].at % 1000), l[i].stream);
			putchar(l[i].data[j]);
			*bol = l[i].data[j] == '\n';
		}
	}
	fflush(stdout);
}

/* "sluice log": print what there is; with -f, wait for more. */
static int
cmd_log_exec(struct cli_ctx *ctx, int argc, char **argv)
{
	struct timespec		 ts = { 0, 100 * 1000 * 1000 };
	struct store_step	*step = NULL;
	struct store_log	*l;
	size_t			 n;
	int64_t			 id, after = 0;
	char			*cause = NULL;
	int			 ch, rc, follow = 0, stamps = 0, bol = 1, ended;

	cli_getopt_reset();
	while ((ch = getopt(argc, argv, "ft")) != -1) {
		switch (ch) {
		case 'f':
			follow = 1;
			break;
		case 't':
			stamps = 1;
			break;
		default:
			return (cli_usage(&cli_cmd_log));
		}
	}
	if (argc - optind != 1)
		return (cli_usage(&cli_cmd_log));
	if (cli_parse_id(argv[optind], &id) != 0) {
		cli_error("log: bad step id \"%s\"", argv[optind]);
		return (EXIT_USAGE);
	}
	if ((rc = cli_store(ctx, 0)) != 0)
		return (rc);
	for (;;) {
		if (step != NULL)
			store_step_free(step);
		if ((rc = store_step_get(ctx->store, id, &step, &cause)) != 0)
			return (cli_store_fail(rc, cause));
		ended = strcmp(step->status, "running") != 0 &&
		    strcmp(step->status, "ready") != 0 &&
		    strcmp(step->status, "pending") != 0;
		do {
			rc = store_log_read(ctx->store, id, after, 1000, &l, &n,
			    &cause);
			if (rc != 0) {
				store_step_free(step);
				return (cli_store_fail(rc, cause));
			}
			cmd_log_print(l, n, stamps, &bol);
			if (n > 0)
				after = l[n - 1].id;
			store_logs_free(l, n);
		} while (n == 1000);
		if (!follow || ended)
			break;
		nanosleep(&ts, NULL);
	}
	store_step_free(step);
	return (EXIT_OK);
}
