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
 * backup.c: consistent copies of a live database (SQLite's backup API),
 * for "sluice backup" and for the copy written before a schema migration.
 * The copy is made under a temporary name in the target's directory,
 * synced, then moved into place, so a crash never leaves half a copy
 * under the name asked for (what it refuses and how its temporary file
 * is cleaned up: backup-guard.c).
 */

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static int	store_backup_copy(struct store *, const char *, char **);
static int	store_backup_sync(const char *, char **);
static int	store_backup_place(const char *, const char *, int, char **);

/*
 * Copy the database into the file tmp through the driver's backup hook,
 * as one state of the database (driver-sqlite-backup.c says how).
 */
static int
store_backup_copy(struct store *s, const char *tmp, char **cause)
{
	int	 rc;

	if (s->drv->backup == NULL) {
		xasprintf(cause, "%s: the %s store driver cannot make a "
		    "backup", s->path, s->drv->name);
		return (STORE_ERR);
	}
	*cause = NULL;
	rc = s->drv->backup(s->conn, tmp, s->busy_timeout, cause);
	if (rc == STORE_DRV_OK)
		return (0);
	if (*cause == NULL)
		return (store_fail(s, rc, "backup", cause));
	return (rc == STORE_DRV_BUSY ? STORE_BUSY : STORE_ERR);
}

/* Flush a file to disk. */
static int
store_backup_sync(const char *path, char **cause)
{
	int	 fd;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1 || fsync(fd) != 0) {
		xasprintf(cause, "cannot sync %s: %s", path, strerror(errno));
		if (fd != -1)
			close(fd);
		return (STORE_ERR);
	}
	close(fd);
	return (0);
}

/*
 * Give the finished copy its name: link(2) when an existing file must
 * not be replaced (it fails rather than overwrite), else rename(2); then
 * sync the directory so the name survives a crash.
 */
static int
store_backup_place(const char *tmp, const char *target, int force,
    char **cause)
{
	char	*dir;
	int	 fd;

	if (force) {
		if (rename(tmp, target) != 0) {
			xasprintf(cause, "cannot write %s: %s", target,
			    strerror(errno));
			return (STORE_ERR);
		}
	} else {
		if (link(tmp, target) != 0) {
			if (errno == EEXIST) {
				xasprintf(cause, "%s exists (--force "
				    "replaces it)", target);
				return (STORE_CONFLICT);
			}
			xasprintf(cause, "cannot write %s: %s", target,
			    strerror(errno));
			return (STORE_ERR);
		}
		unlink(tmp);
	}
	dir = store_dirname(target);
	if ((fd = open(dir, O_RDONLY|O_DIRECTORY|O_CLOEXEC)) != -1) {
		fsync(fd);
		close(fd);
	}
	free(dir);
	return (0);
}

/*
 * Write a consistent copy of the open database to target, with the
 * database's mode (never more than 0660).  An existing target is refused
 * unless force; the database itself always is.
 */
int
store_backup(struct store *s, const char *target, int force, char **cause)
{
	struct stat	 dsb, tsb;
	char		*dir, *tmp;
	int		 fd, rc;

	if (s->drv->server) {
		/* Cluster mode: the server's own tools copy it whole. */
		xasprintf(cause, "%s is a PostgreSQL database: back it up with "
		    "pg_dump (pg_dump -Fc) or pgBackRest, not sluice backup",
		    s->path);
		return (STORE_CONFLICT);
	}
	if (stat(s->path, &dsb) != 0) {
		xasprintf(cause, "cannot read %s: %s", s->path,
		    strerror(errno));
		return (STORE_ERR);
	}
	if ((rc = store_backup_guard(s->path, target, cause)) != 0)
		return (rc);
	if (stat(target, &tsb) == 0) {
		if (tsb.st_dev == dsb.st_dev && tsb.st_ino == dsb.st_ino) {
			xasprintf(cause, "%s is the database itself", target);
			return (STORE_CONFLICT);
		}
		if (S_ISDIR(tsb.st_mode)) {
			xasprintf(cause, "%s is a directory", target);
			return (STORE_CONFLICT);
		}
		if (!force) {
			xasprintf(cause, "%s exists (--force replaces it)",
			    target);
			return (STORE_CONFLICT);
		}
	}
	dir = store_dirname(target);
	store_backup_sweep(dir);
	tmp = store_backup_tmpname(dir);
	free(dir);
	if ((fd = mkstemp(tmp)) == -1) {
		xasprintf(cause, "cannot write %s: %s", target,
		    strerror(errno));
		free(tmp);
		return (STORE_ERR);
	}
	store_backup_watch(tmp);
#ifdef SLUICE_TEST_CLOCK
	/* Test builds: stop here, the temporary file made, to be killed. */
	if (getenv("SLUICE_TEST_HOLD") != NULL &&
	    strcmp(getenv("SLUICE_TEST_HOLD"), "backup") == 0)
		raise(SIGSTOP);
#endif
	rc = fchmod(fd, dsb.st_mode & 0660);
	if (close(fd) != 0 || rc != 0) {
		xasprintf(cause, "cannot write %s: %s", target,
		    strerror(errno));
		rc = STORE_ERR;
		goto out;
	}
	if ((rc = store_backup_copy(s, tmp, cause)) != 0)
		goto out;
	if ((rc = store_backup_sync(tmp, cause)) != 0)
		goto out;
	rc = store_backup_place(tmp, target, force, cause);
out:
	unlink(tmp);	/* gone already after a rename */
	store_backup_watch(NULL);
	free(tmp);
	return (rc);
}

/*
 * Before an existing database is migrated to a newer schema, keep a copy
 * of it as it was beside it (PATH.vN-YYYYmmddTHHMMSSZ.bak), so a
 * migration gone wrong, or a downgrade, loses nothing.  A copy of the same
 * second from another process that migrates at once will do.
 */
int
store_backup_migration(struct store *s, int64_t version, char **cause)
{
	struct tm	 tm;
	time_t		 now;
	char		 stamp[32], *target;
	int		 rc;

	now = (time_t)(time_now_ms() / 1000);
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm) == 0)
		strlcpy(stamp, "0", sizeof stamp);
	xasprintf(&target, "%s.v%lld-%s.bak", s->path, (long long)version,
	    stamp);
	rc = store_backup(s, target, 0, cause);
	if (rc == STORE_CONFLICT) {
		free(*cause);
		*cause = NULL;
		rc = 0;
	}
	if (rc != 0) {
		free(target);
		return (rc);
	}
	free(s->migration_backup);
	s->migration_backup = target;
	s->migrated_from = version;
	return (0);
}

/* Where the copy kept before a migration went (NULL: no migration). */
const char *
store_migration_backup(const struct store *s, int64_t *version)
{
	if (version != NULL)
		*version = s->migrated_from;
	return (s->migration_backup);
}
