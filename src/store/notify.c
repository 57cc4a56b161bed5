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
 * notify.c: a server's word between connections (cluster mode): a
 * standby that relays a command says so on STORE_CHANNEL_INBOX, and the
 * leader says on STORE_CHANNEL_CHANGED with every commit, so that no
 * node polls for either.  A database that is a file has no such thing
 * (its drivers leave the hooks NULL): every call here is then a no-op,
 * and store_listen_fd says -1.
 */

#include <stdlib.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"
#include "store/driver.h"

/* Hear a channel (NULL: stop hearing any) on this connection. */
int
store_listen(struct store *s, const char *channel, char **cause)
{
	if (s->drv->listen == NULL)
		return (0);
	if (s->drv->listen(s->conn, channel) != STORE_DRV_OK) {
		xasprintf(cause, "cannot listen for %s: %s", channel != NULL ?
		    channel : "nothing", s->drv->message(s->conn));
		return (STORE_ERR);
	}
	return (0);
}

/* Say something on a channel; inside a transaction, when it commits. */
int
store_notify(struct store *s, const char *channel, char **cause)
{
	if (s->drv->notify == NULL)
		return (0);
	if (s->drv->notify(s->conn, channel) != STORE_DRV_OK) {
		xasprintf(cause, "cannot notify %s: %s", channel,
		    s->drv->message(s->conn));
		return (STORE_ERR);
	}
	return (0);
}

/* The descriptor to poll for what channels say, or -1 for none. */
int
store_listen_fd(struct store *s)
{
	if (s->drv->listen_fd == NULL)
		return (-1);
	return (s->drv->listen_fd(s->conn));
}

/*
 * Call cb with each channel heard since the last call: read the
 * descriptor first when readable is set, else only what earlier queries
 * brought along.  -1 when the connection is gone.
 */
int
store_heard(struct store *s, int readable, store_heard_cb cb, void *arg)
{
	if (s->drv->heard == NULL)
		return (0);
	return (s->drv->heard(s->conn, readable, cb, arg));
}
