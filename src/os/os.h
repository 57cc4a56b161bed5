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
 * os.h: the operating-system layer.  One poll() loop with fd watchers,
 * monotonic timers, deferred calls and before-sleep hooks; signals through
 * a self-pipe; child processes in their own process groups with their
 * output read through the loop; the engine's lock file.  No threads, no
 * sleeps, no blocking waitpid: everything that waits, waits in poll().
 */

#ifndef SLUICE_OS_H
#define SLUICE_OS_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

/* loop.c */
struct loop;
struct loop_fd;
struct loop_timer;

typedef void	 (*loop_fd_cb)(int, short, void *);	/* fd, revents */
typedef void	 (*loop_cb)(void *);

struct loop	*loop_create(void);
void		 loop_free(struct loop *);
int		 loop_run(struct loop *);	/* until loop_break */
int		 loop_once(struct loop *, int);	/* one turn; arg: may block */
void		 loop_break(struct loop *);
void		 loop_resume(struct loop *);	/* undo loop_break */
int		 loop_stopped(const struct loop *);

/*
 * Watch a descriptor for POLLIN/POLLOUT; POLLHUP/POLLERR always reported.
 * Events 0 leaves it out of poll() until loop_fd_events turns it back on.
 * loop_fd_del is safe inside any callback; watchers die with their loop.
 */
struct loop_fd	*loop_fd_add(struct loop *, int, short, loop_fd_cb, void *);
void		 loop_fd_events(struct loop_fd *, short);
void		 loop_fd_del(struct loop_fd *);

/*
 * Re-armable one-shot timers on CLOCK_MONOTONIC, in milliseconds; starting
 * a pending timer re-arms it.  Stop or free any timer from any callback.
 */
struct loop_timer *loop_timer_create(struct loop *, loop_cb, void *);
void		 loop_timer_start(struct loop_timer *, int64_t);
void		 loop_timer_stop(struct loop_timer *);
int		 loop_timer_pending(const struct loop_timer *);
void		 loop_timer_free(struct loop_timer *);

/*
 * Deferred calls run in order before the loop next sleeps; before-sleep
 * hooks run after the deferred queue is empty, just before poll() (the
 * engine commits its turn there, the console draws there).  A hook that
 * defers more work sends the loop round again without sleeping.
 */
void		 loop_defer(struct loop *, loop_cb, void *);
void		 loop_hook_add(struct loop *, loop_cb, void *);
void		 loop_hook_del(struct loop *, loop_cb, void *);

/*
 * A barrier holds back every watcher, signal, timer and deferred call not
 * marked to pass it: its callback runs (and must lift it) before the first
 * of them is dispatched.  proc.c's pipes and SIGCHLD pass.
 */
void		 loop_barrier(struct loop *, loop_cb, void *);
void		 loop_barrier_cross(struct loop *);
void		 loop_fd_pass(struct loop_fd *);

/*
 * signal.c: handlers only write the number to the self-pipe.  A NULL
 * callback puts the old disposition back.  SIGCHLD belongs to proc.c.
 */
typedef void	 (*loop_signal_cb)(int, void *);
int		 loop_signal(struct loop *, int, loop_signal_cb, void *);
void		 loop_signal_pass(struct loop *, int);	/* past a barrier */
void		 loop_signal_reset(void);	/* in a child: defaults back */

/* proc.c: child processes. */
struct proc;

#define PROC_F_INHERIT	0x2	/* keep our stdin/stdout/stderr (an editor) */
#define PROC_F_NOPGRP	0x4	/* stay in our process group (an editor) */
#define PROC_F_TALK	0x8	/* stdin a pipe kept open: proc_write */
#define PROC_F_PASS	0x10	/* output and end seen past a barrier */

/* fence.c and fence-keeper.c: a cluster leader's local deadline. */
struct fence_keeper {
	pid_t		 pid;
	int		 fd;		/* our end, close-on-exec */
	int64_t		 deadline;	/* as last sent */
};

int64_t		 fence_now_ms(void);	/* CLOCK_BOOTTIME */
int		 fence_expired(int64_t);
int		 fence_send(int, char, int64_t);
int		 fence_send_group(int, pid_t, char *const *);
#define FENCE_MSG_MAX	2048	/* a message to the keeper, at most */
struct fence_keeper *fence_keeper_start(int64_t, char **);
int		 fence_keeper_renew(struct fence_keeper *, int64_t);
void		 fence_keeper_forget(struct fence_keeper *, pid_t);
int		 fence_keeper_alive(struct fence_keeper *);
void		 fence_keeper_free(struct fence_keeper *);

/*
 * A fence, looked at by the child as its last step before exec: path (if
 * set) must still name the file dev and ino (the engine's lock file); the
 * deadline (fence clock ms, if set) must not have passed; the keeper (if
 * set) must have been told the child's group.  Otherwise the child exits
 * 127 and sets lost to why, which the parent (blocked in vfork meanwhile)
 * reads once the child is gone.
 */
