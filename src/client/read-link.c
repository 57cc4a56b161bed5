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
 * read-link.c: how the members' store driver (store/driver-socket.c)
 * reaches the engine: a connection to DB.sock of its own, one request
 * line out and one answer line back.  The engine closes a connection
 * that asks nothing for a minute (saying so first): a link found closed,
 * or with a line nobody asked for waiting, is made again before asking,
 * and a request whose connection broke is sent once more on a new one
 * (a read changes nothing, so asking twice is safe).
 */

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/os.h"
#include "client/client.h"

#define LINK_WAIT_MS		10000		/* for one answer */
#define LINK_ANSWER_MAX		(64 * 1024 * 1024)	/* a page's line */

struct store_link {
	char	*dbpath;
	int	 fd;
};

static struct store_link *link_open(const char *, char **);
static char	*link_ask(struct store_link *, const char *, char **);
static void	 link_close(struct store_link *);

/*
 * How long one read waits for its answer.  A command-line read may wait
 * long (it has nothing else to do); the console sets less, since it
 * draws nothing while it waits and reads again on the next change.
 */
static int	 link_wait_ms = LINK_WAIT_MS;
static int	 link_connect(struct store_link *, char **);
static int	 link_stale(int);

static const struct store_link_ops link_ops = {
	.open = link_open,
	.ask = link_ask,
	.close = link_close,
};

/* Let the store read through the engine where it may not open the file. */
void
client_read_link(void)
{
	store_set_link(&link_ops);
}

/* Wait at most ms for each read's answer from now on. */
void
client_read_link_wait(int ms)
{
	link_wait_ms = ms;
}

/* Connect (again); 0, or -1 with *cause. */
static int
link_connect(struct store_link *l, char **cause)
{
	char	*path;

	if (l->fd != -1)
		close(l->fd);
	if ((l->fd = client_sock_connect(l->dbpath)) == -1) {
		path = client_sock_path(l->dbpath);
		xasprintf(cause, "no engine answers at %s (%s)", path,
		    strerror(errno));
		free(path);
		return (-1);
	}
	return (0);
}

/* A link to the engine of the database at dbpath, or NULL. */
static struct store_link *
link_open(const char *dbpath, char **cause)
{
	struct store_link	*l;

	l = xcalloc(1, sizeof *l);
	l->dbpath = xstrdup(dbpath);
	l->fd = -1;
	if (link_connect(l, cause) != 0) {
		link_close(l);
		return (NULL);
	}
	return (l);
}

/*
 * Whether the connection has something nobody asked for (the engine's
 * word that it closed it, or its end): then it is of no more use.
 */
static int
link_stale(int fd)
{
	struct pollfd	 pfd;

	pfd.fd = fd;
	pfd.events = POLLIN;
	return (poll(&pfd, 1, 0) != 0);
}

/* Send one line and return the answer (the caller frees), or NULL. */
static char *
link_ask(struct store_link *l, const char *line, char **cause)
{
	char	*answer = NULL;
	int64_t	 deadline;
	int	 try, fresh = 0, saved;

	for (try = 0; try < 2; try++) {
		if ((l->fd == -1 || link_stale(l->fd)) &&
		    link_connect(l, cause) != 0)
			return (NULL);
		fresh = try > 0;
		deadline = time_mono_ms() + link_wait_ms;
		if (sock_write_all(l->fd, line, strlen(line), deadline) == 0 &&
		    sock_write_all(l->fd, "\n", 1, deadline) == 0 &&
		    (answer = sock_read_line(l->fd, LINK_ANSWER_MAX,
		    deadline)) != NULL)
			return (answer);
		/*
		 * Never ask on this connection again: an answer that comes
		 * late would be taken for the next request's.
		 */
		saved = errno;
		close(l->fd);
		l->fd = -1;
		errno = saved;
		if (errno == ETIMEDOUT || errno == EMSGSIZE || fresh)
			break;
		/* Broken (closed while idle, say): once more on a new one. */
	}
	if (errno == ETIMEDOUT)
		xasprintf(cause, "the engine did not answer a read within "
		    "%d s", link_wait_ms / 1000);
	else
		xasprintf(cause, "the engine's answer to a read was lost: %s",
		    strerror(errno));
	return (NULL);
}

static void
link_close(struct store_link *l)
{
	if (l == NULL)
		return;
	if (l->fd != -1)
		close(l->fd);
	free(l->dbpath);
	free(l);
}
