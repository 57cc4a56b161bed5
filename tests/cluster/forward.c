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
 * forward.c: a TCP forwarder for the cluster tests, one per engine node,
 * between the node and PostgreSQL, so a test can cut one node off:
 *
 *	forward PORTFILE TARGETPORT
 *
 * listens on 127.0.0.1 (a port of the kernel's choosing, written to
 * PORTFILE once it listens) and relays every connection to 127.0.0.1:
 * TARGETPORT.  SIGSTOP is a partition: nothing is relayed and nothing is
 * refused, so both ends see silence, as across a cut network; SIGCONT
 * heals it.  One process, one poll() loop, no threads.
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FWD_MAX		256		/* connections at once */
#define FWD_BUF		(64 * 1024)	/* per direction */

/* One direction of a connection: what was read from one end, not yet out. */
struct half {
	int	 from;
	int	 to;
	char	 buf[FWD_BUF];
	size_t	 len;
	int	 eof;
};

/* A relayed connection. */
struct conn {
	int		 used;
	struct half	 up;	/* client to target */
	struct half	 down;	/* target to client */
};

static struct conn	 conns[FWD_MAX];

static int	 fwd_listen(const char *);
static void	 fwd_accept(int, int);
static void	 fwd_move(struct half *, short, short);
static void	 fwd_close(struct conn *);

/* Listen on 127.0.0.1, any port; write the port to path (by rename). */
static int
fwd_listen(const char *path)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof sin;
	char			 tmp[4096];
	FILE			*f;
	int			 fd, on = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (-1);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) != 0)
		return (-1);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if ((f = fopen(tmp, "w")) == NULL)
		return (-1);
	fprintf(f, "%d\n", ntohs(sin.sin_port));
	if (fclose(f) != 0 || rename(tmp, path) != 0)
		return (-1);
	return (fd);
}

/* A new client: connect to the target and pair them. */
static void
fwd_accept(int lfd, int port)
{
	struct sockaddr_in	 sin;
	struct conn		*c = NULL;
	int			 a, b, i, on = 1;

	if ((a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) == -1)
		return;
	for (i = 0; i < FWD_MAX; i++) {
		if (!conns[i].used) {
			c = &conns[i];
			break;
		}
	}
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (c == NULL ||
	    (b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		close(a);
		return;
	}
	/* Blocking: the target is on this machine, so this is quick. */
	if (connect(b, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    fcntl(b, F_SETFL, O_NONBLOCK) != 0) {
		close(a);
		close(b);
		return;
	}
	setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
	setsockopt(b, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
	memset(c, 0, sizeof *c);
	c->used = 1;
	c->up.from = c->down.to = a;
	c->up.to = c->down.from = b;
}

/* Read what the source end has (room allowing), write what the sink takes. */
static void
fwd_move(struct half *h, short rev_from, short rev_to)
{
	ssize_t	 n;

	if (rev_to & (POLLHUP | POLLERR)) {
		h->eof = 1;	/* the sink is gone: nothing more goes out */
		h->len = 0;
	}
	if (!h->eof && h->len < sizeof h->buf &&
	    (rev_from & (POLLIN | POLLHUP | POLLERR))) {
		n = read(h->from, h->buf + h->len, sizeof h->buf - h->len);
		if (n > 0)
			h->len += n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			h->eof = 1;
	}
	if (h->len > 0 && (rev_to & POLLOUT)) {
		n = write(h->to, h->buf, h->len);
		if (n > 0) {
			memmove(h->buf, h->buf + n, h->len - n);
			h->len -= n;
		} else if (n == -1 && errno != EAGAIN && errno != EINTR)
			h->eof = 1, h->len = 0;
	}
	if (h->eof && h->len == 0)
		shutdown(h->to, SHUT_WR);
}

/* Both directions done: close the pair. */
static void
fwd_close(struct conn *c)
{
	close(c->up.from);
	close(c->up.to);
	c->used = 0;
}

int
main(int argc, char **argv)
{
	struct pollfd	 pfd[1 + 2 * FWD_MAX];
	struct conn	*c;
	int		 lfd, port, i, n;

	if (argc != 3 || (port = atoi(argv[2])) <= 0 || port > 65535) {
		fprintf(stderr, "usage: forward PORTFILE TARGETPORT\n");
		return (2);
	}
	signal(SIGPIPE, SIG_IGN);
	if ((lfd = fwd_listen(argv[1])) == -1) {
		fprintf(stderr, "forward: cannot listen: %s\n",
		    strerror(errno));
		return (1);
	}
	for (;;) {
		pfd[0].fd = lfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < FWD_MAX; i++) {
			c = &conns[i];
			pfd[1 + 2 * i].fd = c->used ? c->up.from : -1;
			pfd[2 + 2 * i].fd = c->used ? c->up.to : -1;
			pfd[1 + 2 * i].events = pfd[2 + 2 * i].events = 0;
			if (!c->used)
				continue;
			if (!c->up.eof && c->up.len < FWD_BUF)
				pfd[1 + 2 * i].events |= POLLIN;
			if (!c->down.eof && c->down.len < FWD_BUF)
				pfd[2 + 2 * i].events |= POLLIN;
			if (c->up.len > 0)
				pfd[2 + 2 * i].events |= POLLOUT;
			if (c->down.len > 0)
				pfd[1 + 2 * i].events |= POLLOUT;
		}
		if ((n = poll(pfd, 1 + 2 * FWD_MAX, -1)) == -1) {
			if (errno == EINTR)
				continue;
			return (1);
		}
		if (pfd[0].revents & POLLIN)
			fwd_accept(lfd, port);
		for (i = 0; i < FWD_MAX; i++) {
			c = &conns[i];
			if (!c->used || pfd[1 + 2 * i].fd == -1)
				continue;
			fwd_move(&c->up, pfd[1 + 2 * i].revents,
			    pfd[2 + 2 * i].revents);
			fwd_move(&c->down, pfd[2 + 2 * i].revents,
			    pfd[1 + 2 * i].revents);
			if (c->up.eof && c->down.eof && c->up.len == 0 &&
			    c->down.len == 0)
				fwd_close(c);
		}
	}
}
