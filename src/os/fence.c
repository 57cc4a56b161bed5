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
 * fence.c: the local deadline, the leader's last word on itself.  In
 * cluster mode a leader may lose PostgreSQL without hearing about it (a
 * partition leaves its heartbeat hanging), so it fences itself by its own
 * clock: past its deadline it starts nothing, and its fence keeper
 * (fence-keeper.c) stops what it started.  The clock is CLOCK_BOOTTIME,
 * which, unlike CLOCK_MONOTONIC, also runs while the machine is suspended:
 * a host that wakes from a suspend finds its deadline long gone, as the
 * other nodes do.  The functions here that a vfork()ed child calls are
 * async-signal-safe.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME	CLOCK_MONOTONIC
#endif

/* The fence clock, in milliseconds; async-signal-safe. */
int64_t
fence_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

/*
 * Whether a deadline (fence clock ms, 0: none) has passed; a vfork()ed
 * child asks this last before exec.
 */
int
fence_expired(int64_t deadline)
{
	return (deadline != 0 && fence_now_ms() >= deadline);
}

/* Put what and n's digits at msg; their length.  Async-signal-safe. */
static size_t
fence_format(char *msg, char what, int64_t n)
{
	char	 digits[24];
	size_t	 len = 0, nd = 0;

	msg[len++] = what;
	if (n < 0)
		n = 0;
	do {
		digits[nd++] = '0' + (char)(n % 10);
		n /= 10;
	} while (n != 0 && nd < sizeof digits);
	while (nd > 0)
		msg[len++] = digits[--nd];
	return (len);
}

/* Send msg as one packet, never waiting; 0, or -1. */
static int
fence_packet(int fd, const char *msg, size_t len)
{
	ssize_t	 w;

	do
		w = send(fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (w == -1 && errno == EINTR);
	return (w == (ssize_t)len ? 0 : -1);
}

/*
 * Send one message ("+123", "-123", "d456") to the keeper, never waiting
 * and never raising SIGPIPE: 0, or -1 when the keeper cannot take it.
 * Async-signal-safe, for a child naming its own group before exec.
 */
int
fence_send(int fd, char what, int64_t n)
{
	char	 msg[32];

	return (fence_packet(fd, msg, fence_format(msg, what, n)));
}

/*
 * Name a new group to the keeper with its marks, the environment entries
 * ("NAME=value") every process of the step carries, so that the keeper
 * also finds the step's processes that left the group (setsid): "+123",
 * then each mark after a NUL.  Marks that do not fit in one message are
 * left out, and the group alone is named.  Async-signal-safe.
 */
int
fence_send_group(int fd, pid_t pgid, char *const *marks)
{
	char	 msg[FENCE_MSG_MAX];
	size_t	 len, n, i;

	len = fence_format(msg, '+', pgid);
	for (i = 0; marks != NULL && marks[i] != NULL; i++) {
		n = strlen(marks[i]);
		if (len + 1 + n > sizeof msg)
			return (fence_send(fd, '+', pgid));
		msg[len++] = '\0';
		memcpy(msg + len, marks[i], n);
		len += n;
	}
	return (fence_packet(fd, msg, len));
}
