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
 * store.c: opening the database safely (finding it, creating it with the
 * right owner and mode, refusing files that are not ours before touching
 * them), the connection's settings and transactions with nesting.  The
 * statement helpers are in stmt.c, the kept statements in cache.c.
 */

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"
#include "store/store.h"
#include "store/store-int.h"

static int	store_mkdirs(const char *, char **);
static int	store_create_file(const char *, char **);
static int	store_create_lock(struct store *, char **);
static int	store_can_write(const char *);
static int	store_unreadable(struct store *, int, char **);
static int	store_denied(const char *, char **);
static int	store_denied_engine(const char *, char **);
static void	store_private(const char *);
static int	store_files_writable(const char *);
static int	store_open_once(const char *, int, struct store **, char **);
static int	store_reopen(struct store *, char **);
static int	store_journal(struct store *, char **);
static int	store_begin_moment(struct store *);
static int	store_begin_again(struct store *, int *, char **);

/* How often store_begin opens a connection found read-only for a moment. */
#define STORE_REOPENS	3

/* store_set_waiter's: this process waits out a busy database for ever. */
static store_waiter	 store_wait_cb;
static void		*store_wait_arg;

/* Wait for locks as long as they are held, calling cb meanwhile. */
void
store_set_waiter(store_waiter cb, void *arg)
{
	store_wait_cb = cb;
	store_wait_arg = arg;
}

/* Where the database lives when --db is not given (SPEC §9). */
char *
store_default_path(void)
{
	const char	*env;
	struct passwd	*pw;
	char		*path;

	env = getenv("SLUICE_DB");
	if (env != NULL && *env != '\0')
		return (xstrdup(env));
	env = getenv("XDG_STATE_HOME");
	if (env != NULL && *env == '/') {
		xasprintf(&path, "%s/sluice/sluice.db", env);
		return (path);
	}
	env = getenv("HOME");
	if (env == NULL || *env == '\0') {
		pw = getpwuid(getuid());
		if (pw == NULL || pw->pw_dir == NULL || *pw->pw_dir == '\0')
			return (NULL);
		env = pw->pw_dir;
	}
	xasprintf(&path, "%s/.local/state/sluice/sluice.db", env);
	return (path);
}

/* A database we may not read at all: a refused permission (exit 4). */
static int
store_denied(const char *path, char **cause)
{
	xasprintf(cause, "cannot open database %s: %s", path,
	    strerror(EACCES));
	return (STORE_READONLY);
}

/*
 * A database we may not read, whose engine does not answer either (a
 * member in service mode reads through it): exit 4, saying both.
 */
static int
store_denied_engine(const char *path, char **cause)
{
	log_debug("%s: %s: %s", __func__, path, *cause);
	free(*cause);
	xasprintf(cause, "cannot open database %s: %s, and no engine answers "
	    "on %s.sock to read it for you: start its engine (systemctl start "
	    "sluice-engine) or ask whoever runs it", path, strerror(EACCES),
	    path);
	return (STORE_READONLY);
}

/*
 * In service mode (a setgid directory the group may not write) keep a
 * database made by an older release, mode 0640, and its -wal and -shm,
 * to the engine's account alone, as store_create_file makes it now.
 */
static void
store_private(const char *path)
{
	const char	*suffix[] = { "", "-wal", "-shm" };
	struct stat	 dsb, sb;
	char		*dir, *file;
	size_t		 i;

	dir = store_dirname(path);
	if (stat(dir, &dsb) == 0 && (dsb.st_mode & S_ISGID) &&
	    !(dsb.st_mode & S_IWGRP)) {
		for (i = 0; i < nitems(suffix); i++) {
			xasprintf(&file, "%s%s", path, suffix[i]);
			if (stat(file, &sb) == 0 && sb.st_uid == geteuid() &&
			    (sb.st_mode & 077) != 0 && chmod(file, 0600) != 0)
				log_debug("%s: %s: %s", __func__, file,
				    strerror(errno));
			free(file);
		}
	}
	free(dir);
}

