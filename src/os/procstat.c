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
 * procstat.c: when a process started, from /proc, so that a pid written
 * down by an earlier engine can be told apart from an unrelated process
 * that was given the same pid later.  A pid alone is not an identity; a pid
 * and its start time are.
 */

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define PROCSTAT_FIELD	22	/* starttime in /proc/PID/stat */

static int64_t	procstat_boot_time(void);
static ssize_t	procstat_read(const char *, char *, size_t);
static size_t	procstat_descendants_scan(pid_t, pid_t *, size_t);
static int64_t	procstat_start_of(char *);

/* Read a small /proc file into buf, NUL-terminated; -1 if it fails. */
static ssize_t
procstat_read(const char *path, char *buf, size_t size)
{
	ssize_t	n;
	size_t	len = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
		return (-1);
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return (len);
}

/* The boot time (btime in /proc/stat, Unix seconds), read once; 0 unknown. */
static int64_t
procstat_boot_time(void)
{
	static int64_t	 btime;
	FILE		*f;
	char		*line = NULL;
	size_t		 size = 0;
	long long	 v;

	if (btime != 0)
		return (btime);
	if ((f = fopen("/proc/stat", "re")) == NULL)
		return (0);
	while (getline(&line, &size, f) != -1) {
		if (sscanf(line, "btime %lld", &v) == 1 && v > 0) {
			btime = v;
			break;
		}
	}
	free(line);
	fclose(f);
	return (btime);
}

/*
 * A process's state letter, group and start time (Unix ms) in one read
 * of its stat line: 0, or -1 when it is gone or unreadable.
 */
int
procstat_info(pid_t pid, char *state, pid_t *pgrp, int64_t *start)
{
	char	 path[64], buf[1024], *cp;
	long	 group;

	if (pid <= 0)
		return (-1);
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (procstat_read(path, buf, sizeof buf) <= 0 ||
	    (cp = strrchr(buf, ')')) == NULL)
		return (-1);
	/* After the name: state, ppid, pgrp. */
	if (sscanf(cp + 1, " %c %*d %ld", state, &group) != 2)
		return (-1);
	*pgrp = (pid_t)group;
	*start = procstat_start_of(cp + 1);
	return (*start != 0 ? 0 : -1);
}

/*
 * A process's start time in Unix milliseconds, or 0 if it is gone or we
 * cannot tell.  The command name in the stat line may hold spaces and
 * parentheses, so fields are counted from the last ')'.
 */
int64_t
procstat_start_time(pid_t pid)
{
	char	 path[64], buf[1024], *cp;

	if (pid <= 0)
		return (0);
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (procstat_read(path, buf, sizeof buf) <= 0)
		return (0);
	if ((cp = strrchr(buf, ')')) == NULL)
		return (0);
	return (procstat_start_of(cp + 1));
}

/* The start time (Unix ms) in a stat line after its name; 0 unknown. */
static int64_t
procstat_start_of(char *cp)
{
	static long		 hz;
	unsigned long long	 ticks;
	int64_t			 btime;
	int			 field;
	char			*end;

	if (hz <= 0 && (hz = sysconf(_SC_CLK_TCK)) <= 0)
		return (0);
	if ((btime = procstat_boot_time()) == 0)
		return (0);
	for (field = 3; field < PROCSTAT_FIELD; field++) {
		cp += strspn(cp, " ");
		cp += strcspn(cp, " ");
		if (*cp == '\0')
			return (0);
	}
	errno = 0;
	ticks = strtoull(cp, &end, 10);
	if (errno != 0 || end == cp || (*end != ' ' && *end != '\0'))
		return (0);
	return (btime * 1000 + (int64_t)(ticks * 1000 / (unsigned long)hz));
}

/* Whether pid is alive and is the process that started at start. */
int
procstat_same(pid_t pid, int64_t start)
{
	if (pid <= 0 || start <= 0)
		return (0);
	return (procstat_start_time(pid) == start);
}

/*
 * Whether any live process is left in group pgid.  kill(-pgid, 0) also
 * answers for zombies, which an orphaned group may hold until init reaps
 * them: those are looked through /proc and do not count.
 */
int
procstat_group_alive(pid_t pgid)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], buf[512], *cp, *end, state;
	long		 pid, group;
	int		 alive = 0;

	if (pgid <= 1)
		return (0);
	if (kill(-pgid, 0) != 0 && errno != EPERM)
		return (0);
	if ((d = opendir("/proc")) == NULL)
		return (1);
	while (!alive && (de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (procstat_read(path, buf, sizeof buf) <= 0 ||
		    (cp = strrchr(buf, ')')) == NULL)
			continue;
		/* After the name: state, ppid, pgrp. */
		if (sscanf(cp + 1, " %c %*d %ld", &state, &group) != 2)
			continue;
		if (group == (long)pgid && state != 'Z' && state != 'X')
			alive = 1;
	}
	closedir(d);
	return (alive);
}

/*
 * Fill pids with up to max descendants of pid (children, theirs, and so
 * on, whatever their group or session); returns how many.  From the
 * kernel's children lists (proctree.c) where it keeps them, else from
 * the parent links of every process in /proc (zombies left out).
 */
size_t
procstat_descendants(pid_t pid, pid_t *pids, size_t max)
{
	if (proctree_supported())
		return (proctree_descendants(pid, pids, max));
	return (procstat_descendants_scan(pid, pids, max));
}

/* The same by a scan of every process: where the kernel keeps no lists. */
static size_t
procstat_descendants_scan(pid_t pid, pid_t *pids, size_t max)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[64], buf[512], *cp, *end, state;
	long		 id, ppid;
	pid_t		*all = NULL, *parent = NULL;
	size_t		 nall = 0, size = 0, n = 0, i, from;

	if (pid <= 0 || max == 0 || (d = opendir("/proc")) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		id = strtol(de->d_name, &end, 10);
		if (*end != '\0' || id <= 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", id);
		if (procstat_read(path, buf, sizeof buf) <= 0 ||
		    (cp = strrchr(buf, ')')) == NULL)
			continue;
		if (sscanf(cp + 1, " %c %ld", &state, &ppid) != 2 ||
		    state == 'Z' || state == 'X')
			continue;
		if (nall == size) {
			size = size == 0 ? 256 : size * 2;
			all = xreallocarray(all, size, sizeof *all);
			parent = xreallocarray(parent, size, sizeof *parent);
		}
		all[nall] = (pid_t)id;
		parent[nall++] = (pid_t)ppid;
	}
	closedir(d);
	/* Breadth first: each found process's children join the list. */
	for (from = 0; ; from++) {
		for (i = 0; i < nall && n < max; i++) {
			if (parent[i] == (from == 0 ? pid : pids[from - 1]))
				pids[n++] = all[i];
		}
		if (from >= n)
			break;
	}
	free(all);
	free(parent);
	return (n);
}
