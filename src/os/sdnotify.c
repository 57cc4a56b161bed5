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
 * sdnotify.c: telling the service manager how the engine is doing, the
 * sd_notify(3) protocol without libsystemd: one datagram per state
 * ("READY=1", "STOPPING=1", ...) to the Unix socket NOTIFY_SOCKET names,
 * an abstract one when the name starts with '@'.
 *
 * sdnotify_init takes the socket's name out of the environment: the
 * engine's steps inherit its environment and must never speak to the
 * service manager as the engine.  Without NOTIFY_SOCKET (a terminal, or
 * a unit that is not Type=notify) every call does nothing.  A message
 * that cannot be sent is logged and otherwise ignored: the engine runs on.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

static struct sockaddr_un	sdnotify_sun;
static socklen_t		sdnotify_len;	/* 0: nobody to tell */

/* Read and unset NOTIFY_SOCKET.  Returns -1 for a name that cannot be one. */
int
sdnotify_init(void)
{
	const char	*name;
	size_t		 n;

	sdnotify_len = 0;
	if ((name = getenv("NOTIFY_SOCKET")) == NULL)
		return (0);
	n = strlen(name);
	if ((name[0] != '/' && name[0] != '@') || n < 2 ||
	    n >= sizeof sdnotify_sun.sun_path) {
		log_debug("%s: NOTIFY_SOCKET=%s: not a socket's name",
		    __func__, name);
		unsetenv("NOTIFY_SOCKET");
		return (-1);
	}
	memset(&sdnotify_sun, 0, sizeof sdnotify_sun);
	sdnotify_sun.sun_family = AF_UNIX;
	memcpy(sdnotify_sun.sun_path, name, n);
	if (name[0] == '@')
		sdnotify_sun.sun_path[0] = '\0';	/* abstract: no NUL end */
	else
		n++;
	sdnotify_len = offsetof(struct sockaddr_un, sun_path) + n;
	unsetenv("NOTIFY_SOCKET");
	return (0);
}

/* Send one state message, e.g. "READY=1".  0 when sent or nobody to tell. */
int
sdnotify(const char *state)
{
	int	fd, saved;
	ssize_t	n;

	if (sdnotify_len == 0)
		return (0);
	fd = socket(AF_UNIX, SOCK_DGRAM|SOCK_CLOEXEC, 0);
	if (fd == -1) {
		log_debug("%s: socket: %s", __func__, strerror(errno));
		return (-1);
	}
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sdnotify_sun, sdnotify_len);
	saved = errno;
	close(fd);
	if (n == -1) {
		log_debug("%s: %s: %s", __func__, state, strerror(saved));
		return (-1);
	}
	return (0);
}

/* RELOADING=1 with the monotonic time systemd wants beside it. */
int
sdnotify_reloading(void)
{
	struct timespec	 ts;
	char		 buf[64];

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return (sdnotify("RELOADING=1"));
	snprintf(buf, sizeof buf, "RELOADING=1\nMONOTONIC_USEC=%llu",
	    (unsigned long long)ts.tv_sec * 1000000ULL +
	    (unsigned long long)ts.tv_nsec / 1000ULL);
	return (sdnotify(buf));
}