/* The reason given for a database that does not exist yet. */
int
store_missing(const char *path, char **cause)
{
	xasprintf(cause, "no database at %s ('sluice init %s' creates one)",
	    path, path);
	return (STORE_NOTFOUND);
}

/* The directory part of a path, as a new string (also backup.c's). */
char *
store_dirname(const char *path)
{
	char	*dir, *slash;

	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash == NULL)
		strlcpy(dir, ".", strlen(dir) + 1);
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	return (dir);
}

/*
 * A WAL database cannot be read at all when its -shm file is missing and
 * its directory is not writable; say so rather than "read-only".
 */
static int
store_unreadable(struct store *s, int rc, char **cause)
{
	struct stat	 sb;
	char		*dir, *shm;

	dir = store_dirname(s->path);
	xasprintf(&shm, "%s-shm", s->path);
	if (access(dir, W_OK) != 0 && stat(shm, &sb) != 0) {
		free(*cause);
		xasprintf(cause, "cannot read database %s: its WAL index %s "
		    "is missing and %s is not writable", s->path, shm, dir);
		rc = STORE_READONLY;
	}
	free(shm);
	free(dir);
	return (rc);
}

/* Create the missing directories above a path, each mode 0700. */
static int
store_mkdirs(const char *path, char **cause)
{
	char		*copy, *slash;
	struct stat	 sb;

	copy = xstrdup(path);
	for (slash = strchr(copy + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (stat(copy, &sb) != 0) {
			if (errno != ENOENT ||
			    (mkdir(copy, 0700) != 0 && errno != EEXIST)) {
				xasprintf(cause, "cannot create directory %s: "
				    "%s", copy, strerror(errno));
				free(copy);
				return (-1);
			}
		}
		*slash = '/';
	}
	free(copy);
	return (0);
}

/*
 * Create an empty database file ourselves, so its mode and group never
 * depend on the umask: 0600, or with the directory's group when the
 * directory is setgid: 0660 when the group may write the directory (a
 * team's shared database); 0600 still when it may not (service mode: the
 * engine's account alone reads and writes it, the team reads through the
 * engine, driver-socket.c).  SQLite gives the -wal and -shm files the
 * database's mode.
 */
static int
store_create_file(const char *path, char **cause)
{
	char		*dir;
	struct stat	 dsb, sb;
	mode_t		 mode = 0600;
	int		 fd;

	if (store_mkdirs(path, cause) != 0)
		return (-1);
	dir = store_dirname(path);
	if (stat(dir, &dsb) != 0) {
		xasprintf(cause, "cannot open directory %s: %s", dir,
		    strerror(errno));
		free(dir);
		return (-1);
	}
	free(dir);

	fd = open(path, O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0600);
	if (fd == -1) {
		if (errno == EEXIST)	/* someone else was quicker */
			return (0);
		xasprintf(cause, "cannot create %s: %s", path,
		    strerror(errno));
		return (-1);
	}
	if (dsb.st_mode & S_ISGID)
		mode = (dsb.st_mode & S_IWGRP) ? 0660 : 0600;
	if (fstat(fd, &sb) != 0)
		goto fail;
	if ((dsb.st_mode & S_ISGID) && sb.st_gid != dsb.st_gid &&
	    fchown(fd, (uid_t)-1, dsb.st_gid) != 0)
		goto fail;
	if (fchmod(fd, mode) != 0)
		goto fail;
	if (close(fd) != 0) {
		fd = -1;
		goto fail;
	}
	return (0);

fail:
	xasprintf(cause, "cannot set up %s: %s", path, strerror(errno));
	if (fd != -1)
		close(fd);
	unlink(path);
	return (-1);
}

/*
 * A database with nothing in it yet is set up (WAL mode, schema) by one
 * process at a time: an flock() on the file, waited for up to the busy
 * timeout.  Without it, concurrent creators switch the journal mode at
 * once and one gets SQLITE_BUSY without any wait.  The descriptor stays
 * open until store_close: closing any descriptor of the file would drop
 * the POSIX locks SQLite holds on it in this process.
 */
static int
store_create_lock(struct store *s, char **cause)
{
	struct timespec	 ts = { 0, 5 * 1000 * 1000 };
	int64_t		 start = time_mono_ms();

	if ((s->create_fd = open(s->path, O_RDONLY|O_CLOEXEC)) == -1) {
		xasprintf(cause, "cannot open database %s: %s", s->path,
		    strerror(errno));
		return (STORE_ERR);
	}
	while (flock(s->create_fd, LOCK_EX|LOCK_NB) != 0) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			xasprintf(cause, "cannot lock database %s: %s",
			    s->path, strerror(errno));
			return (STORE_ERR);
		}
		if (time_mono_ms() - start >= s->busy_timeout) {
			xasprintf(cause, "database %s is busy (being created "
			    "by another process; gave up after %llds)",
			    s->path, (long long)(s->busy_timeout / 1000));
			return (STORE_BUSY);
		}
		nanosleep(&ts, NULL);
	}
	return (0);
}

