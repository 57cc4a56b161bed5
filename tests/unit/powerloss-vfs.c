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
 * powerloss-vfs.c: a test-only SQLite VFS, registered as the default in
 * the power-loss test program, that wraps the platform's VFS and loses
 * power on demand.  The model, in the spirit of SQLite's own crash tests:
 *
 * - Every write and truncation of the database, its WAL and its rollback
 *   journal is recorded, per file, since that file's last xSync; what the
 *   file held at that sync is its durable content.  Writes still reach the
 *   real file, so the program reads what it wrote.  xSync makes one file's
 *   recorded writes durable and nothing else; the real fsync is skipped,
 *   as the real disk never loses power here.
 * - A name (creating or deleting a file) is durable only after its
 *   directory is synced.  The platform VFS syncs the directory at the
 *   first sync of a journal or WAL it opened with SQLITE_OPEN_CREATE, and
 *   on a delete asked to (os_unix.c's DIRSYNC); this VFS does the same
 *   and nothing more.  Files that exist when the VFS is armed are taken as
 *   durable.
 * - sluice builds a new database under a name of its own beside the path
 *   (PATH.new-PID), then link(2)s it into place, fsync(2)s the directory
 *   and unlink(2)s the temporary name, all outside SQLite's VFS.  So this
 *   file also wraps link, unlink and fsync: the temporary name and its
 *   journals are recorded like the database, a link gives the new name
 *   the same inode (its durable content is only what was synced through
 *   the VFS), an unlink takes a name away, and an fsync of the database's
 *   directory makes every name durable, as os_unix.c's DIRSYNC does.
 *   Each of these is an I/O event, so power can be lost during them.
 * - At the chosen crash point, the Nth write, truncation, sync or delete,
 *   that event is under way (a write is recorded, a sync does not
 *   complete) and power is lost: every unsynced change is dropped, or
 *   (torn) each unsynced write is kept, dropped or kept in part, sector by
 *   sector (PLVFS_SECTOR bytes), a sector left old, new or garbage, and
 *   each undurable name change kept or not, or every change reached the
 *   disk but the sync never returned.  xDeviceCharacteristics is
 *   the platform's: with SQLITE_IOCAP_POWERSAFE_OVERWRITE (Linux) garbage
 *   stays inside the bytes written, without it it spreads to the whole
 *   sector.  No write is atomic and no order between writes is kept.
 *   The files on disk are rewritten to what survived, the -shm index is
 *   kept stale or removed (SQLite rebuilds it), and the callback is told;
 *   it must end the process.
 */

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/util.h"
#include "powerloss-vfs.h"

#define PLVFS_WRITE	0
#define PLVFS_TRUNCATE	1

/* An unsynced write or truncation. */
struct plvfs_op {
	int		 kind;
	int64_t		 off;		/* offset; a truncation's new size */
	size_t		 len;
	unsigned char	*data;
};

/* A file's bytes: durable content and the changes since its last sync. */
struct plvfs_inode {
	unsigned char	*dur;
	size_t		 dursize;
	struct plvfs_op	*ops;
	size_t		 nops;
	size_t		 opsalloc;
	struct plvfs_inode *next;	/* every inode, to free */
	unsigned char	*surv;		/* what survived a crash */
	size_t		 survsize;
	int		 survived;
};

/* A name: the inode it has now and the one a directory sync recorded. */
struct plvfs_path {
	char		*path;
	struct plvfs_inode *cur;
	struct plvfs_inode *dur;
	struct plvfs_path *next;
};

/* An open file: ours, then the platform VFS's behind it. */
struct plvfs_file {
	sqlite3_file	 base;
	struct plvfs_inode *inode;	/* NULL: not tracked */
	int		 dirsync;	/* the first sync syncs the directory */
	sqlite3_file	*real;
};

/* Growing content while a crash is applied. */
struct plvfs_buf {
	unsigned char	*data;
	size_t		 size;
	size_t		 alloc;
};

static struct {
	sqlite3_vfs	*real;
	int		 armed;
	char		*db;
	int64_t		 events;
	int64_t		 crash_at;
	uint64_t	 rng;
	int		 mode;		/* PLVFS_DROP ... */
	int		 psow;		/* every file: power-safe overwrite */
	plvfs_crash_cb	 cb;
	void		*arg;
	struct plvfs_path *paths;
	struct plvfs_inode *inodes;
	int		 deleting;	/* in xDelete: its unlink is counted */
} pl;

static uint64_t	 plvfs_rand(void);
static void	 plvfs_reset(void);
static struct plvfs_inode *plvfs_inode_new(void);
static struct plvfs_path *plvfs_path_get(const char *);
static int	 plvfs_tracked(const char *);
static int	 plvfs_slurp(const char *, struct plvfs_buf *);
static void	 plvfs_buf_fit(struct plvfs_buf *, size_t);
static void	 plvfs_op_add(struct plvfs_inode *, int, int64_t,
		     const void *, size_t);
static void	 plvfs_inode_sync(struct plvfs_inode *);
static void	 plvfs_dir_sync(void);
static void	 plvfs_event(const char *);
static void	 plvfs_crash(const char *);
static void	 plvfs_survive(struct plvfs_inode *, struct plvfs_buf *,
		     struct plvfs_crash *, int);
static void	 plvfs_put(struct plvfs_buf *, int64_t, const unsigned char *,
		     size_t, int, int);
static void	 plvfs_write_out(const char *, const struct plvfs_buf *);

static int	 plvfs_open(sqlite3_vfs *, const char *, sqlite3_file *, int,
		     int *);
static int	 plvfs_delete(sqlite3_vfs *, const char *, int);
static int	 plvfs_access(sqlite3_vfs *, const char *, int, int *);
static int	 plvfs_full_pathname(sqlite3_vfs *, const char *, int, char *);
static void	*plvfs_dlopen(sqlite3_vfs *, const char *);
static void	 plvfs_dlerror(sqlite3_vfs *, int, char *);
static void	(*plvfs_dlsym(sqlite3_vfs *, void *, const char *))(void);
static void	 plvfs_dlclose(sqlite3_vfs *, void *);
static int	 plvfs_randomness(sqlite3_vfs *, int, char *);
static int	 plvfs_sleep(sqlite3_vfs *, int);
static int	 plvfs_current_time(sqlite3_vfs *, double *);
static int	 plvfs_last_error(sqlite3_vfs *, int, char *);
static int	 plvfs_current_time64(sqlite3_vfs *, sqlite3_int64 *);

static int	 plvfs_close(sqlite3_file *);
static int	 plvfs_read(sqlite3_file *, void *, int, sqlite3_int64);
static int	 plvfs_write(sqlite3_file *, const void *, int, sqlite3_int64);
static int	 plvfs_truncate(sqlite3_file *, sqlite3_int64);
static int	 plvfs_sync(sqlite3_file *, int);
static int	 plvfs_file_size(sqlite3_file *, sqlite3_int64 *);
static int	 plvfs_lock(sqlite3_file *, int);
static int	 plvfs_unlock(sqlite3_file *, int);
static int	 plvfs_check_reserved(sqlite3_file *, int *);
static int	 plvfs_file_control(sqlite3_file *, int, void *);
static int	 plvfs_sector_size(sqlite3_file *);
static int	 plvfs_device(sqlite3_file *);
static int	 plvfs_shm_map(sqlite3_file *, int, int, int, void volatile **);
static int	 plvfs_shm_lock(sqlite3_file *, int, int, int);
static void	 plvfs_shm_barrier(sqlite3_file *);
static int	 plvfs_shm_unmap(sqlite3_file *, int);

static sqlite3_vfs plvfs_vfs = {
	.iVersion = 2,
	.zName = "powerloss",
	.xOpen = plvfs_open,
	.xDelete = plvfs_delete,
	.xAccess = plvfs_access,
	.xFullPathname = plvfs_full_pathname,
	.xDlOpen = plvfs_dlopen,
	.xDlError = plvfs_dlerror,
	.xDlSym = plvfs_dlsym,
	.xDlClose = plvfs_dlclose,
	.xRandomness = plvfs_randomness,
	.xSleep = plvfs_sleep,
	.xCurrentTime = plvfs_current_time,
	.xGetLastError = plvfs_last_error,
	.xCurrentTimeInt64 = plvfs_current_time64,
};

/* Version 2: no xFetch, so SQLite never maps the database into memory. */
static const sqlite3_io_methods plvfs_io = {
	.iVersion = 2,
	.xClose = plvfs_close,
	.xRead = plvfs_read,
	.xWrite = plvfs_write,
	.xTruncate = plvfs_truncate,
	.xSync = plvfs_sync,
	.xFileSize = plvfs_file_size,
	.xLock = plvfs_lock,
	.xUnlock = plvfs_unlock,
	.xCheckReservedLock = plvfs_check_reserved,
	.xFileControl = plvfs_file_control,
	.xSectorSize = plvfs_sector_size,
	.xDeviceCharacteristics = plvfs_device,
	.xShmMap = plvfs_shm_map,
	.xShmLock = plvfs_shm_lock,
	.xShmBarrier = plvfs_shm_barrier,
	.xShmUnmap = plvfs_shm_unmap,
};

/* Wrap the default VFS and become the default; 0 or an SQLite code. */
int
plvfs_register(void)
{
	if ((pl.real = sqlite3_vfs_find(NULL)) == NULL)
		return (SQLITE_ERROR);
	plvfs_vfs.szOsFile = (int)sizeof (struct plvfs_file) +
	    pl.real->szOsFile;
	plvfs_vfs.mxPathname = pl.real->mxPathname;
	return (sqlite3_vfs_register(&plvfs_vfs, 1));
}

/*
 * Start recording the database at db and its journals, taking what is on
 * disk now as durable.  Power is lost at I/O event crash_at (never when
 * 0) as mode says, with randomness from seed; cb is then called.
 */
void
plvfs_arm(const char *db, int64_t crash_at, uint64_t seed, int mode,
    plvfs_crash_cb cb, void *arg)
{
	static const char	*suffix[] = { "", "-wal", "-journal" };
	struct plvfs_buf	 b;
	struct plvfs_path	*p;
	char			*path;
	size_t			 i;

	plvfs_reset();
	pl.db = xstrdup(db);
	pl.crash_at = crash_at;
	pl.rng = seed != 0 ? seed : 0x9e3779b97f4a7c15ULL;
	pl.mode = mode;
	pl.cb = cb;
	pl.arg = arg;
	for (i = 0; i < nitems(suffix); i++) {
		xasprintf(&path, "%s%s", db, suffix[i]);
		if (plvfs_slurp(path, &b) == 0) {
			p = plvfs_path_get(path);
			p->cur = p->dur = plvfs_inode_new();
			p->cur->dur = b.data;
			p->cur->dursize = b.size;
		}
		free(path);
	}
	pl.armed = 1;
}

/* Stop counting events: no crash will come (files stay recorded). */
void
plvfs_disarm(void)
{
	pl.armed = 0;
}

/* How many I/O events there have been since arming. */
int64_t
plvfs_events(void)
{
	return (pl.events);
}

/* A 64-bit xorshift*, so a seed gives the same losses again. */
static uint64_t
plvfs_rand(void)
{
	uint64_t	 x = pl.rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	pl.rng = x;
	return (x * 2685821657736338717ULL);
}

/* Forget every record (no file may be open through them). */
static void
plvfs_reset(void)
{
	struct plvfs_path	*p, *p1;
	struct plvfs_inode	*n, *n1;
	size_t			 i;

	for (p = pl.paths; p != NULL; p = p1) {
		p1 = p->next;
		free(p->path);
		free(p);
	}
	for (n = pl.inodes; n != NULL; n = n1) {
		n1 = n->next;
		for (i = 0; i < n->nops; i++)
			free(n->ops[i].data);
		free(n->ops);
		free(n->dur);
		free(n->surv);
		free(n);
	}
	free(pl.db);
	pl.db = NULL;
	pl.paths = NULL;
	pl.inodes = NULL;
	pl.armed = 0;
	pl.events = 0;
	pl.psow = 1;
}

/* A new, empty inode on the list of all of them. */
static struct plvfs_inode *
plvfs_inode_new(void)
{
	struct plvfs_inode	*n;

	n = xcalloc(1, sizeof *n);
	n->next = pl.inodes;
	pl.inodes = n;
	return (n);
}

/* The record of a name, made when first asked for. */
static struct plvfs_path *
plvfs_path_get(const char *path)
{
	struct plvfs_path	*p;

	for (p = pl.paths; p != NULL; p = p->next) {
		if (strcmp(p->path, path) == 0)
			return (p);
	}
	p = xcalloc(1, sizeof *p);
	p->path = xstrdup(path);
	p->next = pl.paths;
	pl.paths = p;
	return (p);
}

/*
 * Is this the database, its WAL or its rollback journal, or the name a new
 * database is built under (PATH.new-PID) or its WAL or journal?
 */
static int
plvfs_tracked(const char *path)
{
	size_t	 len;

	if (pl.db == NULL || path == NULL)
		return (0);
	len = strlen(pl.db);
	if (strncmp(path, pl.db, len) != 0)
		return (0);
	path += len;
	if (strncmp(path, ".new-", 5) == 0) {
		path += 5;
		if (*path < '0' || *path > '9')
			return (0);
		while (*path >= '0' && *path <= '9')
			path++;
	}
	return (*path == '\0' || strcmp(path, "-wal") == 0 ||
	    strcmp(path, "-journal") == 0);
}

/* A whole file into a new buffer; -1 when it cannot be read. */
static int
plvfs_slurp(const char *path, struct plvfs_buf *b)
{
	struct stat	 sb;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	memset(b, 0, sizeof *b);
	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1)
		return (-1);
	if (fstat(fd, &sb) != 0) {
		close(fd);
		return (-1);
	}
	plvfs_buf_fit(b, (size_t)sb.st_size);
	while (got < (size_t)sb.st_size) {
		n = read(fd, b->data + got, (size_t)sb.st_size - got);
		if (n <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	close(fd);
	b->size = got;
	return (0);
}

/* Make room for size bytes; new bytes are zero (a file's hole). */
static void
plvfs_buf_fit(struct plvfs_buf *b, size_t size)
{
	size_t	 alloc;

	if (size > b->alloc) {
		alloc = b->alloc == 0 ? 65536 : b->alloc;
		while (alloc < size)
			alloc *= 2;
		b->data = xrealloc(b->data, alloc);
		memset(b->data + b->alloc, 0, alloc - b->alloc);
		b->alloc = alloc;
	}
}

/* Record an unsynced change to an inode. */
static void
plvfs_op_add(struct plvfs_inode *n, int kind, int64_t off, const void *data,
    size_t len)
{
	struct plvfs_op	*op;

	if (n->nops == n->opsalloc) {
		n->opsalloc = n->opsalloc == 0 ? 16 : n->opsalloc * 2;
		n->ops = xreallocarray(n->ops, n->opsalloc, sizeof *n->ops);
	}
	op = &n->ops[n->nops++];
	op->kind = kind;
	op->off = off;
	op->len = len;
	op->data = NULL;
	if (len != 0) {
		op->data = xmalloc(len);
		memcpy(op->data, data, len);
	}
}

/* An xSync: the inode's recorded changes become its durable content. */
static void
plvfs_inode_sync(struct plvfs_inode *n)
{
	struct plvfs_buf	 b;
	size_t			 i;

	b.data = n->dur;
	b.size = n->dursize;
	b.alloc = n->dursize;
	for (i = 0; i < n->nops; i++) {
		plvfs_put(&b, n->ops[i].off, n->ops[i].data, n->ops[i].len,
		    n->ops[i].kind, 0);
		free(n->ops[i].data);
	}
	n->nops = 0;
	n->dur = b.data;
	n->dursize = b.size;
}

/* A directory sync: every name now is durable. */
static void
plvfs_dir_sync(void)
{
	struct plvfs_path	*p;

	for (p = pl.paths; p != NULL; p = p->next)
		p->dur = p->cur;
}

/* Count an I/O event; at the chosen one, lose power. */
static void
plvfs_event(const char *what)
{
	if (!pl.armed)
		return;
	if (++pl.events == pl.crash_at)
		plvfs_crash(what);
}

/*
 * Apply a change to content: a write's bytes (how = 0 new, 1 garbage) or
 * a truncation.  Garbage spreads to whole sectors unless the device
 * promises power-safe overwrites.
 */
static void
plvfs_put(struct plvfs_buf *b, int64_t off, const unsigned char *data,
    size_t len, int kind, int how)
{
	size_t	 start = (size_t)off, end, i;

	if (kind == PLVFS_TRUNCATE) {
		plvfs_buf_fit(b, start);
		if (start > b->size)
			memset(b->data + b->size, 0, start - b->size);
		b->size = start;
		return;
	}
	end = start + len;
	plvfs_buf_fit(b, end);
	if (start > b->size)
		memset(b->data + b->size, 0, start - b->size);
	if (how == 0)
		memcpy(b->data + start, data, len);
	else {
		for (i = start; i < end; i++)
			b->data[i] = (unsigned char)plvfs_rand();
	}
	if (end > b->size)
		b->size = end;
}

/*
 * What survives of one inode: its durable content, then each unsynced
 * change kept, dropped or (torn) kept sector by sector.
 */
static void
plvfs_survive(struct plvfs_inode *n, struct plvfs_buf *b,
    struct plvfs_crash *c, int psow)
{
	struct plvfs_op	*op;
	size_t		 i, at, next, end, lo, hi;
	int		 fate, part;

	memset(b, 0, sizeof *b);
	plvfs_buf_fit(b, n->dursize);
	if (n->dursize != 0)
		memcpy(b->data, n->dur, n->dursize);
	b->size = n->dursize;
	for (i = 0; i < n->nops; i++) {
		op = &n->ops[i];
		c->pending++;
		if (pl.mode == PLVFS_TEAR)
			fate = (int)(plvfs_rand() % 3);
		else
			fate = pl.mode == PLVFS_KEEP ? 0 : 1;
		if (op->kind == PLVFS_TRUNCATE && fate == 2)
			fate = (int)(plvfs_rand() % 2);
		if (fate == 1)
			continue;
		if (fate == 0) {
			c->kept++;
			plvfs_put(b, op->off, op->data, op->len, op->kind, 0);
			continue;
		}
		c->partial++;
		end = (size_t)op->off + op->len;
		for (at = (size_t)op->off; at < end; at = next) {
			next = (at / PLVFS_SECTOR + 1) * PLVFS_SECTOR;
			if (next > end)
				next = end;
			part = (int)(plvfs_rand() % 10);
			if (part < 5) {
				plvfs_put(b, (int64_t)at, op->data +
				    (at - (size_t)op->off), next - at,
				    PLVFS_WRITE, 0);
			} else if (part == 9) {
				c->garbage++;
				lo = at;
				hi = next;
				if (!psow) {
					lo = at / PLVFS_SECTOR * PLVFS_SECTOR;
					hi = (at / PLVFS_SECTOR + 1) *
					    PLVFS_SECTOR;
				}
				plvfs_put(b, (int64_t)lo, NULL, hi - lo,
				    PLVFS_WRITE, 1);
			}
		}
	}
}

/* Replace a file on disk with what survived. */
static void
plvfs_write_out(const char *path, const struct plvfs_buf *b)
{
	ssize_t	 n;
	size_t	 done = 0;
	int	 fd;

	fd = open(path, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0600);
	if (fd == -1)
		fatal("powerloss: %s", path);
	while (done < b->size) {
		n = write(fd, b->data + done, b->size - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("powerloss: write %s", path);
		done += (size_t)n;
	}
	if (close(fd) != 0)
		fatal("powerloss: close %s", path);
}

/* Power is lost: rewrite every file to what survived, then tell. */
static void
plvfs_crash(const char *during)
{
	struct plvfs_crash	 c;
	struct plvfs_path	*p;
	struct plvfs_inode	*n;
	struct plvfs_buf	 b;
	char			*shm;

	memset(&c, 0, sizeof c);
	c.mode = pl.mode;
	c.event = pl.events;
	c.during = during;
	pl.armed = 0;
	for (p = pl.paths; p != NULL; p = p->next) {
		n = p->dur;
		if (p->cur != p->dur) {
			c.entries++;
			if (pl.mode == PLVFS_KEEP || (pl.mode == PLVFS_TEAR &&
			    plvfs_rand() % 2 == 0)) {
				n = p->cur;
				c.entries_kept++;
			}
		}
		if (n == NULL) {
			if (unlinkat(AT_FDCWD, p->path, 0) != 0 &&
			    errno != ENOENT)
				fatal("powerloss: unlink %s", p->path);
			continue;
		}
		/* Names linked to one inode keep one content. */
		if (!n->survived) {
			plvfs_survive(n, &b, &c, pl.psow);
			n->surv = b.data;
			n->survsize = b.size;
			n->survived = 1;
		}
		b.data = n->surv;
		b.size = n->survsize;
		plvfs_write_out(p->path, &b);
	}
	xasprintf(&shm, "%s-shm", pl.db);
	if (plvfs_rand() % 2 == 0)
		unlinkat(AT_FDCWD, shm, 0);
	free(shm);
	if (pl.cb != NULL)
		pl.cb(&c, pl.arg);
	_exit(98);
}

/* Open a file; the database and its journals are recorded when armed. */
static int
plvfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags,
    int *outflags)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;
	struct plvfs_path	*p;
	struct plvfs_buf	 b;
	int			 rc, tracked, existed = 0;

	(void)vfs;
	memset(f, 0, sizeof *f);
	f->real = (sqlite3_file *)(f + 1);
	tracked = pl.db != NULL && plvfs_tracked(name);
	if (tracked)
		existed = access(name, F_OK) == 0;
	rc = pl.real->xOpen(pl.real, name, f->real, flags, outflags);
	if (rc != SQLITE_OK) {
		f->base.pMethods = NULL;
		return (rc);
	}
	f->base.pMethods = &plvfs_io;
	if (!tracked)
		return (SQLITE_OK);
	p = plvfs_path_get(name);
	if (p->cur == NULL) {
		/* New since arming (or made outside SQLite): not durable. */
		p->cur = plvfs_inode_new();
		if (existed && plvfs_slurp(name, &b) == 0) {
			if (b.size != 0)
				plvfs_op_add(p->cur, PLVFS_WRITE, 0, b.data,
				    b.size);
			free(b.data);
		}
	}
	f->inode = p->cur;
	if (!(f->real->pMethods->xDeviceCharacteristics(f->real) &
	    SQLITE_IOCAP_POWERSAFE_OVERWRITE))
		pl.psow = 0;
	f->dirsync = (flags & SQLITE_OPEN_CREATE) && (flags &
	    (SQLITE_OPEN_WAL|SQLITE_OPEN_MAIN_JOURNAL|
	    SQLITE_OPEN_SUPER_JOURNAL));
	return (SQLITE_OK);
}

/*
 * link(2), seen by the model: the new name has the old one's inode, and is
 * durable only after a directory sync.  The real link is made by linkat.
 */
int
link(const char *from, const char *to)
{
	struct plvfs_path	*p, *q;

	if (pl.db != NULL && plvfs_tracked(to) && plvfs_tracked(from)) {
		plvfs_event("link");
		p = plvfs_path_get(from);
		if (p->cur != NULL && access(to, F_OK) != 0) {
			q = plvfs_path_get(to);
			q->cur = p->cur;
		}
	}
	return (linkat(AT_FDCWD, from, AT_FDCWD, to, 0));
}

/*
 * unlink(2), seen by the model: a recorded name goes now, durably only
 * after a directory sync.
 */
int
unlink(const char *path)
{
	struct plvfs_path	*p;

	if (pl.db != NULL && !pl.deleting && plvfs_tracked(path)) {
		plvfs_event("unlink");
		p = plvfs_path_get(path);
		p->cur = NULL;
	}
	return (unlinkat(AT_FDCWD, path, 0));
}

/*
 * fsync(2), seen by the model: syncing the database's directory makes
 * every name in it durable (files are synced through the VFS alone).
 */
int
fsync(int fd)
{
	struct stat	 sb, dsb;
	char		*dir, *slash;

	if (pl.db != NULL && fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		dir = xstrdup(pl.db);
		if ((slash = strrchr(dir, '/')) == NULL) {
			free(dir);
			dir = xstrdup(".");
		} else if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (stat(dir, &dsb) == 0 && dsb.st_dev == sb.st_dev &&
		    dsb.st_ino == sb.st_ino) {
			plvfs_event("dirsync");
			plvfs_dir_sync();
		}
		free(dir);
	}
	return ((int)syscall(SYS_fsync, fd));
}

/* Delete a file: the name goes now, durably only with a directory sync. */
static int
plvfs_delete(sqlite3_vfs *vfs, const char *name, int dirsync)
{
	struct plvfs_path	*p;
	int			 rc;

	(void)vfs;
	if (pl.db == NULL || !plvfs_tracked(name))
		return (pl.real->xDelete(pl.real, name, dirsync));
	p = plvfs_path_get(name);
	p->cur = NULL;
	plvfs_event("delete");
	if (dirsync)
		plvfs_dir_sync();
	pl.deleting = 1;	/* its unlink(2) is this event, not another */
	rc = pl.real->xDelete(pl.real, name, 0);
	pl.deleting = 0;
	return (rc);
}

/* The rest of the VFS is the platform's. */
static int
plvfs_access(sqlite3_vfs *vfs, const char *name, int flags, int *out)
{
	(void)vfs;
	return (pl.real->xAccess(pl.real, name, flags, out));
}

/* See plvfs_access. */
static int
plvfs_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out)
{
	(void)vfs;
	return (pl.real->xFullPathname(pl.real, name, n, out));
}

