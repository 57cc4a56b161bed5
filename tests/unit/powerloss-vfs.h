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
 * powerloss-vfs.h: a test-only SQLite VFS that simulates losing power.  It
 * is linked into tests/unit/test-powerloss alone, never into sluice or
 * libsluice.a.  See powerloss-vfs.c for the model it follows.
 */

#ifndef SLUICE_POWERLOSS_VFS_H
#define SLUICE_POWERLOSS_VFS_H

#include <stdint.h>

/* What a simulated power loss did to the unsynced writes. */
struct plvfs_crash {
	int		 mode;		/* PLVFS_DROP, PLVFS_TEAR, PLVFS_KEEP */
	int64_t		 event;		/* the I/O event it struck during */
	const char	*during;	/* "write", "sync", "truncate", "delete" */
	int64_t		 pending;	/* unsynced writes and truncations */
	int64_t		 kept;		/* of those, kept whole */
	int64_t		 partial;	/* kept in part (torn by sector) */
	int64_t		 garbage;	/* sectors left holding garbage */
	int64_t		 entries;	/* directory changes not yet durable */
	int64_t		 entries_kept;	/* of those, kept */
};

typedef void	(*plvfs_crash_cb)(const struct plvfs_crash *, void *);

#define PLVFS_SECTOR	512	/* the unit a torn write is kept in */

/* What happens to unsynced changes when power is lost. */
#define PLVFS_DROP	0	/* all lost */
#define PLVFS_TEAR	1	/* each kept, lost or kept in part */
#define PLVFS_KEEP	2	/* all reached the disk, the sync never returned */

int	 plvfs_register(void);
void	 plvfs_arm(const char *, int64_t, uint64_t, int, plvfs_crash_cb,
	     void *);
void	 plvfs_disarm(void);
int64_t	 plvfs_events(void);

#endif /* SLUICE_POWERLOSS_VFS_H */