/*
 * SQLite's busy handler: wait for a lock up to the store's timeout, and
 * when giving up note how long was really waited, so the refusal says so.
 */
int
store_busy(void *arg, int count)
{
	static const int	 delays[] = { 1, 2, 5, 10, 15, 20, 25, 25, 25,
				     50, 50, 100 };
	struct store		*s = arg;
	struct timespec		 ts;
	int64_t			 now = time_mono_ms(), left;
	int			 ms;

	if (count == 0 && s->busy_until == 0)
		s->busy_since = now;
	left = s->busy_until != 0 ? s->busy_until - now :	/* inbox.c's */
	    s->busy_timeout - (now - s->busy_since);
	if (left <= 0 && (store_wait_cb == NULL || s->busy_until != 0)) {
		s->busy_waited = now - s->busy_since;	/* for store_fail */
		return (0);
	}
	ms = delays[count < (int)nitems(delays) ? count : (int)nitems(delays) -
	    1];
	if (store_wait_cb != NULL && s->busy_until == 0) {
		store_wait_cb(store_wait_arg, s->path, now - s->busy_since, ms);
		return (1);
	}
	if (ms > left)
		ms = (int)left;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
	return (1);
}

/*
 * Whether we could write the file: the file itself, and its directory (for
 * the -wal and -shm files) unless those already exist and are writable.
 */
static int
store_can_write(const char *path)
{
	char	*dir, *wal, *shm;
	int	 ok;

	if (access(path, W_OK) != 0)
		return (0);
	dir = store_dirname(path);
	ok = (access(dir, W_OK) == 0);
	free(dir);
	if (!ok) {
		xasprintf(&wal, "%s-wal", path);
		xasprintf(&shm, "%s-shm", path);
		ok = (access(wal, W_OK) == 0 && access(shm, W_OK) == 0);
		free(shm);
		free(wal);
	}
	return (ok);
}

/*
 * Find out what an existing file is using reads only, so a file that is
 * not ours is left exactly as it was.
 */
int
store_identify(struct store *s, struct store_ident *id, char **cause)
{
	int64_t	 appid, tables;
	int	 rc;

	/*
	 * One read transaction, so the three answers come from one state of
	 * the file even while another process is creating its schema.
	 */
	if ((rc = store_read_begin(s, cause)) != 0)
		return (rc);
	rc = store_drv_identify(s, &appid, &id->version, &tables, cause);
	store_read_end(s);
	if (rc != 0)
		return (rc);

	id->empty = (appid == 0 && tables == 0 && id->version == 0);
	if (!id->empty && appid != STORE_APPLICATION_ID) {
		xasprintf(cause, "%s is not a sluice database", s->path);
		return (STORE_FOREIGN);
	}
	if (id->version > STORE_SCHEMA_VERSION) {
		xasprintf(cause, "%s has schema version %lld, newer than this "
		    "sluice (%d); upgrade sluice", s->path,
		    (long long)id->version, STORE_SCHEMA_VERSION);
		return (STORE_FOREIGN);
	}
	return (0);
}