/* See plvfs_access. */
static void *
plvfs_dlopen(sqlite3_vfs *vfs, const char *path)
{
	(void)vfs;
	return (pl.real->xDlOpen(pl.real, path));
}

/* See plvfs_access. */
static void
plvfs_dlerror(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	pl.real->xDlError(pl.real, n, msg);
}

/* See plvfs_access. */
static void
(*plvfs_dlsym(sqlite3_vfs *vfs, void *h, const char *sym))(void)
{
	(void)vfs;
	return (pl.real->xDlSym(pl.real, h, sym));
}

/* See plvfs_access. */
static void
plvfs_dlclose(sqlite3_vfs *vfs, void *h)
{
	(void)vfs;
	pl.real->xDlClose(pl.real, h);
}

/* See plvfs_access. */
static int
plvfs_randomness(sqlite3_vfs *vfs, int n, char *out)
{
	(void)vfs;
	return (pl.real->xRandomness(pl.real, n, out));
}

/* See plvfs_access. */
static int
plvfs_sleep(sqlite3_vfs *vfs, int us)
{
	(void)vfs;
	return (pl.real->xSleep(pl.real, us));
}

/* See plvfs_access. */
static int
plvfs_current_time(sqlite3_vfs *vfs, double *t)
{
	(void)vfs;
	return (pl.real->xCurrentTime(pl.real, t));
}

