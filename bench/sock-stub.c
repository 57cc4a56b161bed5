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
 * sock-stub.c: an engine's socket that only stamps and answers, for
 * bench/cli-start.sh.  sock-stub SOCKET STAMPS listens on SOCKET; for
 * each connection it appends the CLOCK_MONOTONIC microsecond at which it
 * accepted it to STAMPS (monotime's clock), reads the request line and
 * answers every request as applied ("approved"), then closes.  It stops
 * on SIGTERM.  Nothing is written anywhere else: what is timed is the
 * client's own start, from its exec to its connection.
 */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char	 stub_answer[] =
    "{\"code\":0,\"message\":\"approved step 1 (start)\"}\n";

static int64_t
stub_now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un	 sun;
	FILE			*f;
	char			 c;
	int64_t			 at;
	int			 s, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: sock-stub SOCKET STAMPS\n");
		return (2);
	}
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(argv[1]) >= sizeof sun.sun_path) {
		fprintf(stderr, "sock-stub: %s: path too long\n", argv[1]);
		return (1);
	}
	strcpy(sun.sun_path, argv[1]);
	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    listen(s, 16) == -1) {
		fprintf(stderr, "sock-stub: %s: %s\n", argv[1],
		    strerror(errno));
		return (1);
	}
	for (;;) {
		if ((fd = accept(s, NULL, NULL)) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "sock-stub: accept: %s\n",
			    strerror(errno));
			return (1);
		}
		at = stub_now_us();
		while (read(fd, &c, 1) == 1 && c != '\n')
			;
		if (write(fd, stub_answer, sizeof stub_answer - 1) == -1)
			fprintf(stderr, "sock-stub: write: %s\n",
			    strerror(errno));
		close(fd);
		if ((f = fopen(argv[2], "a")) == NULL) {
			fprintf(stderr, "sock-stub: %s: %s\n", argv[2],
			    strerror(errno));
			return (1);
		}
		fprintf(f, "%lld\n", (long long)at);
		fclose(f);
	}
}
