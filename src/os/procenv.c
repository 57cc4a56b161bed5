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
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define PROCENV_MAX	(256 * 1024)	/* an environment, read at most */

static int	procenv_match(const char *, size_t, const char *const *);
static size_t	procenv_read(pid_t, char *, size_t);
static int	procenv_is_subreaper(void);

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
 * Read pid's environment into buf (size bytes, NUL-terminated); its
 * length, 0 when it is unreadable (not ours, gone) or empty.
 */
static size_t
procenv_read(pid_t pid, char *buf, size_t size)
{
	char	 path[64];
	ssize_t	 got;
	size_t	 len = 0;
	int	 fd;

	snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
		return (0);
	while (len < size - 1 &&
	    (got = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	return (len);
}

/*
 * Fill pids with up to max processes whose environment has every entry
 * of needles ("NAME=value", NULL-terminated); returns how many.  This
 * reads every process of the host: recovery's one look, and the fallback
 * where procenv_adopted cannot answer.
 */
size_t
procenv_find(const char *const *needles, pid_t *pids, size_t max)
{
	return (procenv_find_any(&needles, 1, pids, max));
}

/*
 * As procenv_find, for any of nsets sets of needles, reading each
 * process once: the fence keeper's look for every step it watches.
 */
size_t
procenv_find_any(const char *const *const *sets, size_t nsets, pid_t *pids,
    size_t max)
{
	DIR		*d;
	struct dirent	*de;
	char		*buf;
	size_t		 n = 0, len, i;
	long		 pid;
	char		*end;

	if (nsets == 0 || (d = opendir("/proc")) == NULL)
		return (0);
	buf = xmalloc(PROCENV_MAX);
	while (n < max && (de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		if ((len = procenv_read((pid_t)pid, buf, PROCENV_MAX)) == 0)
			continue;
		for (i = 0; i < nsets; i++) {
			if (procenv_match(buf, len, sets[i])) {
				pids[n++] = (pid_t)pid;
				break;
			}
		}
	}
	free(buf);
	closedir(d);
	return (n);
}

/*
 * As procenv_find, for a child subreaper: a step's descendant that left
 * its parent's tree was reparented to us, so it is one of our children
 * that we did not start (ours says which we did), or a descendant of
 * one.  Each such child is read, not every process of the host: fill
 * pids with up to max of the matching ones and their descendants, and
 * return how many; (size_t)-1 when we are no subreaper or the kernel
 * keeps no children lists, and procenv_find must do.
 */
size_t
procenv_adopted(const char *const *needles, int (*ours)(pid_t, void *),
    void *arg, pid_t *pids, size_t max)
{
	pid_t	*kids;
	char	*buf;
	size_t	 nkids, n = 0, len, i;

	if (!procenv_is_subreaper() || !proctree_supported())
		return ((size_t)-1);
	kids = xreallocarray(NULL, max, sizeof *kids);
	nkids = proctree_children_of(getpid(), kids, max);
	buf = xmalloc(PROCENV_MAX);
	for (i = 0; i < nkids && n < max; i++) {
		if (ours(kids[i], arg))
			continue;
		len = procenv_read(kids[i], buf, PROCENV_MAX);
		if (len == 0 || !procenv_match(buf, len, needles))
			continue;
		pids[n++] = kids[i];
		n += proctree_descendants(kids[i], pids + n, max - n);
	}
	free(buf);
	free(kids);
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

/* Whether we are a child subreaper now. */
static int
procenv_is_subreaper(void)
{
#if defined(__linux__) && defined(PR_GET_CHILD_SUBREAPER)
	int	on = 0;

	return (prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) == 0 && on);
#else
	return (0);
#endif
}
