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
 * proctree.c: a process's children and descendants from the kernel's own
 * lists (/proc/PID/task/TID/children), read in time that grows with the
 * tree, not with the host: ending a step must not read every process of a
 * busy host.  Where the lists are missing (a kernel without
 * CONFIG_PROC_CHILDREN, not Linux), proctree_supported says so and the
 * callers scan /proc instead.
 */

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define PROCTREE_LIST	(64 * 1024)	/* one thread's children, as text */

static void	proctree_children(pid_t, pid_t **, size_t *, size_t *);
static size_t	proctree_walk(pid_t, pid_t *, size_t, int);

/* Whether the kernel keeps the children lists (asked once). */
int
proctree_supported(void)
{
	static int	 supported = -1;
	char		 path[64];

	if (supported == -1) {
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/children",
		    (long)getpid(), (long)getpid());
		supported = access(path, R_OK) == 0;
	}
	return (supported);
}

/*
 * Append pid's children (of each of its threads) to the array *v of *n
 * (room for *size).  A process that is gone has none.
 */
static void
proctree_children(pid_t pid, pid_t **v, size_t *n, size_t *size)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[320], *buf, *cp, *end;
	ssize_t		 got;
	size_t		 len;
	long		 id;
	int		 fd;

	snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return;
	buf = xmalloc(PROCTREE_LIST);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%s/children",
		    (long)pid, de->d_name);
		if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
			continue;
		len = 0;
		while (len < PROCTREE_LIST - 1 && (got = read(fd, buf + len,
		    PROCTREE_LIST - 1 - len)) > 0)
			len += (size_t)got;
		buf[len] = '\0';
		for (cp = buf; *cp != '\0'; cp = end) {
			errno = 0;
			id = strtol(cp, &end, 10);
			if (end == cp)
				break;
			if (id <= 0 || errno != 0)
				continue;
			if (*n == *size) {
				*size = *size == 0 ? 16 : *size * 2;
				*v = xreallocarray(*v, *size, sizeof **v);
			}
			(*v)[(*n)++] = (pid_t)id;
		}
		close(fd);
	}
	free(buf);
	closedir(d);
}

/*
 * Fill pids with up to max of pid's children (deep: and theirs, and so
 * on, breadth first); returns how many.
 */
static size_t
proctree_walk(pid_t pid, pid_t *pids, size_t max, int deep)
{
	pid_t	*v = NULL;
	size_t	 n = 0, size = 0, from;

	if (pid <= 0 || max == 0)
		return (0);
	proctree_children(pid, &v, &n, &size);
	for (from = 0; deep && from < n && n < 4 * max; from++)
		proctree_children(v[from], &v, &n, &size);
	if (n > max)
		n = max;
	if (n > 0)
		memcpy(pids, v, n * sizeof *pids);
	free(v);
	return (n);
}

/* Fill pids with up to max of pid's children; returns how many. */
size_t
proctree_children_of(pid_t pid, pid_t *pids, size_t max)
{
	return (proctree_walk(pid, pids, max, 0));
}

/*
 * Fill pids with up to max descendants of pid, breadth first (children,
 * theirs, and so on, whatever their group or session); returns how many.
 * Only where proctree_supported.
 */
size_t
proctree_descendants(pid_t pid, pid_t *pids, size_t max)
{
	return (proctree_walk(pid, pids, max, 1));
}
