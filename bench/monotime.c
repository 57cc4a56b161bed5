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
 * monotime.c: CLOCK_MONOTONIC in microseconds for shell scripts, the clock
 * sluice's trace lines use, so a script's stamps and the trace compare.
 * With -x it appends the stamp to FILE and then execs COMMAND in the same
 * process: the stamp is taken as late before the program starts as a
 * script can take it, and the program keeps the pid.  console.sh builds
 * and uses it.
 *
 * usage: monotime                      print the time
 *        monotime -x FILE COMMAND ...  append the time to FILE, exec COMMAND
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t	monotime_us(void);

/* Now on the monotonic clock, in microseconds. */
static int64_t
monotime_us(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		perror("monotime: clock_gettime");
		exit(1);
	}
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Print the time, or append it to FILE and become COMMAND. */
int
main(int argc, char **argv)
{
	FILE	*f;

	if (argc == 1) {
		printf("%lld\n", (long long)monotime_us());
		return (0);
	}
	if (argc < 4 || strcmp(argv[1], "-x") != 0) {
		fprintf(stderr, "usage: monotime [-x FILE COMMAND ...]\n");
		return (2);
	}
	if ((f = fopen(argv[2], "a")) == NULL) {
		fprintf(stderr, "monotime: %s: %s\n", argv[2], strerror(errno));
		return (1);
	}
	fprintf(f, "%lld\n", (long long)monotime_us());
	if (fclose(f) != 0) {
		fprintf(stderr, "monotime: %s: %s\n", argv[2], strerror(errno));
		return (1);
	}
	execvp(argv[3], argv + 3);
	fprintf(stderr, "monotime: %s: %s\n", argv[3], strerror(errno));
	return (127);
}