#define PROC_FENCE_MOVED	1	/* the lock file is not ours */
#define PROC_FENCE_EXPIRED	2	/* past the deadline */
#define PROC_FENCE_NOKEEPER	3	/* the keeper cannot be told */
struct proc_fence {
	const char	*path;
	dev_t		 dev;
	ino_t		 ino;
	volatile int64_t deadline;
	const struct fence_keeper *keeper;
	volatile int	 lost;
};

struct proc_spec {
	char *const	*argv;		/* argv[0] looked up in PATH */
	char *const	*envp;		/* the whole environment */
	const char	*cwd;		/* NULL: ours */
	int		 flags;		/* PROC_F_* */
	const char	*stdin_data;	/* NULL: stdin is /dev/null; else */
	size_t		 stdin_len;	/* written to a pipe, then closed */
	struct proc_fence *fence;	/* NULL: none */
	/*
	 * "NAME=value" entries (NULL-terminated) that the child's
	 * environment carries and its descendants inherit: a kill reaches
	 * every process carrying them all, also those that left the group
	 * (setsid).  NULL: the group only.
	 */
	char *const	*marks;
	/*
	 * Once the child is reaped, read its pipes at most this long (ms)
	 * more, then close them and finish: a descendant that keeps them
	 * open cannot hold the child forever.  0: until EOF.
	 */
	int64_t		 pipe_grace;
};

/* Output from the child: stream 1 or 2, a chunk as read. */
typedef void	 (*proc_output_cb)(struct proc *, int, const char *, size_t,
		     void *);
/* Reaped and both pipes at EOF: the wait status.  The proc is freed after. */
typedef void	 (*proc_exit_cb)(struct proc *, int, void *);

struct proc	*proc_spawn(struct loop *, const struct proc_spec *,
		     proc_output_cb, proc_exit_cb, void *, char **);
void		 proc_kill(struct proc *, int64_t);	/* TERM, KILL after ms */
/* PROC_F_TALK: queue data for stdin; close it once what is queued is out. */
int		 proc_write(struct proc *, const char *, size_t);
void		 proc_write_close(struct proc *);
void		 proc_abandon(struct proc *);	/* forget: no callbacks */
pid_t		 proc_pid(const struct proc *);
pid_t		 proc_pgid(const struct proc *);
int64_t		 proc_start_time(struct proc *);
/* Children not yet reaped, abandoned ones aside. */
int		 proc_running(const struct loop *);

/* procstat.c: telling our leftover process from one that reused its pid. */
int64_t		 procstat_start_time(pid_t);	/* Unix ms, 0 unknown */
int		 procstat_same(pid_t, int64_t);	/* alive with this start */
int		 procstat_group_alive(pid_t);
size_t		 procstat_descendants(pid_t, pid_t *, size_t);
int		 procstat_info(pid_t, char *, pid_t *, int64_t *);

/* procscan.c: one look at every process, for recovery. */
struct procscan;
struct procscan	*procscan_take(const char *const *);
size_t		 procscan_find(const struct procscan *, const char *const *,
		     pid_t, pid_t *, int64_t *, size_t);
int		 procscan_group_alive(const struct procscan *, pid_t);
void		 procscan_free(struct procscan *);

/* proctree.c: descendants from the kernel's children lists. */
int		 proctree_supported(void);
size_t		 proctree_children_of(pid_t, pid_t *, size_t);
size_t		 proctree_descendants(pid_t, pid_t *, size_t);

/* procenv.c: processes by their environment (Linux /proc). */
size_t		 procenv_find(const char *const *, pid_t *, size_t);
size_t		 procenv_find_any(const char *const *const *, size_t, pid_t *,
		     size_t);
size_t		 procenv_adopted(const char *const *, int (*)(pid_t, void *),
		     void *, pid_t *, size_t);
int		 procenv_subreaper(void);

/* lock.c: the engine lock, a flock on DB.lock beside the database. */
#define LOCK_TAKEN	0
#define LOCK_HELD	1	/* another process holds it */
int		 lock_take(const char *, int *, char **);
void		 lock_release(int);
int		 lock_probe(const char *);	/* 1 held by someone, 0 not */
char		*lock_file(const char *);	/* DB.lock's path */
int		 lock_same(int, const char *);	/* 1 path names fd's file */

/* lockers.c: who holds a lock that keeps a writer of the database out. */
char		*lockers_describe(const char *);	/* NULL: none seen */

/* sdnotify.c: state messages to the service manager (sd_notify). */
int		 sdnotify_init(void);
int		 sdnotify(const char *);
int		 sdnotify_reloading(void);

/* sock.c: the engine's socket, DB.sock beside the database. */
char		*sock_path(const char *);
int		 sock_listen(const char *, char **);
int		 sock_accept(int);
int		 sock_connect(const char *);
int		 sock_peer(int, uid_t *, pid_t *);
int		 sock_write_all(int, const char *, size_t, int64_t);
char		*sock_read_line(int, size_t, int64_t);

#endif /* SLUICE_OS_H */
