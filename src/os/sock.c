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
 * sock.c: the engine's Unix stream socket, DB.sock beside the database.
 * The engine listens on it (mode 0660, the directory's group, so a team
 * that may read the database may also ask its engine); clients connect
 * to it.  Who is calling comes from the kernel (SO_PEERCRED), never from
 * what the caller writes.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define SOCK_BACKLOG	64
#define SOCK_SERVER_PREFIX	"postgresql:"
#define SOCK_CLUSTER_PATH	"/run/sluice/engine.sock"

static int	 sock_addr(const char *, struct sockaddr_un *, int *, char **);

/*
 * The socket's name for a database (its real path).  A server's database
 * (cluster mode, "postgresql:...") has no directory of this host's to put
 * it beside: each node's engine listens on $SLUICE_SOCKET, or the
 * service's runtime directory's.
 */
char *
sock_path(const char *dbpath)
{
	const char	*env;
	char		*path;

	if (strncmp(dbpath, SOCK_SERVER_PREFIX,
	    strlen(SOCK_SERVER_PREFIX)) == 0) {
		if ((env = getenv("SLUICE_SOCKET")) != NULL && *env != '\0')
			return (xstrdup(env));
		return (xstrdup(SOCK_CLUSTER_PATH));
	}
	xasprintf(&path, "%s.sock", dbpath);
	return (path);
}

/*
 * Fill a socket address.  A path too long for sun_path (a deep build or
 * home directory) is reached through its directory, held open in *dfd
 * (close it after bind or connect), as /proc/self/fd/N/NAME.
 */
static int
sock_addr(const char *path, struct sockaddr_un *sun, int *dfd, char **cause)
{
	char	*dir, *slash;
	int	 n;

	*dfd = -1;
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, path, sizeof sun->sun_path) <
	    sizeof sun->sun_path)
		return (0);
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir) {
		free(dir);
		goto toolong;
	}
	*slash = '\0';
	*dfd = open(dir, O_PATH|O_DIRECTORY|O_CLOEXEC);
	free(dir);
	if (*dfd == -1)
		goto toolong;
	n = snprintf(sun->sun_path, sizeof sun->sun_path, "/proc/self/fd/%d/%s",
	    *dfd, strrchr(path, '/') + 1);
	if (n > 0 && (size_t)n < sizeof sun->sun_path)
		return (0);
	close(*dfd);
	*dfd = -1;
toolong:
	xasprintf(cause, "socket path %s is too long (%zu bytes at most)",
	    path, sizeof sun->sun_path - 1);
	errno = ENAMETOOLONG;
	return (-1);
}

/*
 * Listen on path (non-blocking, close-on-exec).  The caller holds the
 * engine lock, so a socket file already there is a dead engine's and is
 * replaced.  Mode 0660 and the directory's group: who can read the
 * directory's database can talk to its engine.
 */
