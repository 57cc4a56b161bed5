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
 * lockers.c: who holds the locks a writer of the database waits for, from
 * Linux's /proc/locks, so an engine kept waiting can say by whom.  Readers
 * hold locks too (the WAL index's read marks), and those never keep a
 * writer out; what does is a lock on the WAL index's write, checkpoint or
 * recovery byte (120 to 122 of DB-shm), on the database's reserved or
 * pending byte, or any exclusive lock on one of the three files.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define LOCKERS_MAX		3	/* holders named */
#define LOCKERS_SHM_WRITE	120	/* WAL index: write lock, then ckpt, */
#define LOCKERS_SHM_RECOVER	122	/* ... recovery */
#define LOCKERS_DB_RESERVED	1073741825LL	/* the database's bytes */
#define LOCKERS_DB_PENDING	1073741824LL

struct lockers_file {
	const char	*suffix;	/* "", "-wal", "-shm" */
	dev_t		 dev;
	ino_t		 ino;
	int		 have;
};

static int	lockers_blocks(int, int, long long, long long);
static void	lockers_who(pid_t, struct buf *);

/* Whether a lock on file n (0 db, 1 wal, 2 shm) can keep a writer out. */
static int
lockers_blocks(int n, int write, long long start, long long end)
{
	if (write)
		return (1);
	if (n == 2)
		return (start <= LOCKERS_SHM_RECOVER &&
		    (end < 0 || end >= LOCKERS_SHM_WRITE));
	if (n == 0)
		return (start <= LOCKERS_DB_RESERVED &&
		    (end < 0 || end >= LOCKERS_DB_PENDING));
	return (0);
}

/* "pid N (COMMAND, uid U)" from /proc, as much of it as we may read. */
static void
lockers_who(pid_t pid, struct buf *b)
{
	struct stat	 sb;
	FILE		*f;
	char		 path[64], comm[64];
	size_t		 len;

	buf_printf(b, "pid %ld", (long)pid);
	snprintf(path, sizeof path, "/proc/%ld/comm", (long)pid);
	comm[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		if (fgets(comm, sizeof comm, f) == NULL)
			comm[0] = '\0';
		fclose(f);
	}
	len = strcspn(comm, "\n");
	comm[len] = '\0';
	snprintf(path, sizeof path, "/proc/%ld", (long)pid);
	if (stat(path, &sb) == 0)
		buf_printf(b, " (%s%suid %lu)", comm, len > 0 ? ", " : "",
		    (unsigned long)sb.st_uid);
	else if (len > 0)
		buf_printf(b, " (%s)", comm);
}

/*
 * Describe the processes other than us that hold a lock on the database
 * at dbpath (or its -wal or -shm) that keeps a writer waiting, as "pid N
 * (COMMAND, uid U) holds a read lock on DB-shm byte 120; ...", or NULL
 * when none is seen (another system, or a lock /proc/locks does not
 * show).  The caller frees it.
 */
char *
lockers_describe(const char *dbpath)
{
	struct lockers_file	 files[] = {
		{ "", 0, 0, 0 }, { "-wal", 0, 0, 0 }, { "-shm", 0, 0, 0 }
	};
	struct stat		 sb;
	struct buf		 b;
	FILE			*f;
	char			*line = NULL, *path, kind[16], mode[16];
	char			 endtext[32];
	size_t			 size = 0;
	unsigned int		 maj, min;
	unsigned long		 ino;
	long			 pid;
	long long		 start, end;
	int			 i, n, named = 0;

	for (i = 0; i < (int)nitems(files); i++) {
		xasprintf(&path, "%s%s", dbpath, files[i].suffix);
		if (stat(path, &sb) == 0) {
			files[i].dev = sb.st_dev;
			files[i].ino = sb.st_ino;
			files[i].have = 1;
		}
		free(path);
	}
	if ((f = fopen("/proc/locks", "r")) == NULL)
		return (NULL);
	buf_init(&b);
	while (named < LOCKERS_MAX && getline(&line, &size, f) != -1) {
		/* "1: POSIX  ADVISORY  READ 5801 fe:00:10953272 128 128" */
		if (strstr(line, "->") != NULL)
			continue;	/* a waiter, not a holder */
		if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu %lld %31s",
		    kind, mode, &pid, &maj, &min, &ino, &start, endtext) != 8)
			continue;
		if (pid == (long)getpid())
			continue;
		end = strcmp(endtext, "EOF") == 0 ? -1 : atoll(endtext);
		for (n = 0; n < (int)nitems(files); n++) {
			if (files[n].have && files[n].ino == ino &&
			    major(files[n].dev) == maj &&
			    minor(files[n].dev) == min)
				break;
		}
		if (n == (int)nitems(files) || !lockers_blocks(n,
		    strcmp(mode, "WRITE") == 0, start, end))
			continue;
		if (named++ > 0)
			buf_puts(&b, "; ");
		if (pid > 0)
			lockers_who((pid_t)pid, &b);
		else
			buf_puts(&b, "a process");
		buf_printf(&b, " holds %s %s on %s%s",
		    strcmp(mode, "WRITE") == 0 ? "an exclusive" : "a shared",
		    strcmp(kind, "FLOCK") == 0 ? "flock" : "lock",
		    dbpath, files[n].suffix);
		if (strcmp(kind, "FLOCK") == 0)
			continue;
		if (end == start)
			buf_printf(&b, " byte %lld", start);
		else if (end < 0)
			buf_printf(&b, " from byte %lld on", start);
		else
			buf_printf(&b, " bytes %lld-%lld", start, end);
	}
	free(line);
	fclose(f);
	if (named == 0) {
		buf_free(&b);
		return (NULL);
	}
	return (buf_release(&b));
}
