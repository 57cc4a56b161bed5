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
 * lock.c: the engine lock, an flock() on DB.lock beside the database.  The
 * kernel drops it when the holder dies, however it dies, so a stale lock
 * cannot outlive its engine.  A probe takes the shared lock for an instant
 * to ask whether an engine holds the exclusive one.  The lock is only as
 * good as the name: once DB.lock is removed, a new engine locks a new file
 * of that name, so an engine asks (lock_same) whether the name still leads
 * to the file it locked before it starts anything.
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "os/os.h"

#define LOCK_TRIES	10	/* LOCK_HELD after this many, ... */
#define LOCK_WAIT_NS	(20 * 1000 * 1000)	/* ... this far apart */

static char	*lock_path(const char *);
static int	 lock_open(const char *, char **);
static int	 lock_create(const char *, char **);
static void	 lock_private(const char *, int);
static char	*lock_dirname(const char *);

/* The lock file's name. */
static char *
lock_path(const char *dbpath)
{
	char	*path;

	xasprintf(&path, "%s.lock", dbpath);
	return (path);
}

/* The directory part of the lock file's path, as a new string. */
static char *
lock_dirname(const char *path)
{
	char	*dir, *slash;

	dir = xstrdup(path);
	if ((slash = strrchr(dir, '/')) == NULL)
		strlcpy(dir, ".", strlen(dir) + 1);
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return (dir);
}

/*
 * Make the lock file as the store makes the database: 0600, or with the
 * directory's group when the directory is setgid: 0660 when the group
 * may write the directory (a shared database).  When it may not (service
 * mode) only the engine's account may open it: a member that could read
 * it could hold a shared lock and keep every engine from starting, and
 * members learn whether an engine runs from its socket.
 */
static int
lock_create(const char *path, char **cause)
{
	char		*dir;
	struct stat	 dsb, sb;
	mode_t		 mode = 0600;
	int		 fd;

	dir = lock_dirname(path);
	if (stat(dir, &dsb) != 0) {
		xasprintf(cause, "cannot open directory %s: %s", dir,
		    strerror(errno));
		free(dir);
		return (-1);
	}
	free(dir);
	if ((dsb.st_mode & S_ISGID) && (dsb.st_mode & S_IWGRP))
		mode = 0660;

	fd = open(path, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600);
	if (fd == -1) {
		if (errno == EEXIST)	/* someone else was quicker */
			return (lock_open(path, cause));
		xasprintf(cause, "cannot create %s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) != 0 ||
	    ((dsb.st_mode & S_ISGID) && sb.st_gid != dsb.st_gid &&
	    fchown(fd, (uid_t)-1, dsb.st_gid) != 0) ||
	    fchmod(fd, mode) != 0) {
		xasprintf(cause, "cannot set up %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return (-1);
	}
	return (fd);
}

/*
 * In service mode (a setgid directory the group may not write) keep a
 * lock file made by an older release, mode 0640, to the engine's account
 * alone, as lock_create makes it now.
 */
static void
lock_private(const char *path, int fd)
{
	char		*dir;
	struct stat	 dsb, sb;

	dir = lock_dirname(path);
	if (stat(dir, &dsb) == 0 && (dsb.st_mode & S_ISGID) &&
	    !(dsb.st_mode & S_IWGRP) && fstat(fd, &sb) == 0 &&
	    sb.st_uid == geteuid() && (sb.st_mode & 077) != 0 &&
	    fchmod(fd, 0600) != 0)
		log_debug("%s: %s: %s", __func__, path, strerror(errno));
	free(dir);
}

/* Open the lock file, creating it if it is not there yet. */
static int
lock_open(const char *path, char **cause)
{
	int	fd;

	fd = open(path, O_RDWR|O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return (lock_create(path, cause));
	if (fd == -1)
		xasprintf(cause, "cannot open %s: %s", path, strerror(errno));
	return (fd);
}

/*
 * Take the engine lock of the database at dbpath: LOCK_TAKEN with *fdp
 * set, LOCK_HELD if another process has it, -1 on error.  A probe holds
 * the shared lock for an instant, so a few tries are made over about
 * 200 ms before giving up; this is start-up, not the loop.
 */
int
lock_take(const char *dbpath, int *fdp, char **cause)
{
	struct timespec	 ts = { 0, LOCK_WAIT_NS };
	char		*path;
	int		 fd, try;

	*fdp = -1;
	path = lock_path(dbpath);
	if ((fd = lock_open(path, cause)) == -1) {
		free(path);
		return (-1);
	}
	for (try = 0; try < LOCK_TRIES; try++) {
		if (flock(fd, LOCK_EX|LOCK_NB) == 0) {
			lock_private(path, fd);
			free(path);
			*fdp = fd;
			return (LOCK_TAKEN);
		}
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			xasprintf(cause, "cannot lock %s: %s", path,
			    strerror(errno));
			close(fd);
			free(path);
			return (-1);
		}
		if (try + 1 < LOCK_TRIES)
			nanosleep(&ts, NULL);
	}
	close(fd);
	free(path);
	return (LOCK_HELD);
}

/* The lock file's name, for lock_same and a process's fence. */
char *
lock_file(const char *dbpath)
{
	return (lock_path(dbpath));
}

/*
 * Whether path still names the file fd holds the lock on: 1 yes, 0 not
 * (removed, or replaced by another file, whose lock another engine may
 * hold), -1 if fd itself cannot be asked.
 */
int
lock_same(int fd, const char *path)
{
	struct stat	 held, named;

	if (fstat(fd, &held) != 0)
		return (-1);
	if (stat(path, &named) != 0)
		return (0);
	return (held.st_dev == named.st_dev && held.st_ino == named.st_ino);
}

/* Give the lock up. */
void
lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}

/* Whether some process holds the engine lock of dbpath. */
int
lock_probe(const char *dbpath)
{
	char	*path;
	int	 fd, held = 0;

	path = lock_path(dbpath);
	fd = open(path, O_RDONLY|O_CLOEXEC);
	free(path);
	if (fd == -1)
		return (0);
	if (flock(fd, LOCK_SH|LOCK_NB) != 0)
		held = (errno == EWOULDBLOCK);
	else
		flock(fd, LOCK_UN);
	close(fd);
	return (held);
}
