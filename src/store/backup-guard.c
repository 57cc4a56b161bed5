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
 * backup-guard.c: what keeps a backup from harming what it copies.  A
 * target that is the database or one of the files that live beside it
 * (its WAL, its lock, its socket...) is refused after symlinks are
 * resolved: replacing DB-wal with a copy corrupts the live database.  The
 * copy's temporary file carries its writer's pid, is removed when the
 * writer is stopped by SIGINT, SIGTERM or SIGHUP, and one left by a
 * writer that died anyway (SIGKILL, a crash) is removed by the next
 * backup into the same directory.
 */

#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

#define BACKUP_TMP_PREFIX	".sluice-backup."

/* The files sluice keeps beside a database, by suffix. */
static const char *const backup_beside[] = {
	"-wal", "-shm", "-journal", ".lock", ".sock", ".engine.log"
};

/* The temporary file being written, for the signal handler. */
static char		 backup_tmp[PATH_MAX];
static const int	 backup_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction	 backup_old[nitems(backup_signals)];
static int		 backup_caught[nitems(backup_signals)];

static void	 backup_signal(int);

/*
 * Where a path leads: itself resolved when it exists, else its resolved
 * directory and its own name; NULL when not even its directory resolves.
 */
static char *
backup_resolve(const char *path)
{
	char	*real, *dir, *rdir, *base;

	if ((real = realpath(path, NULL)) != NULL)
		return (real);
	dir = store_dirname(path);
	rdir = realpath(dir, NULL);
	free(dir);
	if (rdir == NULL)
		return (NULL);
	base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
	    (char *)path;
	xasprintf(&real, "%s/%s", rdir, base);
	free(rdir);
	return (real);
}

/* Refuse a target that is the database or a file beside it. */
int
store_backup_guard(const char *db, const char *target, char **cause)
{
	char	*rdb, *rt;
	size_t	 i, len;
	int	 rc = 0;

	if ((rdb = realpath(db, NULL)) == NULL)
		return (0);	/* the stat before says why */
	if ((rt = backup_resolve(target)) == NULL) {
		free(rdb);
		return (0);	/* mkstemp says why */
	}
	len = strlen(rdb);
	if (strcmp(rt, rdb) == 0) {
		xasprintf(cause, "%s is the database itself", target);
		rc = STORE_CONFLICT;
	}
	for (i = 0; rc == 0 && i < nitems(backup_beside); i++) {
		if (strncmp(rt, rdb, len) == 0 &&
		    strcmp(rt + len, backup_beside[i]) == 0) {
			xasprintf(cause, "%s is the database's %s file, which "
			    "the database needs as it is: a backup goes "
			    "elsewhere", target, backup_beside[i] + 1);
			rc = STORE_CONFLICT;
		}
	}
	free(rt);
	free(rdb);
	return (rc);
}

/*
 * Remove temporary files in dir left by backups whose writers are dead
 * (the pid in their name is gone).  Others' are left alone.
 */
void
store_backup_sweep(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	const char	*p;
	char		*end, *path;
	long		 pid;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, BACKUP_TMP_PREFIX,
		    strlen(BACKUP_TMP_PREFIX)) != 0)
			continue;
		p = de->d_name + strlen(BACKUP_TMP_PREFIX);
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno != 0 || end == p || *end != '.' || pid <= 0 ||
		    pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		xasprintf(&path, "%s/%s", dir, de->d_name);
		log_debug("%s: %s: its writer %ld is gone", __func__, path,
		    pid);
		unlink(path);
		free(path);
	}
	closedir(d);
}

/* The template of a temporary file in dir: its writer's pid in it. */
char *
store_backup_tmpname(const char *dir)
{
	char	*tmp;

	xasprintf(&tmp, "%s/" BACKUP_TMP_PREFIX "%ld.XXXXXX", dir,
	    (long)getpid());
	return (tmp);
}

/* Stopped while writing: remove the temporary file, then stop. */
static void
backup_signal(int sig)
{
	int	 saved = errno;

	if (backup_tmp[0] != '\0')
		unlink(backup_tmp);
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/*
 * Watch for the signals that stop a command while tmp is written (only
 * those still at their default: a process that handles them itself, the
 * console, keeps its own way).  NULL stops watching.
 */
void
store_backup_watch(const char *tmp)
{
	struct sigaction	 sa;
	size_t			 i;

	if (tmp == NULL) {
		for (i = 0; i < nitems(backup_signals); i++) {
			if (backup_caught[i])
				sigaction(backup_signals[i], &backup_old[i],
				    NULL);
			backup_caught[i] = 0;
		}
		backup_tmp[0] = '\0';
		return;
	}
	if (strlcpy(backup_tmp, tmp, sizeof backup_tmp) >= sizeof backup_tmp)
		backup_tmp[0] = '\0';
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = backup_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < nitems(backup_signals); i++) {
		if (sigaction(backup_signals[i], NULL, &backup_old[i]) != 0 ||
		    backup_old[i].sa_handler != SIG_DFL)
			continue;
		if (sigaction(backup_signals[i], &sa, NULL) == 0)
			backup_caught[i] = 1;
	}
}