/* See plvfs_access. */
static int
plvfs_last_error(sqlite3_vfs *vfs, int n, char *msg)
{
	(void)vfs;
	return (pl.real->xGetLastError(pl.real, n, msg));
}

/* See plvfs_access. */
static int
plvfs_current_time64(sqlite3_vfs *vfs, sqlite3_int64 *t)
{
	(void)vfs;
	return (pl.real->xCurrentTimeInt64(pl.real, t));
}

/* Close the platform's file. */
static int
plvfs_close(sqlite3_file *file)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	if (f->real->pMethods == NULL)
		return (SQLITE_OK);
	return (f->real->pMethods->xClose(f->real));
}

/* Reads see every write, synced or not, as in a running system. */
static int
plvfs_read(sqlite3_file *file, void *buf, int n, sqlite3_int64 off)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xRead(f->real, buf, n, off));
}

/* A write: recorded as unsynced, then made on the real file. */
static int
plvfs_write(sqlite3_file *file, const void *buf, int n, sqlite3_int64 off)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	if (f->inode != NULL) {
		plvfs_op_add(f->inode, PLVFS_WRITE, off, buf, (size_t)n);
		plvfs_event("write");
	}
	return (f->real->pMethods->xWrite(f->real, buf, n, off));
}

/* A truncation: recorded as unsynced, then made on the real file. */
static int
plvfs_truncate(sqlite3_file *file, sqlite3_int64 size)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	if (f->inode != NULL) {
		plvfs_op_add(f->inode, PLVFS_TRUNCATE, size, NULL, 0);
		plvfs_event("truncate");
	}
	return (f->real->pMethods->xTruncate(f->real, size));
}