int
sock_listen(const char *path, char **cause)
{
	struct sockaddr_un	 sun;
	struct stat		 sb, dsb;
	char			*dir, *slash;
	int			 fd, dfd, rc;

	if (sock_addr(path, &sun, &dfd, cause) != 0)
		return (-1);
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			xasprintf(cause, "%s is there and is not a socket",
			    path);
			return (-1);
		}
		if (unlink(path) != 0 && errno != ENOENT) {
			xasprintf(cause, "cannot remove stale socket %s: %s",
			    path, strerror(errno));
			return (-1);
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM|SOCK_NONBLOCK|SOCK_CLOEXEC, 0);
	if (fd == -1) {
		xasprintf(cause, "socket: %s", strerror(errno));
		if (dfd != -1)
			close(dfd);
		return (-1);
	}
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	if (dfd != -1)
		close(dfd);
	if (rc != 0) {
		xasprintf(cause, "cannot bind %s: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	else
		strlcpy(dir, slash == dir ? "/" : ".", strlen(dir) + 1);
	/* The group may only be one we are in; else the file's stays. */
	if (stat(dir, &dsb) == 0 && lstat(path, &sb) == 0 &&
	    sb.st_gid != dsb.st_gid && chown(path, (uid_t)-1, dsb.st_gid) != 0)
		log_debug("%s: chgrp %s: %s", __func__, path, strerror(errno));
	free(dir);
	if (chmod(path, 0660) != 0 || listen(fd, SOCK_BACKLOG) != 0) {
		xasprintf(cause, "cannot listen on %s: %s", path,
		    strerror(errno));
		close(fd);
		unlink(path);
		return (-1);
	}
	return (fd);
}

/* Accept a client (non-blocking, close-on-exec); -1 when none waits. */
int
sock_accept(int lfd)
{
	return (accept4(lfd, NULL, NULL, SOCK_NONBLOCK|SOCK_CLOEXEC));
}

/*
 * Connect to path.  Returns the descriptor (blocking, close-on-exec), or
 * -1 with errno: ENOENT or ECONNREFUSED when no engine listens, EACCES
 * when the socket is not ours to use.
 */
int
sock_connect(const char *path)
{
	struct sockaddr_un	 sun;
	char			*cause = NULL;
	int			 fd, dfd, rc, saved;

	if (sock_addr(path, &sun, &dfd, &cause) != 0) {
		free(cause);
		errno = ENAMETOOLONG;
		return (-1);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0)) == -1) {
		saved = errno;
		if (dfd != -1)
			close(dfd);
		errno = saved;
		return (-1);
	}
	rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
	saved = errno;
	if (dfd != -1)
		close(dfd);
	if (rc != 0) {
		close(fd);
		errno = saved;
		return (-1);
	}
	return (fd);
}

/* The uid and pid of the process at the other end, from the kernel. */
int
sock_peer(int fd, uid_t *uid, pid_t *pid)
{
	struct ucred	cred;
	socklen_t	len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    len != sizeof cred)
		return (-1);
	*uid = cred.uid;
	*pid = cred.pid;
	return (0);
}

/*
 * Write all of len bytes to a blocking descriptor, waiting in poll() at
 * most until the monotonic deadline (ms).  Returns 0, or -1 with errno
 * (ETIMEDOUT when the deadline passed).
 */
int
sock_write_all(int fd, const char *p, size_t len, int64_t deadline)
{
	struct pollfd	 pfd;
	ssize_t		 n;
	int64_t		 left;

	while (len > 0) {
		left = deadline - time_mono_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return (-1);
		}
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			return (-1);
		}
		if ((n = send(fd, p, len, MSG_NOSIGNAL|MSG_DONTWAIT)) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return (-1);
		}
		p += n;
		len -= (size_t)n;
	}
	return (0);
}

/*
 * Read one line (without its newline) of at most max bytes, waiting at
 * most until the monotonic deadline.  Returns it (the caller frees), or
 * NULL with errno: ETIMEDOUT, EMSGSIZE for a longer line, ECONNRESET when
 * the other end closed first.
 */
char *
sock_read_line(int fd, size_t max, int64_t deadline)
{
	struct pollfd	 pfd;
	struct buf	 b;
	char		 c[4096], *nl;
	ssize_t		 n;
	int64_t		 left;

	buf_init(&b);
	for (;;) {
		left = deadline - time_mono_ms();
		if (left <= 0) {
			errno = ETIMEDOUT;
			break;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* Peek, then take only up to the newline: the rest is next. */
		n = recv(fd, c, sizeof c, MSG_PEEK|MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			break;
		}
		if ((nl = memchr(c, '\n', (size_t)n)) != NULL)
			n = nl - c + 1;
		if (recv(fd, c, (size_t)n, MSG_DONTWAIT) != n)
			break;
		if (b.len + (size_t)n > max + 1) {
			errno = EMSGSIZE;
			break;
		}
		if (nl != NULL) {
			buf_add(&b, c, (size_t)n - 1);
			return (buf_release(&b));
		}
		buf_add(&b, c, (size_t)n);
	}
	buf_free(&b);
	return (NULL);
}
