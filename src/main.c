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
 * main.c: global options (--db, --tools, -v, --help, --version), who is
 * acting (from the uid), then a command (cli_dispatch), or with none the
 * console (cli_console).
 */

#include <sys/types.h>

#include <getopt.h>
#include <locale.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "cli/cli.h"

/*
 * The environment's locale for what sluice's output depends on: the
 * character set and widths (LC_CTYPE), numbers (LC_NUMERIC: strtod and
 * cJSON), ranges in patterns (LC_COLLATE: fnmatch and regcomp) and the
 * system's messages (LC_MESSAGES: strerror).  Not LC_ALL: the seven
 * others (money, paper, names, addresses, telephones, measures, the
 * locale's own description) are never used, and loading each is a few
 * system calls and a mapping at every start, which a command that only
 * talks to the engine's socket waits on.  Dates (LC_TIME) are named
 * only by the console, which loads their category itself (console.c):
 * every other date sluice writes is in digits.
 */
static void
locale_from_env(void)
{
	static const int	 used[] = {
		LC_CTYPE, LC_NUMERIC, LC_COLLATE, LC_MESSAGES
	};
	size_t			 i;

	for (i = 0; i < nitems(used); i++)
		setlocale(used[i], "");
}

int
main(int argc, char **argv)
{
	static const struct option	 opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "tools", required_argument, NULL, 't' },
		{ "no-mouse", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct client			 ctx;
	const struct user_info		*me;
	char				*logpath;
	int				 ch, rc;

	locale_from_env();
	json_init();
#ifdef M_TRIM_THRESHOLD
	/*
	 * SQLite frees and reallocates a few hundred KiB around each write
	 * transaction; without this the heap top is given back and faulted
	 * in again on every one, a good part of a step's cost in the engine.
	 */
	mallopt(M_TRIM_THRESHOLD, 8 * 1024 * 1024);
	mallopt(M_TOP_PAD, 1024 * 1024);
#endif
	memset(&ctx, 0, sizeof ctx);
	opterr = 0;	/* one line of our own, not getopt's */
	while ((ch = getopt_long(argc, argv, "+:hvV", opts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			ctx.db_path = optarg;
			break;
		case 't':
			ctx.tools_path = optarg;
			break;
		case 'v':
			ctx.verbose++;
			break;
		case 'M':
			ctx.no_mouse = 1;
			break;
		case 'h':
			cli_help_top(stdout);
			return (cli_stdout_close(EXIT_OK));
		case 'V':
			printf("sluice %s%s\n", PACKAGE_VERSION,
			    time_test_clock() ? " (test clock)" : "");
			return (cli_stdout_close(EXIT_OK));
		case ':':
			cli_error("option %s needs a value", argv[optind - 1]);
			return (EXIT_USAGE);
		default:
			if (optopt != 0)
				cli_error("unknown option -%c (see sluice "
				    "help)", optopt);
			else
				cli_error("unknown option %s (see sluice "
				    "help)", argv[optind - 1]);
			return (EXIT_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (ctx.verbose) {
		xasprintf(&logpath, "sluice-%ld.log", (long)getpid());
		log_open(logpath);
		free(logpath);
	}
	client_read_link();
	/*
	 * No name: whatever records the actor takes this process's
	 * (user_self) when it writes, and over the socket the engine
	 * names its caller itself.
	 */
	me = user_where();
	ctx.actor.uid = me->uid;
	ctx.actor.tty = me->tty;
	ctx.actor.host = me->host;
	if (argc == 0)
		rc = cli_console(&ctx);
	else
		rc = cli_dispatch(&ctx, argc, argv);
	client_free(&ctx);
	log_close();
	return (cli_stdout_close(rc));
}
