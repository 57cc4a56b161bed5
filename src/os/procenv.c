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
 * procenv.c: finding processes by their environment.  A step's process is
 * recorded (pid, group) in the transaction after the one that recorded it
 * running; if the engine dies in between, the next engine finds it by the
 * SLUICE_* variables every step process carries, and so also a step's
 * descendants that left its process group.  Linux /proc only; only
 * processes whose environment we may read (our own user's) are seen.
 */

#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

/* Does a NUL-separated environment block hold every needle entry? */
static int
procenv_match(const char *env, size_t len, const char *const *needles)
{
	const char	*p, *end = env + len;
	size_t		 i, found = 0, n = 0;

	while (needles[n] != NULL)
		n++;
	for (i = 0; i < n; i++) {
		for (p = env; p < end; p += strnlen(p, end - p) + 1) {
			if (strcmp(p, needles[i]) == 0) {
				found++;
				break;
			}
		}
	}
	return (n > 0 && found == n);
}

/*
 * Fill pids with up to max processes whose environment has every entry
 * of needles ("NAME=value", NULL-terminated); returns how many.
 */
size_t
procenv_find(const char *const *needles, pid_t *pids, size_t max)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], *buf;
	ssize_t		 got;
	size_t		 n = 0, len;
	int		 fd;
	long		 pid;
	char		*end;

	if ((d = opendir("/proc")) == NULL)
		return (0);
	buf = xmalloc(256 * 1024);
	while (n < max && (de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		snprintf(path, sizeof path, "/proc/%ld/environ", pid);
		if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
			continue;
		len = 0;
		while (len < 256 * 1024 - 1 &&
		    (got = read(fd, buf + len, 256 * 1024 - 1 - len)) > 0)
			len += (size_t)got;
		close(fd);
		buf[len] = '\0';
		if (len > 0 && procenv_match(buf, len, needles))
			pids[n++] = (pid_t)pid;
	}
	free(buf);
	closedir(d);
	return (n);
}

/*
 * Become a child subreaper: a step's descendant orphaned by its parent
 * (a daemon that double-forks, a setsid'd grandchild) is reparented to us
 * rather than to init, so it is reaped here and stays in our sight.
 * Linux only; elsewhere nothing happens.  0 on success.
 */
int
procenv_subreaper(void)
{
#if defined(__linux__) && defined(PR_SET_CHILD_SUBREAPER)
	return (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -1);
#else
	return (-1);
#endif
}