/* The journal the driver keeps beside the database (SQLite: WAL). */
static int
store_journal(struct store *s, char **cause)
{
	int	 rc;

	if (s->drv->journal == NULL)
		return (0);
	if ((rc = s->drv->journal(s->conn)) != STORE_DRV_OK)
		return (store_fail(s, rc, "journal", cause));
	return (0);
}

/* Settings for our own database, then bring its schema up to date. */
int
store_configure(struct store *s, const struct store_ident *id, char **cause)
{
	char	*why;
	int	 rc;

	/* The driver's settings for our database (driver-sqlite.c). */
	if (s->drv->tune != NULL &&
	    (rc = s->drv->tune(s->conn)) != STORE_DRV_OK)
		return (store_fail(s, rc, "settings", cause));
	if (store_status_register(s, cause) != 0)
		return (STORE_ERR);
	if (id->version >= STORE_SCHEMA_VERSION)
		goto wal;
	if (s->readonly) {
		if (id->empty && (s->flags & STORE_F_READONLY))
			return (store_missing(s->path, cause));
		if (id->empty)
			return (store_fail_readonly(s, cause));
		xasprintf(cause, "database %s has schema version %lld and is "
		    "read-only; open it writable once to upgrade it", s->path,
		    (long long)id->version);
		return (STORE_READONLY);
	}
	if (!id->empty && !s->drv->server &&
	    (rc = store_backup_migration(s, id->version, cause)) != 0) {
		xasprintf(&why, "cannot upgrade %s from schema version %lld: "
		    "keeping a copy first failed: %s", s->path,
		    (long long)id->version, *cause);
		free(*cause);
		*cause = why;
		return (rc);
	}
	if ((rc = store_journal(s, cause)) != 0)
		return (rc);
	return (store_schema_migrate(s, cause));

wal:
	if (!s->readonly)
		return (store_journal(s, cause));
	return (0);
}

/*
 * Open (creating if allowed) the database at path.  A database found
 * read-only although every file of it is writable to us met a -wal or
 * -shm made in that moment by a reader beside us (store_reopen): look
 * again, a few times, before believing it.  One whose file is writable
 * to us but whose -wal or -shm is not may be meeting the moment itself
 * (SQLite makes them with the umask, then as writable as the database):
 * look again until they are, up to the busy timeout.
 */
int
store_open(const char *path, int flags, struct store **sp, char **cause)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	int64_t		 start = time_mono_ms();
	int		 rc, try = 0;

	if (store_name_is_server(path))		/* no files to wait for */
		return (store_open_server(path, flags, sp, cause));
	for (;;) {
		rc = store_open_once(path, flags, sp, cause);
		if ((flags & STORE_F_READONLY) || (rc != STORE_READONLY &&
		    (rc != 0 || !(*sp)->readonly)))
			return (rc);
		if (store_files_writable(path)) {
			if (try++ == 3)
				return (rc);
		} else if (access(path, W_OK) != 0 ||
		    time_mono_ms() - start >= STORE_BUSY_TIMEOUT)
			return (rc);
		log_debug("%s: %s: read-only for a moment, again", __func__,
		    path);
		if (rc == 0) {
			store_close(*sp);
			*sp = NULL;
		} else {
			free(*cause);
			*cause = NULL;
		}
		nanosleep(&ts, NULL);
	}
}

