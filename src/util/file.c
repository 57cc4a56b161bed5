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
 * file.c: whole-file reads with a size bound, complete writes, and the
 * private files we append to (debug log, traces).
 */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"

/*
 * Read all of path ("-" is stdin) into a NUL-terminated string of at most
 * max bytes.  NULL with a one-line cause on failure or when too large.
 */
char *
file_read(const char *path, size_t max, size_t *lenp, char **cause)
{
	struct buf	 b;
	char		 chunk[8192];
	ssize_t		 n;
	int		 fd;
	const char	*name = strcmp(path, "-") == 0 ? "stdin" : path;

	if (strcmp(path, "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		xasprintf(cause, "%s: %s", name, strerror(errno));
		return (NULL);
	}
	buf_init(&b);
	buf_add(&b, "", 0);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			xasprintf(cause, "%s: %s", name, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			xasprintf(cause, "%s: larger than the limit of %zu KiB",
			    name, max / 1024);
			goto fail;
		}
		buf_add(&b, chunk, (size_t)n);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	if (lenp != NULL)
		*lenp = b.len;
	return (buf_release(&b));
fail:
	if (fd != STDIN_FILENO)
		close(fd);
	buf_free(&b);
	return (NULL);
}

/* Write all of p to fd, retrying short writes; 0 or -1 with errno. */
int
file_write_all(int fd, const void *p, size_t len)
{
	const char	*c = p;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, c, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return (-1);
		c += n;
		len -= (size_t)n;
	}
	return (0);
}

/*
 * Open path for appending, creating it 0600 whatever the umask allows:
 * logs and traces hold names, inputs and output that may be private.
 */
FILE *
file_open_private(const char *path)
{
	FILE	*f;
	int	 fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd == -1)
		return (NULL);
	if ((f = fdopen(fd, "a")) == NULL)
		close(fd);
	return (f);
}
