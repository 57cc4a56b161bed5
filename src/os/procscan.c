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
 * procscan.c: one look at every process of the host, kept: each one's
 * group, state, start time and the few environment entries asked for.
 * Recovery answers all its questions about the last engine's leftovers
 * (which process a row's step is, whether its group lives, which of its
 * processes left the group) from one scan, not a scan per row.
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

#define PROCSCAN_ENV	(256 * 1024)	/* an environment, read at most */

struct procscan_entry {
	pid_t		  pid;
	pid_t		  pgrp;
	char		  state;
	int64_t		  start;
	char		**env;		/* the entries asked for */
	size_t		  nenv;
};

struct procscan {
	struct procscan_entry	*v;
	size_t			 n;
};

static void	procscan_env(struct procscan_entry *, const char *,
		    const char *const *);
static int	procscan_has(const struct procscan_entry *, const char *);

/* Keep the entries of env (NUL-separated) that start with a prefix. */
static void
procscan_env(struct procscan_entry *pe, const char *path,
    const char *const *prefixes)
{
	static char	*buf;
	const char	*p, *end;
	ssize_t		 got;
	size_t		 len = 0, i;
	int		 fd;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
		return;
	if (buf == NULL)
		buf = xmalloc(PROCSCAN_ENV);
	while (len < PROCSCAN_ENV - 1 &&
	    (got = read(fd, buf + len, PROCSCAN_ENV - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	buf[len] = '\0';
	end = buf + len;
	for (p = buf; p < end; p += strnlen(p, end - p) + 1) {
		for (i = 0; prefixes[i] != NULL; i++) {
			if (strncmp(p, prefixes[i], strlen(prefixes[i])) != 0)
				continue;
			pe->env = xreallocarray(pe->env, pe->nenv + 1,
			    sizeof *pe->env);
			pe->env[pe->nenv++] = xstrdup(p);
			break;
		}
	}
}

/*
 * Look at every process but us: its group, state and start, and its
 * environment entries that start with one of prefixes ("NAME="), read
 * only for the processes whose environment we may read.
 */
struct procscan *
procscan_take(const char *const *prefixes)
{
	struct procscan		*ps;
	struct procscan_entry	*pe;
	DIR			*d;
	struct dirent		*de;
	char			 path[64], *end;
	size_t			 size = 0;
	long			 pid;

	ps = xcalloc(1, sizeof *ps);
	if ((d = opendir("/proc")) == NULL)
		return (ps);
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		if (ps->n == size) {
			size = size == 0 ? 256 : size * 2;
			ps->v = xreallocarray(ps->v, size, sizeof *ps->v);
		}
		pe = &ps->v[ps->n];
		memset(pe, 0, sizeof *pe);
		pe->pid = (pid_t)pid;
		if (procstat_info(pe->pid, &pe->state, &pe->pgrp,
		    &pe->start) != 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/environ", pid);
		procscan_env(pe, path, prefixes);
		ps->n++;
	}
	closedir(d);
	log_debug("%s: %zu processes", __func__, ps->n);
	return (ps);
}

/* Does the entry's environment hold this "NAME=value"? */
static int
procscan_has(const struct procscan_entry *pe, const char *needle)
{
	size_t	 i;

	for (i = 0; i < pe->nenv; i++) {
		if (strcmp(pe->env[i], needle) == 0)
			return (1);
	}
	return (0);
}

/*
 * Fill pids (and their start times, when starts is not NULL) with up to
 * max processes whose environment held every needle, outside group
 * pgrp unless it is 0; returns how many.
 */
size_t
procscan_find(const struct procscan *ps, const char *const *needles,
    pid_t pgrp, pid_t *pids, int64_t *starts, size_t max)
{
	const struct procscan_entry	*pe;
	size_t				 i, j, n = 0;

	for (i = 0; i < ps->n && n < max; i++) {
		pe = &ps->v[i];
		if (pe->nenv == 0 || (pgrp > 0 && pe->pgrp == pgrp))
			continue;
		for (j = 0; needles[j] != NULL; j++) {
			if (!procscan_has(pe, needles[j]))
				break;
		}
		if (j == 0 || needles[j] != NULL)
			continue;
		if (starts != NULL)
			starts[n] = pe->start;
		pids[n++] = pe->pid;
	}
	return (n);
}

/*
 * Whether group pgid has a live member.  The scan's members are looked
 * at again (still there, with the same start, not a zombie); when none
 * is but the kernel still knows the group (a member the scan did not
 * see, or zombies), every process is read once more.
 */
int
procscan_group_alive(const struct procscan *ps, pid_t pgid)
{
	const struct procscan_entry	*pe;
	size_t				 i;
	pid_t				 group;
	int64_t				 start;
	char				 state;

	if (pgid <= 1)
		return (0);
	if (kill(-pgid, 0) != 0 && errno != EPERM)
		return (0);
	for (i = 0; ps != NULL && i < ps->n; i++) {
		pe = &ps->v[i];
		if (pe->pgrp != pgid)
			continue;
		if (procstat_info(pe->pid, &state, &group, &start) == 0 &&
		    start == pe->start && group == pgid && state != 'Z' &&
		    state != 'X')
			return (1);
	}
	return (procstat_group_alive(pgid));
}

/* Free a scan. */
void
procscan_free(struct procscan *ps)
{
	size_t	 i, j;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->v[i].nenv; j++)
			free(ps->v[i].env[j]);
		free(ps->v[i].env);
	}
	free(ps->v);
	free(ps);
}