/* Open the database at path once, as store_open says. */
static int
store_open_once(const char *path, int flags, struct store **sp,
    char **cause)
{
	const struct store_driver *drv = store_driver();
	struct store		*s;
	struct store_ident	 id;
	struct stat		 sb;
	int			 rc, count;

	*sp = NULL;
	if (path == NULL || *path == '\0') {
		xasprintf(cause, "no database path (set --db or SLUICE_DB)");
		return (STORE_ERR);
	}
	if (stat(path, &sb) != 0) {
		if (errno == EACCES)
			return (store_denied(path, cause));
		if (errno != ENOENT) {
			xasprintf(cause, "cannot open database %s: %s", path,
			    strerror(errno));
			return (STORE_ERR);
		}
		if (flags & (STORE_F_READONLY|STORE_F_NOCREATE))
			return (store_missing(path, cause));
		if (store_create_file(path, cause) != 0)
			return (STORE_ERR);
	} else if (S_ISDIR(sb.st_mode)) {
		xasprintf(cause, "%s is a directory, not a database", path);
		return (STORE_ERR);
	} else if (access(path, R_OK) != 0 && errno == EACCES)
		drv = &store_driver_socket;	/* service mode: a member */

	if ((s = store_connect(path, flags, drv, cause)) == NULL) {
		if (drv == &store_driver_socket)
			return (store_denied_engine(path, cause));
		return (STORE_ERR);
	}
	/* Closing must not checkpoint a foreign WAL into its file. */
	if (s->drv->checkpoint_on_close != NULL)
		s->drv->checkpoint_on_close(s->conn, 0);
	if ((flags & STORE_F_READONLY) || !store_can_write(path) ||
	    (s->drv->file_readonly != NULL && s->drv->file_readonly(s->conn)))
		s->readonly = 1;

	memset(&id, 0, sizeof id);
	/*
	 * A WAL index another process keeps locked fails the first read
	 * with SQLITE_PROTOCOL, not through the busy handler: a waiter
	 * waits that out too.
	 */
	s->busy_since = time_mono_ms();		/* count 1: waited since */
	for (count = 1; (rc = store_identify(s, &id, cause)) == STORE_BUSY &&
	    (s->passing || store_wait_cb != NULL) && store_busy(s, count);
	    count++) {
		free(*cause);
		*cause = NULL;
	}
	if (rc != 0) {
		if (rc == STORE_READONLY || rc == STORE_ERR)
			rc = store_unreadable(s, rc, cause);
		goto fail;
	}
	if (id.empty && !s->readonly) {
		/* Make it ours one creator at a time; look again after. */
		if ((rc = store_create_lock(s, cause)) != 0)
			goto fail;
		if ((rc = store_identify(s, &id, cause)) != 0)
			goto fail;
	}
	if (s->drv->checkpoint_on_close != NULL)
		s->drv->checkpoint_on_close(s->conn, 1);
	if ((rc = store_configure(s, &id, cause)) != 0)
		goto fail;
	/* Readers who may not write the directory need the journal kept. */
	if (!s->readonly && s->drv->keep_journal != NULL)
		s->drv->keep_journal(s->conn);
	if (!s->readonly)
		store_private(path);
	if (s->create_fd != -1)
		flock(s->create_fd, LOCK_UN);	/* the fd stays: see above */
	log_debug("%s: %s%s", __func__, path, s->readonly ? " (read-only)" :
	    "");
	*sp = s;
	return (0);

fail:
	store_close(s);
	return (rc);
}

/*
 * A store for the database at path, connected through drv, waiting for
 * locks as the store does; NULL with why.
 */
struct store *
store_connect(const char *path, int flags, const struct store_driver *drv,
    char **cause)
{
	struct store	*s;

	s = xcalloc(1, sizeof *s);
	s->create_fd = -1;
	s->path = xstrdup(path);
	s->flags = flags;
	s->drv = drv;
	if (drv->open(path, (flags & STORE_F_READONLY) ?
	    STORE_DRV_O_READONLY : 0, &s->conn, cause) != 0) {
		store_close(s);
		return (NULL);
	}
	s->busy_timeout = STORE_BUSY_TIMEOUT;
	s->busy_waited = -1;
	if (drv->busy_handler != NULL)
		drv->busy_handler(s->conn, store_busy, s);
	return (s);
}

/* Close the database, rolling back anything left open. */
void
store_close(struct store *s)
{
	if (s == NULL)
		return;
	while (s->depth > 0)
		store_rollback(s);
	store_syslog_send(s);		/* what committed and waited */
	while (s->ncached > 0)
		store_stmt_finalize(s->cached[--s->ncached].st);
	if (s->conn != NULL)
		s->drv->close(s->conn);
	if (s->create_fd != -1)
		close(s->create_fd);	/* only now: see store_create_lock */
	free(s->last_error);
	free(s->migration_backup);
	free(s->path);
	free(s);
}

