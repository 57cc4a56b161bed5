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
 * answer.c: a statement sent now whose answer is read later, as it
 * comes, on a server's database (the lock session's heartbeat and tries,
 * store/leader.c and node.c): the caller's loop polls store_listen_fd
 * and calls store_answer when it is readable, so that nothing waits on a
 * server that is cut off.  One statement at a time; nothing else may run
 * on the connection until its answer is in (store_answer_wait gets it,
 * for a bounded time, when the caller must).
 */

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"

/* Send sql (what: for the failure) with n text parameters. */
int
store_send(struct store *s, const char *what, const char *sql, int n,
    const char *const *values, char **cause)
{
	if (s->drv->send == NULL) {
		xasprintf(cause, "cannot %s: not a server's database", what);
		return (STORE_ERR);
	}
	if (s->sent) {
		xasprintf(cause, "cannot %s: another statement's answer is "
		    "awaited", what);
		return (STORE_ERR);
	}
	if (s->drv->send(s->conn, sql, n, values) != STORE_DRV_OK) {
		xasprintf(cause, "cannot %s: %s", what,
		    s->drv->message(s->conn));
		return (STORE_ERR);
	}
	s->sent = 1;
	return (0);
}

/* Whether a statement's answer is awaited. */
int
store_sent(const struct store *s)
{
	return (s->sent);
}

/*
 * Read what came of the answer (readable: store_listen_fd was): 1 while
 * it is not all in; 0 with its first column in *value; -1 with cause.
 */
int
store_answer(struct store *s, int readable, int64_t *value, char **cause)
{
	int	 rc;

	*value = 0;
	if (!s->sent)
		return (0);
	if ((rc = s->drv->answer(s->conn, readable, value)) == 1)
		return (1);
	s->sent = 0;
	if (rc != 0) {
		xasprintf(cause, "%s", s->drv->message(s->conn));
		return (-1);
	}
	return (0);
}

/*
 * Wait up to ms for the answer awaited, if any: 0 once it is in (or none
 * was awaited), 1 when ms passed first, -1 with cause when it failed.
 */
int
store_answer_wait(struct store *s, int64_t ms, int64_t *value, char **cause)
{
	struct pollfd	 pfd;
	int64_t		 end = time_mono_ms() + ms, left;
	int		 rc, readable = 0;

	for (;;) {
		if ((rc = store_answer(s, readable, value, cause)) != 1)
			return (rc);
		if ((left = end - time_mono_ms()) <= 0)
			return (1);
		pfd.fd = store_listen_fd(s);
		pfd.events = POLLIN;
		if ((rc = poll(&pfd, 1, (int)left)) == -1 && errno != EINTR) {
			xasprintf(cause, "poll: %s", strerror(errno));
			return (-1);
		}
		readable = rc > 0;
	}
}