/*
 * A sync: this file's changes become durable (and, once, its directory);
 * the real fsync is not needed, the real disk keeps its power.
 */
static int
plvfs_sync(sqlite3_file *file, int flags)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	if (f->inode == NULL)
		return (f->real->pMethods->xSync(f->real, flags));
	plvfs_event("sync");
	plvfs_inode_sync(f->inode);
	if (f->dirsync) {
		plvfs_dir_sync();
		f->dirsync = 0;
	}
	return (SQLITE_OK);
}

/* The rest of a file's methods are the platform's. */
static int
plvfs_file_size(sqlite3_file *file, sqlite3_int64 *size)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xFileSize(f->real, size));
}

/* See plvfs_file_size. */
static int
plvfs_lock(sqlite3_file *file, int lock)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xLock(f->real, lock));
}

/* See plvfs_file_size. */
static int
plvfs_unlock(sqlite3_file *file, int lock)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xUnlock(f->real, lock));
}

/* See plvfs_file_size. */
static int
plvfs_check_reserved(sqlite3_file *file, int *out)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xCheckReservedLock(f->real, out));
}

/* See plvfs_file_size. */
static int
plvfs_file_control(sqlite3_file *file, int op, void *arg)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xFileControl(f->real, op, arg));
}

/* See plvfs_file_size. */
static int
plvfs_sector_size(sqlite3_file *file)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xSectorSize(f->real));
}

/* The platform's promises, which plvfs_crash honours. */
static int
plvfs_device(sqlite3_file *file)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xDeviceCharacteristics(f->real));
}

/* See plvfs_file_size: the WAL index is memory, rebuilt after a crash. */
static int
plvfs_shm_map(sqlite3_file *file, int pg, int sz, int extend,
    void volatile **pp)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xShmMap(f->real, pg, sz, extend, pp));
}

/* See plvfs_file_size. */
static int
plvfs_shm_lock(sqlite3_file *file, int off, int n, int flags)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xShmLock(f->real, off, n, flags));
}

/* See plvfs_file_size. */
static void
plvfs_shm_barrier(sqlite3_file *file)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	f->real->pMethods->xShmBarrier(f->real);
}

/* See plvfs_file_size. */
static int
plvfs_shm_unmap(sqlite3_file *file, int del)
{
	struct plvfs_file	*f = (struct plvfs_file *)file;

	return (f->real->pMethods->xShmUnmap(f->real, del));
}