/* The path the database was opened with. */
const char *
store_path(const struct store *s)
{
	return (s->path);
}

/* Whether this store reads through the engine (a member, service mode). */
int
store_is_remote(const struct store *s)
{
	return (s->drv == &store_driver_socket);
}

/* Whether writes will be refused. */
int
store_is_readonly(const struct store *s)
{
	return (s->readonly);
}

/* Whether the database and its -wal and -shm (if any) are writable now. */
static int
store_files_writable(const char *path)
{
	char	*wal, *shm;
	int	 ok;

	xasprintf(&wal, "%s-wal", path);
	xasprintf(&shm, "%s-shm", path);
	ok = access(path, W_OK) == 0 &&
	    (access(wal, W_OK) == 0 || errno == ENOENT) &&
	    (access(shm, W_OK) == 0 || errno == ENOENT);
	free(shm);
	free(wal);
	return (ok);
}

/*
 * Open the connection again, as store_open left it.  SQLite opens a -wal
 * or -shm file it may not write read-only and keeps it so for the life of
 * the connection; a plain sqlite3 beside us that makes them anew makes
 * them as writable as the database only just after creating them (with
 * its umask first), so a connection opened in that moment would stay
 * read-only for ever although every file is writable.
 */
static int
store_reopen(struct store *s, char **cause)
{
	struct store_ident	 id;
	struct store_conn	*conn;

	if (s->drv->open(s->path, 0, &conn, cause) != 0)
		return (STORE_ERR);
	while (s->ncached > 0)
		store_stmt_finalize(s->cached[--s->ncached].st);
	s->drv->close(s->conn);
	s->conn = conn;
	s->readonly = 0;
	if (s->drv->busy_handler != NULL)
		s->drv->busy_handler(s->conn, store_busy, s);
	if (s->drv->keep_journal != NULL)
		s->drv->keep_journal(s->conn);
	log_debug("%s: %s", __func__, s->path);
	/*
	 * Its last step, journal_mode (WAL already: the file says so), may
	 * meet the state that passes: the caller waits that out.
	 */
	memset(&id, 0, sizeof id);
	id.version = STORE_SCHEMA_VERSION;	/* store_open checked it */
	return (store_configure(s, &id, cause));
}

/*
 * Start a write transaction (BEGIN IMMEDIATE, so a busy database is found
 * now and not at commit), or a savepoint inside one already open; how is
 * the driver's STORE_DRV_WRITE or STORE_DRV_WRITE_TURN.
 */
static int
store_begin_how(struct store *s, int how, char **cause)
{
	int	 rc, count, reopens = 0, moment = 0, ro = 0;

	if (s->readonly && !(s->flags & STORE_F_READONLY) && s->depth == 0 &&
	    store_files_writable(s->path)) {
		/* Read-only only for a moment (store_reopen): open again. */
		if ((rc = store_reopen(s, cause)) != 0)
			return (rc);
		reopens = 1;
	}
	if (s->readonly)
		return (store_fail_readonly(s, cause));
	/* A read-only state that passes is waited out like a lock. */
	for (count = 0;; count++) {
		rc = s->drv->begin(s->conn, s->depth, how);
		if (rc != STORE_DRV_OK)
			rc = store_fail(s, rc, "begin", cause);
		if ((rc == STORE_READONLY || (rc == STORE_BUSY && s->passing)) &&
		    store_begin_moment(s)) {
			ro = (rc == STORE_READONLY);
			if ((rc = store_begin_again(s, &reopens, cause)) != 0 &&
			    rc != STORE_BUSY)
				break;
			moment = 1;
			rc = STORE_BUSY;	/* for the wait's clock */
		}
		if (rc != STORE_BUSY || (!s->passing && !moment &&
		    (s->depth > 0 || store_wait_cb == NULL)) ||
		    !store_busy(s, count))
			break;
		moment = ro = 0;
		free(*cause);
		*cause = NULL;
	}
	if (rc == STORE_BUSY && ro) {
		free(*cause);		/* waited for the moment in vain */
		return (store_fail_readonly(s, cause));
	}
	if (rc != 0 && *cause == NULL) {	/* a reopen freed the last */
		xasprintf(cause, "database %s is not ready for writing (gave "
		    "up after %llds)", s->path, (long long)(s->busy_timeout /
		    1000));
	}
	if (rc != 0)
		return (rc);
	s->depth++;
	return (0);
}

int
store_begin(struct store *s, char **cause)
{
	return (store_begin_how(s, STORE_DRV_WRITE, cause));
}

/*
 * Start a write transaction whose first statement the caller runs at
 * once: on a server the write lock is then taken with that statement, in
 * its round trip (a busy database is found there, and waited out the
 * same way), rather than in a round trip of its own.  The engine's turn,
 * whose first statement is its fence: on a server that fence rides with
 * the turn's first read, and the turn's writes whose counts and ids it
 * does not ask for with the next read or the COMMIT (STORE_DRV_WRITE_TURN:
 * a refused one fails the turn whole, which stops a leader).
 */
int
store_begin_next(struct store *s, char **cause)
{
	return (store_begin_how(s, STORE_DRV_WRITE_TURN, cause));
}

/*
 * Whether a write refused as read-only may be a moment that passes: the
 * database file is writable to us, but a -wal or -shm this connection
 * opened read-only in the moment another account made it (SQLite makes
 * them with the umask, then as writable as the database), or one being
 * made so right now.
 */
static int
store_begin_moment(struct store *s)
{
	return (s->depth == 0 && !(s->flags & STORE_F_READONLY) &&
	    access(s->path, W_OK) == 0);
}

/*
 * The moment store_begin_moment found: once every file is writable, open
 * the connection again (store_reopen), a few times at most; until then,
 * wait (the caller's clock).  A failure other than busy is returned.
 */
static int
store_begin_again(struct store *s, int *reopens, char **cause)
{
	int	 rc;

	if (*reopens >= STORE_REOPENS || !store_files_writable(s->path))
		return (STORE_BUSY);
	free(*cause);
	*cause = NULL;
	(*reopens)++;
	if ((rc = store_reopen(s, cause)) != 0 && rc != STORE_BUSY)
		return (rc);
	return (STORE_BUSY);
}

/* Commit the innermost level; a failed commit rolls that level back. */
int
store_commit(struct store *s, char **cause)
{
	int	 rc;

	if (s->depth == 0) {
		xasprintf(cause, "%s: no transaction to commit", s->path);
		return (STORE_ERR);
	}
	rc = s->drv->commit(s->conn, s->depth - 1);
	if (rc != STORE_DRV_OK) {
		rc = store_fail(s, rc, "commit", cause);
		store_rollback(s);
		return (rc);
	}
	store_audit_level_end(s, 1);
	s->depth--;
	return (0);
}

/* Undo the innermost level (the whole transaction at the outermost). */
void
store_rollback(struct store *s)
{
	char	*cause = NULL;
	int	 rc = 0;

	if (s->depth == 0)
		return;
	if (s->drv->in_transaction(s->conn)) {
		rc = s->drv->rollback(s->conn, s->depth - 1);
		if (rc != STORE_DRV_OK)
			rc = store_fail(s, rc, "rollback", &cause);
	}
	if (rc != 0) {
		log_debug("%s: %s", __func__, cause);
		free(cause);
	}
	store_audit_level_end(s, 0);
	s->depth--;
}

/* The counter the driver bumps when another connection commits. */
int64_t
store_data_version(struct store *s)
{
	int64_t	 v;
	char	*cause = NULL;
	int	 rc;

	if ((rc = s->drv->data_version(s->conn, &v)) != STORE_DRV_OK) {
		store_fail(s, rc, "data version", &cause);
		log_debug("%s: %s", __func__, cause);
		free(cause);
		return (-1);
	}
	return (v);
}
